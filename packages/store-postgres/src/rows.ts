import type {
  DeliveryAttemptRecord,
  DeliveryRecord,
  DiffRecord,
  MonitorRecord,
  OrganizationRecord,
  SettingsRecord,
  SnapshotRecord,
  TokenRecord,
  WebhookRecord,
} from "@driftwatch/core";
import { decodeJson, decodeText, decodeTextOrNull, encodeJson, encodeText } from "@driftwatch/core";

// Row shapes as node-postgres returns them with its default parsers (snake_case, jsonb parsed
// into fresh objects, timestamptz as Date, booleans as booleans) and their mapping to the
// port's records. Times are converted per row to ISO strings: the store never touches
// pg.types, which is global to the process.

/** ISO 8601 UTC with milliseconds (`2026-01-02T03:04:05.678Z`); the store writes millisecond times only. */
export function isoFromDb(value: Date): string {
  return value.toISOString();
}
export function isoFromDbOrNull(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}

export interface OrganizationRow {
  id: string;
  slug: string;
  name: string;
  created_at: Date;
}
export function toOrganization(row: OrganizationRow): OrganizationRecord {
  return { id: row.id, slug: row.slug, name: row.name, createdAt: isoFromDb(row.created_at) };
}

export interface TokenRow {
  id: string;
  org_id: string;
  name: string;
  scopes: TokenRecord["scopes"];
  token_hash: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}
export function toToken(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    scopes: row.scopes,
    tokenHash: row.token_hash,
    createdAt: isoFromDb(row.created_at),
    lastUsedAt: isoFromDbOrNull(row.last_used_at),
    revokedAt: isoFromDbOrNull(row.revoked_at),
  };
}

export interface MonitorRow {
  id: string;
  org_id: string;
  type: string;
  name: string;
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
  interval_seconds: number;
  selector: string | null;
  browser_options: MonitorRecord["browserOptionsJson"];
  state: string;
  consecutive_failures: number;
  last_checked_at: Date | null;
  last_changed_at: Date | null;
  next_check_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}
export function toMonitor(row: MonitorRow): MonitorRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    type: row.type as MonitorRecord["type"],
    name: decodeText(row.name),
    url: row.url,
    method: row.method as MonitorRecord["method"],
    headers: decodeJson(row.headers),
    body: decodeTextOrNull(row.body),
    intervalSeconds: row.interval_seconds,
    selector: decodeTextOrNull(row.selector),
    browserOptionsJson: decodeJson(row.browser_options),
    state: row.state as MonitorRecord["state"],
    consecutiveFailures: row.consecutive_failures,
    lastCheckedAt: isoFromDbOrNull(row.last_checked_at),
    lastChangedAt: isoFromDbOrNull(row.last_changed_at),
    nextCheckAt: isoFromDbOrNull(row.next_check_at),
    lastStatus: row.last_status,
    lastError: decodeTextOrNull(row.last_error),
    createdAt: isoFromDb(row.created_at),
    updatedAt: isoFromDb(row.updated_at),
  };
}

/**
 * How a patch value is written: `json` as jsonb text, `time` as timestamptz, `text` encoded
 * (U+0000 and lone surrogates, see encodeText in core), `plain` as is.
 */
export type ColumnKind = "plain" | "json" | "time" | "text";

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
  state: ["state", "plain"],
  consecutiveFailures: ["consecutive_failures", "plain"],
  lastCheckedAt: ["last_checked_at", "time"],
  lastChangedAt: ["last_changed_at", "time"],
  nextCheckAt: ["next_check_at", "time"],
  lastStatus: ["last_status", "plain"],
  lastError: ["last_error", "text"],
  updatedAt: ["updated_at", "time"],
};

/** Webhook fields a patch may set: their column and kind. */
export const WEBHOOK_PATCH_COLUMNS: Readonly<Record<string, readonly [string, ColumnKind]>> = {
  url: ["url", "plain"],
  description: ["description", "text"],
  events: ["events", "json"],
  monitorIds: ["monitor_ids", "json"],
  minSeverity: ["min_severity", "plain"],
  enabled: ["enabled", "plain"],
  secret: ["secret", "plain"],
  previousSecret: ["previous_secret", "plain"],
  previousSecretExpiresAt: ["previous_secret_expires_at", "time"],
  updatedAt: ["updated_at", "time"],
};

