import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import type { Database, Statement } from "better-sqlite3";
import {
  DEFAULT_SNAPSHOT_RETENTION,
  StoreError,
  decodeCursor,
  encodeCursor,
  isDriftwatchError,
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
import { migrateSqlite } from "./migrations.js";
import {
  MONITOR_PATCH_COLUMNS,
  WEBHOOK_PATCH_COLUMNS,
  encodeColumnValue,
  toDelivery,
  toDeliveryAttempt,
  toDiff,
  toMonitor,
  toOrganization,
  toSettings,
  toSnapshot,
  toToken,
  toWebhook,
  type DeliveryAttemptRow,
  type DeliveryRow,
  type DiffRow,
  type MonitorRow,
  type OrganizationRow,
  type SettingsRow,
  type SnapshotRow,
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
  /** How long a write waits for another connection's lock before failing with `store_unavailable` (default 5000). */
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
const MAX_PAGE = 100;

/** Opens (creating when missing) a SQLite database and returns a driftwatch `Store` on it. */
export async function createSqliteStore(options: SqliteStoreOptions = {}): Promise<Store> {
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
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    if (!db.memory) db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
    db.pragma("foreign_keys = ON");
    migrateSqlite(db);
  } catch (error) {
    if (ownsDatabase) db.close();
    throw translateError(error);
  }
  return new SqliteStore(db, ownsDatabase, options.hooks ?? {}, options.now ?? (() => new Date()));
}

/** The name `openStore` looks for in every adapter package. */
export const createStore = createSqliteStore;

function clampLimit(limit: number): number {
  if (!Number.isFinite(limit)) return 20;
  return Math.min(MAX_PAGE, Math.max(1, Math.floor(limit)));
}

/** ISO 8601 UTC with milliseconds, whatever precision or offset the caller used; a value that is no time is a typed error. */
function isoTime(value: string): string {
  const time = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw new StoreError("invariant_violation", `${JSON.stringify(value)} is not a time.`);
  return new Date(time).toISOString();
}
function isoTimeOrNull(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : isoTime(value);
}

const TIME_COLUMNS = new Set(["last_checked_at", "last_changed_at", "next_check_at", "updated_at", "previous_secret_expires_at"]);

/** Maps SQLite failures to `StoreError`s with a code; driftwatch errors pass through. */
function translateError(error: unknown): unknown {
  if (isDriftwatchError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
      return new StoreError("conflict", `A record with the same unique value exists: ${(error as Error).message}`, { cause: error });
    }
    if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") {
      return new StoreError("not_found", "A record this write refers to does not exist.", { cause: error });
    }
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
      return new StoreError("store_unavailable", "The SQLite database stayed locked longer than busyTimeoutMs.", { cause: error });
    }
    if (code.startsWith("SQLITE_")) {
      return new StoreError("store_unavailable", `SQLite failed: ${(error as Error).message}`, { cause: error });
    }
  }
  return error;
}

class SqliteStore implements Store {
  readonly capabilities = { rateLimits: true, durable: true } as const;
  readonly #db: Database;
  readonly #ownsDatabase: boolean;
  readonly #hooks: StoreHooks;
  readonly #clock: () => Date;
  readonly #statements = new Map<string, Statement>();
  #closed = false;

  constructor(db: Database, ownsDatabase: boolean, hooks: StoreHooks, clock: () => Date) {
    this.#db = db;
    this.#ownsDatabase = ownsDatabase;
    this.#hooks = hooks;
    this.#clock = clock;
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

  /** Runs `work` synchronously, with the closed check and error translation every method needs. */
  #call<T>(work: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreError("store_closed", "The store is closed."));
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(translateError(error));
    }
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

