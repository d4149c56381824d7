import pg from "pg";
import type { Pool, PoolClient, QueryResultRow } from "pg";
import {
  StoreError,
  decodeCursor,
  diffJsonOf,
  encodeCursor,
  isDriftwatchError,
  newId,
  severityRank,
  DEFAULT_SNAPSHOT_RETENTION,
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
import { migratePostgres, POSTGRES_SCHEMA_VERSION, quoteIdentifier } from "./migrations.js";
import { recordCheckRows } from "./record-check.js";
import { encodeJson, encodeText, encodeTextOrNull } from "@driftwatch/core";
import { Params, clampLimit, connect, isoTime, patchAssignments, query, translateError, type Db, type Tables } from "./util.js";
import {
  MONITOR_PATCH_COLUMNS,
  WEBHOOK_PATCH_COLUMNS,
  encodeParam,
  toDelivery,
  toDeliveryAttempt,
  toDiff,
  toMonitor,
  toOrganization,
  toSettings,
  toSnapshot,
  toToken,
  toWebhook,
  type ColumnKind,
  type DeliveryAttemptRow,
  type DeliveryRow,
  type MonitorRow,
  type OrganizationRow,
  type SettingsRow,
  type TokenRow,
  type WebhookRow,
} from "./rows.js";

export interface PostgresStoreOptions {
  /** `postgres://user:pass@host:5432/db`: the store creates (and on close ends) its own pool. */
  connectionString?: string;
  /** A `pg.Pool` you own: the store uses it but never ends it. */
  pool?: Pool;
  /** Schema holding the tables, created when missing (default `public`). */
  schema?: string;
  /** Test instrumentation (see `StoreHooks`). */
  hooks?: StoreHooks;
  /** Size of the pool the store creates (default 10). */
  max?: number;
  /** How long to wait for a connection of the pool the store creates (default 10000 ms). */
  connectionTimeoutMillis?: number;
  /** Clock for `createdAt` fields (default `() => new Date()`). */
  now?: () => Date;
}

const SNAPSHOT_LIST_COLUMNS =
  "id, org_id, monitor_id, fetched_at, status, latency_ms, content_type, content_hash, size, browser_render, etag, last_modified";
const DIFF_COLUMNS = "id, org_id, monitor_id, snapshot_id, data";

/**
 * Connects to PostgreSQL, applies the migrations (under an advisory lock) and returns a
 * driftwatch `Store`. Pass `connectionString` or your own `pool`.
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const { pool: userPool, connectionString } = options;
  if ((userPool === undefined) === (connectionString === undefined)) {
    throw new StoreError("store_unavailable", "Pass exactly one of `connectionString` or `pool` to createPostgresStore.");
  }
  const schema = options.schema ?? "public";
  if (schema.length === 0) throw new StoreError("store_unavailable", "The `schema` option must not be empty.");
  const ownsPool = userPool === undefined;
  const pool =
    userPool ??
    new pg.Pool({
      connectionString,
      max: options.max ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
      application_name: "driftwatch",
    });
  // An idle client of our own pool losing its connection must not crash the process; the next
  // query reports the failure as `store_unavailable`.
  if (ownsPool) pool.on("error", () => undefined);
  try {
    const client = await connect(pool);
    let broken = false;
    try {
      await migratePostgres(client, schema);
    } catch (error) {
      broken = !isDriftwatchError(error);
      throw translateError(error);
    } finally {
      client.release(broken);
    }
  } catch (error) {
    if (ownsPool) await pool.end().catch(() => undefined);
    throw error;
  }
  return new PostgresStore(pool, ownsPool, schema, options.hooks ?? {}, options.now ?? (() => new Date()));
}

/** The name `openStore` looks for in every adapter package. */
export const createStore = createPostgresStore;

class PostgresStore implements Store {
  readonly capabilities = { rateLimits: true, durable: true } as const;
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #hooks: StoreHooks;
  readonly #clock: () => Date;
  /** Qualified table names. */
  readonly #t: Tables;
  readonly #migrations: string;
  #closed = false;

  constructor(pool: Pool, ownsPool: boolean, schema: string, hooks: StoreHooks, clock: () => Date) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.#hooks = hooks;
    this.#clock = clock;
    const s = quoteIdentifier(schema);
    this.#migrations = `${s}.driftwatch_migrations`;
    this.#t = {
      organizations: `${s}.organizations`,
      tokens: `${s}.tokens`,
      monitors: `${s}.monitors`,
      snapshots: `${s}.snapshots`,
      diffs: `${s}.diffs`,
      settings: `${s}.settings`,
      webhooks: `${s}.webhooks`,
      deliveries: `${s}.deliveries`,
      delivery_attempts: `${s}.delivery_attempts`,
      idempotency_keys: `${s}.idempotency_keys`,
      rate_limits: `${s}.rate_limits`,
    };
  }

  // plumbing ---------------------------------------------------------------------------------

  #open(): void {
    if (this.#closed) throw new StoreError("store_closed", "The store is closed.");
  }

  /** Runs one statement; failures become `StoreError`s. */
  #q<R extends QueryResultRow>(db: Db, text: string, values: unknown[] = []): Promise<R[]> {
    return query<R>(db, text, values);
  }

  /** One statement on the pool, outside any transaction. */
  async #all<R extends QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    this.#open();
    return this.#q<R>(this.#pool, text, values);
  }

  async #one<R extends QueryResultRow>(text: string, values: unknown[] = []): Promise<R | undefined> {
    return (await this.#all<R>(text, values))[0];
  }

  /** The first row mapped to a record, or null when there is none. */
  async #find<R extends QueryResultRow, T>(text: string, values: unknown[], map: (row: R) => T): Promise<T | null> {
    const row = await this.#one<R>(text, values);
    return row === undefined ? null : map(row);
  }

  /** Runs `work` between BEGIN and COMMIT on one client; any error (a throwing hook too) rolls back. */
  async #transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    this.#open();
    const client = await connect(this.#pool);
    let broken = false;
    try {
      await this.#q(client, "BEGIN");
      const result = await work(client);
      await this.#q(client, "COMMIT");
      return result;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch {
        // the connection is gone; the server rolls the transaction back when it notices
        broken = true;
      }
      // statements already raise StoreErrors; anything else (a throwing hook) passes through as is
      throw error;
    } finally {
      client.release(broken);
    }
  }

  #now(): string {
    return this.#clock().toISOString();
  }

  /** One page, newest first, of `<select> WHERE <conditions>`. */
  async #page<Row extends QueryResultRow & { id: string }, T>(
    select: string,
    conditions: string[],
    params: Params,
    page: PageRequest,
    map: (row: Row) => T
  ): Promise<Page<T>> {
    const limit = clampLimit(page.limit);
    const where = [...conditions];
    if (page.cursor !== undefined && page.cursor !== null) where.push(`id < ${params.add(decodeCursor(page.cursor))}`);
    const rows = await this.#all<Row>(
      `${select} WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ${params.add(limit + 1)}`,
      params.values
    );
    const more = rows.length > limit;
    const data = (more ? rows.slice(0, limit) : rows).map(map);
    const last = more ? rows[limit - 1] : undefined;
    return { data, nextCursor: last === undefined ? null : encodeCursor(last.id) };
  }

  /** One page, newest first, of an organization's rows of `table`. */
  #orgPage<Row extends QueryResultRow & { id: string }, T>(
    table: "tokens" | "monitors" | "webhooks",
    orgId: string,
    page: PageRequest,
    map: (row: Row) => T
  ): Promise<Page<T>> {
    const params = new Params();
    return this.#page(`SELECT * FROM ${this.#t[table]}`, [`org_id = ${params.add(orgId)}`], params, page, map);
  }

  /** `UPDATE <table> SET <patch> WHERE org_id AND id RETURNING *`; with nothing to set, the row as is. */
  async #patch<Row extends QueryResultRow>(
    db: Db,
    table: "monitors" | "webhooks",
    columns: Readonly<Record<string, readonly [string, ColumnKind]>>,
    orgId: string,
    id: string,
    patch: object
  ): Promise<Row | undefined> {
    const params = new Params();
    const sets = patchAssignments(columns, patch, params);
    const where = `org_id = ${params.add(orgId)} AND id = ${params.add(id)}`;
    const sql =
      sets.length === 0
        ? `SELECT * FROM ${this.#t[table]} WHERE ${where}`
        : `UPDATE ${this.#t[table]} SET ${sets.join(", ")} WHERE ${where} RETURNING *`;
    return (await this.#q<Row>(db, sql, params.values))[0];
  }

  // organizations ----------------------------------------------------------------------------

  async createOrganization(input: { slug: string; name?: string }): Promise<OrganizationRecord> {
    const row = await this.#one<OrganizationRow>(
      `INSERT INTO ${this.#t.organizations} (id, slug, name, created_at) VALUES ($1, $2, $3, $4) RETURNING *`,
      [newId("organization"), input.slug, input.name ?? input.slug, this.#now()]
    );
    return toOrganization(row!);
  }

  async getOrganization(id: string): Promise<OrganizationRecord | null> {
    return this.#find(`SELECT * FROM ${this.#t.organizations} WHERE id = $1`, [id], toOrganization);
  }

  async getOrganizationBySlug(slug: string): Promise<OrganizationRecord | null> {
    return this.#find(`SELECT * FROM ${this.#t.organizations} WHERE slug = $1`, [slug], toOrganization);
  }

  async ensureOrganization(slug: string, name?: string): Promise<OrganizationRecord> {
    // ON CONFLICT waits for a racing insert to commit, so the SELECT that follows sees the winner.
    const inserted = await this.#one<OrganizationRow>(
      `INSERT INTO ${this.#t.organizations} (id, slug, name, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (slug) DO NOTHING RETURNING *`,
      [newId("organization"), slug, name ?? slug, this.#now()]
    );
    const row = inserted ?? (await this.#one<OrganizationRow>(`SELECT * FROM ${this.#t.organizations} WHERE slug = $1`, [slug]));
    if (row === undefined) throw new StoreError("conflict", `The organization ${slug} was deleted while being ensured.`);
    return toOrganization(row);
  }

  async countOrganizations(): Promise<number> {
    const row = await this.#one<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${this.#t.organizations}`);
    return row!.n;
  }

  // tokens -----------------------------------------------------------------------------------

  async createToken(orgId: string, input: { name: string; scopes: TokenRecord["scopes"]; tokenHash: string }): Promise<TokenRecord> {
    const row = await this.#one<TokenRow>(
      `INSERT INTO ${this.#t.tokens} (id, org_id, name, scopes, token_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [newId("token"), orgId, input.name, JSON.stringify(input.scopes), input.tokenHash, this.#now()]
    );
    return toToken(row!);
  }

  async findTokenByHash(tokenHash: string): Promise<TokenRecord | null> {
    return this.#find(`SELECT * FROM ${this.#t.tokens} WHERE token_hash = $1`, [tokenHash], toToken);
  }

  async getToken(orgId: string, id: string): Promise<TokenRecord | null> {
    return this.#find(`SELECT * FROM ${this.#t.tokens} WHERE org_id = $1 AND id = $2`, [orgId, id], toToken);
  }

  listTokens(orgId: string, page: PageRequest): Promise<Page<TokenRecord>> {
    return this.#orgPage("tokens", orgId, page, toToken);
  }

  async revokeToken(orgId: string, id: string, at: string): Promise<TokenRecord | null> {
    return this.#find(
      `UPDATE ${this.#t.tokens} SET revoked_at = COALESCE(revoked_at, $1) WHERE org_id = $2 AND id = $3 RETURNING *`,
      [at, orgId, id],
      toToken
    );
  }

  async touchToken(id: string, at: string): Promise<void> {
    await this.#all(`UPDATE ${this.#t.tokens} SET last_used_at = $1 WHERE id = $2`, [at, id]);
  }

  // monitors ---------------------------------------------------------------------------------

  async createMonitor(orgId: string, input: Parameters<Store["createMonitor"]>[1]): Promise<MonitorRecord> {
    const now = this.#now();
    const row = await this.#one<MonitorRow>(
      `INSERT INTO ${this.#t.monitors} (id, org_id, type, name, url, method, headers, body, interval_seconds, selector,
         browser_options, state, consecutive_failures, next_check_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 0, $13, $14, $14) RETURNING *`,
      [
        newId("monitor"),
        orgId,
        input.type,
        encodeText(input.name),
        input.url,
        input.method,
        encodeJson(input.headers),
        encodeTextOrNull(input.body),
        input.intervalSeconds,
        encodeTextOrNull(input.selector),
        encodeParam(input.browserOptionsJson, "json"),
        input.state,
        input.nextCheckAt,
        now,
      ]
    );
    return toMonitor(row!);
  }

  async getMonitor(orgId: string, id: string): Promise<MonitorRecord | null> {
    return this.#find(`SELECT * FROM ${this.#t.monitors} WHERE org_id = $1 AND id = $2`, [orgId, id], toMonitor);
  }

  async updateMonitor(orgId: string, id: string, patch: MonitorPatch): Promise<MonitorRecord | null> {
    this.#open();
    const row = await this.#patch<MonitorRow>(this.#pool, "monitors", MONITOR_PATCH_COLUMNS, orgId, id, patch);
    return row === undefined ? null : toMonitor(row);
  }

  async deleteMonitor(orgId: string, id: string): Promise<boolean> {
    // snapshots, diffs and settings go by ON DELETE CASCADE; deliveries have no foreign key to monitors.
    const rows = await this.#all(`DELETE FROM ${this.#t.monitors} WHERE org_id = $1 AND id = $2 RETURNING id`, [orgId, id]);
    return rows.length > 0;
  }

  listMonitors(orgId: string, page: PageRequest): Promise<Page<MonitorRecord>> {
    return this.#orgPage("monitors", orgId, page, toMonitor);
  }

  async claimDueMonitors(input: Parameters<Store["claimDueMonitors"]>[0]): Promise<MonitorRecord[]> {
    const limit = Math.max(0, Math.floor(input.limit));
    const now = Date.parse(isoTime(input.now));
    if (limit === 0) return [];
    // Organizations take turns (each one's oldest due monitor, then each one's second, ...), so one
    // tenant's backlog cannot fill a claim. The window function cannot share a level with FOR UPDATE:
    // a ranked subquery numbers the due rows, the level that joins it locks, rechecks and limits.
    // SKIP LOCKED: rows another claimer is taking right now are passed over, not waited for;
    // a row whose lease was just taken and committed fails the recheck of the WHERE clause.
    const rows = await this.#all<MonitorRow>(
      `UPDATE ${this.#t.monitors} SET lease_owner = $1, lease_expires_at = $2
       WHERE id IN (
         SELECT m.id FROM ${this.#t.monitors} m
         JOIN (
           SELECT id, row_number() OVER (PARTITION BY org_id ORDER BY next_check_at, id) AS turn
           FROM ${this.#t.monitors}
           WHERE state IN ('active', 'failing') AND next_check_at <= $3
             AND (lease_expires_at IS NULL OR lease_expires_at <= $3)) ranked ON ranked.id = m.id
         WHERE m.state IN ('active', 'failing') AND m.next_check_at <= $3
           AND (m.lease_expires_at IS NULL OR m.lease_expires_at <= $3)
         ORDER BY ranked.turn, m.next_check_at, m.id LIMIT $4
         FOR UPDATE OF m SKIP LOCKED)
       RETURNING *`,
      [input.owner, new Date(now + input.leaseMs).toISOString(), input.now, limit]
    );
    return rows.sort((a, b) => a.next_check_at!.getTime() - b.next_check_at!.getTime() || (a.id < b.id ? -1 : 1)).map(toMonitor);
  }

  async releaseMonitor(id: string, owner: string, nextCheckAt: string | null): Promise<boolean> {
    const rows = await this.#all(
      `UPDATE ${this.#t.monitors} SET lease_owner = NULL, lease_expires_at = NULL, next_check_at = $1
       WHERE id = $2 AND lease_owner = $3 RETURNING id`,
      [nextCheckAt, id, owner]
    );
    return rows.length > 0;
  }

  // snapshots --------------------------------------------------------------------------------

  async getLatestSnapshot(orgId: string, monitorId: string): Promise<SnapshotRecord | null> {
    return this.#find(
      `SELECT * FROM ${this.#t.snapshots} WHERE org_id = $1 AND monitor_id = $2 ORDER BY id DESC LIMIT 1`,
      [orgId, monitorId],
      toSnapshot
    );
  }

  listSnapshots(orgId: string, monitorId: string, page: PageRequest): Promise<Page<SnapshotRecord>> {
    const params = new Params();
    return this.#page(
      `SELECT ${SNAPSHOT_LIST_COLUMNS} FROM ${this.#t.snapshots}`,
      [`org_id = ${params.add(orgId)}`, `monitor_id = ${params.add(monitorId)}`],
      params,
      page,
      toSnapshot
    );
  }

  async getSnapshot(orgId: string, monitorId: string, id: string): Promise<SnapshotRecord | null> {
    return this.#find(
      `SELECT * FROM ${this.#t.snapshots} WHERE org_id = $1 AND monitor_id = $2 AND id = $3`,
      [orgId, monitorId, id],
      toSnapshot
    );
  }

  // diffs ------------------------------------------------------------------------------------

  listDiffs(orgId: string, monitorId: string, query: Parameters<Store["listDiffs"]>[2]): Promise<Page<DiffRecord>> {
    const params = new Params();
    const conditions = [`org_id = ${params.add(orgId)}`, `monitor_id = ${params.add(monitorId)}`];
    if (query.since !== undefined) conditions.push(`created_at >= ${params.add(query.since)}`);
    if (query.until !== undefined) conditions.push(`created_at <= ${params.add(query.until)}`);
    if (query.minSeverity !== undefined) conditions.push(`top_severity_rank >= ${params.add(severityRank(query.minSeverity))}`);
    if (query.classification !== undefined) conditions.push(`classification = ${params.add(query.classification)}`);
    return this.#page(`SELECT ${DIFF_COLUMNS} FROM ${this.#t.diffs}`, conditions, params, query, toDiff);
  }

  async getDiff(orgId: string, monitorId: string, id: string): Promise<DiffRecord | null> {
    return this.#find(
      `SELECT ${DIFF_COLUMNS} FROM ${this.#t.diffs} WHERE org_id = $1 AND monitor_id = $2 AND id = $3`,
      [orgId, monitorId, id],
      toDiff
    );
  }

  async getDiffJson(orgId: string, monitorId: string, id: string): Promise<string | null> {
    const diff = await this.getDiff(orgId, monitorId, id);
    return diff === null ? null : diffJsonOf(diff);
  }

  // the check --------------------------------------------------------------------------------

  recordCheck(orgId: string, input: RecordCheckInput): Promise<RecordCheckResult> {
    return this.#transaction((client) => recordCheckRows({ t: this.#t, hooks: this.#hooks, now: () => this.#now() }, client, orgId, input));
  }

  // settings ---------------------------------------------------------------------------------

  async #settings(db: Db, orgId: string, monitorId: string): Promise<SettingsRecord | null> {
    const rows = await this.#q<SettingsRow & { exists: boolean }>(
      db,
      `SELECT m.id AS monitor_id, m.org_id, s.policy_rules, s.snapshot_retention, s.auto_apply_suggestions, s.updated_at, s.monitor_id IS NOT NULL AS exists
       FROM ${this.#t.monitors} m LEFT JOIN ${this.#t.settings} s ON s.monitor_id = m.id AND s.org_id = m.org_id
       WHERE m.org_id = $1 AND m.id = $2`,
      [orgId, monitorId]
    );
    const row = rows[0];
    if (row === undefined) return null;
    return row.exists
      ? toSettings(row)
      : { orgId, monitorId, policyRulesJson: { rules: [] }, snapshotRetention: DEFAULT_SNAPSHOT_RETENTION, autoApplySuggestions: false, updatedAt: null };
  }

  getSettings(orgId: string, monitorId: string): Promise<SettingsRecord | null> {
    this.#open();
    return this.#settings(this.#pool, orgId, monitorId);
  }

  updateSettings(orgId: string, monitorId: string, patch: Parameters<Store["updateSettings"]>[2]): Promise<SettingsRecord | null> {
    return this.#transaction(async (client) => {
      // lock the monitor so a concurrent delete cannot slip between the check and the upsert
      const monitor = await this.#q(client, `SELECT id FROM ${this.#t.monitors} WHERE org_id = $1 AND id = $2 FOR UPDATE`, [
        orgId,
        monitorId,
      ]);
      if (monitor.length === 0) return null;
      const rows = await this.#q<SettingsRow>(
        client,
        `INSERT INTO ${this.#t.settings} AS s (monitor_id, org_id, policy_rules, snapshot_retention, auto_apply_suggestions, updated_at)
         VALUES ($1, $2, COALESCE($3::jsonb, '{"rules":[]}'::jsonb), COALESCE($4::int, $5::int), COALESCE($7::boolean, false), $6)
         ON CONFLICT (monitor_id) DO UPDATE SET
           policy_rules = COALESCE($3::jsonb, s.policy_rules),
           snapshot_retention = COALESCE($4::int, s.snapshot_retention),
           auto_apply_suggestions = COALESCE($7::boolean, s.auto_apply_suggestions),
           updated_at = excluded.updated_at
         RETURNING *`,
        [
          monitorId,
          orgId,
          encodeParam(patch.policyRulesJson, "json"),
          patch.snapshotRetention ?? null,
          DEFAULT_SNAPSHOT_RETENTION,
          patch.updatedAt,
          patch.autoApplySuggestions ?? null,
        ]
      );
      return toSettings(rows[0]!);
    });
  }

  // webhooks ---------------------------------------------------------------------------------

  async createWebhook(orgId: string, input: Parameters<Store["createWebhook"]>[1]): Promise<WebhookRecord> {
    const now = this.#now();
    const row = await this.#one<WebhookRow>(
      `INSERT INTO ${this.#t.webhooks} (id, org_id, url, description, events, monitor_ids, min_severity, enabled, secret,
         created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING *`,
      [
        newId("webhook"),
        orgId,
        input.url,
        encodeTextOrNull(input.description),
        JSON.stringify(input.events),
        encodeParam(input.monitorIds, "json"),
        input.minSeverity,
        input.enabled,
        input.secret,
        now,
      ]
    );
    return toWebhook(row!);
  }

  async getWebhook(orgId: string, id: string): Promise<WebhookRecord | null> {
    return this.#find(`SELECT * FROM ${this.#t.webhooks} WHERE org_id = $1 AND id = $2`, [orgId, id], toWebhook);
  }

  listWebhooks(orgId: string, page: PageRequest): Promise<Page<WebhookRecord>> {
    return this.#orgPage("webhooks", orgId, page, toWebhook);
  }

  async updateWebhook(orgId: string, id: string, patch: WebhookPatch): Promise<WebhookRecord | null> {
    this.#open();
    const row = await this.#patch<WebhookRow>(this.#pool, "webhooks", WEBHOOK_PATCH_COLUMNS, orgId, id, patch);
    return row === undefined ? null : toWebhook(row);
  }

  async deleteWebhook(orgId: string, id: string): Promise<boolean> {
    // deliveries and their attempts go by ON DELETE CASCADE
    const rows = await this.#all(`DELETE FROM ${this.#t.webhooks} WHERE org_id = $1 AND id = $2 RETURNING id`, [orgId, id]);
    return rows.length > 0;
  }

  // deliveries -------------------------------------------------------------------------------

  /** Oldest first, organizations in turn (as claimDueMonitors). */
  async claimDueDeliveries(input: Parameters<Store["claimDueDeliveries"]>[0]): Promise<DeliveryRecord[]> {
    const limit = Math.max(0, Math.floor(input.limit));
    if (limit === 0) return [];
    const params = new Params();
    const owner = params.add(input.owner);
    const until = params.add(new Date(Date.parse(isoTime(input.now)) + input.leaseMs).toISOString());
    const now = params.add(input.now);
    const conditions = ["d.state = 'pending'", "w.enabled", `(d.lease_expires_at IS NULL OR d.lease_expires_at <= ${now})`];
    if (input.force !== true) conditions.push(`d.next_attempt_at <= ${now}`);
    if (input.orgId !== undefined) conditions.push(`d.org_id = ${params.add(input.orgId)}`);
    if (input.webhookId !== undefined) conditions.push(`d.webhook_id = ${params.add(input.webhookId)}`);
    const rows = await this.#all<DeliveryRow>(
      `UPDATE ${this.#t.deliveries} SET lease_owner = ${owner}, lease_expires_at = ${until}
       WHERE id IN (
         SELECT d.id FROM ${this.#t.deliveries} d JOIN ${this.#t.webhooks} w ON w.id = d.webhook_id AND w.org_id = d.org_id
         JOIN (
           SELECT d.id, row_number() OVER (PARTITION BY d.org_id ORDER BY d.id) AS turn
           FROM ${this.#t.deliveries} d JOIN ${this.#t.webhooks} w ON w.id = d.webhook_id AND w.org_id = d.org_id
           WHERE ${conditions.join(" AND ")}) ranked ON ranked.id = d.id
         WHERE ${conditions.join(" AND ")}
         ORDER BY ranked.turn, d.id LIMIT ${params.add(limit)}
         FOR UPDATE OF d SKIP LOCKED)
       RETURNING *`,
      params.values
    );
    return rows.sort((a, b) => (a.id < b.id ? -1 : 1)).map(toDelivery);
  }

  recordDeliveryAttempt(id: string, owner: string, attempt: Parameters<Store["recordDeliveryAttempt"]>[2]): Promise<DeliveryRecord | null> {
    return this.#transaction(async (client) => {
      const rows = await this.#q<DeliveryRow>(
        client,
        `UPDATE ${this.#t.deliveries} SET state = $1, attempts = attempts + 1, next_attempt_at = $2, last_attempt_at = $3,
           last_response_status = $4, last_error = $5, lease_owner = NULL, lease_expires_at = NULL
         WHERE id = $6 AND lease_owner = $7 RETURNING *`,
        [
          attempt.state,
          attempt.state === "pending" ? attempt.nextAttemptAt : null,
          attempt.at,
          attempt.responseStatus,
          encodeTextOrNull(attempt.error),
          id,
          owner,
        ]
      );
      const row = rows[0];
      if (row === undefined) return null;
      await this.#q(
        client,
        `INSERT INTO ${this.#t.delivery_attempts} (delivery_id, attempt, org_id, at, response_status, error, duration_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [id, row.attempts, row.org_id, attempt.at, attempt.responseStatus, encodeTextOrNull(attempt.error), Math.round(attempt.durationMs)]
      );
      return toDelivery(row);
    });
  }

  async getDelivery(orgId: string, webhookId: string, id: string): Promise<DeliveryRecord | null> {
    return this.#find(
      `SELECT * FROM ${this.#t.deliveries} WHERE org_id = $1 AND webhook_id = $2 AND id = $3`,
      [orgId, webhookId, id],
      toDelivery
    );
  }

  listDeliveries(orgId: string, webhookId: string, page: PageRequest): Promise<Page<DeliveryRecord>> {
    const params = new Params();
    return this.#page(
      `SELECT * FROM ${this.#t.deliveries}`,
      [`org_id = ${params.add(orgId)}`, `webhook_id = ${params.add(webhookId)}`],
      params,
      page,
      toDelivery
    );
  }

  async listDeliveryAttempts(orgId: string, deliveryId: string): Promise<DeliveryAttemptRecord[]> {
    const rows = await this.#all<DeliveryAttemptRow>(
      `SELECT * FROM ${this.#t.delivery_attempts} WHERE org_id = $1 AND delivery_id = $2 ORDER BY attempt`,
      [orgId, deliveryId]
    );
    return rows.map(toDeliveryAttempt);
  }

  async requeueDelivery(orgId: string, webhookId: string, id: string, now: string): Promise<DeliveryRecord | null> {
    return this.#find(
      `UPDATE ${this.#t.deliveries} SET state = 'pending', next_attempt_at = $1, lease_owner = NULL, lease_expires_at = NULL
       WHERE org_id = $2 AND webhook_id = $3 AND id = $4 RETURNING *`,
      [now, orgId, webhookId, id],
      toDelivery
    );
  }

  async countPendingDeliveries(orgId?: string): Promise<number> {
    const row = await this.#one<{ n: number }>(
      `SELECT COUNT(*)::int AS n FROM ${this.#t.deliveries} WHERE state = 'pending' AND ($1::text IS NULL OR org_id = $1)`,
      [orgId ?? null]
    );
    return row!.n;
  }

  // idempotency ------------------------------------------------------------------------------

  async claimIdempotencyKey(orgId: string, input: Parameters<Store["claimIdempotencyKey"]>[1]): Promise<IdempotencyClaimResult> {
    // A racing claim of the same key waits on the conflict and then finds it taken. The loop
    // covers a key released between our insert attempt and our read.
    for (let attempt = 0; attempt < 5; attempt++) {
      const claimed = await this.#all(
        `INSERT INTO ${this.#t.idempotency_keys} AS k (org_id, key, request_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (org_id, key) DO UPDATE SET request_hash = excluded.request_hash, response_status = NULL,
           response_body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
         WHERE k.expires_at <= excluded.created_at
         RETURNING key`,
        [orgId, input.key, input.requestHash, input.now, input.expiresAt]
      );
      if (claimed.length > 0) return { state: "new" };
      const existing = await this.#one<{ request_hash: string; response_status: number | null; response_body: string | null }>(
        `SELECT request_hash, response_status, response_body FROM ${this.#t.idempotency_keys} WHERE org_id = $1 AND key = $2`,
        [orgId, input.key]
      );
      if (existing !== undefined) {
        return {
          state: "existing",
          requestHash: existing.request_hash,
          response: existing.response_status === null ? null : { status: existing.response_status, body: existing.response_body ?? "" },
        };
      }
    }
    throw new StoreError("conflict", `The idempotency key ${input.key} keeps changing hands; retry the request.`);
  }

  async completeIdempotencyKey(orgId: string, key: string, response: { status: number; body: string }): Promise<void> {
    await this.#all(`UPDATE ${this.#t.idempotency_keys} SET response_status = $1, response_body = $2 WHERE org_id = $3 AND key = $4`, [
      response.status,
      response.body,
      orgId,
      key,
    ]);
  }

  async releaseIdempotencyKey(orgId: string, key: string): Promise<void> {
    await this.#all(`DELETE FROM ${this.#t.idempotency_keys} WHERE org_id = $1 AND key = $2`, [orgId, key]);
  }

  // rate limits ------------------------------------------------------------------------------

  async hitRateLimit(key: string, windowMs: number, now: number): Promise<RateLimitHit> {
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const resetAt = windowStart + windowMs;
    const rows = await this.#all<{ count: number }>(
      `INSERT INTO ${this.#t.rate_limits} AS r (key, window_start, count, reset_at) VALUES ($1, $2, 1, $3)
       ON CONFLICT (key, window_start) DO UPDATE SET count = r.count + 1 RETURNING count`,
      [key, windowStart, resetAt]
    );
    // expired windows of every key are dropped as we go, so the table stays small
    await this.#all(`DELETE FROM ${this.#t.rate_limits} WHERE reset_at <= $1`, [now]);
    return { count: rows[0]!.count, resetAt };
  }

  // lifecycle --------------------------------------------------------------------------------

  /** Answers only when the schema is there: every table, at this build's migration version. */
  async ping(): Promise<void> {
    const tables = Object.values(this.#t);
    const [row] = await this.#all<{ version: number | null; tables: number }>(
      `SELECT (SELECT MAX(version) FROM ${this.#migrations}) AS version,
         (SELECT COUNT(*)::int FROM unnest($1::text[]) AS t(name) WHERE to_regclass(t.name) IS NOT NULL) AS tables`,
      [tables]
    );
    if (row === undefined || row.version === null || row.version < POSTGRES_SCHEMA_VERSION || row.tables < tables.length) {
      throw new StoreError("store_unavailable", `The database schema is missing or incomplete (version ${String(row?.version ?? "none")}, ${String(row?.tables ?? 0)} of ${String(tables.length)} tables).`);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.#pool.end();
  }
}
