import type {
  ApiDiff,
  BrowserOptions,
  Classification,
  Delivery,
  DeliveryState,
  DiffDetectedEvent,
  HttpMethod,
  Monitor,
  MonitorState,
  MonitorType,
  Page,
  PolicyRules,
  Scope,
  Severity,
  Snapshot,
  Token,
  Webhook,
  WebsiteDiff,
} from "@driftwatch/schema";
import { severityRank } from "@driftwatch/schema";
import { DriftwatchError, type DriftwatchErrorOptions } from "../errors.js";

/**
 * The storage port. The engine and the server depend on this interface only; adapters
 * (`@driftwatch/store-memory`, `-sqlite`, `-postgres`) implement it and all run the contract
 * suite of `@driftwatch/store-testkit`.
 *
 * Conventions every adapter keeps:
 * - Every method that touches tenant data takes `orgId` first and never reads or changes
 *   another organization's rows: a foreign id behaves exactly like an unknown one
 *   (`null` / `false`, or `StoreError` `not_found` for writes that need the row).
 * - Times are ISO 8601 UTC strings (`new Date().toISOString()`); ids come from `newId` and
 *   sort by creation time, so "newest first" is "id descending".
 * - Lists take `{ limit, cursor }` and return `{ data, nextCursor }`; cursors are opaque
 *   (see `encodeCursor`), `nextCursor` is null on the last page, and a malformed cursor is a
 *   `StoreError` `invalid_cursor`.
 * - Records returned are copies: mutating them does not change the store.
 */
export interface Store {
  readonly capabilities: StoreCapabilities;

  // organizations -------------------------------------------------------------------------
  createOrganization(input: NewOrganization): Promise<OrganizationRecord>;
  getOrganization(id: string): Promise<OrganizationRecord | null>;
  getOrganizationBySlug(slug: string): Promise<OrganizationRecord | null>;
  /** The organization with this slug, created when missing; safe when two processes race. */
  ensureOrganization(slug: string, name?: string): Promise<OrganizationRecord>;

  // tokens ---------------------------------------------------------------------------------
  createToken(orgId: string, input: NewToken): Promise<TokenRecord>;
  /** Looked up by the hash of the secret; revoked tokens are returned too (caller decides). */
  findTokenByHash(tokenHash: string): Promise<TokenRecord | null>;
  getToken(orgId: string, id: string): Promise<TokenRecord | null>;
  listTokens(orgId: string, page: PageRequest): Promise<Page<TokenRecord>>;
  /** Sets `revokedAt`; returns the token, or null when unknown. Revoking twice keeps the first time. */
  revokeToken(orgId: string, id: string, at: string): Promise<TokenRecord | null>;
  /** Records `lastUsedAt`. */
  touchToken(id: string, at: string): Promise<void>;
  /** Number of organizations (used to decide first-run bootstrap). */
  countOrganizations(): Promise<number>;

  // monitors -------------------------------------------------------------------------------
  createMonitor(orgId: string, input: NewMonitor): Promise<MonitorRecord>;
  getMonitor(orgId: string, id: string): Promise<MonitorRecord | null>;
  /** Partial update; returns null when unknown. `updatedAt` is set by the caller in `patch`. */
  updateMonitor(orgId: string, id: string, patch: MonitorPatch): Promise<MonitorRecord | null>;
  /** Deletes the monitor with its snapshots, diffs and settings (deliveries stay in the log). */
  deleteMonitor(orgId: string, id: string): Promise<boolean>;
  listMonitors(orgId: string, page: PageRequest): Promise<Page<MonitorRecord>>;
  /**
   * Leases up to `limit` monitors (any organization) that are `active` or `failing`, whose
   * `nextCheckAt <= now` and whose lease is free or expired, ordered by `nextCheckAt`.
   * Two callers never receive the same monitor while its lease holds.
   */
  claimDueMonitors(input: ClaimMonitorsInput): Promise<MonitorRecord[]>;
  /** Ends the lease held by `owner` and sets the next check time. False when the lease was lost. */
  releaseMonitor(id: string, owner: string, nextCheckAt: string | null): Promise<boolean>;

