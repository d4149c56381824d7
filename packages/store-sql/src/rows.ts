import {
  type AuditRecord,
  type InviteRecord,
  type MemberRecord,
  type MembershipRecord,
  type Role,
  type SessionRecord,
  type UserRecord,
  decodeText,
  decodeTextOrNull,
  encodeText,
  encodeTextOrNull,
  type DeliveryAttemptRecord,
  type DeliveryRecord,
  type DiffRecord,
  type MonitorRecord,
  type OrganizationRecord,
  type SettingsRecord,
  type SnapshotRecord,
  type TokenRecord,
  type TrackedReadingRecord,
  type WebhookRecord,
} from "@driftwatch/core";
import type { SqlDialect } from "./dialect.js";

// Rows as the drivers return them (snake_case; JSON, times and booleans as the dialect stores
// them) and their mapping to the port's records. JSON is parsed per row, so records are copies.

export type Row = Record<string, unknown>;
export interface IdRow extends Row {
  id: string;
}

/** How a patch value is written: `json` as JSON text, `time` as a time, `text` encoded (NUL, lone surrogates), `bool` as the dialect's boolean, `plain` as is. */
export type ColumnKind = "plain" | "json" | "time" | "text" | "bool";

/** Monitor fields a patch may set: their column and kind. */
export const MONITOR_PATCH_COLUMNS: Readonly<Record<string, readonly [string, ColumnKind]>> = {
  name: ["name", "text"],
  url: ["url", "plain"],
  method: ["method", "plain"],
  headers: ["headers", "json"],
  body: ["body", "text"],
  intervalSeconds: ["interval_seconds", "plain"],
  selector: ["selector", "text"],
  browserOptionsJson: ["browser_options", "json"],
  tags: ["tags", "json"],
  contract: ["contract", "json"],
  state: ["state", "plain"],
  consecutiveFailures: ["consecutive_failures", "plain"],
  lastCheckedAt: ["last_checked_at", "time"],
  lastChangedAt: ["last_changed_at", "time"],
  nextCheckAt: ["next_check_at", "time"],
  lastStatus: ["last_status", "plain"],
  lastError: ["last_error", "text"],
  lastFailure: ["last_failure", "json"],
  updatedAt: ["updated_at", "time"],
  learningSince: ["learning_since", "time"],
};

/** Webhook fields a patch may set: their column and kind. */
export const WEBHOOK_PATCH_COLUMNS: Readonly<Record<string, readonly [string, ColumnKind]>> = {
  url: ["url", "plain"],
  description: ["description", "text"],
  events: ["events", "json"],
  monitorIds: ["monitor_ids", "json"],
  minSeverity: ["min_severity", "plain"],
  enabled: ["enabled", "bool"],
  secret: ["secret", "plain"],
  previousSecret: ["previous_secret", "plain"],
  previousSecretExpiresAt: ["previous_secret_expires_at", "time"],
  updatedAt: ["updated_at", "time"],
};

/** The columns of a snapshot without its body (lists). */
export const SNAPSHOT_LIST_COLUMNS =
  "id, org_id, monitor_id, fetched_at, status, latency_ms, content_type, content_hash, size, browser_render, etag, last_modified";
export const DIFF_COLUMNS = "id, org_id, monitor_id, snapshot_id, data";
/** The columns a new snapshot is inserted with, in the order of `RowCodec.snapshotValues`. */
export const SNAPSHOT_INSERT_COLUMNS =
  "id, org_id, monitor_id, fetched_at, status, latency_ms, content_type, content_hash, size, browser_render, body, etag, last_modified";

/** The columns of a new snapshot's insert, in the order of `RowCodec.snapshotValues`. */
export function snapshotInsertColumns(record: { silenced?: unknown }): string {
  return record.silenced != null ? `${SNAPSHOT_INSERT_COLUMNS}, silenced` : SNAPSHOT_INSERT_COLUMNS;
}

/** The row mappers and parameter encoders of one dialect. */
export class RowCodec {
  readonly #d: SqlDialect;
  constructor(dialect: SqlDialect) {
    this.#d = dialect;
  }

