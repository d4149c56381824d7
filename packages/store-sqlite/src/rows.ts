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
import { decodeText, decodeTextOrNull, encodeText } from "@driftwatch/core";

// Row shapes as SQLite returns them (snake_case, JSON as text, booleans as 0/1) and their
// mapping to the port's records. Parsing JSON per row yields fresh objects, so records are copies.

export interface OrganizationRow {
  id: string;
  slug: string;
  name: string;
  created_at: string;
}
export function toOrganization(row: OrganizationRow): OrganizationRecord {
  return { id: row.id, slug: row.slug, name: row.name, createdAt: row.created_at };
}

export interface TokenRow {
  id: string;
  org_id: string;
  name: string;
  scopes: string;
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}
export function toToken(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    scopes: JSON.parse(row.scopes) as TokenRecord["scopes"],
    tokenHash: row.token_hash,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export interface MonitorRow {
  id: string;
  org_id: string;
  type: string;
  name: string;
  url: string;
  method: string;
  headers: string;
  body: string | null;
  interval_seconds: number;
  selector: string | null;
  browser_options: string | null;
  state: string;
  consecutive_failures: number;
  last_checked_at: string | null;
  last_changed_at: string | null;
  next_check_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}
export function toMonitor(row: MonitorRow): MonitorRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    type: row.type as MonitorRecord["type"],
    name: decodeText(row.name),
    url: row.url,
    method: row.method as MonitorRecord["method"],
    headers: JSON.parse(row.headers) as Record<string, string>,
    body: decodeTextOrNull(row.body),
    intervalSeconds: row.interval_seconds,
    selector: decodeTextOrNull(row.selector),
    browserOptionsJson: row.browser_options === null ? null : (JSON.parse(row.browser_options) as MonitorRecord["browserOptionsJson"]),
    state: row.state as MonitorRecord["state"],
    consecutiveFailures: row.consecutive_failures,
    lastCheckedAt: row.last_checked_at,
    lastChangedAt: row.last_changed_at,
    nextCheckAt: row.next_check_at,
    lastStatus: row.last_status,
    lastError: decodeTextOrNull(row.last_error),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Monitor fields a patch may set, and their column; JSON columns are encoded on write. */
export const MONITOR_PATCH_COLUMNS = {
  name: "name",
  url: "url",
  method: "method",
  headers: "headers",
  body: "body",
  intervalSeconds: "interval_seconds",
  selector: "selector",
  browserOptionsJson: "browser_options",
  state: "state",
  consecutiveFailures: "consecutive_failures",
  lastCheckedAt: "last_checked_at",
  lastChangedAt: "last_changed_at",
  nextCheckAt: "next_check_at",
  lastStatus: "last_status",
  lastError: "last_error",
  updatedAt: "updated_at",
} as const;

export interface SnapshotRow {
  id: string;
  org_id: string;
  monitor_id: string;
  fetched_at: string;
  status: number;
  latency_ms: number;
  content_type: string | null;
  content_hash: string;
  size: number;
  browser_render: number;
  body?: string;
  etag: string | null;
  last_modified: string | null;
}
export function toSnapshot(row: SnapshotRow): SnapshotRecord {
  const record: SnapshotRecord = {
    id: row.id,
    orgId: row.org_id,
    monitorId: row.monitor_id,
    fetchedAt: row.fetched_at,
    status: row.status,
    latencyMs: row.latency_ms,
    contentType: decodeTextOrNull(row.content_type),
    contentHash: row.content_hash,
    size: row.size,
    browserRender: row.browser_render === 1,
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
  data: string;
}
/** `data` holds the whole diff; the indexed columns are copies used for filtering. */
export function toDiff(row: DiffRow): DiffRecord {
  const diff = JSON.parse(row.data) as DiffRecord;
  return { ...diff, id: row.id, monitorId: row.monitor_id, snapshotId: row.snapshot_id, orgId: row.org_id };
}

/**
 * The diff as the API serialises it: `JSON.stringify` of the record without `orgId`. recordCheck
 * stores `JSON.stringify({ ...diff, createdAt, monitorId, snapshotId })`, which is exactly that
 * text, so it is returned as stored when it visibly is: it starts with the row's id, ends with
 * its monitorId and snapshotId, and has no `"orgId"` anywhere. Any other row (another key order,
 * an `orgId` key, even a nested one) goes through toDiff and JSON.stringify, with the same result.
 */
export function toDiffJson(row: DiffRow): string {
  const { data } = row;
  const head = `{"id":${JSON.stringify(row.id)},`;
  const tail = `,"monitorId":${JSON.stringify(row.monitor_id)},"snapshotId":${JSON.stringify(row.snapshot_id)}}`;
  if (data.startsWith(head) && data.endsWith(tail) && !data.includes('"orgId"')) return data;
  const { orgId: _orgId, ...diff } = toDiff(row);
  return JSON.stringify(diff);
}

export interface SettingsRow {
  monitor_id: string;
  org_id: string;
  policy_rules: string;
  snapshot_retention: number;
  auto_apply_suggestions: number;
  updated_at: string | null;
}
export function toSettings(row: SettingsRow): SettingsRecord {
  return {
    orgId: row.org_id,
    monitorId: row.monitor_id,
    policyRulesJson: JSON.parse(row.policy_rules) as SettingsRecord["policyRulesJson"],
    snapshotRetention: row.snapshot_retention,
    autoApplySuggestions: row.auto_apply_suggestions === 1,
    updatedAt: row.updated_at,
  };
}

export interface WebhookRow {
  id: string;
  org_id: string;
  url: string;
  description: string | null;
  events: string;
  monitor_ids: string | null;
  min_severity: string;
  enabled: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}
export function toWebhook(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    url: row.url,
    description: decodeTextOrNull(row.description),
    events: JSON.parse(row.events) as WebhookRecord["events"],
    monitorIds: row.monitor_ids === null ? null : (JSON.parse(row.monitor_ids) as string[]),
    minSeverity: row.min_severity as WebhookRecord["minSeverity"],
    enabled: row.enabled === 1,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Webhook fields a patch may set, and their column. */
export const WEBHOOK_PATCH_COLUMNS = {
  url: "url",
  description: "description",
  events: "events",
  monitorIds: "monitor_ids",
  minSeverity: "min_severity",
  enabled: "enabled",
  secret: "secret",
  previousSecret: "previous_secret",
  previousSecretExpiresAt: "previous_secret_expires_at",
  updatedAt: "updated_at",
} as const;

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
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: string;
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
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    lastResponseStatus: row.last_response_status,
    lastError: decodeTextOrNull(row.last_error),
    createdAt: row.created_at,
    payload: row.payload,
  };
}

export interface DeliveryAttemptRow {
  delivery_id: string;
  attempt: number;
  at: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
}
export function toDeliveryAttempt(row: DeliveryAttemptRow): DeliveryAttemptRecord {
  return {
    deliveryId: row.delivery_id,
    attempt: row.attempt,
    at: row.at,
    responseStatus: row.response_status,
    error: decodeTextOrNull(row.error),
    durationMs: row.duration_ms,
  };
}

/** Encodes a patch value for its column: objects and arrays as JSON text, booleans as 0/1. */
export function encodeColumnValue(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "string") return encodeText(value);
  if (typeof value === "number") return value;
  return JSON.stringify(value);
}
