import type { Database } from "better-sqlite3";
import { StoreError } from "@driftwatch/core";

/** One schema step. Versions are consecutive; a released migration is never edited, only appended. */
export interface SqliteMigration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The schema, as a versioned list. JSON columns are TEXT, times are ISO 8601 UTC TEXT
 * (`2026-01-02T03:04:05.678Z`, so text order is time order), booleans are 0/1.
 * Every tenant table carries `org_id`; every query filters on it.
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: "initial",
    sql: `
CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  scopes TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
) STRICT;
CREATE INDEX tokens_org ON tokens (org_id, id);

CREATE TABLE monitors (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  name TEXT NOT NULL,
  url TEXT NOT NULL,
  method TEXT NOT NULL,
  headers TEXT NOT NULL,
  body TEXT,
  interval_seconds INTEGER NOT NULL,
  selector TEXT,
  browser_options TEXT,
  state TEXT NOT NULL,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  last_checked_at TEXT,
  last_changed_at TEXT,
  next_check_at TEXT,
  last_status INTEGER,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  lease_owner TEXT,
  lease_expires_at TEXT
) STRICT;
CREATE INDEX monitors_org ON monitors (org_id, id);
CREATE INDEX monitors_due ON monitors (next_check_at) WHERE state IN ('active', 'failing');

CREATE TABLE snapshots (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  monitor_id TEXT NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  fetched_at TEXT NOT NULL,
  status INTEGER NOT NULL,
  latency_ms INTEGER NOT NULL,
  content_type TEXT,
  content_hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  browser_render INTEGER NOT NULL,
  body TEXT NOT NULL,
  etag TEXT,
  last_modified TEXT
) STRICT;
CREATE INDEX snapshots_monitor ON snapshots (monitor_id, id);

-- snapshot_id has no foreign key: retention drops old snapshots, the diffs stay.
CREATE TABLE diffs (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  monitor_id TEXT NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  snapshot_id TEXT NOT NULL,
  previous_snapshot_id TEXT,
  classification TEXT NOT NULL,
  top_severity TEXT NOT NULL,
  top_severity_rank INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  data TEXT NOT NULL
) STRICT;
CREATE INDEX diffs_monitor ON diffs (monitor_id, id);

CREATE TABLE settings (
  monitor_id TEXT PRIMARY KEY REFERENCES monitors(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL,
  policy_rules TEXT NOT NULL,
  snapshot_retention INTEGER NOT NULL,
  updated_at TEXT
) STRICT;

CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  description TEXT,
  events TEXT NOT NULL,
  monitor_ids TEXT,
  min_severity TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX webhooks_org ON webhooks (org_id, id);

-- monitor_id and diff_id have no foreign key: the delivery log outlives a deleted monitor.
CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  monitor_id TEXT NOT NULL,
  diff_id TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  last_attempt_at TEXT,
  last_response_status INTEGER,
  last_error TEXT,
  created_at TEXT NOT NULL,
  payload TEXT NOT NULL,
  lease_owner TEXT,
  lease_expires_at TEXT
) STRICT;
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, id);
CREATE INDEX deliveries_pending ON deliveries (next_attempt_at) WHERE state = 'pending';

CREATE TABLE delivery_attempts (
  delivery_id TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  org_id TEXT NOT NULL,
  at TEXT NOT NULL,
  response_status INTEGER,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
) STRICT;

CREATE TABLE idempotency_keys (
  org_id TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  response_status INTEGER,
  response_body TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (org_id, key)
) STRICT;

CREATE TABLE rate_limits (
  key TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL,
  reset_at INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
) STRICT;
CREATE INDEX rate_limits_reset ON rate_limits (reset_at);
`,
  },
  {
    version: 2,
    name: "settings_auto_apply_suggestions",
    sql: `
ALTER TABLE settings ADD COLUMN auto_apply_suggestions INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    version: 3,
    name: "people",
    sql: `
-- Users are global; emails are stored trimmed and lower-cased, and unique whatever their case.
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  display_name TEXT NOT NULL,
  password_hash TEXT,
  created_at TEXT NOT NULL,
  password_changed_at TEXT
) STRICT;
CREATE UNIQUE INDEX users_email ON users (lower(email));

CREATE TABLE memberships (
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('viewer', 'member', 'admin', 'owner')),
  created_at TEXT NOT NULL,
  PRIMARY KEY (org_id, user_id)
) STRICT;
CREATE INDEX memberships_org ON memberships (org_id, created_at, user_id);
CREATE INDEX memberships_user ON memberships (user_id, created_at);