  /** Applies the defined fields of a patch to one row and returns the row after it; undefined when there is no such row. */
  #patch<Row>(table: "monitors" | "webhooks", columns: Record<string, string>, orgId: string, id: string, patch: object): Row | undefined {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [field, value] of Object.entries(patch)) {
      const column = columns[field];
      if (column === undefined || value === undefined) continue;
      sets.push(`${column} = ?`);
      values.push(TIME_COLUMNS.has(column) && typeof value === "string" ? isoTime(value) : encodeColumnValue(value));
    }
    if (sets.length === 0) return this.#get<Row>(`SELECT * FROM ${table} WHERE org_id = ? AND id = ?`, orgId, id);
    return this.#get<Row>(`UPDATE ${table} SET ${sets.join(", ")} WHERE org_id = ? AND id = ? RETURNING *`, ...values, orgId, id);
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
        input.name,
        input.url,
        input.method,
        JSON.stringify(input.headers),
        input.body,
        input.intervalSeconds,
        input.selector,
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
    return this.#write(() => this.#run("DELETE FROM monitors WHERE org_id = ? AND id = ?", orgId, id) > 0);
  }

  listMonitors(orgId: string, page: PageRequest): Promise<Page<MonitorRecord>> {
    return this.#call(() => this.#page("SELECT * FROM monitors", "org_id = ?", [orgId], page, toMonitor));
  }

  claimDueMonitors(input: Parameters<Store["claimDueMonitors"]>[0]): Promise<MonitorRecord[]> {
    return this.#write(() => {
      const now = isoTime(input.now);
      const until = new Date(Date.parse(now) + input.leaseMs).toISOString();
      return this.#all<MonitorRow>(
        `UPDATE monitors SET lease_owner = ?, lease_expires_at = ?
         WHERE id IN (
           SELECT id FROM monitors
           WHERE state IN ('active', 'failing') AND next_check_at IS NOT NULL AND next_check_at <= ?
             AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
           ORDER BY next_check_at, id LIMIT ?)
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
      this.#one(
        toDiff,
        "SELECT id, org_id, monitor_id, snapshot_id, data FROM diffs WHERE org_id = ? AND monitor_id = ? AND id = ?",
        orgId,
        monitorId,
        id
      )
    );
  }

  // the check --------------------------------------------------------------------------------

  recordCheck(orgId: string, input: RecordCheckInput): Promise<RecordCheckResult> {
    return this.#write(() => this.#recordCheck(orgId, input));
  }

  /** Runs inside the transaction; each stage hook is called after its write, so a throwing hook rolls everything back. */
  #recordCheck(orgId: string, input: RecordCheckInput): RecordCheckResult {
    const stage = (name: Parameters<NonNullable<StoreHooks["onRecordCheckStage"]>>[0]): void => this.#hooks.onRecordCheckStage?.(name);
    const { monitorId, snapshot, diff, event } = input;
    if (diff !== null && snapshot === null) {
      throw new StoreError("invariant_violation", "A diff needs the snapshot it was computed on.");
    }
    if (event !== null && diff === null) {
      throw new StoreError("invariant_violation", "A diff.detected event needs its diff.");
    }
    const monitorRow = this.#patch<MonitorRow>("monitors", MONITOR_PATCH_COLUMNS, orgId, monitorId, input.monitor);
    if (monitorRow === undefined) throw new StoreError("not_found", `Monitor ${monitorId} does not exist.`);
    if (diff !== null && diff.previousSnapshotId !== null) {
      const previous = this.#get<{ monitor_id: string; org_id: string }>(
        "SELECT monitor_id, org_id FROM snapshots WHERE id = ?",
        diff.previousSnapshotId
      );
      if (previous !== undefined && (previous.monitor_id !== monitorId || previous.org_id !== orgId)) {
        throw new StoreError("invariant_violation", `Snapshot ${diff.previousSnapshotId} belongs to another monitor.`);
      }
    }
    stage("monitor");

    let snapshotRecord: SnapshotRecord | null = null;
    if (snapshot !== null) {
      const row: SnapshotRow = {
        id: snapshot.id,
        org_id: orgId,
        monitor_id: monitorId,
        fetched_at: isoTime(snapshot.fetchedAt),
        status: snapshot.status,
        latency_ms: snapshot.latencyMs,
        content_type: snapshot.contentType,
        content_hash: snapshot.contentHash,
        size: snapshot.size,
        browser_render: snapshot.browserRender ? 1 : 0,
        body: snapshot.body,
        etag: snapshot.etag ?? null,
        last_modified: snapshot.lastModified ?? null,
      };
      this.#run(
        `INSERT INTO snapshots (id, org_id, monitor_id, fetched_at, status, latency_ms, content_type, content_hash, size,
           browser_render, body, etag, last_modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        row.id,
        row.org_id,
        row.monitor_id,
        row.fetched_at,
        row.status,
        row.latency_ms,
        row.content_type,
        row.content_hash,
        row.size,
        row.browser_render,
        row.body,
        row.etag,
        row.last_modified
      );
      snapshotRecord = toSnapshot(row);
      stage("snapshot");
    }

    let diffRecord: DiffRecord | null = null;
    if (diff !== null && snapshot !== null) {
      const full = { ...diff, createdAt: isoTime(diff.createdAt), monitorId, snapshotId: snapshot.id };
      const data = JSON.stringify(full);
      this.#run(
        `INSERT INTO diffs (id, org_id, monitor_id, snapshot_id, previous_snapshot_id, classification, top_severity,
           top_severity_rank, created_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        diff.id,
        orgId,
        monitorId,
        snapshot.id,
        diff.previousSnapshotId,
        diff.classification,
        diff.topSeverity,
        severityRank(diff.topSeverity),
        full.createdAt,
        data
      );
      diffRecord = toDiff({ id: diff.id, org_id: orgId, monitor_id: monitorId, snapshot_id: snapshot.id, data });
      stage("diff");
    }

    const deliveries: DeliveryRecord[] = [];
    if (event !== null && diffRecord !== null) {
      const rank = severityRank(diffRecord.topSeverity);
      const payload = JSON.stringify(event);
      const now = this.#now();
      const due = isoTime(event.occurredAt);
      const webhooks = this.#all<WebhookRow>("SELECT * FROM webhooks WHERE org_id = ? AND enabled = 1 ORDER BY id", orgId).map(toWebhook);
      for (const webhook of webhooks) {
        if (!webhook.events.includes(event.eventType)) continue;
        if (webhook.monitorIds !== null && !webhook.monitorIds.includes(monitorId)) continue;
        if (severityRank(webhook.minSeverity) > rank) continue;
        const row: DeliveryRow = {
          id: newId("delivery"),
          org_id: orgId,
          webhook_id: webhook.id,
          event_id: event.eventId,
          event_type: event.eventType,
          monitor_id: monitorId,
          diff_id: diffRecord.id,
          state: "pending",
          attempts: 0,
          next_attempt_at: due,
          last_attempt_at: null,
          last_response_status: null,
          last_error: null,
          created_at: now,
          payload,
        };
        this.#run(
          `INSERT INTO deliveries (id, org_id, webhook_id, event_id, event_type, monitor_id, diff_id, state, attempts,
             next_attempt_at, created_at, payload) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
          row.id,
          row.org_id,
          row.webhook_id,
          row.event_id,
          row.event_type,
          row.monitor_id,
          row.diff_id,
          row.next_attempt_at,
          row.created_at,
          row.payload
        );
        deliveries.push(toDelivery(row));
      }
      stage("deliveries");
    }

    const retention =
      input.retention ??
      this.#get<{ snapshot_retention: number }>(
        "SELECT snapshot_retention FROM settings WHERE org_id = ? AND monitor_id = ?",
        orgId,
        monitorId
      )?.snapshot_retention ??
      DEFAULT_SNAPSHOT_RETENTION;
    this.#run(
      `DELETE FROM snapshots WHERE org_id = @orgId AND monitor_id = @monitorId AND id < (
         SELECT id FROM snapshots WHERE org_id = @orgId AND monitor_id = @monitorId ORDER BY id DESC LIMIT 1 OFFSET @keep)`,
      { orgId, monitorId, keep: Math.max(1, Math.floor(retention)) - 1 }
    );
    stage("retention");

    return { monitor: toMonitor(monitorRow), snapshot: snapshotRecord, diff: diffRecord, deliveries };
  }

  // settings ---------------------------------------------------------------------------------

  #settings(orgId: string, monitorId: string): SettingsRecord {
    const row = this.#get<SettingsRow>("SELECT * FROM settings WHERE org_id = ? AND monitor_id = ?", orgId, monitorId);
    return row === undefined
      ? { orgId, monitorId, policyRulesJson: { rules: [] }, snapshotRetention: DEFAULT_SNAPSHOT_RETENTION, updatedAt: null }
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
        `INSERT INTO settings (monitor_id, org_id, policy_rules, snapshot_retention, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (monitor_id) DO UPDATE SET policy_rules = excluded.policy_rules,
           snapshot_retention = excluded.snapshot_retention, updated_at = excluded.updated_at`,
        monitorId,
        orgId,
        JSON.stringify(patch.policyRulesJson ?? current.policyRulesJson),
        patch.snapshotRetention ?? current.snapshotRetention,
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
        input.description,
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
    return this.#write(() => {
      const now = isoTime(input.now);
      const until = new Date(Date.parse(now) + input.leaseMs).toISOString();
      return this.#all<DeliveryRow>(
        `UPDATE deliveries SET lease_owner = @owner, lease_expires_at = @until
         WHERE id IN (
           SELECT d.id FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.org_id = d.org_id
           WHERE d.state = 'pending' AND w.enabled = 1
             AND (@force = 1 OR (d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= @now))
             AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= @now)
             AND (@orgId IS NULL OR d.org_id = @orgId) AND (@webhookId IS NULL OR d.webhook_id = @webhookId)
           ORDER BY d.id LIMIT @limit)
         RETURNING *`,
        {
          owner: input.owner,
          until,
          now,
          force: input.force === true ? 1 : 0,
          orgId: input.orgId ?? null,
          webhookId: input.webhookId ?? null,
          limit: Math.max(0, Math.floor(input.limit)),
        }
      )
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map(toDelivery);
    });
  }

  recordDeliveryAttempt(id: string, owner: string, attempt: Parameters<Store["recordDeliveryAttempt"]>[2]): Promise<DeliveryRecord | null> {
    return this.#write(() => {
      const row = this.#get<DeliveryRow>(
        `UPDATE deliveries SET state = ?, attempts = attempts + 1, next_attempt_at = ?, last_attempt_at = ?,
           last_response_status = ?, last_error = ?, lease_owner = NULL, lease_expires_at = NULL
         WHERE id = ? AND lease_owner = ? RETURNING *`,
        attempt.state,
        attempt.state === "pending" ? isoTimeOrNull(attempt.nextAttemptAt) : null,
        isoTime(attempt.at),
        attempt.responseStatus,
        attempt.error,
        id,
        owner
      );
      if (row === undefined) return null;
      this.#run(
        "INSERT INTO delivery_attempts (delivery_id, attempt, org_id, at, response_status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
        id,
        row.attempts,
        row.org_id,
        isoTime(attempt.at),
        attempt.responseStatus,
        attempt.error,
        Math.round(attempt.durationMs)
      );
      return toDelivery(row);
    });
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
    return this.#write((): IdempotencyClaimResult => {
      const now = isoTime(input.now);
      const existing = this.#get<{
        request_hash: string;
        response_status: number | null;
        response_body: string | null;
        expires_at: string;
      }>(
        "SELECT request_hash, response_status, response_body, expires_at FROM idempotency_keys WHERE org_id = ? AND key = ?",
        orgId,
        input.key
      );
      if (existing !== undefined && existing.expires_at > now) {
        return {
          state: "existing",
          requestHash: existing.request_hash,
          response: existing.response_status === null ? null : { status: existing.response_status, body: existing.response_body ?? "" },
        };
      }
      this.#run(
        `INSERT INTO idempotency_keys (org_id, key, request_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (org_id, key) DO UPDATE SET request_hash = excluded.request_hash, response_status = NULL,
           response_body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at`,
        orgId,
        input.key,
        input.requestHash,
        now,
        isoTime(input.expiresAt)
      );
      return { state: "new" };
    });
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
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const resetAt = windowStart + windowMs;
    return this.#write(() => {
      // expired windows of every key are dropped as we go, so the table stays small
      this.#run("DELETE FROM rate_limits WHERE reset_at <= ?", now);
      const row = this.#get<{ count: number }>(
        `INSERT INTO rate_limits (key, window_start, count, reset_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1 RETURNING count`,
        key,
        windowStart,
        resetAt
      )!;
      return { count: row.count, resetAt };
    });
  }

  // lifecycle --------------------------------------------------------------------------------

  ping(): Promise<void> {
    return this.#call(() => {
      this.#get("SELECT 1");
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
