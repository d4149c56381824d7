import { normalizeTags, RoleSchema, TagSchema, type Page, type Role } from "@driftwatch/schema";
import { StoreError, toStoreError } from "./errors.js";
import type { ClaimDeliveriesInput, ClaimedDelivery, ClaimedMonitor, ClaimMonitorsInput, DeliveryAttempt, ReleasedLeases, RenewedLeases, RenewLeasesInput } from "./leases.js";
import { MONITOR_TIME_FIELDS, type MonitorFilter, type MonitorPatch, type MonitorQuery, type MonitorRecord, type NewMonitor } from "./monitors.js";
import type { NewOrganization, NewToken, OrganizationPatch, OrganizationRecord, TokenRecord } from "./organizations.js";
import { keysetPageOf, pageFromRecords, pageFromTimeRecords, timeKeysetPageOf, type KeysetPage, type PageRequest, type TimeKeysetPage } from "./paging.js";
import { normalizeEmail, type AuditRecord, type InviteRecord, type MemberRecord, type MembershipRecord, type NewAuditEntry } from "./people.js";
import type { NewInvite, NewSession, NewUser, SessionPatch, SessionRecord, UserPatch, UserRecord } from "./people.js";
import type { IdempotencyClaim, IdempotencyClaimResult, IdempotentResponse, RateLimitHit } from "./requests.js";
import type { SettingsPatch, SettingsRecord } from "./settings.js";
import type { CheckBasis, DiffQuery, DiffRecord, RecordCheckInput, RecordCheckResult, SnapshotRecord, TrackedReadingRecord } from "./snapshots-diffs.js";
import { checkNewScreenshot, type FailureScreenshotRecord, type NewFailureScreenshot, type NewScreenshot, type ScreenshotRecord } from "./screenshots.js";
import { MAX_SECRETS_PER_ORGANIZATION, type NewSecret, type SecretRecord } from "./secrets.js";
import type { Store, StoreCapabilities } from "./store.js";
import { normalizeStoreTime, normalizeStoreTimeOrNull, normalizeTimeFields } from "./time.js";
import { MAX_CHANNEL_CLAIM, type ChannelAttemptEntry, type ChannelDeliveryRecord, type ChannelPatch, type ChannelRecord, type ClaimChannelDeliveriesInput, type ClaimedChannelDelivery, type NewChannel, type NewChannelDelivery } from "./channels.js";
import { WEBHOOK_TIME_FIELDS, type DeliveryAttemptRecord, type DeliveryRecord, type NewWebhook, type WebhookPatch, type WebhookRecord } from "./webhooks.js";

/** The filters of a diff list, without its paging. */
export type DiffFilter = Omit<DiffQuery, "limit" | "cursor">;

type PagedMethods =
  | "listTokens"
  | "listMonitors"
  | "listSnapshots"
  | "listDiffs"
  | "listWebhooks"
  | "listDeliveries"
  | "listChannels"
  | "listChannelDeliveries"
  | "listMembers"
  | "listInvites"
  | "listAudit"
  | "listTrackedValues";

/**
 * What an adapter implements: the `Store` port, with what `defineStore` does for it taken out.
 * Its methods receive ids that are strings, times normalised to ISO 8601 UTC with milliseconds
 * (`normalizeStoreTime`), and lists as a decoded `KeysetPage` (records below `after`, newest
 * first, at most `take`); they are never called after `close`.
 */
export interface StoreAdapter extends Omit<Store, PagedMethods | "getCheckBasis"> {
  /** One read of `getSettings` and `getLatestSnapshot` together; without it `defineStore` runs both. */
  getCheckBasis?(orgId: string, monitorId: string): Promise<CheckBasis | null>;
  listTokens(orgId: string, page: KeysetPage): Promise<TokenRecord[]>;
  /** `tag`, when given, is normalised: keep only the monitors whose tags include it. */
  listMonitors(orgId: string, query: MonitorFilter & KeysetPage): Promise<MonitorRecord[]>;
  listSnapshots(orgId: string, monitorId: string, page: KeysetPage): Promise<SnapshotRecord[]>;
  listDiffs(orgId: string, monitorId: string, query: DiffFilter & KeysetPage): Promise<DiffRecord[]>;
  listWebhooks(orgId: string, page: KeysetPage): Promise<WebhookRecord[]>;
  listDeliveries(orgId: string, webhookId: string, page: KeysetPage): Promise<DeliveryRecord[]>;
  listChannels(orgId: string, page: KeysetPage): Promise<ChannelRecord[]>;
  listChannelDeliveries(orgId: string, channelId: string, page: KeysetPage): Promise<ChannelDeliveryRecord[]>;
  /** Ordered by (`createdAt`, user id), newest first, below `after` in that order. */
  listMembers(orgId: string, page: TimeKeysetPage): Promise<MemberRecord[]>;
  listInvites(orgId: string, page: KeysetPage): Promise<InviteRecord[]>;
  listAudit(orgId: string, page: KeysetPage): Promise<AuditRecord[]>;
  /** Readings of one tracked value, newest first (by id). */
  listTrackedValues(orgId: string, monitorId: string, name: string, page: KeysetPage): Promise<TrackedReadingRecord[]>;
}

export interface DefineStoreOptions {
  /** Turns an adapter's own failure (a driver's error code) into a `StoreError`; undefined leaves it as is. */
  mapError?(error: unknown): StoreError | undefined;
}