-- Only the hash of a session's secret is stored. org_id is the organization it acts in.
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  session_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  revoked_at TEXT,
  user_agent TEXT,
  ip TEXT
) STRICT;
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_org ON sessions (org_id);

-- invited_by and accepted_by are user ids kept as written (no foreign key), like the audit log's actor_id.
CREATE TABLE invites (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('viewer', 'member', 'admin', 'owner')),
  token_hash TEXT NOT NULL UNIQUE,
  invited_by TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  accepted_at TEXT,
  accepted_by TEXT,
  revoked_at TEXT
) STRICT;
CREATE INDEX invites_org ON invites (org_id, id);

-- org_id is null for entries of no organization (a failed sign-in of an unknown email).
CREATE TABLE audit_log (
  id TEXT PRIMARY KEY,
  org_id TEXT REFERENCES organizations(id) ON DELETE CASCADE,
  actor_type TEXT NOT NULL,
  actor_id TEXT,
  action TEXT NOT NULL,
  target_id TEXT,
  data TEXT NOT NULL,
  ip TEXT,
  at TEXT NOT NULL
) STRICT;
CREATE INDEX audit_log_org ON audit_log (org_id, id);
`,
  },
  {
    version: 4,
    name: "monitor_tags",
    sql: `
-- A JSON array of normalised tags; monitors of earlier versions have none.
ALTER TABLE monitors ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
`,
  },
  {
    version: 5,
    name: "token_created_by",
    sql: `
-- The user who created the token (null: the CLI, the setup, or made before this version).
ALTER TABLE tokens ADD COLUMN created_by TEXT;
CREATE INDEX tokens_created_by ON tokens (org_id, created_by) WHERE created_by IS NOT NULL;
`,
  },
  {
    version: 6,
    name: "learning_defaults",
    sql: `
-- What a new monitor's autoApplySuggestions starts with; every organization learns by default.
-- Existing monitors keep their settings (no row reads false).
ALTER TABLE organizations ADD COLUMN learn_noise_by_default INTEGER NOT NULL DEFAULT 1;
-- Learned entries a user rejected (a JSON array of { kind, path | selector }).
ALTER TABLE settings ADD COLUMN rejected_suggestions TEXT NOT NULL DEFAULT '[]';
-- What a check that recorded no diff hid (JSON, bounded), on the snapshot it stored.
ALTER TABLE snapshots ADD COLUMN silenced TEXT;
`,
  },
  {
    version: 7,
    name: "notification_channels",
    sql: `
-- Notification channels (Slack, Discord, e-mail, ... by one Apprise URL). url_sealed is the URL
-- sealed by the server's secret box (it holds tokens and passwords); url_masked has them as ***.
CREATE TABLE channels (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  service TEXT NOT NULL,
  url_sealed TEXT NOT NULL,
  url_masked TEXT NOT NULL,
  min_severity TEXT NOT NULL,
  tags TEXT NOT NULL,
  events TEXT NOT NULL,
  group_seconds INTEGER NOT NULL,
  quiet_hours TEXT,
  template TEXT,
  paused INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'failing')),
  status_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX channels_org ON channels (org_id, id);

-- The channels' outbox: one row per message, unique per (channel, dedup key), so a retried check
-- or a restarted worker never adds a message twice. monitor_id and diff_id have no foreign key.
CREATE TABLE channel_deliveries (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  channel_id TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
  dedup_key TEXT NOT NULL,
  event_type TEXT NOT NULL,
  monitor_id TEXT,
  diff_id TEXT,
  payload TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  last_attempt_at TEXT,
  last_response_status INTEGER,
  last_error TEXT,
  created_at TEXT NOT NULL,
  lease_owner TEXT,
  lease_expires_at TEXT
) STRICT;
CREATE UNIQUE INDEX channel_deliveries_dedup ON channel_deliveries (channel_id, dedup_key);
CREATE INDEX channel_deliveries_channel ON channel_deliveries (org_id, channel_id, id);
CREATE INDEX channel_deliveries_pending ON channel_deliveries (next_attempt_at) WHERE state = 'pending';