/**
 * A value as a query parameter for a column of `kind`. JSON is passed as text explicitly:
 * node-postgres would turn a JS array into a Postgres array literal, not JSON.
 */
export function encodeParam(value: unknown, kind: ColumnKind): unknown {
  if (value === null || value === undefined) return null;
  if (kind === "json") return encodeJson(value);
  if (kind === "text") return encodeText(value as string);
  return value;
}

export interface SnapshotRow {
  id: string;
  org_id: string;
  monitor_id: string;
  fetched_at: Date;
  status: number;
  latency_ms: number;
  content_type: string | null;
  content_hash: string;
  size: number;
  browser_render: boolean;
  body?: string;
  etag: string | null;
  last_modified: string | null;
}
export function toSnapshot(row: SnapshotRow): SnapshotRecord {
  const record: SnapshotRecord = {
    id: row.id,
    orgId: row.org_id,
    monitorId: row.monitor_id,
    fetchedAt: isoFromDb(row.fetched_at),
    status: row.status,
    latencyMs: row.latency_ms,
    contentType: decodeTextOrNull(row.content_type),
    contentHash: row.content_hash,
    size: row.size,
    browserRender: row.browser_render,
    etag: decodeTextOrNull(row.etag),
    lastModified: decodeTextOrNull(row.last_modified),
  };
  if (row.body !== undefined) record.body = decodeText(row.body);
  return record;
}

export interface DiffRow {
  id: string;
  org_id: string;
  monitor_id: string;
  snapshot_id: string;
  data: DiffRecord;
}
/** `data` holds the whole diff; the indexed columns are copies used for filtering. */
export function toDiff(row: DiffRow): DiffRecord {
  return { ...decodeJson(row.data), id: row.id, monitorId: row.monitor_id, snapshotId: row.snapshot_id, orgId: row.org_id };
}

export interface SettingsRow {
  monitor_id: string;
  org_id: string;
  policy_rules: SettingsRecord["policyRulesJson"];
  snapshot_retention: number;
  auto_apply_suggestions: boolean;
  updated_at: Date | null;
}
export function toSettings(row: SettingsRow): SettingsRecord {
  return {
    orgId: row.org_id,
    monitorId: row.monitor_id,
    policyRulesJson: row.policy_rules,
    snapshotRetention: row.snapshot_retention,
    autoApplySuggestions: row.auto_apply_suggestions,
    updatedAt: isoFromDbOrNull(row.updated_at),
  };
}

export interface WebhookRow {
  id: string;
  org_id: string;
  url: string;
  description: string | null;
  events: WebhookRecord["events"];
  monitor_ids: string[] | null;
  min_severity: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}
export function toWebhook(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    url: row.url,
    description: decodeTextOrNull(row.description),
    events: row.events,
    monitorIds: row.monitor_ids,
    minSeverity: row.min_severity as WebhookRecord["minSeverity"],
    enabled: row.enabled,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: isoFromDbOrNull(row.previous_secret_expires_at),
    createdAt: isoFromDb(row.created_at),
    updatedAt: isoFromDb(row.updated_at),
  };
}

export interface DeliveryRow {
  id: string;
  org_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  monitor_id: string;
  diff_id: string;
  state: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: Date;
  payload: string;
}
export function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type as DeliveryRecord["eventType"],
    monitorId: row.monitor_id,
    diffId: row.diff_id,
    state: row.state as DeliveryRecord["state"],
    attempts: row.attempts,
    nextAttemptAt: isoFromDbOrNull(row.next_attempt_at),
    lastAttemptAt: isoFromDbOrNull(row.last_attempt_at),
    lastResponseStatus: row.last_response_status,
    lastError: decodeTextOrNull(row.last_error),
    createdAt: isoFromDb(row.created_at),
    payload: row.payload,
  };
}

export interface DeliveryAttemptRow {
  delivery_id: string;
  attempt: number;
  at: Date;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
}
export function toDeliveryAttempt(row: DeliveryAttemptRow): DeliveryAttemptRecord {
  return {
    deliveryId: row.delivery_id,
    attempt: row.attempt,
    at: isoFromDb(row.at),
    responseStatus: row.response_status,
    error: decodeTextOrNull(row.error),
    durationMs: row.duration_ms,
  };
}