/** Ids must be non-empty strings: anything else is refused before the adapter sees it. */
function requireIds(...ids: unknown[]): void {
  for (const id of ids) {
    if (typeof id !== "string" || id.length === 0 || id.length > 200) {
      throw new StoreError("invariant_violation", `${JSON.stringify(id) ?? String(id)} is not an id.`);
    }
  }
}

/** A role must be one of `RoleSchema`'s: anything else is refused before the adapter sees it. */
function requireRole(role: unknown): Role {
  const parsed = RoleSchema.safeParse(role);
  if (!parsed.success) throw new StoreError("invariant_violation", `${JSON.stringify(role) ?? String(role)} is not a role.`);
  return parsed.data;
}

/** A non-empty string (emails, hashes, names) no longer than `max`. */
function requireText(value: unknown, what: string, max = 1000): string {
  if (typeof value !== "string" || value.length === 0 || value.length > max) {
    throw new StoreError("invariant_violation", `${what} must be a non-empty string of at most ${max} characters.`);
  }
  return value;
}

/** Tags as `TagsSchema` keeps them (trimmed, lower-cased, deduplicated); anything else is refused. */
function requireTags(tags: unknown): string[] {
  const normalized = Array.isArray(tags) ? normalizeTags(tags) : null;
  if (normalized === null) throw new StoreError("invariant_violation", `${JSON.stringify(tags) ?? String(tags)} are not valid monitor tags.`);
  return normalized;
}

/** A monitor patch with its times and tags normalised. */
function normalizeMonitorPatch<P extends MonitorPatch>(patch: P): P {
  const normalized = normalizeTimeFields(patch, MONITOR_TIME_FIELDS);
  return patch.tags === undefined ? normalized : { ...normalized, tags: requireTags(patch.tags) };
}

function optionalText(value: unknown, what: string): string | null {
  return value === null || value === undefined ? null : requireText(value, what);
}

function requireEmail(email: unknown): string {
  return normalizeEmail(requireText(email, "An email", 320));
}

/**
 * Wraps an adapter into a `Store`, adding what every adapter would otherwise repeat: ids
 * checked, times normalised, paging cursors decoded and encoded with the limit clamped, errors
 * mapped to `StoreError` codes (driftwatch errors pass through), and `store_closed` after `close`.
 */
export function defineStore(adapter: StoreAdapter, options: DefineStoreOptions = {}): Store {
  return new DefinedStore(adapter, options);
}

class DefinedStore implements Store {
  readonly #a: StoreAdapter;
  readonly #mapError: DefineStoreOptions["mapError"];
  #closed = false;
  #closing: Promise<void> | null = null;
  /** A plain property (not a getter), so a `Proxy` around the store reads it too. */
  readonly capabilities: StoreCapabilities;
  readonly hitRateLimit?: (key: string, windowMs: number, now: number) => Promise<RateLimitHit>;
  readonly resetRateLimit?: (key: string) => Promise<void>;
  readonly refundRateLimitHit?: (key: string, windowMs: number, now: number) => Promise<void>;