  // snapshots ------------------------------------------------------------------------------
  getLatestSnapshot(orgId: string, monitorId: string): Promise<SnapshotRecord | null>;
  /** Newest first; records without `body`. */
  listSnapshots(orgId: string, monitorId: string, page: PageRequest): Promise<Page<SnapshotRecord>>;
  /** With `body`. */
  getSnapshot(orgId: string, monitorId: string, id: string): Promise<SnapshotRecord | null>;

  // diffs ----------------------------------------------------------------------------------
  /** Newest first, filtered. */
  listDiffs(orgId: string, monitorId: string, query: DiffQuery): Promise<Page<DiffRecord>>;
  getDiff(orgId: string, monitorId: string, id: string): Promise<DiffRecord | null>;
  /**
   * Optional fast path: the diff as the API serialises it (`JSON.stringify` of the record without
   * `orgId`, members in `getDiff`'s order), same scoping as `getDiff`. An adapter that keeps the
   * diff as JSON text can return it without parsing and re-serialising; the server uses it when
   * present.
   */
  getDiffJson?(orgId: string, monitorId: string, id: string): Promise<string | null>;

  /**
   * Records one check atomically: the monitor's check fields, the new snapshot (if any),
   * the diff (if any), and, when `event` is given, one pending delivery for every webhook of the
   * organization that is enabled, subscribed to `diff.detected`, covers the monitor
   * (`monitorIds` null or containing it) and whose `minSeverity` is at most the diff's
   * `topSeverity`. All or nothing. Then applies snapshot retention (keep the newest
   * `retention` snapshots of the monitor; diffs that reference a dropped snapshot stay).
   * Raises `StoreError` `not_found` for an unknown or foreign monitor, and
   * `invariant_violation` for a diff without a snapshot, an event without a diff, or a diff
   * whose `previousSnapshotId` belongs to another monitor.
   */
  recordCheck(orgId: string, input: RecordCheckInput): Promise<RecordCheckResult>;

  // settings -------------------------------------------------------------------------------
  /** Settings of a monitor: defaults (`{ rules: [] }`, retention 100, `autoApplySuggestions` false, `updatedAt` null) when never set; null when the monitor is unknown. */
  getSettings(orgId: string, monitorId: string): Promise<SettingsRecord | null>;
  /** Replaces the given fields (an omitted field stays); null when the monitor is unknown. */
  updateSettings(orgId: string, monitorId: string, patch: SettingsPatch): Promise<SettingsRecord | null>;

  // webhooks -------------------------------------------------------------------------------
  createWebhook(orgId: string, input: NewWebhook): Promise<WebhookRecord>;
  getWebhook(orgId: string, id: string): Promise<WebhookRecord | null>;
  listWebhooks(orgId: string, page: PageRequest): Promise<Page<WebhookRecord>>;
  updateWebhook(orgId: string, id: string, patch: WebhookPatch): Promise<WebhookRecord | null>;
  /** Deletes the webhook and its deliveries. */
  deleteWebhook(orgId: string, id: string): Promise<boolean>;

  // deliveries (the outbox) ----------------------------------------------------------------
  /**
   * Leases up to `limit` pending deliveries whose `nextAttemptAt <= now` (any time when
   * `force`), oldest first, optionally only of one organization / webhook, skipping those whose
   * webhook is disabled. Two callers never receive the same delivery while its lease holds.
   */
  claimDueDeliveries(input: ClaimDeliveriesInput): Promise<DeliveryRecord[]>;
  /** Records one attempt by the lease holder and ends the lease. Null when the lease was lost. */
  recordDeliveryAttempt(id: string, owner: string, attempt: DeliveryAttempt): Promise<DeliveryRecord | null>;
  getDelivery(orgId: string, webhookId: string, id: string): Promise<DeliveryRecord | null>;
  /** The delivery log of one webhook, newest first. */
  listDeliveries(orgId: string, webhookId: string, page: PageRequest): Promise<Page<DeliveryRecord>>;
  /** Attempts of one delivery, oldest first. */
  listDeliveryAttempts(orgId: string, deliveryId: string): Promise<DeliveryAttemptRecord[]>;
  /** Manual retry: makes the delivery `pending` again, due at `now` (also a `failed` one). */
  requeueDelivery(orgId: string, webhookId: string, id: string, now: string): Promise<DeliveryRecord | null>;
  /** Counts of pending deliveries (queue depth), optionally of one organization. */
  countPendingDeliveries(orgId?: string): Promise<number>;

