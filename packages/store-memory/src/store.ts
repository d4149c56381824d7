import {
  DEFAULT_SNAPSHOT_RETENTION,
  StoreError,
  newId,
  severityRank,
  type ClaimedDelivery,
  type ClaimedMonitor,
  type ClaimMonitorsInput,
  type ReleasedLeases,
  type RenewedLeases,
  type RenewLeasesInput,
  type DeliveryAttemptRecord,
  type DeliveryRecord,
  type DiffFilter,
  type KeysetPage,
  defineStore,
  diffJsonOf,
  type DiffRecord,
  type IdempotencyClaim,
  type IdempotencyClaimResult,
  type MonitorFilter,
  type MonitorPatch,
  type MonitorRecord,
  type NewMonitor,
  type NewScreenshot,
  type NewFailureScreenshot,
  type FailureScreenshotRecord,
  type NewSecret,
  type ScreenshotRecord,
  type SecretRecord,
  type NewOrganization,
  type NewToken,
  type NewWebhook,
  type OrganizationPatch,
  type OrganizationRecord,
  type RateLimitHit,
  type RecordCheckInput,
  type RecordCheckResult,
  type SettingsPatch,
  type SettingsRecord,
  type SnapshotRecord,
  type Store,
  type StoreAdapter,
  type StoreCapabilities,
  type StoreHooks,
  type TokenRecord,
  type TrackedReadingRecord,
  type WebhookPatch,
  type WebhookRecord,
  type ChannelAttemptEntry,
  type ChannelDeliveryRecord,
  type ChannelPatch,
  type ChannelRecord,
  type ClaimChannelDeliveriesInput,
  type ClaimedChannelDelivery,
  type NewChannel,
  type NewChannelDelivery,
} from "@driftwatch/core";
import { MemoryDatabase, type MonitorRow } from "./database.js";
import { copy, defined, fairTake, listOf } from "./helpers.js";
import * as outbox from "./outbox.js";
import * as channels from "./channels.js";
import { MemoryPeopleStore, settle } from "./people.js";
import {
  patchedMonitor,
  recordCheck,
  toDeliveryRecord,
  toMonitorRecord,
  toSnapshotSummary,
} from "./record-check.js";

export interface MemoryStoreOptions {
  /** The tables to use; pass the same database to several stores to share data (default: a new, empty one). */
  database?: MemoryDatabase;
  /** Test instrumentation (see `StoreHooks`). */
  hooks?: StoreHooks;
  /** Clock for `createdAt` fields (default `() => new Date()`). */
  now?: () => Date;
}

const WEBHOOK_PATCH_FIELDS = [
  "url",
  "description",
  "events",
  "monitorIds",
  "minSeverity",
  "enabled",
  "secret",
  "previousSecret",
  "previousSecretExpiresAt",
  "updatedAt",
] as const;

/**
 * A driftwatch `Store` kept in process memory: for tests, demos and embedding. Same semantics as
 * the SQL adapters (it runs the same contract suite); nothing survives the process.
 */
export async function createMemoryStore(
  options: MemoryStoreOptions = {}
): Promise<Store> {
  return defineStore(
    new MemoryStore(
      options.database ?? new MemoryDatabase(),
      options.hooks ?? {},
      options.now ?? (() => new Date())
    )
  );
}

/** The name `openStore` looks for in every adapter package. */
export const createStore = createMemoryStore;

/** The adapter `defineStore` wraps: ids, times, paging and the closed state come checked. */
class MemoryStore extends MemoryPeopleStore implements StoreAdapter {
  readonly capabilities: StoreCapabilities = {
    rateLimits: true,
    durable: false,
  };
  readonly #db: MemoryDatabase;
  readonly #hooks: StoreHooks;
  readonly #clock: () => Date;
  constructor(db: MemoryDatabase, hooks: StoreHooks, clock: () => Date) {
    super(db);
    this.#db = db;
    this.#hooks = hooks;
    this.#clock = clock;
  }

