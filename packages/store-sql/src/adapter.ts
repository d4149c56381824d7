import {
  DEFAULT_SNAPSHOT_RETENTION,
  defaultSettings,
  StoreError,
  encodeText,
  encodeTextOrNull,
  newId,
  severityRank,
  type ClaimDeliveriesInput,
  type ClaimedDelivery,
  type ClaimedMonitor,
  type ClaimMonitorsInput,
  type DeliveryAttempt,
  type DeliveryAttemptRecord,
  type DeliveryRecord,
  type DiffFilter,
  type DiffRecord,
  type IdempotencyClaim,
  type IdempotencyClaimResult,
  type IdempotentResponse,
  type KeysetPage,
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
  type OrganizationRecord,
  type RateLimitHit,
  type RecordCheckInput,
  type ReleasedLeases,
  type RenewedLeases,
  type RenewLeasesInput,
  type RecordCheckResult,
  type SettingsPatch,
  type SettingsRecord,
  type SnapshotRecord,
  type StoreAdapter,
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
import { TABLE_NAMES, type SqlDialect, type SqlDriver, type SqlExecutor, type SqlStatement, type TableName } from "./dialect.js";
import { SqlMedia } from "./media.js";
import type { SqlContext } from "./context.js";
import { SqlPeopleAdapter } from "./people.js";
import { SqlChannels } from "./channels.js";
import { recordCheckRows } from "./record-check.js";
import { inListChunks } from "./in-list.js";
import {
  DIFF_COLUMNS,
  MONITOR_PATCH_COLUMNS,
  RowCodec,
  SNAPSHOT_LIST_COLUMNS,
  WEBHOOK_PATCH_COLUMNS,
  type ColumnKind,
  type IdRow,
  type Row,
} from "./rows.js";

export type { SqlContext } from "./context.js";

/** The migration (4, `monitor_tags`) that adds `monitors.tags` in both SQL schemas. */
export const MONITOR_TAGS_VERSION = 4;
/** The migration (5, `learning_defaults`) that adds `organizations.learn_noise_by_default` and `settings.rejected_suggestions`. */
export const LEARNING_DEFAULTS_VERSION = 5;
/** The migration (10, `monitor_contract`) that adds `monitors.contract`. */
export const MONITOR_CONTRACT_VERSION = 10;
/** The migration (11, `monitor_learning_since`) that adds `monitors.learning_since`. */
export const MONITOR_LEARNING_SINCE_VERSION = 11;
/** The migration (12, `monitor_last_failure`) that adds `monitors.last_failure`. */
export const MONITOR_LAST_FAILURE_VERSION = 12;
/** The migration (13, `settings_learning`) that adds `settings.learning` and `organizations.learning_defaults`. */
export const SETTINGS_LEARNING_VERSION = 13;

/** The migration (9, `tracked_values`) that adds `settings.track`, `settings.alert` and the tables of tracked values and alert state. */
export const TRACKED_VALUES_VERSION = 9;

export interface SqlStoreOptions {
  driver: SqlDriver;
  dialect: SqlDialect;
  /** The migration version this build writes; `ping` fails below it. */
  schemaVersion: number;
  /** Test instrumentation (see `StoreHooks`). */
  hooks?: StoreHooks | undefined;
  /** Clock for `createdAt` fields (default `() => new Date()`). */
  now?: (() => Date) | undefined;
  /** Told which diffs a write deleted (null: every diff of a monitor), e.g. to drop them from a cache. */
  onDiffsDeleted?: ((ids: readonly string[] | null) => void) | undefined;
}


/**
 * The one SQL implementation of the `Store` port, for every SQL database: statements are
 * written once with `?` placeholders and run through a `SqlDriver`; what differs between
 * databases comes from the `SqlDialect`. Wrap it with `defineStore` (see `createSqlStore`).
 * Adapter packages may extend it to replace a method with a measured faster one.
 */
export class SqlStoreAdapter extends SqlPeopleAdapter implements StoreAdapter {
  readonly capabilities = { rateLimits: true, durable: true } as const;
  protected readonly driver: SqlDriver;
  protected readonly ctx: SqlContext;
  readonly #d: SqlDialect;
  readonly #rows: RowCodec;
  readonly #t: Readonly<Record<TableName, string>>;
  readonly #schemaVersion: number;
  readonly #onDiffsDeleted: (ids: readonly string[] | null) => void;
  /** Statements with the dialect's placeholders, by their `?` text. */
  readonly #compiled = new Map<string, string>();
  /** Notification channels and their outbox. */
  protected readonly channels: SqlChannels;
  readonly #media: SqlMedia;

  constructor(options: SqlStoreOptions) {
    super();
    this.driver = options.driver;
    this.#d = options.dialect;
    this.#rows = new RowCodec(options.dialect);
    this.#schemaVersion = options.schemaVersion;
    this.#onDiffsDeleted = options.onDiffsDeleted ?? (() => undefined);
    this.#t = Object.fromEntries(TABLE_NAMES.map((name) => [name, options.dialect.table(name)])) as Record<TableName, string>;
    const clock = options.now ?? (() => new Date());
    this.ctx = {
      dialect: this.#d,
      rows: this.#rows,
      t: this.#t,
      hooks: options.hooks ?? {},
      now: () => clock().toISOString(),
      all: (db, sql, params) => this.#all(db, sql, params),
      run: (db, sql, params) => db.run(this.#sql(sql), params),
      patchRow: (db, table, orgId, id, patch, lock = false) => this.#patchRow(db, table, orgId, id, patch, lock),
    };
    this.channels = new SqlChannels(this.driver, this.ctx);
    this.#media = new SqlMedia(this.driver, this.ctx);
  }

  // plumbing ---------------------------------------------------------------------------------

  protected diffsDeleted(): void {
    this.#onDiffsDeleted(null);
  }

  /** `sql` with the dialect's placeholders (cached: most statements are the same text every time). */
  #sql(sql: string): string {
    const placeholder = this.#d.placeholder;
    if (placeholder === undefined) return sql;
    let compiled = this.#compiled.get(sql);
    if (compiled === undefined) {
      let n = 0;
      compiled = sql.replace(/\?/g, () => placeholder(++n));
      if (this.#compiled.size < 1000) this.#compiled.set(sql, compiled);
    }
    return compiled;
  }

  #all<R extends Row>(db: SqlExecutor, sql: string, params: readonly unknown[]): Promise<R[]> {
    return db.all<R>(this.#sql(sql), params);
  }

  /** The first row of a statement on the driver, mapped, or null. */
  async #find<T>(sql: string, params: readonly unknown[], map: (row: Row) => T): Promise<T | null> {
    const rows = await this.#all(this.driver, sql, params);
    return rows.length === 0 ? null : map(rows[0]!);
  }

  async #count(sql: string, params: readonly unknown[]): Promise<number> {
    const rows = await this.#all<{ n: unknown }>(this.driver, sql, params);
    return Number(rows[0]?.n ?? 0);
  }

  /** Newest first, below the page's `after`, at most `take`: `<select> WHERE <where>` binding `params` first. */
  async #page<T>(select: string, where: string, params: readonly unknown[], page: KeysetPage, map: (row: Row) => T): Promise<T[]> {
    const rows =
      page.after === null
        ? await this.#all(this.driver, `${select} WHERE ${where} ORDER BY id DESC LIMIT ?`, [...params, page.take])
        : await this.#all(this.driver, `${select} WHERE ${where} AND id < ? ORDER BY id DESC LIMIT ?`, [...params, page.after, page.take]);
    return rows.map(map);
  }

  async #patchRow(db: SqlExecutor, table: "monitors" | "webhooks", orgId: string, id: string, patch: object, lock = false): Promise<Row | undefined> {
    const columns: Readonly<Record<string, readonly [string, ColumnKind]>> = table === "monitors" ? MONITOR_PATCH_COLUMNS : WEBHOOK_PATCH_COLUMNS;
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [field, value] of Object.entries(patch)) {
      const column = columns[field];
      if (column === undefined || value === undefined) continue;
      // a store opened at a schema before the column (the migration tests write old databases through one) writes none
      if (field === "learningSince" && this.#schemaVersion < MONITOR_LEARNING_SINCE_VERSION) continue;
      // A store opened at a schema before the column (the migration tests) keeps only the text.
      if (field === "lastFailure" && this.#schemaVersion < MONITOR_LAST_FAILURE_VERSION) continue;
      sets.push(`${column[0]} = ?`);
      values.push(this.#rows.param(value, column[1]));
    }
    const rows =
      sets.length === 0
        ? await this.#all(db, `SELECT * FROM ${this.#t[table]} WHERE org_id = ? AND id = ?${lock ? this.#d.lockRows() : ""}`, [orgId, id])
        : await this.#all(db, `UPDATE ${this.#t[table]} SET ${sets.join(", ")} WHERE org_id = ? AND id = ? RETURNING *`, [...values, orgId, id]);
    return rows[0];
  }

  /** Runs the statements of one call: in one transaction where the dialect groups writes, else each on its own. */
  #writes<T>(work: (db: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#d.groupWrites ? this.driver.transaction(work) : work(this.driver);
  }

  #one<T>(rows: Row[], map: (row: Row) => T): T | null {
    return rows.length === 0 ? null : map(rows[0]!);
  }

  // organizations ----------------------------------------------------------------------------

  async createOrganization(input: NewOrganization): Promise<OrganizationRecord> {
    const rows = await this.#all(
      this.driver,
      `INSERT INTO ${this.#t.organizations} (id, slug, name, created_at) VALUES (?, ?, ?, ?) RETURNING *`,
      [newId("organization"), input.slug, input.name ?? input.slug, this.ctx.now()],
    );
    return this.#rows.organization(rows[0]!);
  }

  getOrganization(id: string): Promise<OrganizationRecord | null> {
    return this.#find(`SELECT * FROM ${this.#t.organizations} WHERE id = ?`, [id], (row) => this.#rows.organization(row));
  }

  getOrganizationBySlug(slug: string): Promise<OrganizationRecord | null> {
    return this.#find(`SELECT * FROM ${this.#t.organizations} WHERE slug = ?`, [slug], (row) => this.#rows.organization(row));
  }

  ensureOrganization(slug: string, name?: string): Promise<OrganizationRecord> {
    return this.#writes((db) => this.#ensureOrganization(db, slug, name));
  }

  async #ensureOrganization(db: SqlExecutor, slug: string, name?: string): Promise<OrganizationRecord> {
    // ON CONFLICT waits for a racing insert to commit, so the SELECT that follows sees the winner.
    const inserted = await this.#all(
      db,
      `INSERT INTO ${this.#t.organizations} (id, slug, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (slug) DO NOTHING RETURNING *`,
      [newId("organization"), slug, name ?? slug, this.ctx.now()],
    );
    const row = inserted[0] ?? (await this.#all(db, `SELECT * FROM ${this.#t.organizations} WHERE slug = ?`, [slug]))[0];
    if (row === undefined) throw new StoreError("conflict", `The organization ${slug} was deleted while being ensured.`);
    return this.#rows.organization(row);
  }

  countOrganizations(): Promise<number> {
    return this.#count(`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM ${this.#t.organizations}`, []);
  }

  // tokens -----------------------------------------------------------------------------------

  async createToken(orgId: string, input: NewToken): Promise<TokenRecord> {
    // created_by only when there is one (null is the column's default), so that the tools that write
    // databases of an older schema version with this adapter (the migration tests) keep working.
    const by = input.createdBy ?? null;
    const rows = await this.#all(
      this.driver,
      `INSERT INTO ${this.#t.tokens} (id, org_id, name, scopes, token_hash, created_at${by === null ? "" : ", created_by"}) VALUES (?, ?, ?, ?, ?, ?${by === null ? "" : ", ?"}) RETURNING *`,
      [newId("token"), orgId, input.name, this.#d.writeJson(input.scopes), input.tokenHash, this.ctx.now(), ...(by === null ? [] : [by])],
    );
    return this.#rows.token(rows[0]!);
  }

  findTokenByHash(tokenHash: string): Promise<TokenRecord | null> {
    return this.#find(`SELECT * FROM ${this.#t.tokens} WHERE token_hash = ?`, [tokenHash], (row) => this.#rows.token(row));
  }

  getToken(orgId: string, id: string): Promise<TokenRecord | null> {
    return this.#find(`SELECT * FROM ${this.#t.tokens} WHERE org_id = ? AND id = ?`, [orgId, id], (row) => this.#rows.token(row));
  }

  listTokens(orgId: string, page: KeysetPage): Promise<TokenRecord[]> {
    return this.#page(`SELECT * FROM ${this.#t.tokens}`, "org_id = ?", [orgId], page, (row) => this.#rows.token(row));
  }

  revokeToken(orgId: string, id: string, at: string): Promise<TokenRecord | null> {
    return this.#find(
      `UPDATE ${this.#t.tokens} SET revoked_at = COALESCE(revoked_at, ?) WHERE org_id = ? AND id = ? RETURNING *`,
      [at, orgId, id],
      (row) => this.#rows.token(row),
    );
  }

  async touchToken(id: string, at: string): Promise<void> {
    await this.ctx.run(this.driver, `UPDATE ${this.#t.tokens} SET last_used_at = ? WHERE id = ?`, [at, id]);
  }

  // monitors ---------------------------------------------------------------------------------

  async createMonitor(orgId: string, input: NewMonitor): Promise<MonitorRecord> {
    const now = this.ctx.now();
    const values: Record<string, unknown> = {
      id: newId("monitor"),
      org_id: orgId,
      type: input.type,
      name: encodeText(input.name),
      url: input.url,
      method: input.method,
      headers: this.#d.writeJson(input.headers),
      body: encodeTextOrNull(input.body),
      interval_seconds: input.intervalSeconds,
      selector: encodeTextOrNull(input.selector),
      browser_options: this.#rows.param(input.browserOptionsJson, "json"),
      state: input.state,
      consecutive_failures: 0,
      next_check_at: input.nextCheckAt,
      created_at: now,
      updated_at: now,
    };
    // A store opened at a schema before the tags column (the migration tests write old databases through one) writes none.
    if (this.#schemaVersion >= MONITOR_TAGS_VERSION) values.tags = this.#d.writeJson(input.tags ?? []);
    if (this.#schemaVersion >= MONITOR_CONTRACT_VERSION) values.contract = this.#rows.param(input.contract ?? null, "json");
    const columns = Object.keys(values);
    const insert = `INSERT INTO ${this.#t.monitors} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")}) RETURNING *`;
    if (input.autoApplySuggestions === undefined) {
      const rows = await this.#all(this.driver, insert, Object.values(values));
      return this.#rows.monitor(rows[0]!);
    }
    const learn = input.autoApplySuggestions;
    const learning = input.learning == null || this.#schemaVersion < SETTINGS_LEARNING_VERSION ? null : input.learning;
    // The monitor and its first settings in one transaction: a monitor never exists without the setting it was made with.
    return this.driver.transaction(async (tx) => {
      const rows = await this.#all(tx, insert, Object.values(values));
      await this.ctx.run(
        tx,
        `INSERT INTO ${this.#t.settings} (monitor_id, org_id, policy_rules, snapshot_retention, auto_apply_suggestions, ${learning === null ? "" : "learning, "}updated_at)
         VALUES (?, ?, ?, ?, ?, ${learning === null ? "" : "?, "}NULL)`,
        [values.id, orgId, this.#d.writeJson({ rules: [] }), DEFAULT_SNAPSHOT_RETENTION, this.#d.bool(learn), ...(learning === null ? [] : [this.#d.writeJson(learning)])],
      );
      return this.#rows.monitor(rows[0]!);
    });
  }

  getMonitor(orgId: string, id: string): Promise<MonitorRecord | null> {
    return this.#find(`SELECT * FROM ${this.#t.monitors} WHERE org_id = ? AND id = ?`, [orgId, id], (row) => this.#rows.monitor(row));
  }

  async updateMonitor(orgId: string, id: string, patch: MonitorPatch): Promise<MonitorRecord | null> {
    const row = await this.#patchRow(this.driver, "monitors", orgId, id, patch);
    return row === undefined ? null : this.#rows.monitor(row);
  }

  // screenshots and secrets (see media.ts) -------------------------------------------------

  putScreenshot(orgId: string, monitorId: string, screenshot: NewScreenshot): Promise<void> {
    return this.#media.putScreenshot(orgId, monitorId, screenshot);
  }
  getScreenshot(orgId: string, monitorId: string, snapshotId: string): Promise<ScreenshotRecord | null> {
    return this.#media.getScreenshot(orgId, monitorId, snapshotId);
  }
  pruneScreenshots(orgId: string, monitorId: string): Promise<number> {
    return this.#media.pruneScreenshots(orgId, monitorId);
  }
  deleteMonitorScreenshots(orgId: string, monitorId: string): Promise<void> {
    return this.#media.deleteMonitorScreenshots(orgId, monitorId);
  }
  putFailureScreenshot(orgId: string, monitorId: string, screenshot: NewFailureScreenshot): Promise<void> {
    return this.#media.putFailureScreenshot(orgId, monitorId, screenshot);
  }
  getFailureScreenshot(orgId: string, monitorId: string): Promise<FailureScreenshotRecord | null> {
    return this.#media.getFailureScreenshot(orgId, monitorId);
  }
  createSecret(orgId: string, input: NewSecret): Promise<SecretRecord> {
    return this.#media.createSecret(orgId, input);
  }
  listSecrets(orgId: string): Promise<SecretRecord[]> {
    return this.#media.listSecrets(orgId);
  }
  getSecretByName(orgId: string, name: string): Promise<SecretRecord | null> {
    return this.#media.getSecretByName(orgId, name);
  }
  deleteSecret(orgId: string, id: string): Promise<boolean> {
    return this.#media.deleteSecret(orgId, id);
  }

  async deleteMonitor(orgId: string, id: string): Promise<boolean> {
    // snapshots, diffs and settings go by ON DELETE CASCADE; deliveries have no foreign key to monitors.
    this.#onDiffsDeleted(null);
    return (await this.ctx.run(this.driver, `DELETE FROM ${this.#t.monitors} WHERE org_id = ? AND id = ?`, [orgId, id])) > 0;
  }

  listMonitors(orgId: string, query: MonitorFilter & KeysetPage): Promise<MonitorRecord[]> {
    const conditions = ["org_id = ?"];
    const params: unknown[] = [orgId];
    if (query.tag !== undefined) conditions.push(this.#d.jsonArrayHas("tags")), params.push(query.tag);
    return this.#page(`SELECT * FROM ${this.#t.monitors}`, conditions.join(" AND "), params, query, (row) => this.#rows.monitor(row));
  }

  // leases -----------------------------------------------------------------------------------

  /** Oldest due first, organizations in turn (each one's oldest, then each one's second, ...). */
  async claimDueMonitors(input: ClaimMonitorsInput): Promise<ClaimedMonitor[]> {
    const limit = Math.max(0, Math.floor(input.limit));
    if (limit === 0) return [];
    const rows = await this.#claim("monitors", this.#d.pickDueMonitors({ now: input.now, limit }), input);
    // One object per claimed monitor (the record itself), not a copy of it: claimed monitors wait
    // for a slot and live through their check, so what is built here is what a busy server promotes.
    return rows
      .map((row) => {
        const claimed = this.#rows.monitor(row) as ClaimedMonitor;
        claimed.takenOverFrom = row.taken_over_from as string | null;
        return claimed;
      })
      .sort((a, b) => (a.nextCheckAt! < b.nextCheckAt! ? -1 : a.nextCheckAt! > b.nextCheckAt! ? 1 : a.id < b.id ? -1 : 1));
  }

  /**
   * One claim in one transaction: the dialect picks the due rows (locking them where the database
   * locks rows), then their lease is set by id; each row comes back with the owner of the expired
   * lease it replaced (`taken_over_from`).
   */
  #claim(table: "monitors" | "deliveries", pick: SqlStatement, input: { now: string; leaseMs: number; owner: string }): Promise<Row[]> {
    const until = new Date(Date.parse(input.now) + input.leaseMs).toISOString();
    return this.driver.transaction(async (tx) => {
      const picked = await this.#all<{ id: string; lease_owner: string | null }>(tx, pick.sql, pick.params);
      const previous = new Map(picked.map((row) => [row.id, row.lease_owner]));
      const claimed: Row[] = [];
      for (const ids of inListChunks(picked.map((row) => row.id))) {
        const rows = await this.#all(tx, `UPDATE ${this.#t[table]} SET lease_owner = ?, lease_expires_at = ? WHERE id IN (${ids.placeholders}) RETURNING *`, [
          input.owner,
          until,
          ...ids.params,
        ]);
        for (const row of rows) {
          row.taken_over_from = previous.get(row.id as string) ?? null;
          claimed.push(row);
        }
      }
      return claimed;
    });
  }

  async renewLeases(input: RenewLeasesInput): Promise<RenewedLeases> {
    const until = new Date(Date.parse(input.now) + input.leaseMs).toISOString();
    const renew = async (table: "monitors" | "deliveries", all: readonly string[]): Promise<string[]> => {
      const held: string[] = [];
      for (const ids of inListChunks(all)) {
        const rows = await this.#all<{ id: string }>(
          this.driver,
          `UPDATE ${this.#t[table]} SET lease_expires_at = ? WHERE lease_owner = ? AND id IN (${ids.placeholders}) RETURNING id`,
          [until, input.owner, ...ids.params],
        );
        for (const row of rows) held.push(row.id);
      }
      return held;
    };
    return { monitorIds: await renew("monitors", input.monitorIds), deliveryIds: await renew("deliveries", input.deliveryIds) };
  }

  async releaseLeases(owner: string): Promise<ReleasedLeases> {
    const release = (table: "monitors" | "deliveries"): Promise<number> =>
      this.ctx.run(this.driver, `UPDATE ${this.#t[table]} SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ?`, [owner]);
    return { monitors: await release("monitors"), deliveries: await release("deliveries") };
  }

  async releaseMonitor(id: string, owner: string, nextCheckAt: string | null): Promise<boolean> {
    const changed = await this.ctx.run(
      this.driver,
      `UPDATE ${this.#t.monitors} SET lease_owner = NULL, lease_expires_at = NULL, next_check_at = ? WHERE id = ? AND lease_owner = ?`,
      [nextCheckAt, id, owner],
    );
    return changed > 0;
  }

  /** Oldest first, organizations in turn, so one tenant's backlog cannot fill a claim. */
  async claimDueDeliveries(input: ClaimDeliveriesInput): Promise<ClaimedDelivery[]> {
    const limit = Math.max(0, Math.floor(input.limit));
    if (limit === 0) return [];
    const rows = await this.#claim("deliveries", this.#d.pickDueDeliveries({ ...input, limit }), input);
    return rows
      .map((row) => {
        const claimed = this.#rows.delivery(row) as ClaimedDelivery;
        claimed.takenOverFrom = row.taken_over_from as string | null;
        return claimed;
      })
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  recordDeliveryAttempt(id: string, owner: string, attempt: DeliveryAttempt): Promise<DeliveryRecord | null> {
    return this.driver.transaction(async (tx) => {
      const error = encodeTextOrNull(attempt.error);
      const rows = await this.#all(
        tx,
        `UPDATE ${this.#t.deliveries} SET state = ?, attempts = attempts + 1, next_attempt_at = ?, last_attempt_at = ?,
           last_response_status = ?, last_error = ?, lease_owner = NULL, lease_expires_at = NULL
         WHERE id = ? AND lease_owner = ? RETURNING *`,
        [attempt.state, attempt.nextAttemptAt, attempt.at, attempt.responseStatus, error, id, owner],
      );
      const row = rows[0];
      if (row === undefined) return null;
      await this.ctx.run(
        tx,
        `INSERT INTO ${this.#t.delivery_attempts} (delivery_id, attempt, org_id, at, response_status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [id, row.attempts, row.org_id, attempt.at, attempt.responseStatus, error, Math.round(attempt.durationMs)],
      );
      return this.#rows.delivery(row);
    });
  }

  // snapshots --------------------------------------------------------------------------------

  getLatestSnapshot(orgId: string, monitorId: string): Promise<SnapshotRecord | null> {
    return this.#find(
      `SELECT * FROM ${this.#t.snapshots} WHERE org_id = ? AND monitor_id = ? ORDER BY id DESC LIMIT 1`,
      [orgId, monitorId],
      (row) => this.#rows.snapshot(row),
    );
  }

  listSnapshots(orgId: string, monitorId: string, page: KeysetPage): Promise<SnapshotRecord[]> {
    const columns = this.#schemaVersion >= LEARNING_DEFAULTS_VERSION ? `${SNAPSHOT_LIST_COLUMNS}, silenced` : SNAPSHOT_LIST_COLUMNS;
    return this.#page(`SELECT ${columns} FROM ${this.#t.snapshots}`, "org_id = ? AND monitor_id = ?", [orgId, monitorId], page, (row) =>
      this.#rows.snapshot(row),
    );
  }

  getSnapshot(orgId: string, monitorId: string, id: string): Promise<SnapshotRecord | null> {
    return this.#find(
      `SELECT * FROM ${this.#t.snapshots} WHERE org_id = ? AND monitor_id = ? AND id = ?`,
      [orgId, monitorId, id],
      (row) => this.#rows.snapshot(row),
    );
  }

  // diffs ------------------------------------------------------------------------------------

  listDiffs(orgId: string, monitorId: string, query: DiffFilter & KeysetPage): Promise<DiffRecord[]> {
    const conditions = ["org_id = ?", "monitor_id = ?"];
    const params: unknown[] = [orgId, monitorId];
    if (query.since !== undefined) conditions.push("created_at >= ?"), params.push(query.since);
    if (query.until !== undefined) conditions.push("created_at <= ?"), params.push(query.until);
    if (query.minSeverity !== undefined) conditions.push("top_severity_rank >= ?"), params.push(severityRank(query.minSeverity));
    if (query.classification !== undefined) conditions.push("classification = ?"), params.push(query.classification);
    return this.#page(`SELECT ${DIFF_COLUMNS} FROM ${this.#t.diffs}`, conditions.join(" AND "), params, query, (row) => this.#rows.diff(row));
  }

  #diffRow(orgId: string, monitorId: string, id: string): Promise<Row[]> {
    return this.#all(this.driver, `SELECT ${DIFF_COLUMNS} FROM ${this.#t.diffs} WHERE org_id = ? AND monitor_id = ? AND id = ?`, [orgId, monitorId, id]);
  }

  async getDiff(orgId: string, monitorId: string, id: string): Promise<DiffRecord | null> {
    return this.#one(await this.#diffRow(orgId, monitorId, id), (row) => this.#rows.diff(row));
  }

  async getDiffJson(orgId: string, monitorId: string, id: string): Promise<string | null> {
    return this.#one(await this.#diffRow(orgId, monitorId, id), (row) => this.#rows.diffJson(row));
  }

  // the check --------------------------------------------------------------------------------

  recordCheck(orgId: string, input: RecordCheckInput): Promise<RecordCheckResult> {
    return this.driver.transaction((tx) => recordCheckRows(this.ctx, tx, orgId, input, this.#onDiffsDeleted));
  }

  // tracked values ---------------------------------------------------------------------------

  listTrackedValues(orgId: string, monitorId: string, name: string, page: KeysetPage): Promise<TrackedReadingRecord[]> {
    return this.#page(`SELECT * FROM ${this.#t.tracked_values}`, "org_id = ? AND monitor_id = ? AND name = ?", [orgId, monitorId, name], page, (row) =>
      this.#rows.trackedReading(row),
    );
  }

  async getAlertState(orgId: string, monitorId: string): Promise<unknown> {
    const rows = await this.#all(this.driver, `SELECT state FROM ${this.#t.alert_states} WHERE org_id = ? AND monitor_id = ?`, [orgId, monitorId]);
    return rows.length === 0 ? null : this.#d.readJson(rows[0]!.state);
  }

  // settings ---------------------------------------------------------------------------------

  async #settings(db: SqlExecutor, orgId: string, monitorId: string, lock: boolean): Promise<SettingsRecord | null> {
    const rows = await this.#all(
      db,
      `SELECT m.id AS monitor_id, m.org_id, s.policy_rules, s.snapshot_retention, s.auto_apply_suggestions, s.updated_at,
         ${this.#schemaVersion >= LEARNING_DEFAULTS_VERSION ? "s.rejected_suggestions," : ""} ${this.#schemaVersion >= TRACKED_VALUES_VERSION ? "s.track, s.alert," : ""} ${this.#schemaVersion >= SETTINGS_LEARNING_VERSION ? "s.learning," : ""} s.monitor_id AS settings_of
       FROM ${this.#t.monitors} m LEFT JOIN ${this.#t.settings} s ON s.monitor_id = m.id AND s.org_id = m.org_id
       WHERE m.org_id = ? AND m.id = ?${lock ? this.#d.lockRows("m") : ""}`,
      [orgId, monitorId],
    );
    const row = rows[0];
    if (row === undefined) return null;
    return row.settings_of !== null ? this.#rows.settings(row) : defaultSettings(orgId, monitorId, DEFAULT_SNAPSHOT_RETENTION);
  }

  getSettings(orgId: string, monitorId: string): Promise<SettingsRecord | null> {
    return this.#settings(this.driver, orgId, monitorId, false);
  }

  updateSettings(orgId: string, monitorId: string, patch: SettingsPatch): Promise<SettingsRecord | null> {
    return this.driver.transaction(async (tx) => {
      // the monitor's row stays locked, so a concurrent delete cannot slip between the read and the upsert
      const current = await this.#settings(tx, orgId, monitorId, true);
      if (current === null) return null;
      // A store opened at a schema before rejected_suggestions (the migration tests write old databases through one) writes none.
      const rejected = this.#schemaVersion >= LEARNING_DEFAULTS_VERSION;
      // Likewise track and alert (schema version 9).
      const tracked = this.#schemaVersion >= TRACKED_VALUES_VERSION;
      const alert = patch.alert === undefined ? current.alert : patch.alert;
      // Likewise learning (schema version 13).
      const learns = this.#schemaVersion >= SETTINGS_LEARNING_VERSION;
      const learning = patch.learning === undefined ? current.learning : patch.learning;
      const rows = await this.#all(
        tx,
        `INSERT INTO ${this.#t.settings} (monitor_id, org_id, policy_rules, snapshot_retention, auto_apply_suggestions, ${rejected ? "rejected_suggestions, " : ""}${tracked ? "track, alert, " : ""}${learns ? "learning, " : ""}updated_at)
         VALUES (?, ?, ?, ?, ?, ${rejected ? "?, " : ""}${tracked ? "?, ?, " : ""}${learns ? "?, " : ""}?)
         ON CONFLICT (monitor_id) DO UPDATE SET policy_rules = excluded.policy_rules, snapshot_retention = excluded.snapshot_retention,
           auto_apply_suggestions = excluded.auto_apply_suggestions, ${rejected ? "rejected_suggestions = excluded.rejected_suggestions, " : ""}${
             tracked ? "track = excluded.track, alert = excluded.alert, " : ""
           }${learns ? "learning = excluded.learning, " : ""}updated_at = excluded.updated_at
         RETURNING *`,
        [
          monitorId,
          orgId,
          this.#d.writeJson(patch.policyRulesJson ?? current.policyRulesJson),
          patch.snapshotRetention ?? current.snapshotRetention,
          this.#d.bool(patch.autoApplySuggestions ?? current.autoApplySuggestions),
          ...(rejected ? [this.#d.writeJson(patch.rejectedSuggestions ?? current.rejectedSuggestions)] : []),
          ...(tracked ? [this.#d.writeJson(patch.track ?? current.track), alert === null ? null : this.#d.writeJson(alert)] : []),
          ...(learns ? [learning === null ? null : this.#d.writeJson(learning)] : []),
          patch.updatedAt,
        ],
      );
      return this.#rows.settings(rows[0]!);
    });
  }

  // webhooks ---------------------------------------------------------------------------------

  async createWebhook(orgId: string, input: NewWebhook): Promise<WebhookRecord> {
    const now = this.ctx.now();
    const rows = await this.#all(
      this.driver,
      `INSERT INTO ${this.#t.webhooks} (id, org_id, url, description, events, monitor_ids, min_severity, enabled, secret, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      [
        newId("webhook"),
        orgId,
        input.url,
        encodeTextOrNull(input.description),
        this.#d.writeJson(input.events),
        this.#rows.param(input.monitorIds, "json"),
        input.minSeverity,
        this.#d.bool(input.enabled),
        input.secret,
        now,
        now,
      ],
    );
    return this.#rows.webhook(rows[0]!);
  }

  getWebhook(orgId: string, id: string): Promise<WebhookRecord | null> {
    return this.#find(`SELECT * FROM ${this.#t.webhooks} WHERE org_id = ? AND id = ?`, [orgId, id], (row) => this.#rows.webhook(row));
  }

  listWebhooks(orgId: string, page: KeysetPage): Promise<WebhookRecord[]> {
    return this.#page(`SELECT * FROM ${this.#t.webhooks}`, "org_id = ?", [orgId], page, (row) => this.#rows.webhook(row));
  }

  async updateWebhook(orgId: string, id: string, patch: WebhookPatch): Promise<WebhookRecord | null> {
    const row = await this.#patchRow(this.driver, "webhooks", orgId, id, patch);
    return row === undefined ? null : this.#rows.webhook(row);
  }

  async deleteWebhook(orgId: string, id: string): Promise<boolean> {
    // deliveries and their attempts go by ON DELETE CASCADE
    return (await this.ctx.run(this.driver, `DELETE FROM ${this.#t.webhooks} WHERE org_id = ? AND id = ?`, [orgId, id])) > 0;
  }

  // deliveries -------------------------------------------------------------------------------

  getDelivery(orgId: string, webhookId: string, id: string): Promise<DeliveryRecord | null> {
    return this.#find(
      `SELECT * FROM ${this.#t.deliveries} WHERE org_id = ? AND webhook_id = ? AND id = ?`,
      [orgId, webhookId, id],
      (row) => this.#rows.delivery(row),
    );
  }

  listDeliveries(orgId: string, webhookId: string, page: KeysetPage): Promise<DeliveryRecord[]> {
    return this.#page(`SELECT * FROM ${this.#t.deliveries}`, "org_id = ? AND webhook_id = ?", [orgId, webhookId], page, (row) => this.#rows.delivery(row));
  }

  async listDeliveryAttempts(orgId: string, deliveryId: string): Promise<DeliveryAttemptRecord[]> {
    const rows = await this.#all(
      this.driver,
      `SELECT * FROM ${this.#t.delivery_attempts} WHERE org_id = ? AND delivery_id = ? ORDER BY attempt`,
      [orgId, deliveryId],
    );
    return rows.map((row) => this.#rows.deliveryAttempt(row));
  }

  requeueDelivery(orgId: string, webhookId: string, id: string, now: string): Promise<DeliveryRecord | null> {
    return this.#find(
      `UPDATE ${this.#t.deliveries} SET state = 'pending', next_attempt_at = ?, lease_owner = NULL, lease_expires_at = NULL
       WHERE org_id = ? AND webhook_id = ? AND id = ? RETURNING *`,
      [now, orgId, webhookId, id],
      (row) => this.#rows.delivery(row),
    );
  }

  countPendingDeliveries(orgId?: string): Promise<number> {
    const sql = `SELECT CAST(COUNT(*) AS INTEGER) AS n FROM ${this.#t.deliveries} WHERE state = 'pending'`;
    return orgId === undefined ? this.#count(sql, []) : this.#count(`${sql} AND org_id = ?`, [orgId]);
  }

  // notification channels and their outbox ---------------------------------------------------

  createChannel(orgId: string, input: NewChannel): Promise<ChannelRecord> {
    return this.channels.createChannel(orgId, input);
  }
  getChannel(orgId: string, id: string): Promise<ChannelRecord | null> {
    return this.channels.getChannel(orgId, id);
  }
  listChannels(orgId: string, page: KeysetPage): Promise<ChannelRecord[]> {
    return this.channels.listChannels(orgId, page);
  }
  updateChannel(orgId: string, id: string, patch: ChannelPatch): Promise<ChannelRecord | null> {
    return this.channels.updateChannel(orgId, id, patch);
  }
  deleteChannel(orgId: string, id: string): Promise<boolean> {
    return this.channels.deleteChannel(orgId, id);
  }
  enqueueChannelDeliveries(orgId: string, messages: readonly NewChannelDelivery[]): Promise<ChannelDeliveryRecord[]> {
    return this.channels.enqueueChannelDeliveries(orgId, messages);
  }
  getChannelDelivery(orgId: string, channelId: string, id: string): Promise<ChannelDeliveryRecord | null> {
    return this.channels.getChannelDelivery(orgId, channelId, id);
  }
  listChannelDeliveries(orgId: string, channelId: string, page: KeysetPage): Promise<ChannelDeliveryRecord[]> {
    return this.channels.listChannelDeliveries(orgId, channelId, page);
  }
  listChannelDeliveryAttempts(orgId: string, deliveryId: string): Promise<DeliveryAttemptRecord[]> {
    return this.channels.listChannelDeliveryAttempts(orgId, deliveryId);
  }
  requeueChannelDelivery(orgId: string, channelId: string, id: string, now: string): Promise<ChannelDeliveryRecord | null> {
    return this.channels.requeueChannelDelivery(orgId, channelId, id, now);
  }
  claimDueChannelDeliveries(input: ClaimChannelDeliveriesInput): Promise<ClaimedChannelDelivery[]> {
    return this.channels.claimDueChannelDeliveries(input);
  }
  recordChannelDeliveryAttempt(id: string, owner: string, attempt: DeliveryAttempt): Promise<ChannelDeliveryRecord | null> {
    return this.channels.recordChannelDeliveryAttempt(id, owner, attempt);
  }
  recordChannelDeliveryAttempts(owner: string, attempts: readonly ChannelAttemptEntry[]): Promise<(ChannelDeliveryRecord | null)[]> {
    return this.channels.recordChannelDeliveryAttempts(owner, attempts);
  }
  releaseChannelDeliveryLeases(owner: string): Promise<number> {
    return this.channels.releaseChannelDeliveryLeases(owner);
  }
  countPendingChannelDeliveries(orgId?: string): Promise<number> {
    return this.channels.countPendingChannelDeliveries(orgId);
  }

  // idempotency ------------------------------------------------------------------------------

  claimIdempotencyKey(orgId: string, input: IdempotencyClaim): Promise<IdempotencyClaimResult> {
    return this.#writes((db) => this.#claimIdempotencyKey(db, orgId, input));
  }

  async #claimIdempotencyKey(db: SqlExecutor, orgId: string, input: IdempotencyClaim): Promise<IdempotencyClaimResult> {
    // A racing claim of the same key waits on the conflict and then finds it taken. The loop
    // covers a key released between our insert attempt and our read.
    for (let attempt = 0; attempt < 5; attempt++) {
      const claimed = await this.#all(
        db,
        `INSERT INTO ${this.#t.idempotency_keys} AS k (org_id, key, request_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (org_id, key) DO UPDATE SET request_hash = excluded.request_hash, response_status = NULL,
           response_body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
         WHERE k.expires_at <= excluded.created_at
         RETURNING key`,
        [orgId, input.key, input.requestHash, input.now, input.expiresAt],
      );
      if (claimed.length > 0) return { state: "new" };
      const existing = await this.#all(
        db,
        `SELECT request_hash, response_status, response_body FROM ${this.#t.idempotency_keys} WHERE org_id = ? AND key = ?`,
        [orgId, input.key],
      );
      const row = existing[0];
      if (row !== undefined) {
        const status = row.response_status as number | null;
        return {
          state: "existing",
          requestHash: row.request_hash as string,
          response: status === null ? null : { status, body: (row.response_body as string | null) ?? "" },
        };
      }
    }
    throw new StoreError("conflict", `The idempotency key ${input.key} keeps changing hands; retry the request.`);
  }

  async completeIdempotencyKey(orgId: string, key: string, response: IdempotentResponse): Promise<void> {
    await this.ctx.run(
      this.driver,
      `UPDATE ${this.#t.idempotency_keys} SET response_status = ?, response_body = ? WHERE org_id = ? AND key = ?`,
      [response.status, response.body, orgId, key],
    );
  }

  async releaseIdempotencyKey(orgId: string, key: string): Promise<void> {
    await this.ctx.run(this.driver, `DELETE FROM ${this.#t.idempotency_keys} WHERE org_id = ? AND key = ?`, [orgId, key]);
  }

  // rate limits ------------------------------------------------------------------------------

  /** Fixed windows; expired windows of every key are dropped as we go, so the table stays small. */
  hitRateLimit(key: string, windowMs: number, now: number): Promise<RateLimitHit> {
    return this.#writes(async (db) => {
      const windowStart = Math.floor(now / windowMs) * windowMs;
      const resetAt = windowStart + windowMs;
      const rows = await this.#all<{ count: number }>(
        db,
        `INSERT INTO ${this.#t.rate_limits} AS r (key, window_start, count, reset_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (key, window_start) DO UPDATE SET count = r.count + 1 RETURNING count`,
        [key, windowStart, resetAt],
      );
      await this.ctx.run(db, `DELETE FROM ${this.#t.rate_limits} WHERE reset_at <= ?`, [now]);
      return { count: Number(rows[0]!.count), resetAt };
    });
  }

  /** One hit of the window holding `now` taken back; never below zero, nothing once the window is gone. */
  refundRateLimitHit(key: string, windowMs: number, now: number): Promise<void> {
    return this.#writes(async (db) => {
      const windowStart = Math.floor(now / windowMs) * windowMs;
      await this.ctx.run(db, `UPDATE ${this.#t.rate_limits} SET count = count - 1 WHERE key = ? AND window_start = ? AND count > 0`, [key, windowStart]);
    });
  }

  resetRateLimit(key: string): Promise<void> {
    return this.#writes(async (db) => {
      await this.ctx.run(db, `DELETE FROM ${this.#t.rate_limits} WHERE key = ?`, [key]);
    });
  }

  // lifecycle --------------------------------------------------------------------------------

  /** Answers only when the schema is there: every table, at this build's migration version. */
  async ping(): Promise<void> {
    const check = this.#d.schemaCheck(TABLE_NAMES);
    const [row] = await this.#all<{ version: number | null; tables: number }>(this.driver, check.sql, check.params);
    const version = row?.version ?? null;
    const tables = Number(row?.tables ?? 0);
    if (version === null || version < this.#schemaVersion || tables < TABLE_NAMES.length) {
      throw new StoreError(
        "store_unavailable",
        `The database schema is missing or incomplete (version ${String(version ?? "none")}, ${String(tables)} of ${String(TABLE_NAMES.length)} tables).`,
      );
    }
  }

  close(): Promise<void> {
    return this.driver.close();
  }
}