  // idempotency ----------------------------------------------------------------------------
  /**
   * Claims an idempotency key for a request. Returns `{ state: "new" }` for the first caller
   * (who must then `completeIdempotencyKey`), or the stored record for later ones (its
   * `response` is null while the first request is still in flight). Expired keys count as new.
   */
  claimIdempotencyKey(orgId: string, input: IdempotencyClaim): Promise<IdempotencyClaimResult>;
  completeIdempotencyKey(orgId: string, key: string, response: IdempotentResponse): Promise<void>;
  /** Forgets a claimed key whose request failed before completing, so a retry may run. */
  releaseIdempotencyKey(orgId: string, key: string): Promise<void>;

  // rate limits (capability `rateLimits`) --------------------------------------------------
  /** Adds one hit to the fixed window `key` and returns the count in that window. */
  hitRateLimit?(key: string, windowMs: number, now: number): Promise<RateLimitHit>;

  // lifecycle ------------------------------------------------------------------------------
  /** Cheap round trip used by readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreCapabilities {
  /** Shared rate-limit counters (`hitRateLimit`). */
  rateLimits: boolean;
  /** Data survives the process (false for memory). */
  durable: boolean;
}

export interface PageRequest {
  /** 1..100 */
  limit: number;
  cursor?: string | null | undefined;
}

export interface DiffQuery extends PageRequest {
  since?: string | undefined;
  until?: string | undefined;
  minSeverity?: Severity | undefined;
  classification?: Classification | undefined;
}

// records --------------------------------------------------------------------------------------

export interface NewOrganization {
  slug: string;
  name?: string;
}
export interface OrganizationRecord {
  id: string;
  slug: string;
  name: string;
  createdAt: string;
}

export interface NewToken {
  name: string;
  scopes: Scope[];
  /** sha256 hex of the secret; the secret itself is never stored. */
  tokenHash: string;
}
export interface TokenRecord extends Omit<Token, "token"> {
  orgId: string;
  tokenHash: string;
}

export interface NewMonitor {
  type: MonitorType;
  name: string;
  url: string;
  method: HttpMethod;
  /** Unmasked: the store keeps real values; masking happens when serving. */
  headers: Record<string, string>;
  body: string | null;
  intervalSeconds: number;
  selector: string | null;
  browserOptionsJson: BrowserOptions | null;
  state: MonitorState;
  nextCheckAt: string | null;
}
export interface MonitorRecord extends Monitor {
  orgId: string;
}
export type MonitorPatch = Partial<Omit<Monitor, "id" | "type" | "createdAt">>;

export interface ClaimMonitorsInput {
  now: string;
  limit: number;
  leaseMs: number;
  /** Identifies the worker holding the lease. */
  owner: string;
}

export interface NewSnapshot {
  id: string;
  fetchedAt: string;
  status: number;
  latencyMs: number;
  contentType: string | null;
  contentHash: string;
  size: number;
  browserRender: boolean;
  body: string;
  /** Validators for the next conditional GET. */
  etag?: string | null;
  lastModified?: string | null;
}
export interface SnapshotRecord extends Snapshot {
  orgId: string;
  etag: string | null;
  lastModified: string | null;
}

type DiffInput<D> = Omit<D, "monitorId" | "snapshotId">;
/** A diff to record; `monitorId` and `snapshotId` come from the check. */
export type NewDiff = DiffInput<ApiDiff> | DiffInput<WebsiteDiff>;
export type DiffRecord = (ApiDiff | WebsiteDiff) & { orgId: string };