  /** Runs `work`; a throw becomes a rejection, as with the SQL adapters. */
  #call<T>(work: () => T): Promise<T> {
    return settle(work);
  }

  #now(): string {
    return this.#clock().toISOString();
  }

  #monitor(orgId: string, id: string): MonitorRow | undefined {
    const row = this.#db.monitors.get(id);
    return row !== undefined && row.orgId === orgId ? row : undefined;
  }

  #webhook(orgId: string, id: string): WebhookRecord | undefined {
    const row = this.#db.webhooks.get(id);
    return row !== undefined && row.orgId === orgId ? row : undefined;
  }

  // organizations ----------------------------------------------------------------------------

  createOrganization(input: NewOrganization): Promise<OrganizationRecord> {
    return this.#call(() => {
      for (const org of this.#db.organizations.values()) {
        if (org.slug === input.slug)
          throw new StoreError(
            "conflict",
            `An organization with slug ${input.slug} exists.`
          );
      }
      const record: OrganizationRecord = {
        id: newId("organization"),
        slug: input.slug,
        name: input.name ?? input.slug,
        learnNoiseByDefault: true,
        learningDefaults: null,
        createdAt: this.#now(),
      };
      this.#db.organizations.set(record.id, record);
      return copy(record);
    });
  }

  getOrganization(id: string): Promise<OrganizationRecord | null> {
    return this.#call(() => copy(this.#db.organizations.get(id) ?? null));
  }

  getOrganizationBySlug(slug: string): Promise<OrganizationRecord | null> {
    return this.#call(() =>
      copy(
        [...this.#db.organizations.values()].find((o) => o.slug === slug) ??
          null
      )
    );
  }

  ensureOrganization(slug: string, name?: string): Promise<OrganizationRecord> {
    return this.#call(() => {
      const existing = [...this.#db.organizations.values()].find(
        (o) => o.slug === slug
      );
      if (existing !== undefined) return copy(existing);
      const record: OrganizationRecord = {
        id: newId("organization"),
        slug,
        name: name ?? slug,
        learnNoiseByDefault: true,
        learningDefaults: null,
        createdAt: this.#now(),
      };
      this.#db.organizations.set(record.id, record);
      return copy(record);
    });
  }

  countOrganizations(): Promise<number> {
    return this.#call(() => this.#db.organizations.size);
  }

  updateOrganization(id: string, patch: OrganizationPatch): Promise<OrganizationRecord | null> {
    return this.#call(() => {
      const org = this.#db.organizations.get(id);
      if (org === undefined) return null;
      if (patch.name !== undefined) org.name = patch.name;
      if (patch.learnNoiseByDefault !== undefined) org.learnNoiseByDefault = patch.learnNoiseByDefault;
      if (patch.learningDefaults !== undefined) org.learningDefaults = copy(patch.learningDefaults);
      return copy(org);
    });
  }

  deleteOrganization(id: string): Promise<boolean> {
    return this.#call(() => {
      const db = this.#db;
      if (!db.organizations.delete(id)) return false;
      const tables: Map<string, { orgId: string }>[] = [db.tokens, db.monitors, db.snapshots, db.diffs, db.settings, db.trackedValues, db.alertStates, db.webhooks, db.screenshots, db.failureScreenshots, db.secrets];
      for (const table of tables) {
        for (const [key, row] of table) if (row.orgId === id) table.delete(key);
      }
      for (const [key, row] of db.deliveries) {
        if (row.orgId !== id) continue;
        db.deliveries.delete(key);
        db.deliveryAttempts.delete(key);
      }
      for (const key of db.idempotencyKeys.keys()) if (key.startsWith(`${id}\u0000`)) db.idempotencyKeys.delete(key);
      channels.dropChannelsOf(db, id);
      this.dropPeopleOf(id);
      return true;
    });
  }

  // tokens -----------------------------------------------------------------------------------

  createToken(orgId: string, input: NewToken): Promise<TokenRecord> {
    return this.#call(() => {
      this.requireOrganization(orgId);
      for (const token of this.#db.tokens.values()) {
        if (token.tokenHash === input.tokenHash)
          throw new StoreError(
            "conflict",
            "A token with the same hash exists."
          );
      }
      const record: TokenRecord = {
        id: newId("token"),
        orgId,
        name: input.name,
        scopes: [...input.scopes],
        tokenHash: input.tokenHash,
        createdAt: this.#now(),
        lastUsedAt: null,
        revokedAt: null,
        createdBy: input.createdBy ?? null,
      };
      this.#db.tokens.set(record.id, record);
      return copy(record);
    });
  }

  findTokenByHash(tokenHash: string): Promise<TokenRecord | null> {
    return this.#call(() =>
      copy(
        [...this.#db.tokens.values()].find((t) => t.tokenHash === tokenHash) ??
          null
      )
    );
  }

  getToken(orgId: string, id: string): Promise<TokenRecord | null> {
    return this.#call(() => {
      const token = this.#db.tokens.get(id);
      return token !== undefined && token.orgId === orgId ? copy(token) : null;
    });
  }

  listTokens(orgId: string, page: KeysetPage): Promise<TokenRecord[]> {
    return this.#call(() =>
      listOf(this.#db.tokens.values(), (t) => t.orgId === orgId, page, copy)
    );
  }

  revokeToken(
    orgId: string,
    id: string,
    at: string
  ): Promise<TokenRecord | null> {
    return this.#call(() => {
      const token = this.#db.tokens.get(id);
      if (token === undefined || token.orgId !== orgId) return null;
      token.revokedAt ??= at;
      return copy(token);
    });
  }

  touchToken(id: string, at: string): Promise<void> {
    return this.#call(() => {
      const token = this.#db.tokens.get(id);
      if (token !== undefined) token.lastUsedAt = at;
    });
  }

  // monitors ---------------------------------------------------------------------------------

  createMonitor(orgId: string, input: NewMonitor): Promise<MonitorRecord> {
    return this.#call(() => {
      this.requireOrganization(orgId);
      const now = this.#now();
      const row: MonitorRow = {
        id: newId("monitor"),
        orgId,
        type: input.type,
        name: input.name,
        url: input.url,
        method: input.method,
        headers: copy(input.headers),
        body: input.body,
        intervalSeconds: input.intervalSeconds,
        selector: input.selector,
        browserOptionsJson: copy(input.browserOptionsJson),
        tags: [...(input.tags ?? [])],
        contract: copy(input.contract ?? null),
        state: input.state,
        consecutiveFailures: 0,
        lastCheckedAt: null,
        lastChangedAt: null,
        nextCheckAt: input.nextCheckAt,
        lastStatus: null,
        lastError: null,
        lastFailure: null,
        createdAt: now,
        updatedAt: now,
        learningSince: null,
        leaseOwner: null,
        leaseExpiresAt: null,
      };
      this.#db.monitors.set(row.id, row);
      if (input.autoApplySuggestions !== undefined) {
        this.#db.settings.set(row.id, {
          orgId,
          monitorId: row.id,
          policyRulesJson: { rules: [] },
          snapshotRetention: DEFAULT_SNAPSHOT_RETENTION,
          autoApplySuggestions: input.autoApplySuggestions,
          rejectedSuggestions: [],
          track: [],
          alert: null,
          learning: input.learning == null ? null : copy(input.learning),
          updatedAt: null,
        });
      }
      return toMonitorRecord(row);
    });
  }

  getMonitor(orgId: string, id: string): Promise<MonitorRecord | null> {
    return this.#call(() => {
      const row = this.#monitor(orgId, id);
      return row === undefined ? null : toMonitorRecord(row);
    });
  }

  updateMonitor(
    orgId: string,
    id: string,
    patch: MonitorPatch
  ): Promise<MonitorRecord | null> {
    return this.#call(() => {
      const row = this.#monitor(orgId, id);
      if (row === undefined) return null;
      const next = patchedMonitor(row, patch);
      this.#db.monitors.set(id, next);
      return toMonitorRecord(next);
    });
  }

  deleteMonitor(orgId: string, id: string): Promise<boolean> {
    return this.#call(() => {
      if (this.#monitor(orgId, id) === undefined) return false;
      this.#db.monitors.delete(id);
      // snapshots, diffs and settings go with it; deliveries stay in the log, as in the SQL adapters
      for (const [key, s] of this.#db.snapshots)
        if (s.monitorId === id) this.#db.snapshots.delete(key);
      for (const [key, d] of this.#db.diffs)
        if (d.monitorId === id) this.#db.diffs.delete(key);
      for (const [key, shot] of this.#db.screenshots)
        if (shot.monitorId === id) this.#db.screenshots.delete(key);
      this.#db.failureScreenshots.delete(id);
      this.#db.settings.delete(id);
      for (const [key, r] of this.#db.trackedValues)
        if (r.monitorId === id) this.#db.trackedValues.delete(key);
      this.#db.alertStates.delete(id);
      return true;
    });
  }

  listMonitors(orgId: string, query: MonitorFilter & KeysetPage): Promise<MonitorRecord[]> {
    const tag = query.tag;
    return this.#call(() =>
      listOf(
        this.#db.monitors.values(),
        (m) => m.orgId === orgId && (tag === undefined || m.tags.includes(tag)),
        query,
        toMonitorRecord
      )
    );
  }

  claimDueMonitors(input: ClaimMonitorsInput): Promise<ClaimedMonitor[]> {
    return this.#call(() => {
      const now = input.now;
      const until = new Date(Date.parse(now) + input.leaseMs).toISOString();
      const due = fairTake(
        [...this.#db.monitors.values()]
          .filter(
            (m) =>
              (m.state === "active" || m.state === "failing") &&
              m.nextCheckAt !== null &&
              m.nextCheckAt <= now &&
              (m.leaseExpiresAt === null || m.leaseExpiresAt <= now)
          )
          .sort((a, b) =>
            a.nextCheckAt! < b.nextCheckAt!
              ? -1
              : a.nextCheckAt! > b.nextCheckAt!
              ? 1
              : a.id < b.id
              ? -1
              : 1
          ),
        input.limit
      );
      return due.map((row) => {
        const takenOverFrom = row.leaseOwner;
        row.leaseOwner = input.owner;
        row.leaseExpiresAt = until;
        return { ...toMonitorRecord(row), takenOverFrom };
      });
    });
  }

  renewLeases(input: RenewLeasesInput): Promise<RenewedLeases> {
    return this.#call(() => {
      const until = new Date(Date.parse(input.now) + input.leaseMs).toISOString();
      const renew = <Row extends { leaseOwner: string | null; leaseExpiresAt: string | null }>(rows: Map<string, Row>, ids: readonly string[]): string[] =>
        ids.filter((id) => {
          const row = rows.get(id);
          if (row === undefined || row.leaseOwner !== input.owner) return false;
          row.leaseExpiresAt = until;
          return true;
        });
      return { monitorIds: renew(this.#db.monitors, input.monitorIds), deliveryIds: renew(this.#db.deliveries, input.deliveryIds) };
    });
  }

  releaseLeases(owner: string): Promise<ReleasedLeases> {
    return this.#call(() => {
      const release = (rows: Iterable<{ leaseOwner: string | null; leaseExpiresAt: string | null }>): number => {
        let count = 0;
        for (const row of rows) {
          if (row.leaseOwner !== owner) continue;
          row.leaseOwner = null;
          row.leaseExpiresAt = null;
          count++;
        }
        return count;
      };
      return { monitors: release(this.#db.monitors.values()), deliveries: release(this.#db.deliveries.values()) };
    });
  }

  releaseMonitor(
    id: string,
    owner: string,
    nextCheckAt: string | null
  ): Promise<boolean> {
    return this.#call(() => {
      const row = this.#db.monitors.get(id);
      if (row === undefined || row.leaseOwner !== owner) return false;
      row.leaseOwner = null;
      row.leaseExpiresAt = null;
      row.nextCheckAt = nextCheckAt;
      return true;
    });
  }

  // snapshots --------------------------------------------------------------------------------

  getLatestSnapshot(
    orgId: string,
    monitorId: string
  ): Promise<SnapshotRecord | null> {
    return this.#call(() => {
      let latest: SnapshotRecord | null = null;
      for (const s of this.#db.snapshots.values()) {
        if (
          s.orgId === orgId &&
          s.monitorId === monitorId &&
          (latest === null || s.id > latest.id)
        )
          latest = s;
      }
      return copy(latest);
    });
  }

  listSnapshots(
    orgId: string,
    monitorId: string,
    page: KeysetPage
  ): Promise<SnapshotRecord[]> {
    return this.#call(() =>
      listOf(
        this.#db.snapshots.values(),
        (s) => s.orgId === orgId && s.monitorId === monitorId,
        page,
        toSnapshotSummary
      )
    );
  }

  getSnapshot(
    orgId: string,
    monitorId: string,
    id: string
  ): Promise<SnapshotRecord | null> {
    return this.#call(() => {
      const s = this.#db.snapshots.get(id);
      return s !== undefined && s.orgId === orgId && s.monitorId === monitorId
        ? copy(s)
        : null;
    });
  }

  // diffs ------------------------------------------------------------------------------------

  listDiffs(
    orgId: string,
    monitorId: string,
    query: DiffFilter & KeysetPage
  ): Promise<DiffRecord[]> {
    return this.#call(() => {
      const { since, until } = query;
      const minRank =
        query.minSeverity === undefined
          ? undefined
          : severityRank(query.minSeverity);
      return listOf(
        this.#db.diffs.values(),
        (d) =>
          d.orgId === orgId &&
          d.monitorId === monitorId &&
          (since === undefined || d.createdAt >= since) &&
          (until === undefined || d.createdAt <= until) &&
          (minRank === undefined || severityRank(d.topSeverity) >= minRank) &&
          (query.classification === undefined ||
            d.classification === query.classification),
        query,
        copy
      );
    });
  }

  getDiff(
    orgId: string,
    monitorId: string,
    id: string
  ): Promise<DiffRecord | null> {
    return this.#call(() => {
      const d = this.#db.diffs.get(id);
      return d !== undefined && d.orgId === orgId && d.monitorId === monitorId
        ? copy(d)
        : null;
    });
  }

  getDiffJson(
    orgId: string,
    monitorId: string,
    id: string
  ): Promise<string | null> {
    return this.#call(() => {
      const d = this.#db.diffs.get(id);
      return d !== undefined && d.orgId === orgId && d.monitorId === monitorId
        ? diffJsonOf(d)
        : null;
    });
  }

  recordCheck(
    orgId: string,
    input: RecordCheckInput
  ): Promise<RecordCheckResult> {
    return this.#call(() =>
      recordCheck(this.#db, this.#hooks, this.#now(), orgId, input)
    );
  }

  // tracked values ---------------------------------------------------------------------------

  listTrackedValues(orgId: string, monitorId: string, name: string, page: KeysetPage): Promise<TrackedReadingRecord[]> {
    return this.#call(() => listOf(this.#db.trackedValues.values(), (r) => r.orgId === orgId && r.monitorId === monitorId && r.name === name, page, copy));
  }

  getAlertState(orgId: string, monitorId: string): Promise<unknown> {
    return this.#call(() => {
      const entry = this.#db.alertStates.get(monitorId);
      return entry !== undefined && entry.orgId === orgId ? copy(entry.state) : null;
    });
  }

  // settings ---------------------------------------------------------------------------------

  #settings(orgId: string, monitorId: string): SettingsRecord {
    return copy(
      this.#db.settings.get(monitorId) ?? {
        orgId,
        monitorId,
        policyRulesJson: { rules: [] },
        snapshotRetention: DEFAULT_SNAPSHOT_RETENTION,
        autoApplySuggestions: false,
        rejectedSuggestions: [],
        track: [],
        alert: null,
        learning: null,
        updatedAt: null,
      }
    );
  }

  getSettings(
    orgId: string,
    monitorId: string
  ): Promise<SettingsRecord | null> {
    return this.#call(() =>
      this.#monitor(orgId, monitorId) === undefined
        ? null
        : this.#settings(orgId, monitorId)
    );
  }

  updateSettings(
    orgId: string,
    monitorId: string,
    patch: SettingsPatch
  ): Promise<SettingsRecord | null> {
    return this.#call(() => {
      if (this.#monitor(orgId, monitorId) === undefined) return null;
      const current = this.#settings(orgId, monitorId);
      const next: SettingsRecord = {
        orgId,
        monitorId,
        policyRulesJson: copy(patch.policyRulesJson ?? current.policyRulesJson),
        snapshotRetention: patch.snapshotRetention ?? current.snapshotRetention,
        autoApplySuggestions: patch.autoApplySuggestions ?? current.autoApplySuggestions,
        rejectedSuggestions: copy(patch.rejectedSuggestions ?? current.rejectedSuggestions),
        track: copy(patch.track ?? current.track),
        alert: patch.alert === undefined ? current.alert : copy(patch.alert),
        learning: patch.learning === undefined ? (current.learning ?? null) : copy(patch.learning),
        updatedAt: patch.updatedAt,
      };
      this.#db.settings.set(monitorId, next);
      return copy(next);
    });
  }

  // webhooks ---------------------------------------------------------------------------------

  createWebhook(orgId: string, input: NewWebhook): Promise<WebhookRecord> {
    return this.#call(() => {
      this.requireOrganization(orgId);
      const now = this.#now();
      const record: WebhookRecord = {
        id: newId("webhook"),
        orgId,
        url: input.url,
        description: input.description,
        events: [...input.events],
        monitorIds: input.monitorIds === null ? null : [...input.monitorIds],
        minSeverity: input.minSeverity,
        enabled: input.enabled,
        secret: input.secret,
        previousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: now,
        updatedAt: now,
      };
      this.#db.webhooks.set(record.id, record);
      return copy(record);
    });
  }

  getWebhook(orgId: string, id: string): Promise<WebhookRecord | null> {
    return this.#call(() => copy(this.#webhook(orgId, id) ?? null));
  }

  listWebhooks(orgId: string, page: KeysetPage): Promise<WebhookRecord[]> {
    return this.#call(() =>
      listOf(this.#db.webhooks.values(), (w) => w.orgId === orgId, page, copy)
    );
  }

  updateWebhook(
    orgId: string,
    id: string,
    patch: WebhookPatch
  ): Promise<WebhookRecord | null> {
    return this.#call(() => {
      const row = this.#webhook(orgId, id);
      if (row === undefined) return null;
      const changes = defined(patch);
      const next: WebhookRecord = { ...row };
      for (const field of WEBHOOK_PATCH_FIELDS) {
        if (!(field in changes)) continue;
        const value = changes[field];
        (next as unknown as Record<string, unknown>)[field] = copy(value);
      }
      this.#db.webhooks.set(id, next);
      return copy(next);
    });
  }

  deleteWebhook(orgId: string, id: string): Promise<boolean> {
    return this.#call(() => {
      if (this.#webhook(orgId, id) === undefined) return false;
      this.#db.webhooks.delete(id);
      for (const [key, d] of this.#db.deliveries) {
        if (d.webhookId !== id) continue;
        this.#db.deliveries.delete(key);
        this.#db.deliveryAttempts.delete(key);
      }
      return true;
    });
  }

  // deliveries -------------------------------------------------------------------------------

  claimDueDeliveries(
    input: Parameters<Store["claimDueDeliveries"]>[0]
  ): Promise<ClaimedDelivery[]> {
    return this.#call(() => outbox.claimDueDeliveries(this.#db, input));
  }

  recordDeliveryAttempt(
    id: string,
    owner: string,
    attempt: Parameters<Store["recordDeliveryAttempt"]>[2]
  ): Promise<DeliveryRecord | null> {
    return this.#call(() =>
      outbox.recordDeliveryAttempt(this.#db, id, owner, attempt)
    );
  }

  getDelivery(
    orgId: string,
    webhookId: string,
    id: string
  ): Promise<DeliveryRecord | null> {
    return this.#call(() => {
      const d = this.#db.deliveries.get(id);
      return d !== undefined && d.orgId === orgId && d.webhookId === webhookId
        ? toDeliveryRecord(d)
        : null;
    });
  }

  listDeliveries(
    orgId: string,
    webhookId: string,
    page: KeysetPage
  ): Promise<DeliveryRecord[]> {
    return this.#call(() =>
      listOf(
        this.#db.deliveries.values(),
        (d) => d.orgId === orgId && d.webhookId === webhookId,
        page,
        toDeliveryRecord
      )
    );
  }

  listDeliveryAttempts(
    orgId: string,
    deliveryId: string
  ): Promise<DeliveryAttemptRecord[]> {
    return this.#call(() => {
      const d = this.#db.deliveries.get(deliveryId);
      return d === undefined || d.orgId !== orgId
        ? []
        : copy(this.#db.deliveryAttempts.get(deliveryId) ?? []);
    });
  }

  requeueDelivery(
    orgId: string,
    webhookId: string,
    id: string,
    now: string
  ): Promise<DeliveryRecord | null> {
    return this.#call(() =>
      outbox.requeueDelivery(this.#db, orgId, webhookId, id, now)
    );
  }

  countPendingDeliveries(orgId?: string): Promise<number> {
    return this.#call(() => {
      let n = 0;
      for (const d of this.#db.deliveries.values())
        if (d.state === "pending" && (orgId === undefined || d.orgId === orgId))
          n++;
      return n;
    });
  }

  // notification channels and their outbox ---------------------------------------------------

  createChannel(orgId: string, input: NewChannel): Promise<ChannelRecord> {
    return this.#call(() => channels.createChannel(this.#db, orgId, input, this.#now()));
  }
  getChannel(orgId: string, id: string): Promise<ChannelRecord | null> {
    return this.#call(() => channels.getChannel(this.#db, orgId, id));
  }
  listChannels(orgId: string, page: KeysetPage): Promise<ChannelRecord[]> {
    return this.#call(() => channels.listChannels(this.#db, orgId, page));
  }
  updateChannel(orgId: string, id: string, patch: ChannelPatch): Promise<ChannelRecord | null> {
    return this.#call(() => channels.updateChannel(this.#db, orgId, id, patch));
  }
  deleteChannel(orgId: string, id: string): Promise<boolean> {
    return this.#call(() => channels.deleteChannel(this.#db, orgId, id));
  }
  enqueueChannelDeliveries(orgId: string, messages: readonly NewChannelDelivery[]): Promise<ChannelDeliveryRecord[]> {
    return this.#call(() => channels.enqueueChannelDeliveries(this.#db, orgId, messages));
  }
  getChannelDelivery(orgId: string, channelId: string, id: string): Promise<ChannelDeliveryRecord | null> {
    return this.#call(() => channels.getChannelDelivery(this.#db, orgId, channelId, id));
  }
  listChannelDeliveries(orgId: string, channelId: string, page: KeysetPage): Promise<ChannelDeliveryRecord[]> {
    return this.#call(() => channels.listChannelDeliveries(this.#db, orgId, channelId, page));
  }
  listChannelDeliveryAttempts(orgId: string, deliveryId: string): Promise<DeliveryAttemptRecord[]> {
    return this.#call(() => channels.listChannelDeliveryAttempts(this.#db, orgId, deliveryId));
  }
  requeueChannelDelivery(orgId: string, channelId: string, id: string, now: string): Promise<ChannelDeliveryRecord | null> {
    return this.#call(() => channels.requeueChannelDelivery(this.#db, orgId, channelId, id, now));
  }
  claimDueChannelDeliveries(input: ClaimChannelDeliveriesInput): Promise<ClaimedChannelDelivery[]> {
    return this.#call(() => channels.claimDueChannelDeliveries(this.#db, input));
  }
  recordChannelDeliveryAttempt(id: string, owner: string, attempt: Parameters<Store["recordDeliveryAttempt"]>[2]): Promise<ChannelDeliveryRecord | null> {
    return this.#call(() => channels.recordChannelDeliveryAttempt(this.#db, id, owner, attempt));
  }
  recordChannelDeliveryAttempts(owner: string, attempts: readonly ChannelAttemptEntry[]): Promise<(ChannelDeliveryRecord | null)[]> {
    return this.#call(() => attempts.map(({ id, attempt }) => channels.recordChannelDeliveryAttempt(this.#db, id, owner, attempt)));
  }
  releaseChannelDeliveryLeases(owner: string): Promise<number> {
    return this.#call(() => channels.releaseChannelDeliveryLeases(this.#db, owner));
  }
  countPendingChannelDeliveries(orgId?: string): Promise<number> {
    return this.#call(() => channels.countPendingChannelDeliveries(this.#db, orgId));
  }

  // idempotency and rate limits --------------------------------------------------------------

  claimIdempotencyKey(
    orgId: string,
    input: IdempotencyClaim
  ): Promise<IdempotencyClaimResult> {
    return this.#call(() => outbox.claimIdempotencyKey(this.#db, orgId, input));
  }

  completeIdempotencyKey(
    orgId: string,
    key: string,
    response: { status: number; body: string }
  ): Promise<void> {
    return this.#call(() =>
      outbox.completeIdempotencyKey(this.#db, orgId, key, response)
    );
  }

  releaseIdempotencyKey(orgId: string, key: string): Promise<void> {
    return this.#call(() => outbox.releaseIdempotencyKey(this.#db, orgId, key));
  }

  hitRateLimit(
    key: string,
    windowMs: number,
    now: number
  ): Promise<RateLimitHit> {
    return this.#call(() => outbox.hitRateLimit(this.#db, key, windowMs, now));
  }

  refundRateLimitHit(key: string, windowMs: number, now: number): Promise<void> {
    return this.#call(() => outbox.refundRateLimitHit(this.#db, key, windowMs, now));
  }

  resetRateLimit(key: string): Promise<void> {
    return this.#call(() => {
      for (const k of [...this.#db.rateLimits.keys()]) if (k.startsWith(`${key}\u0000`)) this.#db.rateLimits.delete(k);
    });
  }

  // lifecycle --------------------------------------------------------------------------------

  // screenshots -----------------------------------------------------------------------------

  putScreenshot(orgId: string, monitorId: string, screenshot: NewScreenshot): Promise<void> {
    return this.#call(() => {
      const snapshot = this.#db.snapshots.get(screenshot.snapshotId);
      if (snapshot === undefined || snapshot.orgId !== orgId || snapshot.monitorId !== monitorId) {
        throw new StoreError("not_found", `Snapshot ${screenshot.snapshotId} of monitor ${monitorId} not found.`);
      }
      const data = new Uint8Array(screenshot.data);
      this.#db.screenshots.set(screenshot.snapshotId, { ...screenshot, data, orgId, monitorId, bytes: data.byteLength });
    });
  }

  getScreenshot(orgId: string, monitorId: string, snapshotId: string): Promise<ScreenshotRecord | null> {
    return this.#call(() => {
      const row = this.#db.screenshots.get(snapshotId);
      if (row === undefined || row.orgId !== orgId || row.monitorId !== monitorId) return null;
      return { ...row, data: new Uint8Array(row.data) };
    });
  }

  pruneScreenshots(orgId: string, monitorId: string, _keep: number): Promise<number> {
    return this.#call(() => {
      // Screenshots go with their snapshot (retention drops both): only orphans are left to remove.
      let removed = 0;
      for (const [key, row] of this.#db.screenshots) {
        if (row.orgId === orgId && row.monitorId === monitorId && !this.#db.snapshots.has(key)) {
          this.#db.screenshots.delete(key);
          removed++;
        }
      }
      return removed;
    });
  }

  deleteMonitorScreenshots(orgId: string, monitorId: string): Promise<void> {
    return this.#call(() => {
      for (const [key, row] of this.#db.screenshots) if (row.orgId === orgId && row.monitorId === monitorId) this.#db.screenshots.delete(key);
      if (this.#db.failureScreenshots.get(monitorId)?.orgId === orgId) this.#db.failureScreenshots.delete(monitorId);
    });
  }

  putFailureScreenshot(orgId: string, monitorId: string, screenshot: NewFailureScreenshot): Promise<void> {
    return this.#call(() => {
      if (this.#monitor(orgId, monitorId) === undefined) throw new StoreError("not_found", `Monitor ${monitorId} not found.`);
      const data = new Uint8Array(screenshot.data);
      this.#db.failureScreenshots.set(monitorId, { ...screenshot, step: { ...screenshot.step }, data, orgId, monitorId, bytes: data.byteLength });
    });
  }

  getFailureScreenshot(orgId: string, monitorId: string): Promise<FailureScreenshotRecord | null> {
    return this.#call(() => {
      const row = this.#db.failureScreenshots.get(monitorId);
      if (row === undefined || row.orgId !== orgId) return null;
      return { ...row, step: { ...row.step }, data: new Uint8Array(row.data) };
    });
  }

  // secrets ---------------------------------------------------------------------------------

  createSecret(orgId: string, input: NewSecret): Promise<SecretRecord> {
    return this.#call(() => {
      if (!this.#db.organizations.has(orgId)) throw new StoreError("not_found", `Organization ${orgId} not found.`);
      for (const row of this.#db.secrets.values()) {
        if (row.orgId === orgId && row.name === input.name) throw new StoreError("conflict", `A secret named ${JSON.stringify(input.name)} exists.`);
      }
      if (this.#db.secrets.has(input.id)) throw new StoreError("conflict", `A secret with id ${input.id} exists.`);
      const row: SecretRecord = { ...input, orgId };
      this.#db.secrets.set(input.id, row);
      return copy(row);
    });
  }

  listSecrets(orgId: string): Promise<SecretRecord[]> {
    return this.#call(() =>
      [...this.#db.secrets.values()]
        .filter((row) => row.orgId === orgId)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((row) => copy(row)),
    );
  }

  getSecretByName(orgId: string, name: string): Promise<SecretRecord | null> {
    return this.#call(() => {
      for (const row of this.#db.secrets.values()) if (row.orgId === orgId && row.name === name) return copy(row);
      return null;
    });
  }

  deleteSecret(orgId: string, id: string): Promise<boolean> {
    return this.#call(() => {
      const row = this.#db.secrets.get(id);
      if (row === undefined || row.orgId !== orgId) return false;
      return this.#db.secrets.delete(id);
    });
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
