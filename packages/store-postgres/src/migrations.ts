import type { PoolClient } from "pg";
import { StoreError } from "@driftwatch/core";

/** One schema step. Versions are consecutive; a released migration is never edited, only appended. */
export interface PostgresMigration {
  version: number;
  name: string;
  /** SQL with `{schema}` standing for the quoted schema name. */
  sql: string;
}

/**
 * The schema, as a versioned list. JSON columns are jsonb (except the webhook payload, kept as
 * the exact text that gets signed), times are timestamptz, booleans are boolean. Every tenant
 * table carries `org_id`; every query filters on it.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: "initial",
    sql: `
CREATE TABLE {schema}.organizations (
  id text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE {schema}.tokens (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES {schema}.organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  scopes jsonb NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX tokens_org ON {schema}.tokens (org_id, id);

CREATE TABLE {schema}.monitors (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES {schema}.organizations(id) ON DELETE CASCADE,
  type text NOT NULL,
  name text NOT NULL,
  url text NOT NULL,
  method text NOT NULL,
  headers jsonb NOT NULL,
  body text,
  interval_seconds integer NOT NULL,
  selector text,
  browser_options jsonb,
  state text NOT NULL,
  consecutive_failures integer NOT NULL DEFAULT 0,
  last_checked_at timestamptz,
  last_changed_at timestamptz,
  next_check_at timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  lease_owner text,
  lease_expires_at timestamptz
);
CREATE INDEX monitors_org ON {schema}.monitors (org_id, id);
CREATE INDEX monitors_due ON {schema}.monitors (next_check_at, id) WHERE state IN ('active', 'failing');

CREATE TABLE {schema}.snapshots (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  monitor_id text NOT NULL REFERENCES {schema}.monitors(id) ON DELETE CASCADE,
  fetched_at timestamptz NOT NULL,
  status integer NOT NULL,
  latency_ms integer NOT NULL,
  content_type text,
  content_hash text NOT NULL,
  size integer NOT NULL,
  browser_render boolean NOT NULL,
  body text NOT NULL,
  etag text,
  last_modified text
);
CREATE INDEX snapshots_monitor ON {schema}.snapshots (org_id, monitor_id, id);

-- snapshot_id has no foreign key: retention drops old snapshots, the diffs stay.
CREATE TABLE {schema}.diffs (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  monitor_id text NOT NULL REFERENCES {schema}.monitors(id) ON DELETE CASCADE,
  snapshot_id text NOT NULL,
  previous_snapshot_id text,
  classification text NOT NULL,
  top_severity text NOT NULL,
  top_severity_rank integer NOT NULL,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX diffs_monitor ON {schema}.diffs (org_id, monitor_id, id);

CREATE TABLE {schema}.settings (
  monitor_id text PRIMARY KEY REFERENCES {schema}.monitors(id) ON DELETE CASCADE,
  org_id text NOT NULL,
  policy_rules jsonb NOT NULL,
  snapshot_retention integer NOT NULL,
  updated_at timestamptz
);

CREATE TABLE {schema}.webhooks (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES {schema}.organizations(id) ON DELETE CASCADE,
  url text NOT NULL,
  description text,
  events jsonb NOT NULL,
  monitor_ids jsonb,
  min_severity text NOT NULL,
  enabled boolean NOT NULL,
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhooks_org ON {schema}.webhooks (org_id, id);

-- monitor_id and diff_id have no foreign key: the delivery log outlives a deleted monitor.
-- payload is text, not jsonb: it is the exact byte sequence that gets signed and sent.
CREATE TABLE {schema}.deliveries (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  webhook_id text NOT NULL REFERENCES {schema}.webhooks(id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event_type text NOT NULL,
  monitor_id text NOT NULL,
  diff_id text NOT NULL,
  state text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  last_attempt_at timestamptz,
  last_response_status integer,
  last_error text,
  created_at timestamptz NOT NULL,
  payload text NOT NULL,
  lease_owner text,
  lease_expires_at timestamptz
);
CREATE INDEX deliveries_webhook ON {schema}.deliveries (org_id, webhook_id, id);
CREATE INDEX deliveries_pending ON {schema}.deliveries (id) WHERE state = 'pending';

CREATE TABLE {schema}.delivery_attempts (
  delivery_id text NOT NULL REFERENCES {schema}.deliveries(id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  org_id text NOT NULL,
  at timestamptz NOT NULL,
  response_status integer,
  error text,
  duration_ms integer NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);

CREATE TABLE {schema}.idempotency_keys (
  org_id text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  response_status integer,
  response_body text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, key)
);

CREATE TABLE {schema}.rate_limits (
  key text NOT NULL,
  window_start bigint NOT NULL,
  count integer NOT NULL,
  reset_at bigint NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_limits_reset ON {schema}.rate_limits (reset_at);
`,
  },
  {
    version: 2,
    name: "settings_auto_apply_suggestions",
    sql: `
ALTER TABLE {schema}.settings ADD COLUMN auto_apply_suggestions boolean NOT NULL DEFAULT false;
`,
  },
  {
    version: 3,
    name: "people",
    sql: `
-- Users are global; emails are stored trimmed and lower-cased, and unique whatever their case.
CREATE TABLE {schema}.users (
  id text PRIMARY KEY,
  email text NOT NULL,
  display_name text NOT NULL,
  password_hash text,
  created_at timestamptz NOT NULL,
  password_changed_at timestamptz
);
CREATE UNIQUE INDEX users_email ON {schema}.users (lower(email));

CREATE TABLE {schema}.memberships (
  org_id text NOT NULL REFERENCES {schema}.organizations(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES {schema}.users(id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('viewer', 'member', 'admin', 'owner')),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_org ON {schema}.memberships (org_id, created_at, user_id);
CREATE INDEX memberships_user ON {schema}.memberships (user_id, created_at);

-- Only the hash of a session's secret is stored. org_id is the organization it acts in.
CREATE TABLE {schema}.sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES {schema}.users(id) ON DELETE CASCADE,
  org_id text NOT NULL REFERENCES {schema}.organizations(id) ON DELETE CASCADE,
  session_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  revoked_at timestamptz,
  user_agent text,
  ip text
);
CREATE INDEX sessions_user ON {schema}.sessions (user_id);
CREATE INDEX sessions_org ON {schema}.sessions (org_id);

-- invited_by and accepted_by are user ids kept as written (no foreign key), like the audit log's actor_id.
CREATE TABLE {schema}.invites (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES {schema}.organizations(id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'member', 'admin', 'owner')),
  token_hash text NOT NULL UNIQUE,
  invited_by text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by text,
  revoked_at timestamptz
);
CREATE INDEX invites_org ON {schema}.invites (org_id, id);

-- org_id is null for entries of no organization (a failed sign-in of an unknown email).
CREATE TABLE {schema}.audit_log (
  id text PRIMARY KEY,
  org_id text REFERENCES {schema}.organizations(id) ON DELETE CASCADE,
  actor_type text NOT NULL,
  actor_id text,
  action text NOT NULL,
  target_id text,
  data jsonb NOT NULL,
  ip text,
  at timestamptz NOT NULL
);
CREATE INDEX audit_log_org ON {schema}.audit_log (org_id, id);
`,
  },
  {
    version: 4,
    name: "monitor_tags",
    sql: `
-- A JSON array of normalised tags; monitors of earlier versions have none.
ALTER TABLE {schema}.monitors ADD COLUMN tags jsonb NOT NULL DEFAULT '[]'::jsonb;
`,
  },
  {
    version: 5,
    name: "token_created_by",
    sql: `
-- The user who created the token (null: the CLI, the setup, or made before this version).
ALTER TABLE {schema}.tokens ADD COLUMN created_by text;
CREATE INDEX tokens_created_by ON {schema}.tokens (org_id, created_by) WHERE created_by IS NOT NULL;
`,
  },
  {
    version: 6,
    name: "learning_defaults",
    sql: `
-- What a new monitor's autoApplySuggestions starts with; every organization learns by default.
-- Existing monitors keep their settings (no row reads false).
ALTER TABLE {schema}.organizations ADD COLUMN learn_noise_by_default boolean NOT NULL DEFAULT true;
-- Learned entries a user rejected (a JSON array of { kind, path | selector }).
ALTER TABLE {schema}.settings ADD COLUMN rejected_suggestions jsonb NOT NULL DEFAULT '[]'::jsonb;
-- What a check that recorded no diff hid (bounded), on the snapshot it stored.
ALTER TABLE {schema}.snapshots ADD COLUMN silenced jsonb;
`,
  },
  {
    version: 7,
    name: "notification_channels",
    sql: `
-- Notification channels (Slack, Discord, e-mail, ... by one Apprise URL). url_sealed is the URL
-- sealed by the server's secret box (it holds tokens and passwords); url_masked has them as ***.
CREATE TABLE {schema}.channels (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES {schema}.organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  service text NOT NULL,
  url_sealed text NOT NULL,
  url_masked text NOT NULL,
  min_severity text NOT NULL,
  tags jsonb NOT NULL,
  events jsonb NOT NULL,
  group_seconds integer NOT NULL,
  quiet_hours jsonb,
  template text,
  paused boolean NOT NULL,
  status text NOT NULL CHECK (status IN ('ok', 'failing')),
  status_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX channels_org ON {schema}.channels (org_id, id);

-- The channels' outbox: one row per message, unique per (channel, dedup key), so a retried check
-- or a restarted worker never adds a message twice. monitor_id and diff_id have no foreign key.
CREATE TABLE {schema}.channel_deliveries (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  channel_id text NOT NULL REFERENCES {schema}.channels(id) ON DELETE CASCADE,
  dedup_key text NOT NULL,
  event_type text NOT NULL,
  monitor_id text,
  diff_id text,
  payload text NOT NULL,
  state text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  last_attempt_at timestamptz,
  last_response_status integer,
  last_error text,
  created_at timestamptz NOT NULL,
  lease_owner text,
  lease_expires_at timestamptz
);
CREATE UNIQUE INDEX channel_deliveries_dedup ON {schema}.channel_deliveries (channel_id, dedup_key);
CREATE INDEX channel_deliveries_channel ON {schema}.channel_deliveries (org_id, channel_id, id);
CREATE INDEX channel_deliveries_pending ON {schema}.channel_deliveries (next_attempt_at) WHERE state = 'pending';

CREATE TABLE {schema}.channel_delivery_attempts (
  delivery_id text NOT NULL REFERENCES {schema}.channel_deliveries(id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  org_id text NOT NULL,
  at timestamptz NOT NULL,
  response_status integer,
  error text,
  duration_ms integer NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);
`,
  },
  {
    version: 8,
    name: "screenshots_secrets",
    sql: `
-- A snapshot's screenshot (website monitors rendered with browserOptions.screenshot), gone with
-- its snapshot (retention, monitor deletion). data: the image's bytes as base64 (PNG or WebP),
-- as in SQLite, so a store copy moves it as it is.
CREATE TABLE {schema}.screenshots (
  snapshot_id text PRIMARY KEY REFERENCES {schema}.snapshots(id) ON DELETE CASCADE,
  org_id text NOT NULL,
  monitor_id text NOT NULL,
  type text NOT NULL CHECK (type IN ('image/png', 'image/webp')),
  width integer NOT NULL,
  height integer NOT NULL,
  bytes integer NOT NULL,
  data text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX screenshots_monitor ON {schema}.screenshots (org_id, monitor_id, snapshot_id);

-- The page of a monitor's latest failed browser step.
CREATE TABLE {schema}.failure_screenshots (
  monitor_id text PRIMARY KEY REFERENCES {schema}.monitors(id) ON DELETE CASCADE,
  org_id text NOT NULL,
  step jsonb NOT NULL,
  type text NOT NULL CHECK (type IN ('image/png', 'image/webp')),
  width integer NOT NULL,
  height integer NOT NULL,
  bytes integer NOT NULL,
  data text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX failure_screenshots_org ON {schema}.failure_screenshots (org_id, monitor_id);

-- Secrets browser steps use by name; only the sealed value (AES-256-GCM with the server key) is stored.
CREATE TABLE {schema}.secrets (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES {schema}.organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  sealed_value text NOT NULL,
  created_at timestamptz NOT NULL,
  created_by text
);
CREATE UNIQUE INDEX secrets_name ON {schema}.secrets (org_id, name);
`,
  },
  {
    version: 9,
    name: "tracked_values",
    sql: `
-- What a monitor tracks (a JSON array of { name, path | selector, extract?, attribute? }) and its
-- alert conditions (null: none).
ALTER TABLE {schema}.settings ADD COLUMN track jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE {schema}.settings ADD COLUMN alert jsonb;
-- One row per tracked value per check: the value as JSON text (a JSON string scalar in jsonb would
-- come back from the driver as a bare string), null when missing, with the reason.
CREATE TABLE {schema}.tracked_values (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  monitor_id text NOT NULL REFERENCES {schema}.monitors(id) ON DELETE CASCADE,
  name text NOT NULL,
  at timestamptz NOT NULL,
  snapshot_id text NOT NULL,
  value text,
  reason text
);
CREATE INDEX tracked_values_monitor ON {schema}.tracked_values (monitor_id, name, id);
-- The alert evaluator's state a monitor's next check starts from (previous values, streaks).
CREATE TABLE {schema}.alert_states (
  monitor_id text PRIMARY KEY REFERENCES {schema}.monitors(id) ON DELETE CASCADE,
  org_id text NOT NULL,
  state jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);
`,
  },
  {
    version: 10,
    name: "monitor_contract",
    sql: `
-- An api monitor's OpenAPI contract (document, operation, status), null for none.
ALTER TABLE {schema}.monitors ADD COLUMN contract jsonb;
`,
  },
  {
    version: 11,
    name: "monitor_learning_since",
    sql: `
-- When a monitor's target last changed (URL, method, body or selector): its noise profile learns
-- only from snapshots fetched since. Null: never changed since it was created (every snapshot counts).
ALTER TABLE {schema}.monitors ADD COLUMN learning_since timestamptz;
`,
  },
  {
    version: 12,
    name: "last_failure_claim_index",
    sql: `
-- Why the monitor's last check failed, structured (reason, message, failed browser step), null when it succeeded.
ALTER TABLE {schema}.monitors ADD COLUMN last_failure jsonb;
-- The channel outbox's claims walk each organization's pending messages oldest first (then stop at
-- the claim's limit) instead of ranking every due message.
CREATE INDEX channel_deliveries_pending_org ON {schema}.channel_deliveries (org_id, id) WHERE state = 'pending';
`,
  },
  {
    version: 13,
    name: "settings_learning",
    sql: `
-- How a monitor that learns its noise starts (warmupSamples, learningSamples), null for the service's defaults.
ALTER TABLE {schema}.settings ADD COLUMN learning jsonb;
-- What a new monitor of the organization starts with (as above), null for the service's defaults.
ALTER TABLE {schema}.organizations ADD COLUMN learning_defaults jsonb;
`,
  },
];

/** The schema version this build writes. */
export const POSTGRES_SCHEMA_VERSION: number = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version;