export interface RecordCheckInput {
  monitorId: string;
  /** The check's effect on the monitor (lastCheckedAt, lastStatus, state, ...). */
  monitor: MonitorPatch;
  /** The new snapshot, or null when the content did not change (or the check failed). */
  snapshot: NewSnapshot | null;
  diff: NewDiff | null;
  /** The `diff.detected` event, without `deliveredAt` (set when sent). */
  event: Omit<DiffDetectedEvent, "deliveredAt"> | null;
  /** Snapshots to keep for this monitor (default 100). */
  retention?: number;
  /**
   * The monitor's newest snapshot when the check began (null: it had none), the one its diff was
   * computed against. When given together with a snapshot to record, the store writes nothing
   * and throws `StoreError` `stale_snapshot` if by then the newest snapshot is another one: a
   * check of the same monitor (in another process) recorded first, so this check's diff is
   * against an outdated snapshot. Omitted: no such check.
   */
  previousSnapshotId?: string | null;
}
export interface RecordCheckResult {
  monitor: MonitorRecord;
  snapshot: SnapshotRecord | null;
  diff: DiffRecord | null;
  deliveries: DeliveryRecord[];
}

export interface SettingsRecord {
  orgId: string;
  monitorId: string;
  policyRulesJson: PolicyRules;
  snapshotRetention: number;
  /** Future diffs use the policy merged with the one learned from recent snapshots (default false). */
  autoApplySuggestions: boolean;
  updatedAt: string | null;
}
export interface SettingsPatch {
  policyRulesJson?: PolicyRules;
  snapshotRetention?: number;
  autoApplySuggestions?: boolean;
  updatedAt: string;
}

export interface NewWebhook {
  url: string;
  description: string | null;
  events: Webhook["events"];
  monitorIds: string[] | null;
  minSeverity: Severity;
  enabled: boolean;
  secret: string;
}
export interface WebhookRecord extends Omit<Webhook, "secret"> {
  orgId: string;
  secret: string;
  /** During a rotation the old secret also signs until `previousSecretExpiresAt`. */
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
}
export type WebhookPatch = Partial<
  Pick<WebhookRecord, "url" | "description" | "events" | "monitorIds" | "minSeverity" | "enabled" | "secret" | "previousSecret" | "previousSecretExpiresAt" | "updatedAt">
>;

export interface DeliveryRecord extends Delivery {
  orgId: string;
  /** The event envelope without `deliveredAt`, as JSON text. */
  payload: string;
}

export interface ClaimDeliveriesInput {
  now: string;
  limit: number;
  leaseMs: number;
  owner: string;
  orgId?: string;
  webhookId?: string;
  /** Also deliveries whose `nextAttemptAt` is in the future. */
  force?: boolean;
}

export interface DeliveryAttempt {
  at: string;
  /** The delivery's new state: `pending` to retry at `nextAttemptAt`, `succeeded`, or `failed` (gave up). */
  state: DeliveryState;
  nextAttemptAt: string | null;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}