  #time(value: unknown): string {
    return this.#d.readTime(value);
  }
  #timeOrNull(value: unknown): string | null {
    return value === null || value === undefined ? null : this.#d.readTime(value);
  }
  #jsonOrNull<T>(value: unknown): T | null {
    return value === null || value === undefined ? null : this.#d.readJson<T>(value);
  }

  /** A value as a parameter for a column of `kind`. */
  param(value: unknown, kind: ColumnKind): unknown {
    if (value === null || value === undefined) return null;
    switch (kind) {
      case "json":
        return this.#d.writeJson(value);
      case "text":
        return encodeText(value as string);
      case "bool":
        return this.#d.bool(value as boolean);
      default:
        return value;
    }
  }

  organization(row: Row): OrganizationRecord {
    return {
      id: row.id as string,
      slug: row.slug as string,
      name: row.name as string,
      // no column before schema version 5 (LEARNING_DEFAULTS_VERSION): the column's default
      learnNoiseByDefault: row.learn_noise_by_default === undefined ? true : this.#d.readBool(row.learn_noise_by_default),
      // no column before schema version 13 (SETTINGS_LEARNING_VERSION): the service's defaults
      learningDefaults: row.learning_defaults === undefined ? null : this.#jsonOrNull(row.learning_defaults),
      createdAt: this.#time(row.created_at),
    };
  }

  user(row: Row): UserRecord {
    return {
      id: row.id as string,
      email: decodeText(row.email as string),
      displayName: decodeText(row.display_name as string),
      passwordHash: (row.password_hash as string | null) ?? null,
      createdAt: this.#time(row.created_at),
      passwordChangedAt: this.#timeOrNull(row.password_changed_at),
    };
  }

  membership(row: Row): MembershipRecord {
    return { orgId: row.org_id as string, userId: row.user_id as string, role: row.role as Role, createdAt: this.#time(row.created_at) };
  }

  /** A membership joined with its user's `email` and `display_name`. */
  member(row: Row): MemberRecord {
    return { ...this.membership(row), id: row.user_id as string, email: decodeText(row.email as string), displayName: decodeText(row.display_name as string) };
  }

  session(row: Row): SessionRecord {
    return {
      id: row.id as string,
      userId: row.user_id as string,
      orgId: row.org_id as string,
      createdAt: this.#time(row.created_at),
      sessionHash: row.session_hash as string,
      expiresAt: this.#time(row.expires_at),
      lastSeenAt: this.#time(row.last_seen_at),
      revokedAt: this.#timeOrNull(row.revoked_at),
      userAgent: decodeTextOrNull(row.user_agent as string | null),
      ip: decodeTextOrNull(row.ip as string | null),
    };
  }

  invite(row: Row): InviteRecord {
    return {
      id: row.id as string,
      orgId: row.org_id as string,
      email: decodeText(row.email as string),
      role: row.role as Role,
      tokenHash: row.token_hash as string,
      invitedBy: (row.invited_by as string | null) ?? null,
      createdAt: this.#time(row.created_at),
      expiresAt: this.#time(row.expires_at),
      acceptedAt: this.#timeOrNull(row.accepted_at),
      acceptedBy: (row.accepted_by as string | null) ?? null,
      revokedAt: this.#timeOrNull(row.revoked_at),
    };
  }

  audit(row: Row): AuditRecord {
    return {
      id: row.id as string,
      orgId: (row.org_id as string | null) ?? null,
      actorType: row.actor_type as AuditRecord["actorType"],
      actorId: (row.actor_id as string | null) ?? null,
      action: decodeText(row.action as string),
      targetId: (row.target_id as string | null) ?? null,
      data: this.#d.readJson(row.data),
      ip: decodeTextOrNull(row.ip as string | null),
      at: this.#time(row.at),
    };
  }

  token(row: Row): TokenRecord {
    return {
      id: row.id as string,
      orgId: row.org_id as string,
      name: row.name as string,
      scopes: this.#d.readJson(row.scopes),
      tokenHash: row.token_hash as string,
      createdAt: this.#time(row.created_at),
      lastUsedAt: this.#timeOrNull(row.last_used_at),
      revokedAt: this.#timeOrNull(row.revoked_at),
      createdBy: (row.created_by as string | null | undefined) ?? null,
    };
  }

  monitor(row: Row): MonitorRecord {
    return {
      id: row.id as string,
      orgId: row.org_id as string,
      type: row.type as MonitorRecord["type"],
      name: decodeText(row.name as string),
      url: row.url as string,
      method: row.method as MonitorRecord["method"],
      headers: this.#d.readJson(row.headers),
      body: decodeTextOrNull(row.body as string | null),
      intervalSeconds: row.interval_seconds as number,
      selector: decodeTextOrNull(row.selector as string | null),
      browserOptionsJson: this.#jsonOrNull(row.browser_options),
      // no column before schema version 4 (MONITOR_TAGS_VERSION): such monitors have no tags
      tags: row.tags === undefined ? [] : this.#d.readJson(row.tags),
      // no column before schema version 10 (MONITOR_CONTRACT_VERSION): no contract
      contract: row.contract === undefined ? null : this.#jsonOrNull(row.contract),
      state: row.state as MonitorRecord["state"],
      consecutiveFailures: row.consecutive_failures as number,
      lastCheckedAt: this.#timeOrNull(row.last_checked_at),
      lastChangedAt: this.#timeOrNull(row.last_changed_at),
      nextCheckAt: this.#timeOrNull(row.next_check_at),
      lastStatus: row.last_status as number | null,
      lastError: decodeTextOrNull(row.last_error as string | null),
      // no column before schema version 12 (MONITOR_LAST_FAILURE_VERSION): none
      lastFailure: row.last_failure === undefined ? null : this.#jsonOrNull(row.last_failure),
      createdAt: this.#time(row.created_at),
      updatedAt: this.#time(row.updated_at),
      // no column before schema version 11 (MONITOR_LEARNING_SINCE_VERSION): never changed
      learningSince: row.learning_since === undefined ? null : this.#timeOrNull(row.learning_since),
    };
  }

  snapshot(row: Row): SnapshotRecord {
    const record: SnapshotRecord = {
      id: row.id as string,
      orgId: row.org_id as string,
      monitorId: row.monitor_id as string,
      fetchedAt: this.#time(row.fetched_at),
      status: row.status as number,
      latencyMs: row.latency_ms as number,
      contentType: decodeTextOrNull(row.content_type as string | null),
      contentHash: row.content_hash as string,
      size: row.size as number,
      browserRender: this.#d.readBool(row.browser_render),
      etag: decodeTextOrNull(row.etag as string | null),
      lastModified: decodeTextOrNull(row.last_modified as string | null),
    };
    // no column before schema version 5; null for a check that hid nothing
    if (row.silenced !== undefined && row.silenced !== null) record.silenced = this.#d.readJson(row.silenced);
    if (row.body !== undefined) record.body = decodeText(row.body as string);
    return record;
  }

  /**
   * A new snapshot's parameters, in the order of `snapshotInsertColumns(record)` (text encoded, see
   * `encodeText`): `silenced` last, only when the snapshot has it (a store on a schema before it
   * writes snapshots without).
   */
  snapshotValues(record: SnapshotRecord & { body: string }): unknown[] {
    const values = [
      record.id,
      record.orgId,
      record.monitorId,
      record.fetchedAt,
      record.status,
      record.latencyMs,
      encodeTextOrNull(record.contentType),
      record.contentHash,
      record.size,
      this.#d.bool(record.browserRender),
      encodeText(record.body),
      encodeTextOrNull(record.etag),
      encodeTextOrNull(record.lastModified),
    ];
    if (record.silenced != null) values.push(this.#d.writeJson(record.silenced));
    return values;
  }

  /** `data` holds the whole diff; the indexed columns are copies used for filtering. */
  diff(row: Row): DiffRecord {
    const diff = this.#d.readJson<DiffRecord>(row.data);
    return { ...diff, id: row.id as string, monitorId: row.monitor_id as string, snapshotId: row.snapshot_id as string, orgId: row.org_id as string };
  }

  /**
   * The diff as the API serialises it: `JSON.stringify` of the record without `orgId`.
   * `recordCheck` stores `JSON.stringify({ ...diff, createdAt, monitorId, snapshotId })`, which
   * is exactly that text, so where the driver returns the column as text it is returned as
   * stored when it visibly is: it starts with the row's id, ends with its monitorId and
   * snapshotId, and has no `"orgId"` anywhere. Any other row goes through `diff` and
   * `JSON.stringify`, with the same result.
   */
  diffJson(row: Row): string {
    const data = row.data;
    if (typeof data === "string") {
      const head = `{"id":${JSON.stringify(row.id)},`;
      const tail = `,"monitorId":${JSON.stringify(row.monitor_id)},"snapshotId":${JSON.stringify(row.snapshot_id)}}`;
      if (data.startsWith(head) && data.endsWith(tail) && !data.includes('"orgId"')) return data;
    }
    const { orgId: _orgId, ...diff } = this.diff(row);
    return JSON.stringify(diff);
  }

  settings(row: Row): SettingsRecord {
    return {
      orgId: row.org_id as string,
      monitorId: row.monitor_id as string,
      policyRulesJson: this.#d.readJson(row.policy_rules),
      snapshotRetention: row.snapshot_retention as number,
      autoApplySuggestions: this.#d.readBool(row.auto_apply_suggestions),
      // no column before schema version 5 (LEARNING_DEFAULTS_VERSION): none rejected
      rejectedSuggestions: row.rejected_suggestions === undefined || row.rejected_suggestions === null ? [] : this.#d.readJson(row.rejected_suggestions),
      // no columns before schema version 9 (TRACKED_VALUES_VERSION): nothing tracked, no conditions
      track: row.track === undefined || row.track === null ? [] : this.#d.readJson(row.track),
      alert: row.alert === undefined ? null : this.#jsonOrNull(row.alert),
      // no column before schema version 13 (SETTINGS_LEARNING_VERSION): the service's defaults
      learning: row.learning === undefined ? null : this.#jsonOrNull(row.learning),
      updatedAt: this.#timeOrNull(row.updated_at),
    };
  }

  trackedReading(row: Row): TrackedReadingRecord {
    return {
      id: row.id as string,
      orgId: row.org_id as string,
      monitorId: row.monitor_id as string,
      name: row.name as string,
      at: this.#time(row.at),
      snapshotId: row.snapshot_id as string,
      value: this.#jsonOrNull(row.value),
      reason: decodeTextOrNull(row.reason as string | null),
    };
  }

  webhook(row: Row): WebhookRecord {
    return {
      id: row.id as string,
      orgId: row.org_id as string,
      url: row.url as string,
      description: decodeTextOrNull(row.description as string | null),
      events: this.#d.readJson(row.events),
      monitorIds: this.#jsonOrNull(row.monitor_ids),
      minSeverity: row.min_severity as WebhookRecord["minSeverity"],
      enabled: this.#d.readBool(row.enabled),
      secret: row.secret as string,
      previousSecret: row.previous_secret as string | null,
      previousSecretExpiresAt: this.#timeOrNull(row.previous_secret_expires_at),
      createdAt: this.#time(row.created_at),
      updatedAt: this.#time(row.updated_at),
    };
  }

  delivery(row: Row): DeliveryRecord {
    return {
      id: row.id as string,
      orgId: row.org_id as string,
      webhookId: row.webhook_id as string,
      eventId: row.event_id as string,
      eventType: row.event_type as DeliveryRecord["eventType"],
      monitorId: row.monitor_id as string,
      diffId: row.diff_id as string,
      state: row.state as DeliveryRecord["state"],
      attempts: row.attempts as number,
      nextAttemptAt: this.#timeOrNull(row.next_attempt_at),
      lastAttemptAt: this.#timeOrNull(row.last_attempt_at),
      lastResponseStatus: row.last_response_status as number | null,
      lastError: decodeTextOrNull(row.last_error as string | null),
      createdAt: this.#time(row.created_at),
      payload: row.payload as string,
    };
  }

  deliveryAttempt(row: Row): DeliveryAttemptRecord {
    return {
      deliveryId: row.delivery_id as string,
      attempt: row.attempt as number,
      at: this.#time(row.at),
      responseStatus: row.response_status as number | null,
      error: decodeTextOrNull(row.error as string | null),
      durationMs: row.duration_ms as number,
    };
  }
}
