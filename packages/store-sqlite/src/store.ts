import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import BetterSqlite3 from "better-sqlite3";
import type { Database, Statement } from "better-sqlite3";
import {
  DEFAULT_SNAPSHOT_RETENTION,
  StoreError,
  decodeCursor,
  encodeCursor,
  newId,
  severityRank,
  type DeliveryAttemptRecord,
  type DeliveryRecord,
  type DiffRecord,
  type IdempotencyClaimResult,
  type MonitorPatch,
  type MonitorRecord,
  type OrganizationRecord,
  type Page,
  type PageRequest,
  type RateLimitHit,
  type RecordCheckInput,
  type RecordCheckResult,
  type SettingsRecord,
  type SnapshotRecord,
  type Store,
  type StoreHooks,
  type TokenRecord,
  type WebhookPatch,
  type WebhookRecord,
} from "@driftwatch/core";
import { migrateSqlite, SQLITE_SCHEMA_VERSION } from "./migrations.js";
import { encodeText, encodeTextOrNull } from "@driftwatch/core";

/** Longest synchronous lock wait inside SQLite (busy_timeout); longer waits are asynchronous retries. */
export const LOCK_SPIN_MS = 20;

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** The tables `ping` expects (readiness: the schema is there, not only the file). */
const SCHEMA_TABLES = ["organizations", "tokens", "monitors", "snapshots", "diffs", "settings", "webhooks", "deliveries", "delivery_attempts", "idempotency_keys", "rate_limits"] as const;
import { claimDueDeliveryRows, claimIdempotencyKeyRows, hitRateLimitRows, recordDeliveryAttemptRows } from "./outbox.js";
import { recordCheckRows } from "./record-check.js";
import { clampLimit, isoTime, isoTimeOrNull, patchRow, translateError, type Queries } from "./util.js";
import {
  MONITOR_PATCH_COLUMNS,
  WEBHOOK_PATCH_COLUMNS,
  toDelivery,
  toDeliveryAttempt,
  toDiff,
  toDiffJson,
  toMonitor,
  toOrganization,
  toSettings,
  toSnapshot,
  toToken,
  toWebhook,
  type DeliveryAttemptRow,
  type DeliveryRow,
  type MonitorRow,
  type OrganizationRow,
  type SettingsRow,
  type TokenRow,
  type WebhookRow,
} from "./rows.js";

export interface SqliteStoreOptions {
  /** Path of the database file; the file and its folder are created when missing. `:memory:` works too (one connection only). */
  filename?: string;
  /** A better-sqlite3 connection you own: the store sets its pragmas but never closes it. */
  database?: Database;
  /** Test instrumentation (see `StoreHooks`). */
  hooks?: StoreHooks;
  /**
   * How long a call waits for another connection's lock before failing with `store_unavailable`
   * (default 5000). better-sqlite3 waits for a lock synchronously, blocking the event loop, so
   * SQLite itself waits at most `LOCK_SPIN_MS` per try; the rest of the wait is asynchronous
   * retries with back-off, and the process keeps serving meanwhile.
   */
  busyTimeoutMs?: number;
  /**
   * `normal` (default): with WAL a process crash (even SIGKILL) never loses a committed check;
   * an OS crash or power cut may lose the last few commits but never corrupts the file.
   * `full`: fsync on every commit, durable against power loss too, at a cost in write throughput.
   */
  synchronous?: "normal" | "full";
  /** Clock for `createdAt` fields (default `() => new Date()`). */
  now?: () => Date;
}

const SNAPSHOT_LIST_COLUMNS =
  "id, org_id, monitor_id, fetched_at, status, latency_ms, content_type, content_hash, size, browser_render, etag, last_modified";

/** One diff of one monitor of one organization. */
const DIFF_BY_ID = "SELECT id, org_id, monitor_id, snapshot_id, data FROM diffs WHERE org_id = ? AND monitor_id = ? AND id = ?";