export interface DeliveryAttemptRecord {
  deliveryId: string;
  attempt: number;
  at: string;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

export interface IdempotencyClaim {
  key: string;
  /** Hash of method, route and body: the same key with another request is a conflict. */
  requestHash: string;
  now: string;
  expiresAt: string;
}
export interface IdempotentResponse {
  status: number;
  body: string;
}
export type IdempotencyClaimResult =
  | { state: "new" }
  | { state: "existing"; requestHash: string; response: IdempotentResponse | null };

export interface RateLimitHit {
  count: number;
  /** Epoch ms when the window ends. */
  resetAt: number;
}

// test instrumentation -------------------------------------------------------------------------

/** The writes of `recordCheck`, in order. */
export type RecordCheckStage = "monitor" | "snapshot" | "diff" | "deliveries" | "retention";

/**
 * Instrumentation adapters accept in their options (`hooks`), for the contract suite: called
 * synchronously inside the transaction after each write of `recordCheck`; a hook that throws
 * must make the whole check roll back.
 */
export interface StoreHooks {
  onRecordCheckStage?(stage: RecordCheckStage): void;
}

// errors ---------------------------------------------------------------------------------------

export type StoreErrorCode =
  | "not_found"
  | "conflict"
  | "stale_snapshot"
  | "invalid_cursor"
  | "invariant_violation"
  | "schema_too_new"
  | "store_closed"
  | "store_unavailable";

export class StoreError extends DriftwatchError<StoreErrorCode> {
  override readonly name = "StoreError";
  constructor(code: StoreErrorCode, message: string, options?: DriftwatchErrorOptions) {
    super(code, message, options);
  }
}

// helpers every adapter shares ------------------------------------------------------------------

/** Largest page a list returns. */
export const MAX_PAGE_LIMIT = 100;

/** The page size adapters use: 1..100, 20 for a value that is no number. */
export function clampPageLimit(limit: number): number {
  if (!Number.isFinite(limit)) return 20;
  return Math.min(MAX_PAGE_LIMIT, Math.max(1, Math.floor(limit)));
}

/**
 * A time as adapters store it: ISO 8601 UTC with milliseconds, whatever precision or offset the
 * caller used. A value that is no time is `StoreError` `invariant_violation`, before anything is written.
 */
export function normalizeStoreTime(value: string): string {
  const time = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw new StoreError("invariant_violation", `${JSON.stringify(value)} is not a time.`);
  return new Date(time).toISOString();
}

/** The record `recordCheck` stores for a new snapshot: times normalised, absent validators null. */
export function snapshotRecordOf(orgId: string, monitorId: string, snapshot: NewSnapshot): SnapshotRecord & { body: string } {
  return {
    id: snapshot.id,
    orgId,
    monitorId,
    fetchedAt: normalizeStoreTime(snapshot.fetchedAt),
    status: snapshot.status,
    latencyMs: snapshot.latencyMs,
    contentType: snapshot.contentType,
    contentHash: snapshot.contentHash,
    size: snapshot.size,
    browserRender: snapshot.browserRender,
    body: snapshot.body,
    etag: snapshot.etag ?? null,
    lastModified: snapshot.lastModified ?? null,
  };
}

/**
 * Whether `recordCheck` gives an (enabled) webhook a delivery of an event: it subscribes to the
 * event type, covers the monitor (all monitors when `monitorIds` is null), and its `minSeverity`
 * is at or below the diff's top severity.
 */
export function webhookReceives(
  webhook: Pick<WebhookRecord, "events" | "monitorIds" | "minSeverity">,
  eventType: WebhookRecord["events"][number],
  monitorId: string,
  severity: Severity,
): boolean {
  return (
    webhook.events.includes(eventType) &&
    (webhook.monitorIds === null || webhook.monitorIds.includes(monitorId)) &&
    severityRank(webhook.minSeverity) <= severityRank(severity)
  );
}

/**
 * The refusal of `recordCheck` when `previousSnapshotId` is no longer the monitor's newest
 * snapshot (`latest`): nothing was written.
 */
export function staleSnapshotError(expected: string | null, latest: string | null): StoreError {
  return new StoreError(
    "stale_snapshot",
    `The check was compared with snapshot ${expected ?? "(none)"}, but the monitor's newest snapshot is now ${latest ?? "(none)"}; nothing was recorded.`,
  );
}

export function normalizeStoreTimeOrNull(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : normalizeStoreTime(value);
}

// cursors --------------------------------------------------------------------------------------

/** Opaque cursor for keyset paging by id (ids sort by creation time). */
export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ v: 1, id: lastId }), "utf8").toString("base64url");
}

/** The id a cursor continues after; `StoreError` `invalid_cursor` when malformed. */
export function decodeCursor(cursor: string): string {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      typeof parsed === "object" &&
      parsed !== null &&
      (parsed as { v?: unknown }).v === 1 &&
      typeof (parsed as { id?: unknown }).id === "string" &&
      /^[a-z]{3}_[0-9A-Za-z_-]{8,64}$/.test((parsed as { id: string }).id)
    ) {
      return (parsed as { id: string }).id;
    }
  } catch {
    // fall through
  }
  throw new StoreError("invalid_cursor", "The cursor is not one this API issued.");
}