  constructor(adapter: StoreAdapter, options: DefineStoreOptions) {
    this.#a = adapter;
    this.capabilities = adapter.capabilities;
    this.#mapError = options.mapError;
    const hit = adapter.hitRateLimit;
    if (hit !== undefined) {
      this.hitRateLimit = (key, windowMs, now) =>
        this.#run(() => {
          if (typeof key !== "string" || !(windowMs > 0) || !Number.isFinite(now)) {
            throw new StoreError("invariant_violation", "hitRateLimit needs a key, a positive window and a time.");
          }
          return hit.call(adapter, key, windowMs, now);
        });
    }
    const reset = adapter.resetRateLimit;
    if (reset !== undefined) {
      this.resetRateLimit = (key) =>
        this.#run(() => {
          if (typeof key !== "string") throw new StoreError("invariant_violation", "resetRateLimit needs a key.");
          return reset.call(adapter, key);
        });
    }
    const refund = adapter.refundRateLimitHit;
    if (refund !== undefined) {
      this.refundRateLimitHit = (key, windowMs, now) =>
        this.#run(() => {
          if (typeof key !== "string" || !(windowMs > 0) || !Number.isFinite(now)) {
            throw new StoreError("invariant_violation", "refundRateLimitHit needs a key, a positive window and a time.");
          }
          return refund.call(adapter, key, windowMs, now);
        });
    }
  }

  /** Runs one adapter call: refused after close, any failure mapped. */
  #run<T>(call: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreError("store_closed", "The store is closed."));
    let result: Promise<T>;
    try {
      result = call();
    } catch (error) {
      return Promise.reject(toStoreError(error, this.#mapError));
    }
    return result.then(undefined, (error: unknown) => {
      throw toStoreError(error, this.#mapError);
    });
  }

  async #page<T extends { id: string }>(page: PageRequest, read: (page: KeysetPage) => Promise<T[]>): Promise<Page<T>> {
    const keyset = keysetPageOf(page);
    return pageFromRecords(await read(keyset), keyset);
  }

  // organizations and tokens

  createOrganization(input: NewOrganization): Promise<OrganizationRecord> {
    return this.#run(() => this.#a.createOrganization(input));
  }
  getOrganization(id: string): Promise<OrganizationRecord | null> {
    return this.#run(() => (requireIds(id), this.#a.getOrganization(id)));
  }
  getOrganizationBySlug(slug: string): Promise<OrganizationRecord | null> {
    return this.#run(() => this.#a.getOrganizationBySlug(slug));
  }
  ensureOrganization(slug: string, name?: string): Promise<OrganizationRecord> {
    return this.#run(() => this.#a.ensureOrganization(slug, name));
  }
  countOrganizations(): Promise<number> {
    return this.#run(() => this.#a.countOrganizations());
  }
  updateOrganization(id: string, patch: OrganizationPatch): Promise<OrganizationRecord | null> {
    return this.#run(() => {
      requireIds(id);
      const checked: OrganizationPatch = {};
      if (patch.name !== undefined) checked.name = requireText(patch.name, "An organization's name");
      if (patch.learnNoiseByDefault !== undefined) {
        if (typeof patch.learnNoiseByDefault !== "boolean") throw new StoreError("invariant_violation", "learnNoiseByDefault must be a boolean.");
        checked.learnNoiseByDefault = patch.learnNoiseByDefault;
      }
      if (patch.learningDefaults !== undefined) {
        if (patch.learningDefaults !== null && (typeof patch.learningDefaults !== "object" || Array.isArray(patch.learningDefaults))) {
          throw new StoreError("invariant_violation", "learningDefaults must be an object or null.");
        }
        checked.learningDefaults = patch.learningDefaults;
      }
      return this.#a.updateOrganization(id, checked);
    });
  }
  deleteOrganization(id: string): Promise<boolean> {
    return this.#run(() => (requireIds(id), this.#a.deleteOrganization(id)));
  }
  createToken(orgId: string, input: NewToken): Promise<TokenRecord> {
    return this.#run(() => (requireIds(orgId), this.#a.createToken(orgId, input)));
  }
  findTokenByHash(tokenHash: string): Promise<TokenRecord | null> {
    return this.#run(() => this.#a.findTokenByHash(tokenHash));
  }
  getToken(orgId: string, id: string): Promise<TokenRecord | null> {
    return this.#run(() => (requireIds(orgId, id), this.#a.getToken(orgId, id)));
  }
  listTokens(orgId: string, page: PageRequest): Promise<Page<TokenRecord>> {
    return this.#run(() => (requireIds(orgId), this.#page(page, (p) => this.#a.listTokens(orgId, p))));
  }
  revokeToken(orgId: string, id: string, at: string): Promise<TokenRecord | null> {
    return this.#run(() => (requireIds(orgId, id), this.#a.revokeToken(orgId, id, normalizeStoreTime(at))));
  }
  touchToken(id: string, at: string): Promise<void> {
    return this.#run(() => (requireIds(id), this.#a.touchToken(id, normalizeStoreTime(at))));
  }

  // monitors

  createMonitor(orgId: string, input: NewMonitor): Promise<MonitorRecord> {
    return this.#run(() =>
      (requireIds(orgId),
      this.#a.createMonitor(orgId, { ...input, tags: requireTags(input.tags ?? []), nextCheckAt: normalizeStoreTimeOrNull(input.nextCheckAt) })),
    );
  }
  getMonitor(orgId: string, id: string): Promise<MonitorRecord | null> {
    return this.#run(() => (requireIds(orgId, id), this.#a.getMonitor(orgId, id)));
  }
  updateMonitor(orgId: string, id: string, patch: MonitorPatch): Promise<MonitorRecord | null> {
    return this.#run(() => (requireIds(orgId, id), this.#a.updateMonitor(orgId, id, normalizeMonitorPatch(patch))));
  }
  deleteMonitor(orgId: string, id: string): Promise<boolean> {
    return this.#run(() => (requireIds(orgId, id), this.#a.deleteMonitor(orgId, id)));
  }
  listMonitors(orgId: string, query: MonitorQuery): Promise<Page<MonitorRecord>> {
    return this.#run(() => {
      requireIds(orgId);
      const filter: MonitorFilter = {};
      if (query.tag !== undefined) {
        const tag = TagSchema.safeParse(query.tag);
        if (!tag.success) throw new StoreError("invariant_violation", `${JSON.stringify(query.tag) ?? String(query.tag)} is not a tag.`);
        filter.tag = tag.data;
      }
      return this.#page(query, (p) => this.#a.listMonitors(orgId, { ...filter, ...p }));
    });
  }

  // snapshots, diffs and the check

  getLatestSnapshot(orgId: string, monitorId: string): Promise<SnapshotRecord | null> {
    return this.#run(() => (requireIds(orgId, monitorId), this.#a.getLatestSnapshot(orgId, monitorId)));
  }
  getCheckBasis(orgId: string, monitorId: string): Promise<CheckBasis | null> {
    return this.#run(async () => {
      requireIds(orgId, monitorId);
      if (this.#a.getCheckBasis !== undefined) return this.#a.getCheckBasis(orgId, monitorId);
      const [settings, latestSnapshot] = await Promise.all([this.#a.getSettings(orgId, monitorId), this.#a.getLatestSnapshot(orgId, monitorId)]);
      return settings === null ? null : { settings, latestSnapshot };
    });
  }
  listSnapshots(orgId: string, monitorId: string, page: PageRequest): Promise<Page<SnapshotRecord>> {
    return this.#run(() => (requireIds(orgId, monitorId), this.#page(page, (p) => this.#a.listSnapshots(orgId, monitorId, p))));
  }
  getSnapshot(orgId: string, monitorId: string, id: string): Promise<SnapshotRecord | null> {
    return this.#run(() => (requireIds(orgId, monitorId, id), this.#a.getSnapshot(orgId, monitorId, id)));
  }
  listDiffs(orgId: string, monitorId: string, query: DiffQuery): Promise<Page<DiffRecord>> {
    return this.#run(() => {
      requireIds(orgId, monitorId);
      const filter: DiffFilter = {
        since: query.since === undefined ? undefined : normalizeStoreTime(query.since),
        until: query.until === undefined ? undefined : normalizeStoreTime(query.until),
        minSeverity: query.minSeverity,
        classification: query.classification,
      };
      return this.#page(query, (p) => this.#a.listDiffs(orgId, monitorId, { ...filter, ...p }));
    });
  }
  getDiff(orgId: string, monitorId: string, id: string): Promise<DiffRecord | null> {
    return this.#run(() => (requireIds(orgId, monitorId, id), this.#a.getDiff(orgId, monitorId, id)));
  }
  getDiffJson(orgId: string, monitorId: string, id: string): Promise<string | null> {
    return this.#run(() => (requireIds(orgId, monitorId, id), this.#a.getDiffJson(orgId, monitorId, id)));
  }
  recordCheck(orgId: string, input: RecordCheckInput): Promise<RecordCheckResult> {
    return this.#run(() => {
      requireIds(orgId, input.monitorId);
      if (input.releaseLease !== undefined) requireIds(input.releaseLease);
      const { snapshot, diff, event } = input;
      if (snapshot !== null) requireIds(snapshot.id);
      if (diff !== null) requireIds(diff.id);
      if (event !== null) normalizeStoreTime(event.occurredAt); // refused before anything is written
      const channelMessages = input.channelMessages?.map((m) => {
        requireIds(m.channelId);
        return { ...m, dedupKey: requireText(m.dedupKey, "A dedup key", 300), createdAt: normalizeStoreTime(m.createdAt), nextAttemptAt: normalizeStoreTime(m.nextAttemptAt) };
      });
      const tracked = input.tracked;
      if (tracked !== undefined) requireIds(tracked.snapshotId, ...tracked.readings.map((reading) => reading.name));
      return this.#a.recordCheck(orgId, {
        ...input,
        ...(channelMessages === undefined || channelMessages.length === 0 ? { channelMessages: undefined } : { channelMessages }),
        ...(tracked !== undefined ? { tracked: { ...tracked, at: normalizeStoreTime(tracked.at) } } : {}),
        monitor: normalizeMonitorPatch(input.monitor),
        snapshot: snapshot === null ? null : { ...snapshot, fetchedAt: normalizeStoreTime(snapshot.fetchedAt) },
        diff: diff === null ? null : { ...diff, createdAt: normalizeStoreTime(diff.createdAt) },
      });
    });
  }

  // tracked values

  listTrackedValues(orgId: string, monitorId: string, name: string, page: PageRequest): Promise<Page<TrackedReadingRecord>> {
    return this.#run(() => (requireIds(orgId, monitorId, name), this.#page(page, (p) => this.#a.listTrackedValues(orgId, monitorId, name, p))));
  }
  getAlertState(orgId: string, monitorId: string): Promise<unknown> {
    return this.#run(() => (requireIds(orgId, monitorId), this.#a.getAlertState(orgId, monitorId)));
  }

  // settings

  getSettings(orgId: string, monitorId: string): Promise<SettingsRecord | null> {
    return this.#run(() => (requireIds(orgId, monitorId), this.#a.getSettings(orgId, monitorId)));
  }
  updateSettings(orgId: string, monitorId: string, patch: SettingsPatch): Promise<SettingsRecord | null> {
    return this.#run(() => (requireIds(orgId, monitorId), this.#a.updateSettings(orgId, monitorId, { ...patch, updatedAt: normalizeStoreTime(patch.updatedAt) })));
  }

  // webhooks and deliveries

  createWebhook(orgId: string, input: NewWebhook): Promise<WebhookRecord> {
    return this.#run(() => (requireIds(orgId), this.#a.createWebhook(orgId, input)));
  }
  getWebhook(orgId: string, id: string): Promise<WebhookRecord | null> {
    return this.#run(() => (requireIds(orgId, id), this.#a.getWebhook(orgId, id)));
  }
  listWebhooks(orgId: string, page: PageRequest): Promise<Page<WebhookRecord>> {
    return this.#run(() => (requireIds(orgId), this.#page(page, (p) => this.#a.listWebhooks(orgId, p))));
  }
  updateWebhook(orgId: string, id: string, patch: WebhookPatch): Promise<WebhookRecord | null> {
    return this.#run(() => (requireIds(orgId, id), this.#a.updateWebhook(orgId, id, normalizeTimeFields(patch, WEBHOOK_TIME_FIELDS))));
  }
  deleteWebhook(orgId: string, id: string): Promise<boolean> {
    return this.#run(() => (requireIds(orgId, id), this.#a.deleteWebhook(orgId, id)));
  }
  getDelivery(orgId: string, webhookId: string, id: string): Promise<DeliveryRecord | null> {
    return this.#run(() => (requireIds(orgId, webhookId, id), this.#a.getDelivery(orgId, webhookId, id)));
  }
  listDeliveries(orgId: string, webhookId: string, page: PageRequest): Promise<Page<DeliveryRecord>> {
    return this.#run(() => (requireIds(orgId, webhookId), this.#page(page, (p) => this.#a.listDeliveries(orgId, webhookId, p))));
  }
  listDeliveryAttempts(orgId: string, deliveryId: string): Promise<DeliveryAttemptRecord[]> {
    return this.#run(() => (requireIds(orgId, deliveryId), this.#a.listDeliveryAttempts(orgId, deliveryId)));
  }
  requeueDelivery(orgId: string, webhookId: string, id: string, now: string): Promise<DeliveryRecord | null> {
    return this.#run(() => (requireIds(orgId, webhookId, id), this.#a.requeueDelivery(orgId, webhookId, id, normalizeStoreTime(now))));
  }
  countPendingDeliveries(orgId?: string): Promise<number> {
    return this.#run(() => (orgId === undefined || requireIds(orgId), this.#a.countPendingDeliveries(orgId)));
  }

  // notification channels and their outbox

  createChannel(orgId: string, input: NewChannel): Promise<ChannelRecord> {
    return this.#run(() => {
      requireIds(orgId);
      if (input.id !== undefined) requireIds(input.id);
      return this.#a.createChannel(orgId, { ...input, name: requireText(input.name, "A channel's name", 200), tags: requireTags(input.tags) });
    });
  }
  getChannel(orgId: string, id: string): Promise<ChannelRecord | null> {
    return this.#run(() => (requireIds(orgId, id), this.#a.getChannel(orgId, id)));
  }
  listChannels(orgId: string, page: PageRequest): Promise<Page<ChannelRecord>> {
    return this.#run(() => (requireIds(orgId), this.#page(page, (p) => this.#a.listChannels(orgId, p))));
  }
  updateChannel(orgId: string, id: string, patch: ChannelPatch): Promise<ChannelRecord | null> {
    return this.#run(() => {
      requireIds(orgId, id);
      const next: ChannelPatch = { ...patch, updatedAt: normalizeStoreTime(patch.updatedAt) };
      if (patch.name !== undefined) next.name = requireText(patch.name, "A channel's name", 200);
      if (patch.tags !== undefined) next.tags = requireTags(patch.tags);
      return this.#a.updateChannel(orgId, id, next);
    });
  }
  deleteChannel(orgId: string, id: string): Promise<boolean> {
    return this.#run(() => (requireIds(orgId, id), this.#a.deleteChannel(orgId, id)));
  }
  enqueueChannelDeliveries(orgId: string, messages: readonly NewChannelDelivery[]): Promise<ChannelDeliveryRecord[]> {
    return this.#run(() => {
      requireIds(orgId);
      if (messages.length === 0) return Promise.resolve([]);
      const checked = messages.map((m) => {
        requireIds(m.channelId);
        if (m.monitorId !== null) requireIds(m.monitorId);
        if (m.diffId !== null) requireIds(m.diffId);
        return {
          ...m,
          dedupKey: requireText(m.dedupKey, "A dedup key", 300),
          createdAt: normalizeStoreTime(m.createdAt),
          nextAttemptAt: normalizeStoreTime(m.nextAttemptAt),
        };
      });
      return this.#a.enqueueChannelDeliveries(orgId, checked);
    });
  }
  getChannelDelivery(orgId: string, channelId: string, id: string): Promise<ChannelDeliveryRecord | null> {
    return this.#run(() => (requireIds(orgId, channelId, id), this.#a.getChannelDelivery(orgId, channelId, id)));
  }
  listChannelDeliveries(orgId: string, channelId: string, page: PageRequest): Promise<Page<ChannelDeliveryRecord>> {
    return this.#run(() => (requireIds(orgId, channelId), this.#page(page, (p) => this.#a.listChannelDeliveries(orgId, channelId, p))));
  }
  listChannelDeliveryAttempts(orgId: string, deliveryId: string): Promise<DeliveryAttemptRecord[]> {
    return this.#run(() => (requireIds(orgId, deliveryId), this.#a.listChannelDeliveryAttempts(orgId, deliveryId)));
  }
  requeueChannelDelivery(orgId: string, channelId: string, id: string, now: string): Promise<ChannelDeliveryRecord | null> {
    return this.#run(() => (requireIds(orgId, channelId, id), this.#a.requeueChannelDelivery(orgId, channelId, id, normalizeStoreTime(now))));
  }
  claimDueChannelDeliveries(input: ClaimChannelDeliveriesInput): Promise<ClaimedChannelDelivery[]> {
    return this.#run(() => {
      requireIds(input.owner);
      if (input.orgId !== undefined) requireIds(input.orgId);
      if (input.channelId !== undefined) requireIds(input.channelId);
      return this.#a.claimDueChannelDeliveries({ ...input, limit: Math.min(input.limit, MAX_CHANNEL_CLAIM), now: normalizeStoreTime(input.now) });
    });
  }
  recordChannelDeliveryAttempt(id: string, owner: string, attempt: DeliveryAttempt): Promise<ChannelDeliveryRecord | null> {
    return this.#run(() => {
      requireIds(id, owner);
      const at = normalizeStoreTime(attempt.at);
      const nextAttemptAt = attempt.state === "pending" ? normalizeStoreTimeOrNull(attempt.nextAttemptAt) : null;
      return this.#a.recordChannelDeliveryAttempt(id, owner, { ...attempt, at, nextAttemptAt });
    });
  }
  recordChannelDeliveryAttempts(owner: string, attempts: readonly ChannelAttemptEntry[]): Promise<(ChannelDeliveryRecord | null)[]> {
    return this.#run(async () => {
      requireIds(owner);
      const normalized = attempts.map(({ id, attempt }) => {
        requireIds(id);
        const at = normalizeStoreTime(attempt.at);
        const nextAttemptAt = attempt.state === "pending" ? normalizeStoreTimeOrNull(attempt.nextAttemptAt) : null;
        return { id, attempt: { ...attempt, at, nextAttemptAt } };
      });
      if (normalized.length === 0) return [];
      if (this.#a.recordChannelDeliveryAttempts !== undefined) return this.#a.recordChannelDeliveryAttempts(owner, normalized);
      const saved: (ChannelDeliveryRecord | null)[] = [];
      for (const { id, attempt } of normalized) saved.push(await this.#a.recordChannelDeliveryAttempt(id, owner, attempt));
      return saved;
    });
  }
  releaseChannelDeliveryLeases(owner: string): Promise<number> {
    return this.#run(() => (requireIds(owner), this.#a.releaseChannelDeliveryLeases(owner)));
  }
  countPendingChannelDeliveries(orgId?: string): Promise<number> {
    return this.#run(() => (orgId === undefined || requireIds(orgId), this.#a.countPendingChannelDeliveries(orgId)));
  }

  // leases

  claimDueMonitors(input: ClaimMonitorsInput): Promise<ClaimedMonitor[]> {
    return this.#run(() => this.#a.claimDueMonitors({ ...input, now: normalizeStoreTime(input.now) }));
  }
  releaseMonitor(id: string, owner: string, nextCheckAt: string | null): Promise<boolean> {
    return this.#run(() => (requireIds(id), this.#a.releaseMonitor(id, owner, normalizeStoreTimeOrNull(nextCheckAt))));
  }
  claimDueDeliveries(input: ClaimDeliveriesInput): Promise<ClaimedDelivery[]> {
    return this.#run(() => this.#a.claimDueDeliveries({ ...input, now: normalizeStoreTime(input.now) }));
  }
  recordDeliveryAttempt(id: string, owner: string, attempt: DeliveryAttempt): Promise<DeliveryRecord | null> {
    return this.#run(() => {
      requireIds(id);
      const at = normalizeStoreTime(attempt.at);
      const nextAttemptAt = attempt.state === "pending" ? normalizeStoreTimeOrNull(attempt.nextAttemptAt) : null;
      return this.#a.recordDeliveryAttempt(id, owner, { ...attempt, at, nextAttemptAt });
    });
  }
  renewLeases(input: RenewLeasesInput): Promise<RenewedLeases> {
    return this.#run(() => {
      requireIds(input.owner, ...input.monitorIds, ...input.deliveryIds);
      if (input.monitorIds.length === 0 && input.deliveryIds.length === 0) return Promise.resolve({ monitorIds: [], deliveryIds: [] });
      return this.#a.renewLeases({ ...input, now: normalizeStoreTime(input.now), monitorIds: [...new Set(input.monitorIds)], deliveryIds: [...new Set(input.deliveryIds)] });
    });
  }
  releaseLeases(owner: string): Promise<ReleasedLeases> {
    return this.#run(() => (requireIds(owner), this.#a.releaseLeases(owner)));
  }

  // idempotency

  claimIdempotencyKey(orgId: string, input: IdempotencyClaim): Promise<IdempotencyClaimResult> {
    return this.#run(() => {
      requireIds(orgId);
      return this.#a.claimIdempotencyKey(orgId, { ...input, now: normalizeStoreTime(input.now), expiresAt: normalizeStoreTime(input.expiresAt) });
    });
  }
  completeIdempotencyKey(orgId: string, key: string, response: IdempotentResponse): Promise<void> {
    return this.#run(() => (requireIds(orgId), this.#a.completeIdempotencyKey(orgId, key, response)));
  }
  releaseIdempotencyKey(orgId: string, key: string): Promise<void> {
    return this.#run(() => (requireIds(orgId), this.#a.releaseIdempotencyKey(orgId, key)));
  }

  // users and memberships

  createUser(input: NewUser): Promise<UserRecord> {
    return this.#run(() =>
      this.#a.createUser({
        email: requireEmail(input.email),
        displayName: requireText(input.displayName, "A display name"),
        passwordHash: input.passwordHash === null ? null : requireText(input.passwordHash, "A password hash"),
        createdAt: normalizeStoreTime(input.createdAt),
      })
    );
  }
  getUser(id: string): Promise<UserRecord | null> {
    return this.#run(() => (requireIds(id), this.#a.getUser(id)));
  }
  getUserByEmail(email: string): Promise<UserRecord | null> {
    return this.#run(() => this.#a.getUserByEmail(requireEmail(email)));
  }
  updateUser(id: string, patch: UserPatch): Promise<UserRecord | null> {
    return this.#run(() => {
      requireIds(id);
      const next: UserPatch = {};
      if (patch.displayName !== undefined) next.displayName = requireText(patch.displayName, "A display name");
      if (patch.passwordHash !== undefined) {
        if (patch.passwordChangedAt === undefined) throw new StoreError("invariant_violation", "A new password hash needs its passwordChangedAt.");
        next.passwordHash = patch.passwordHash === null ? null : requireText(patch.passwordHash, "A password hash");
        next.passwordChangedAt = normalizeStoreTime(patch.passwordChangedAt);
      }
      return this.#a.updateUser(id, next);
    });
  }
  countUsers(): Promise<number> {
    return this.#run(() => this.#a.countUsers());
  }
  addMembership(orgId: string, userId: string, role: Role, at: string): Promise<MembershipRecord> {
    return this.#run(() => (requireIds(orgId, userId), this.#a.addMembership(orgId, userId, requireRole(role), normalizeStoreTime(at))));
  }
  getMembership(orgId: string, userId: string): Promise<MembershipRecord | null> {
    return this.#run(() => (requireIds(orgId, userId), this.#a.getMembership(orgId, userId)));
  }
  listMembers(orgId: string, page: PageRequest): Promise<Page<MemberRecord>> {
    return this.#run(async () => {
      requireIds(orgId);
      const keyset = timeKeysetPageOf(page);
      return pageFromTimeRecords(await this.#a.listMembers(orgId, keyset), keyset, (m) => m.createdAt);
    });
  }
  listMembershipsOfUser(userId: string): Promise<MembershipRecord[]> {
    return this.#run(() => (requireIds(userId), this.#a.listMembershipsOfUser(userId)));
  }
  setMemberRole(orgId: string, userId: string, role: Role): Promise<MembershipRecord | null> {
    return this.#run(() => (requireIds(orgId, userId), this.#a.setMemberRole(orgId, userId, requireRole(role))));
  }
  removeMembership(orgId: string, userId: string): Promise<boolean> {
    return this.#run(() => (requireIds(orgId, userId), this.#a.removeMembership(orgId, userId)));
  }
  countOwners(orgId: string): Promise<number> {
    return this.#run(() => (requireIds(orgId), this.#a.countOwners(orgId)));
  }

  // sessions

  createSession(input: NewSession): Promise<SessionRecord> {
    return this.#run(() => {
      requireIds(input.userId, input.orgId);
      return this.#a.createSession({
        userId: input.userId,
        sessionHash: requireText(input.sessionHash, "A session hash"),
        orgId: input.orgId,
        createdAt: normalizeStoreTime(input.createdAt),
        expiresAt: normalizeStoreTime(input.expiresAt),
        userAgent: optionalText(input.userAgent, "A user agent"),
        ip: optionalText(input.ip, "An IP address"),
      });
    });
  }
  findSessionByHash(sessionHash: string): Promise<SessionRecord | null> {
    return this.#run(() => this.#a.findSessionByHash(requireText(sessionHash, "A session hash")));
  }
  touchSession(id: string, patch: SessionPatch): Promise<void> {
    return this.#run(() => {
      requireIds(id);
      const next: SessionPatch = {};
      if (patch.lastSeenAt !== undefined) next.lastSeenAt = normalizeStoreTime(patch.lastSeenAt);
      if (patch.orgId !== undefined) next.orgId = (requireIds(patch.orgId), patch.orgId);
      return this.#a.touchSession(id, next);
    });
  }
  revokeSession(id: string, at: string): Promise<boolean> {
    return this.#run(() => (requireIds(id), this.#a.revokeSession(id, normalizeStoreTime(at))));
  }
  revokeUserSessions(userId: string, at: string, exceptId?: string): Promise<number> {
    return this.#run(() => {
      requireIds(userId);
      if (exceptId !== undefined) requireIds(exceptId);
      return this.#a.revokeUserSessions(userId, normalizeStoreTime(at), exceptId);
    });
  }

  trimUserSessions(userId: string, keep: number, at: string): Promise<number> {
    return this.#run(() => {
      requireIds(userId);
      if (!Number.isInteger(keep) || keep < 0) throw new StoreError("invariant_violation", `keep must be a non-negative integer, got ${String(keep)}`);
      return this.#a.trimUserSessions(userId, keep, normalizeStoreTime(at));
    });
  }

  // invites

  createInvite(orgId: string, input: NewInvite): Promise<InviteRecord> {
    return this.#run(() => {
      requireIds(orgId);
      if (input.invitedBy !== null) requireIds(input.invitedBy);
      return this.#a.createInvite(orgId, {
        email: requireEmail(input.email),
        role: requireRole(input.role),
        tokenHash: requireText(input.tokenHash, "A token hash"),
        invitedBy: input.invitedBy,
        createdAt: normalizeStoreTime(input.createdAt),
        expiresAt: normalizeStoreTime(input.expiresAt),
      });
    });
  }
  getInvite(orgId: string, id: string): Promise<InviteRecord | null> {
    return this.#run(() => (requireIds(orgId, id), this.#a.getInvite(orgId, id)));
  }
  findInviteByHash(tokenHash: string): Promise<InviteRecord | null> {
    return this.#run(() => this.#a.findInviteByHash(requireText(tokenHash, "A token hash")));
  }
  listInvites(orgId: string, page: PageRequest): Promise<Page<InviteRecord>> {
    return this.#run(() => (requireIds(orgId), this.#page(page, (p) => this.#a.listInvites(orgId, p))));
  }
  revokeInvite(orgId: string, id: string, at: string): Promise<InviteRecord | null> {
    return this.#run(() => (requireIds(orgId, id), this.#a.revokeInvite(orgId, id, normalizeStoreTime(at))));
  }
  consumeInvite(id: string, userId: string, at: string): Promise<InviteRecord | null> {
    return this.#run(() => (requireIds(id, userId), this.#a.consumeInvite(id, userId, normalizeStoreTime(at))));
  }

  // audit

  appendAudit(orgId: string | null, entry: NewAuditEntry): Promise<AuditRecord> {
    return this.#run(() => {
      if (orgId !== null) requireIds(orgId);
      if (entry.actorId !== null) requireIds(entry.actorId);
      if (entry.targetId !== null) requireIds(entry.targetId);
      if (entry.actorType !== "user" && entry.actorType !== "token" && entry.actorType !== "system") {
        throw new StoreError("invariant_violation", `${JSON.stringify(entry.actorType)} is not an actor type.`);
      }
      if (typeof entry.data !== "object" || entry.data === null || Array.isArray(entry.data)) {
        throw new StoreError("invariant_violation", "An audit entry's data must be an object.");
      }
      return this.#a.appendAudit(orgId, {
        actorType: entry.actorType,
        actorId: entry.actorId,
        action: requireText(entry.action, "An audit action", 200),
        targetId: entry.targetId,
        data: entry.data,
        ip: optionalText(entry.ip, "An IP address"),
        at: normalizeStoreTime(entry.at),
      });
    });
  }
  listAudit(orgId: string, page: PageRequest): Promise<Page<AuditRecord>> {
    return this.#run(() => (requireIds(orgId), this.#page(page, (p) => this.#a.listAudit(orgId, p))));
  }

  // screenshots

  putScreenshot(orgId: string, monitorId: string, screenshot: NewScreenshot): Promise<void> {
    return this.#run(() => {
      requireIds(orgId, monitorId, screenshot.snapshotId);
      checkNewScreenshot(screenshot);
      return this.#a.putScreenshot(orgId, monitorId, { ...screenshot, createdAt: normalizeStoreTime(screenshot.createdAt) });
    });
  }
  getScreenshot(orgId: string, monitorId: string, snapshotId: string): Promise<ScreenshotRecord | null> {
    return this.#run(() => (requireIds(orgId, monitorId, snapshotId), this.#a.getScreenshot(orgId, monitorId, snapshotId)));
  }
  pruneScreenshots(orgId: string, monitorId: string, keep: number): Promise<number> {
    return this.#run(() => {
      requireIds(orgId, monitorId);
      if (!Number.isInteger(keep) || keep < 0) throw new StoreError("invariant_violation", "keep must be an integer of at least 0.");
      return this.#a.pruneScreenshots(orgId, monitorId, keep);
    });
  }
  deleteMonitorScreenshots(orgId: string, monitorId: string): Promise<void> {
    return this.#run(() => (requireIds(orgId, monitorId), this.#a.deleteMonitorScreenshots(orgId, monitorId)));
  }
  putFailureScreenshot(orgId: string, monitorId: string, screenshot: NewFailureScreenshot): Promise<void> {
    return this.#run(() => {
      requireIds(orgId, monitorId);
      checkNewScreenshot({ ...screenshot, snapshotId: "failure" });
      const { index, action, selector } = screenshot.step;
      if (!Number.isInteger(index) || index < 0 || typeof action !== "string" || (selector !== null && typeof selector !== "string")) {
        throw new StoreError("invariant_violation", "A failure screenshot needs its step: { index, action, selector }.");
      }
      return this.#a.putFailureScreenshot(orgId, monitorId, { ...screenshot, step: { index, action, selector }, createdAt: normalizeStoreTime(screenshot.createdAt) });
    });
  }
  getFailureScreenshot(orgId: string, monitorId: string): Promise<FailureScreenshotRecord | null> {
    return this.#run(() => (requireIds(orgId, monitorId), this.#a.getFailureScreenshot(orgId, monitorId)));
  }

  // secrets

  createSecret(orgId: string, input: NewSecret): Promise<SecretRecord> {
    return this.#run(() => {
      requireIds(orgId, input.id);
      if (input.createdBy !== null) requireIds(input.createdBy);
      return this.#a.createSecret(orgId, {
        id: input.id,
        name: requireText(input.name, "A secret's name", 100),
        sealedValue: requireText(input.sealedValue, "A sealed value", 100_000),
        createdAt: normalizeStoreTime(input.createdAt),
        createdBy: input.createdBy,
      });
    });
  }
  listSecrets(orgId: string): Promise<SecretRecord[]> {
    return this.#run(async () => (requireIds(orgId), (await this.#a.listSecrets(orgId)).slice(0, MAX_SECRETS_PER_ORGANIZATION)));
  }
  getSecretByName(orgId: string, name: string): Promise<SecretRecord | null> {
    return this.#run(() => (requireIds(orgId), this.#a.getSecretByName(orgId, requireText(name, "A secret's name", 100))));
  }
  deleteSecret(orgId: string, id: string): Promise<boolean> {
    return this.#run(() => (requireIds(orgId, id), this.#a.deleteSecret(orgId, id)));
  }

  // lifecycle

  ping(): Promise<void> {
    return this.#run(() => this.#a.ping());
  }
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= this.#a.close();
    return this.#closing;
  }
}