/** `"name"` with embedded quotes doubled: safe to splice into SQL as an identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Brings `schema` to the newest version of `migrations`. The whole run holds a session-level
 * `pg_advisory_lock` keyed on the schema name, so two processes opening one database migrate
 * one after the other and the second finds the work done. Each migration commits with its row
 * in `driftwatch_migrations`. A schema written by a newer build raises `schema_too_new` and is
 * left untouched. Returns the versions applied.
 */
export async function migratePostgres(
  client: PoolClient,
  schema: string,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS
): Promise<number[]> {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const quoted = quoteIdentifier(schema);
  const lockKey = `driftwatch:migrations:${schema}`;
  await client.query("SELECT pg_advisory_lock(hashtext($1))", [lockKey]);
  try {
    // CREATE ... IF NOT EXISTS needs the CREATE privilege even when the object exists, so each
    // runs only when its object is missing: a role that may only read and write can open the store.
    const { rows: found } = await client.query<{ schema: boolean; table: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS schema,
         to_regclass($2) IS NOT NULL AS table`,
      [schema, `${quoted}.driftwatch_migrations`]
    );
    if (found[0]?.schema !== true) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    if (found[0]?.table !== true) {
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${quoted}.driftwatch_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`
      );
    }
    const { rows } = await client.query<{ version: number | null }>(`SELECT MAX(version) AS version FROM ${quoted}.driftwatch_migrations`);
    const current = rows[0]?.version ?? 0;
    if (current > latest) {
      throw new StoreError(
        "schema_too_new",
        `The schema ${quoted} is at version ${current}, newer than this @driftwatch/store-postgres supports (${latest}). Upgrade the package; the data was not touched.`
      );
    }
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (migration.version <= current) continue;
      await client.query("BEGIN");
      try {
        await client.query(migration.sql.replaceAll("{schema}", quoted));
        await client.query(`INSERT INTO ${quoted}.driftwatch_migrations (version, name) VALUES ($1, $2)`, [
          migration.version,
          migration.name,
        ]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
      applied.push(migration.version);
    }
    return applied;
  } finally {
    await client.query("SELECT pg_advisory_unlock(hashtext($1))", [lockKey]).catch(() => undefined);
  }
}