/**
 * The SQLite store: the `Store` port plus `getDiffJson`, a diff as the API serialises it (JSON
 * text of the record without `orgId`), read without parsing and re-serialising the stored JSON.
 */
export type SqliteStore = Store & {
  getDiffJson(orgId: string, monitorId: string, id: string): Promise<string | null>;
};

/** Opens (creating when missing) a SQLite database and returns a driftwatch `Store` on it. */
export async function createSqliteStore(options: SqliteStoreOptions = {}): Promise<SqliteStore> {
  const { database, filename } = options;
  if (database !== undefined && filename !== undefined) {
    throw new StoreError("store_unavailable", "Pass either `filename` or `database` to createSqliteStore, not both.");
  }
  let db: Database;
  const ownsDatabase = database === undefined;
  if (database !== undefined) {
    db = database;
  } else {
    const file = filename ?? ":memory:";
    try {
      if (file !== ":memory:" && file !== "") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      db = new BetterSqlite3(file);
    } catch (error) {
      throw new StoreError("store_unavailable", `Cannot open the SQLite database at ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
  try {
    // Opening (and migrating) may wait synchronously for the whole timeout: nothing is served yet.
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    if (!db.memory) db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
    db.pragma("foreign_keys = ON");
    migrateSqlite(db);
    // From here on a lock is waited for asynchronously (see SqliteStoreImpl.#call).
    db.pragma(`busy_timeout = ${Math.min(busyTimeoutMs, LOCK_SPIN_MS)}`);
  } catch (error) {
    if (ownsDatabase) db.close();
    throw translateError(error);
  }
  return new SqliteStoreImpl(db, ownsDatabase, options.hooks ?? {}, options.now ?? (() => new Date()), busyTimeoutMs);
}

/**
 * How long `getDiffJson` answers from memory. Diffs never change and this store drops its cache
 * when it deletes diffs (a monitor's deletion, retention pruning diffs with their snapshots), so
 * only a deletion made by another process on the same file can be seen late, by at most this long.
 */
export const DIFF_JSON_CACHE_TTL_MS = 5_000;
/** The cache holds at most this much JSON text, and no diff larger than a sixty-fourth of it. */
const DIFF_JSON_CACHE_MAX_CHARS = 16 * 1024 * 1024;

interface CachedDiffJson {
  orgId: string;
  monitorId: string;
  json: string;
  /** Clock time (ms) when it was read from the database. */
  at: number;
}

/** The name `openStore` looks for in every adapter package. */
export const createStore = createSqliteStore;

class SqliteStoreImpl implements SqliteStore {
  readonly capabilities = { rateLimits: true, durable: true } as const;
  readonly #db: Database;
  readonly #ownsDatabase: boolean;
  readonly #hooks: StoreHooks;
  readonly #clock: () => Date;
  readonly #statements = new Map<string, Statement>();
  /** Recently served diffs as JSON text, by id, oldest first. */
  readonly #diffJson = new Map<string, CachedDiffJson>();
  #diffJsonChars = 0;
  #closed = false;
  /** The cached statements, for the parts of the store in other files. */
  readonly #q: Queries = {
    get: (sql, ...params) => this.#get(sql, ...params),
    all: (sql, ...params) => this.#all(sql, ...params),
    run: (sql, ...params) => this.#run(sql, ...params),
  };

  readonly #busyTimeoutMs: number;

  constructor(db: Database, ownsDatabase: boolean, hooks: StoreHooks, clock: () => Date, busyTimeoutMs: number) {
    this.#db = db;
    this.#ownsDatabase = ownsDatabase;
    this.#hooks = hooks;
    this.#clock = clock;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  // plumbing ---------------------------------------------------------------------------------

  /** A cached prepared statement. */
  #sql(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #get<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.#sql(sql).get(...params) as T | undefined;
  }

  /** The first row mapped to a record, or null. */
  #one<Row, T>(map: (row: Row) => T, sql: string, ...params: unknown[]): T | null {
    const row = this.#get<Row>(sql, ...params);
    return row === undefined ? null : map(row);
  }

  #all<T>(sql: string, ...params: unknown[]): T[] {
    return this.#sql(sql).all(...params) as T[];
  }

  #run(sql: string, ...params: unknown[]): number {
    return this.#sql(sql).run(...params).changes;
  }

  /**
   * Runs `work` synchronously, with the closed check and error translation every method needs.
   * When another connection holds the lock (SQLite waited `LOCK_SPIN_MS` for it), `work` is tried
   * again after an asynchronous back-off, until `busyTimeoutMs` has passed: the event loop is
   * never held by a lock wait longer than one spin.
   */
  #call<T>(work: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreError("store_closed", "The store is closed."));
    try {
      return Promise.resolve(work());
    } catch (error) {
      if (isBusy(error) && this.#busyTimeoutMs > LOCK_SPIN_MS) return this.#retryWhileBusy(work, error);
      return Promise.reject(translateError(error));
    }
  }

  async #retryWhileBusy<T>(work: () => T, first: unknown): Promise<T> {
    const deadline = performance.now() + this.#busyTimeoutMs - LOCK_SPIN_MS;
    let last = first;
    for (let delay = 2; performance.now() < deadline; delay = Math.min(delay * 2, 100)) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(delay, deadline - performance.now()))));
      if (this.#closed) throw new StoreError("store_closed", "The store is closed.");
      try {
        return work();
      } catch (error) {
        if (!isBusy(error)) throw translateError(error);
        last = error;
      }
    }
    throw translateError(last);
  }

  /** Runs `work` in a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so reads inside it are never stale. */
  #write<T>(work: () => T): Promise<T> {
    return this.#call(() => this.#db.transaction(work).immediate());
  }

  #now(): string {
    return this.#clock().toISOString();
  }

  /** One page, newest first, of `FROM ... WHERE <where>` (which must bind its own params first). */
  #page<Row, T>(select: string, where: string, params: unknown[], page: PageRequest, map: (row: Row) => T): Page<T> {
    const limit = clampLimit(page.limit);
    const after = page.cursor === undefined || page.cursor === null ? null : decodeCursor(page.cursor);
    // keyset paging: `id < cursor` is a range on the (org_id, ..., id) indexes, so deep pages cost the same as the first
    const rows =
      after === null
        ? this.#all<Row & { id: string }>(`${select} WHERE ${where} ORDER BY id DESC LIMIT ?`, ...params, limit + 1)
        : this.#all<Row & { id: string }>(`${select} WHERE ${where} AND id < ? ORDER BY id DESC LIMIT ?`, ...params, after, limit + 1);
    const more = rows.length > limit;
    const data = (more ? rows.slice(0, limit) : rows).map(map);
    const last = more ? rows[limit - 1] : undefined;
    return { data, nextCursor: last === undefined ? null : encodeCursor(last.id) };
  }

  #monitorRow(orgId: string, id: string): MonitorRow | undefined {
    return this.#get<MonitorRow>("SELECT * FROM monitors WHERE org_id = ? AND id = ?", orgId, id);
  }

  #patch<Row>(table: "monitors" | "webhooks", columns: Record<string, string>, orgId: string, id: string, patch: object): Row | undefined {
    return patchRow<Row>(this.#q, table, columns, orgId, id, patch);
  }

  // organizations ----------------------------------------------------------------------------

  createOrganization(input: { slug: string; name?: string }): Promise<OrganizationRecord> {
    return this.#write(() => {
      const row: OrganizationRow = { id: newId("organization"), slug: input.slug, name: input.name ?? input.slug, created_at: this.#now() };
      this.#run("INSERT INTO organizations (id, slug, name, created_at) VALUES (?, ?, ?, ?)", row.id, row.slug, row.name, row.created_at);
      return toOrganization(row);
    });
  }

  getOrganization(id: string): Promise<OrganizationRecord | null> {
    return this.#call(() => this.#one(toOrganization, "SELECT * FROM organizations WHERE id = ?", id));
  }

  getOrganizationBySlug(slug: string): Promise<OrganizationRecord | null> {
    return this.#call(() => this.#one(toOrganization, "SELECT * FROM organizations WHERE slug = ?", slug));
  }

  ensureOrganization(slug: string, name?: string): Promise<OrganizationRecord> {
    return this.#write(() => {
      this.#run(
        "INSERT INTO organizations (id, slug, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (slug) DO NOTHING",
        newId("organization"),
        slug,
        name ?? slug,
        this.#now()
      );
      return toOrganization(this.#get<OrganizationRow>("SELECT * FROM organizations WHERE slug = ?", slug)!);
    });
  }

  countOrganizations(): Promise<number> {
    return this.#call(() => this.#get<{ n: number }>("SELECT COUNT(*) AS n FROM organizations")!.n);
  }

  // tokens -----------------------------------------------------------------------------------

  createToken(orgId: string, input: { name: string; scopes: TokenRecord["scopes"]; tokenHash: string }): Promise<TokenRecord> {
    return this.#write(() => {
      const row: TokenRow = {
        id: newId("token"),
        org_id: orgId,
        name: input.name,
        scopes: JSON.stringify(input.scopes),
        token_hash: input.tokenHash,
        created_at: this.#now(),
        last_used_at: null,
        revoked_at: null,
      };
      this.#run(
        "INSERT INTO tokens (id, org_id, name, scopes, token_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        row.id,
        row.org_id,
        row.name,
        row.scopes,
        row.token_hash,
        row.created_at
      );
      return toToken(row);
    });
  }

  findTokenByHash(tokenHash: string): Promise<TokenRecord | null> {
    return this.#call(() => this.#one(toToken, "SELECT * FROM tokens WHERE token_hash = ?", tokenHash));
  }

  getToken(orgId: string, id: string): Promise<TokenRecord | null> {
    return this.#call(() => this.#one(toToken, "SELECT * FROM tokens WHERE org_id = ? AND id = ?", orgId, id));
  }

  listTokens(orgId: string, page: PageRequest): Promise<Page<TokenRecord>> {
    return this.#call(() => this.#page("SELECT * FROM tokens", "org_id = ?", [orgId], page, toToken));
  }

  revokeToken(orgId: string, id: string, at: string): Promise<TokenRecord | null> {
    return this.#write(() => {
      this.#run("UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE org_id = ? AND id = ?", isoTime(at), orgId, id);
      const row = this.#get<TokenRow>("SELECT * FROM tokens WHERE org_id = ? AND id = ?", orgId, id);
      return row === undefined ? null : toToken(row);
    });
  }

  touchToken(id: string, at: string): Promise<void> {
    return this.#write(() => {
      this.#run("UPDATE tokens SET last_used_at = ? WHERE id = ?", isoTime(at), id);
    });
  }

  // monitors ---------------------------------------------------------------------------------

  createMonitor(orgId: string, input: Parameters<Store["createMonitor"]>[1]): Promise<MonitorRecord> {
    return this.#write(() => {
      const now = this.#now();
      const id = newId("monitor");
      this.#run(
        `INSERT INTO monitors (id, org_id, type, name, url, method, headers, body, interval_seconds, selector, browser_options,
           state, consecutive_failures, next_check_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
        id,
        orgId,
        input.type,
        encodeText(input.name),
        input.url,
        input.method,
        JSON.stringify(input.headers),
        encodeTextOrNull(input.body),
        input.intervalSeconds,
        encodeTextOrNull(input.selector),
        input.browserOptionsJson === null ? null : JSON.stringify(input.browserOptionsJson),
        input.state,
        isoTimeOrNull(input.nextCheckAt),
        now,
        now
      );
      return toMonitor(this.#monitorRow(orgId, id)!);
    });
  }

  getMonitor(orgId: string, id: string): Promise<MonitorRecord | null> {
    return this.#call(() => {
      const row = this.#monitorRow(orgId, id);
      return row === undefined ? null : toMonitor(row);
    });
  }

  updateMonitor(orgId: string, id: string, patch: MonitorPatch): Promise<MonitorRecord | null> {
    return this.#write(() => {
      const row = this.#patch<MonitorRow>("monitors", MONITOR_PATCH_COLUMNS, orgId, id, patch);
      return row === undefined ? null : toMonitor(row);
    });
  }

  deleteMonitor(orgId: string, id: string): Promise<boolean> {
    // snapshots, diffs and settings go by ON DELETE CASCADE; deliveries have no foreign key to monitors.
    this.#forgetDiffJson();
    return this.#write(() => this.#run("DELETE FROM monitors WHERE org_id = ? AND id = ?", orgId, id) > 0);
  }

  listMonitors(orgId: string, page: PageRequest): Promise<Page<MonitorRecord>> {
    return this.#call(() => this.#page("SELECT * FROM monitors", "org_id = ?", [orgId], page, toMonitor));
  }

  /** Oldest due first, organizations in turn (each one's oldest, then each one's second, ...). */
  claimDueMonitors(input: Parameters<Store["claimDueMonitors"]>[0]): Promise<MonitorRecord[]> {
    return this.#write(() => {
      const now = isoTime(input.now);
      const until = new Date(Date.parse(now) + input.leaseMs).toISOString();
      return this.#all<MonitorRow>(
        `UPDATE monitors SET lease_owner = ?, lease_expires_at = ?
         WHERE id IN (
           SELECT id FROM (
             SELECT id, next_check_at, ROW_NUMBER() OVER (PARTITION BY org_id ORDER BY next_check_at, id) AS turn FROM monitors
             WHERE state IN ('active', 'failing') AND next_check_at IS NOT NULL AND next_check_at <= ?
               AND (lease_expires_at IS NULL OR lease_expires_at <= ?))
           ORDER BY turn, next_check_at, id LIMIT ?)
         RETURNING *`,
        input.owner,
        until,
        now,
        now,
        Math.max(0, Math.floor(input.limit))
      )
        .sort((a, b) => (a.next_check_at! < b.next_check_at! ? -1 : a.next_check_at! > b.next_check_at! ? 1 : a.id < b.id ? -1 : 1))
        .map(toMonitor);
    });
  }

  releaseMonitor(id: string, owner: string, nextCheckAt: string | null): Promise<boolean> {
    return this.#write(
      () =>
        this.#run(
          "UPDATE monitors SET lease_owner = NULL, lease_expires_at = NULL, next_check_at = ? WHERE id = ? AND lease_owner = ?",
          isoTimeOrNull(nextCheckAt),
          id,
          owner
        ) > 0
    );
  }

  // snapshots --------------------------------------------------------------------------------

  getLatestSnapshot(orgId: string, monitorId: string): Promise<SnapshotRecord | null> {
    return this.#call(() =>
      this.#one(toSnapshot, "SELECT * FROM snapshots WHERE org_id = ? AND monitor_id = ? ORDER BY id DESC LIMIT 1", orgId, monitorId)
    );
  }

  listSnapshots(orgId: string, monitorId: string, page: PageRequest): Promise<Page<SnapshotRecord>> {
    return this.#call(() =>
      this.#page(`SELECT ${SNAPSHOT_LIST_COLUMNS} FROM snapshots`, "org_id = ? AND monitor_id = ?", [orgId, monitorId], page, toSnapshot)
    );
  }

  getSnapshot(orgId: string, monitorId: string, id: string): Promise<SnapshotRecord | null> {
    return this.#call(() =>
      this.#one(toSnapshot, "SELECT * FROM snapshots WHERE org_id = ? AND monitor_id = ? AND id = ?", orgId, monitorId, id)
    );
  }

  // diffs ------------------------------------------------------------------------------------

  listDiffs(orgId: string, monitorId: string, query: Parameters<Store["listDiffs"]>[2]): Promise<Page<DiffRecord>> {
    return this.#call(() => {
      const conditions = ["org_id = ?", "monitor_id = ?"];
      const params: unknown[] = [orgId, monitorId];
      if (query.since !== undefined) {
        conditions.push("created_at >= ?");
        params.push(isoTime(query.since));
      }
      if (query.until !== undefined) {
        conditions.push("created_at <= ?");
        params.push(isoTime(query.until));
      }
      if (query.minSeverity !== undefined) {
        conditions.push("top_severity_rank >= ?");
        params.push(severityRank(query.minSeverity));
      }
      if (query.classification !== undefined) {
        conditions.push("classification = ?");
        params.push(query.classification);
      }
      return this.#page("SELECT id, org_id, monitor_id, snapshot_id, data FROM diffs", conditions.join(" AND "), params, query, toDiff);
    });
  }

  getDiff(orgId: string, monitorId: string, id: string): Promise<DiffRecord | null> {
    return this.#call(() =>
      this.#one(toDiff, DIFF_BY_ID, orgId, monitorId, id)
    );
  }

  /**
   * `getDiff` as the API serialises it (JSON text of the diff without `orgId`), or null; the same
   * organization and monitor scoping. Saves parsing the stored JSON only to serialise it again.
   */
  getDiffJson(orgId: string, monitorId: string, id: string): Promise<string | null> {
    return this.#call(() => {
      const at = this.#clock().getTime();
      const cached = this.#diffJson.get(id);
      if (cached !== undefined) {
        // Trusted within [at, at + ttl): a clock that went back expires it too.
        if (at >= cached.at && at - cached.at < DIFF_JSON_CACHE_TTL_MS) {
          return cached.orgId === orgId && cached.monitorId === monitorId ? cached.json : null;
        }
        this.#diffJson.delete(id);
        this.#diffJsonChars -= cached.json.length;
      }
      const json = this.#one(toDiffJson, DIFF_BY_ID, orgId, monitorId, id);
      if (json !== null && json.length <= DIFF_JSON_CACHE_MAX_CHARS / 64) {
        this.#diffJson.set(id, { orgId, monitorId, json, at });
        this.#diffJsonChars += json.length;
        for (const [oldest, entry] of this.#diffJson) {
          if (this.#diffJsonChars <= DIFF_JSON_CACHE_MAX_CHARS) break;
          this.#diffJson.delete(oldest);
          this.#diffJsonChars -= entry.json.length;
        }
      }
      return json;
    });
  }

  /** Called by retention, which deletes a few diffs with their snapshots. */
  #forgetDiffJsonOf(ids: readonly string[]): void {
    for (const id of ids) {
      const cached = this.#diffJson.get(id);
      if (cached === undefined) continue;
      this.#diffJson.delete(id);
      this.#diffJsonChars -= cached.json.length;
    }
  }

  /** Called by every write that deletes diffs of a whole monitor (its deletion). */
  #forgetDiffJson(): void {
    this.#diffJson.clear();
    this.#diffJsonChars = 0;
  }

  // the check --------------------------------------------------------------------------------

  recordCheck(orgId: string, input: RecordCheckInput): Promise<RecordCheckResult> {
    return this.#write(() => recordCheckRows(this.#q, this.#hooks, () => this.#now(), orgId, input, (ids) => this.#forgetDiffJsonOf(ids)));
  }

  // settings ---------------------------------------------------------------------------------

  #settings(orgId: string, monitorId: string): SettingsRecord {
    const row = this.#get<SettingsRow>("SELECT * FROM settings WHERE org_id = ? AND monitor_id = ?", orgId, monitorId);
    return row === undefined
      ? { orgId, monitorId, policyRulesJson: { rules: [] }, snapshotRetention: DEFAULT_SNAPSHOT_RETENTION, autoApplySuggestions: false, updatedAt: null }
      : toSettings(row);
  }

  getSettings(orgId: string, monitorId: string): Promise<SettingsRecord | null> {
    return this.#call(() => (this.#monitorRow(orgId, monitorId) === undefined ? null : this.#settings(orgId, monitorId)));
  }

  updateSettings(orgId: string, monitorId: string, patch: Parameters<Store["updateSettings"]>[2]): Promise<SettingsRecord | null> {
    return this.#write(() => {
      if (this.#monitorRow(orgId, monitorId) === undefined) return null;
      const current = this.#settings(orgId, monitorId);
      this.#run(
        `INSERT INTO settings (monitor_id, org_id, policy_rules, snapshot_retention, auto_apply_suggestions, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (monitor_id) DO UPDATE SET policy_rules = excluded.policy_rules,
           snapshot_retention = excluded.snapshot_retention, auto_apply_suggestions = excluded.auto_apply_suggestions,
           updated_at = excluded.updated_at`,
        monitorId,
        orgId,
        JSON.stringify(patch.policyRulesJson ?? current.policyRulesJson),
        patch.snapshotRetention ?? current.snapshotRetention,
        (patch.autoApplySuggestions ?? current.autoApplySuggestions) ? 1 : 0,
        isoTime(patch.updatedAt)
      );
      return this.#settings(orgId, monitorId);
    });
  }

  // webhooks ---------------------------------------------------------------------------------

  #webhookRow(orgId: string, id: string): WebhookRow | undefined {
    return this.#get<WebhookRow>("SELECT * FROM webhooks WHERE org_id = ? AND id = ?", orgId, id);
  }

  createWebhook(orgId: string, input: Parameters<Store["createWebhook"]>[1]): Promise<WebhookRecord> {
    return this.#write(() => {
      const now = this.#now();
      const id = newId("webhook");
      this.#run(
        `INSERT INTO webhooks (id, org_id, url, description, events, monitor_ids, min_severity, enabled, secret, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        id,
        orgId,
        input.url,
        encodeTextOrNull(input.description),
        JSON.stringify(input.events),
        input.monitorIds === null ? null : JSON.stringify(input.monitorIds),
        input.minSeverity,
        input.enabled ? 1 : 0,
        input.secret,
        now,
        now
      );
      return toWebhook(this.#webhookRow(orgId, id)!);
    });
  }

  getWebhook(orgId: string, id: string): Promise<WebhookRecord | null> {
    return this.#call(() => {
      const row = this.#webhookRow(orgId, id);
      return row === undefined ? null : toWebhook(row);
    });
  }

  listWebhooks(orgId: string, page: PageRequest): Promise<Page<WebhookRecord>> {
    return this.#call(() => this.#page("SELECT * FROM webhooks", "org_id = ?", [orgId], page, toWebhook));
  }

  updateWebhook(orgId: string, id: string, patch: WebhookPatch): Promise<WebhookRecord | null> {
    return this.#write(() => {
      const row = this.#patch<WebhookRow>("webhooks", WEBHOOK_PATCH_COLUMNS, orgId, id, patch);
      return row === undefined ? null : toWebhook(row);
    });
  }

  deleteWebhook(orgId: string, id: string): Promise<boolean> {
    // deliveries and their attempts go by ON DELETE CASCADE
    return this.#write(() => this.#run("DELETE FROM webhooks WHERE org_id = ? AND id = ?", orgId, id) > 0);
  }

  // deliveries -------------------------------------------------------------------------------

  claimDueDeliveries(input: Parameters<Store["claimDueDeliveries"]>[0]): Promise<DeliveryRecord[]> {
    return this.#write(() => claimDueDeliveryRows(this.#q, input));
  }

  recordDeliveryAttempt(id: string, owner: string, attempt: Parameters<Store["recordDeliveryAttempt"]>[2]): Promise<DeliveryRecord | null> {
    return this.#write(() => recordDeliveryAttemptRows(this.#q, id, owner, attempt));
  }

  getDelivery(orgId: string, webhookId: string, id: string): Promise<DeliveryRecord | null> {
    return this.#call(() =>
      this.#one(toDelivery, "SELECT * FROM deliveries WHERE org_id = ? AND webhook_id = ? AND id = ?", orgId, webhookId, id)
    );
  }

  listDeliveries(orgId: string, webhookId: string, page: PageRequest): Promise<Page<DeliveryRecord>> {
    return this.#call(() => this.#page("SELECT * FROM deliveries", "org_id = ? AND webhook_id = ?", [orgId, webhookId], page, toDelivery));
  }

  listDeliveryAttempts(orgId: string, deliveryId: string): Promise<DeliveryAttemptRecord[]> {
    return this.#call(() =>
      this.#all<DeliveryAttemptRow>(
        "SELECT * FROM delivery_attempts WHERE org_id = ? AND delivery_id = ? ORDER BY attempt",
        orgId,
        deliveryId
      ).map(toDeliveryAttempt)
    );
  }

  requeueDelivery(orgId: string, webhookId: string, id: string, now: string): Promise<DeliveryRecord | null> {
    return this.#write(() => {
      const row = this.#get<DeliveryRow>(
        `UPDATE deliveries SET state = 'pending', next_attempt_at = ?, lease_owner = NULL, lease_expires_at = NULL
         WHERE org_id = ? AND webhook_id = ? AND id = ? RETURNING *`,
        isoTime(now),
        orgId,
        webhookId,
        id
      );
      return row === undefined ? null : toDelivery(row);
    });
  }

  countPendingDeliveries(orgId?: string): Promise<number> {
    return this.#call(
      () =>
        this.#get<{ n: number }>("SELECT COUNT(*) AS n FROM deliveries WHERE state = 'pending' AND (@orgId IS NULL OR org_id = @orgId)", {
          orgId: orgId ?? null,
        })!.n
    );
  }

  // idempotency ------------------------------------------------------------------------------

  claimIdempotencyKey(orgId: string, input: Parameters<Store["claimIdempotencyKey"]>[1]): Promise<IdempotencyClaimResult> {
    return this.#write(() => claimIdempotencyKeyRows(this.#q, orgId, input));
  }

  completeIdempotencyKey(orgId: string, key: string, response: { status: number; body: string }): Promise<void> {
    return this.#write(() => {
      this.#run(
        "UPDATE idempotency_keys SET response_status = ?, response_body = ? WHERE org_id = ? AND key = ?",
        response.status,
        response.body,
        orgId,
        key
      );
    });
  }

  releaseIdempotencyKey(orgId: string, key: string): Promise<void> {
    return this.#write(() => {
      this.#run("DELETE FROM idempotency_keys WHERE org_id = ? AND key = ?", orgId, key);
    });
  }

  // rate limits ------------------------------------------------------------------------------

  hitRateLimit(key: string, windowMs: number, now: number): Promise<RateLimitHit> {
    return this.#write(() => hitRateLimitRows(this.#q, key, windowMs, now));
  }

  // lifecycle --------------------------------------------------------------------------------

  /** Answers only when the schema is there: every table, at this build's migration version. */
  ping(): Promise<void> {
    return this.#call(() => {
      const row = this.#get<{ version: number | null; tables: number }>(
        `SELECT (SELECT MAX(version) FROM driftwatch_migrations) AS version,
           (SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN (${SCHEMA_TABLES.map((t) => `'${t}'`).join(", ")})) AS tables`
      );
      if (row === undefined || row.version === null || row.version < SQLITE_SCHEMA_VERSION || row.tables < SCHEMA_TABLES.length) {
        throw new StoreError("store_unavailable", `The database schema is missing or incomplete (version ${String(row?.version ?? "none")}, ${String(row?.tables ?? 0)} of ${String(SCHEMA_TABLES.length)} tables).`);
      }
    });
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#statements.clear();
    if (this.#ownsDatabase) this.#db.close();
    return Promise.resolve();
  }
}