CREATE TABLE channel_delivery_attempts (
  delivery_id TEXT NOT NULL REFERENCES channel_deliveries(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  org_id TEXT NOT NULL,
  at TEXT NOT NULL,
  response_status INTEGER,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
) STRICT;
`,
  },
  {
    version: 8,
    name: "screenshots_secrets",
    sql: `
-- A snapshot's screenshot (website monitors rendered with browserOptions.screenshot), gone with
-- its snapshot (retention, monitor deletion). data: the image's bytes as base64 (PNG or WebP).
CREATE TABLE screenshots (
  snapshot_id TEXT PRIMARY KEY REFERENCES snapshots(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL,
  monitor_id TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('image/png', 'image/webp')),
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX screenshots_monitor ON screenshots (org_id, monitor_id, snapshot_id);

-- The page of a monitor's latest failed browser step (step: JSON { index, action, selector }).
CREATE TABLE failure_screenshots (
  monitor_id TEXT PRIMARY KEY REFERENCES monitors(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL,
  step TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('image/png', 'image/webp')),
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX failure_screenshots_org ON failure_screenshots (org_id, monitor_id);

-- Secrets browser steps use by name; only the sealed value (AES-256-GCM with the server key) is stored.
CREATE TABLE secrets (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  sealed_value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_by TEXT
) STRICT;
CREATE UNIQUE INDEX secrets_name ON secrets (org_id, name);
`,
  },
  {
    version: 9,
    name: "tracked_values",
    sql: `
-- What a monitor tracks (a JSON array of { name, path | selector, extract?, attribute? }) and its
-- alert conditions (JSON, null: none).
ALTER TABLE settings ADD COLUMN track TEXT NOT NULL DEFAULT '[]';
ALTER TABLE settings ADD COLUMN alert TEXT;
-- One row per tracked value per check: the value (JSON, null when missing, with the reason).
CREATE TABLE tracked_values (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  monitor_id TEXT NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  at TEXT NOT NULL,
  snapshot_id TEXT NOT NULL,
  value TEXT,
  reason TEXT
) STRICT;
CREATE INDEX tracked_values_monitor ON tracked_values (monitor_id, name, id);
-- The alert evaluator's state a monitor's next check starts from (JSON: previous values, streaks).
CREATE TABLE alert_states (
  monitor_id TEXT PRIMARY KEY REFERENCES monitors(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL,
  state TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
`,
  },
  {
    version: 10,
    name: "monitor_contract",
    sql: `
-- An api monitor's OpenAPI contract (JSON: document, operation, status), null for none.
ALTER TABLE monitors ADD COLUMN contract TEXT;
`,
  },
  {
    version: 11,
    name: "monitor_learning_since",
    sql: `
-- When a monitor's target last changed (URL, method, body or selector): its noise profile learns
-- only from snapshots fetched since. Null: never changed since it was created (every snapshot counts).
ALTER TABLE monitors ADD COLUMN learning_since TEXT;
`,
  },
  {
    version: 12,
    name: "last_failure_claim_index",
    sql: `
-- Why the monitor's last check failed, structured (JSON: reason, message, failed browser step), null when it succeeded.
ALTER TABLE monitors ADD COLUMN last_failure TEXT;
-- The channel outbox's claims walk each organization's pending messages oldest first (then stop at
-- the claim's limit) instead of ranking every due message.
CREATE INDEX channel_deliveries_pending_org ON channel_deliveries (org_id, id) WHERE state = 'pending';
`,
  },
  {
    version: 13,
    name: "settings_learning",
    sql: `
-- How a monitor that learns its noise starts (JSON: warmupSamples, learningSamples), null for the service's defaults.
ALTER TABLE settings ADD COLUMN learning TEXT;
-- What a new monitor of the organization starts with (JSON as above), null for the service's defaults.
ALTER TABLE organizations ADD COLUMN learning_defaults TEXT;
`,
  },
];

/** The schema version this build writes. */
export const SQLITE_SCHEMA_VERSION: number = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]!.version;

/**
 * Brings the database to `SQLITE_SCHEMA_VERSION` inside one `BEGIN IMMEDIATE` transaction, so
 * two processes opening the same file migrate one after the other and the second finds the work
 * done. A database written by a newer build raises `schema_too_new` and is left untouched.
 * Returns the versions applied.
 */
export function migrateSqlite(db: Database, migrations: readonly SqliteMigration[] = SQLITE_MIGRATIONS): number[] {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const apply = db.transaction((): number[] => {
    db.exec(
      "CREATE TABLE IF NOT EXISTS driftwatch_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT"
    );
    const row = db.prepare("SELECT MAX(version) AS version FROM driftwatch_migrations").get() as { version: number | null };
    const current = row.version ?? 0;
    if (current > latest) {
      throw new StoreError(
        "schema_too_new",
        `The database is at schema version ${current}, newer than this @driftwatch/store-sqlite supports (${latest}). Upgrade the package; the data was not touched.`
      );
    }
    const applied: number[] = [];
    const record = db.prepare("INSERT INTO driftwatch_migrations (version, name, applied_at) VALUES (?, ?, ?)");
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
      applied.push(migration.version);
    }
    return applied;
  });
  return apply.immediate();
}
