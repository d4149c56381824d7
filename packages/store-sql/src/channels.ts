import {
  StoreError,
  decodeTextOrNull,
  encodeText,
  encodeTextOrNull,
  newId,
  type ChannelDeliveryRecord,
  type ChannelPatch,
  type ChannelRecord,
  type ChannelAttemptEntry,
  type ClaimChannelDeliveriesInput,
  type ClaimedChannelDelivery,
  type DeliveryAttempt,
  type DeliveryAttemptRecord,
  type KeysetPage,
  type NewChannel,
  type NewChannelDelivery,
} from "@driftwatch/core";
import type { SqlDriver, SqlExecutor } from "./dialect.js";
import type { SqlContext } from "./context.js";
import { inList, inListChunks } from "./in-list.js";
import type { ColumnKind, Row } from "./rows.js";

/** Channel fields a patch may set: their column and kind. */
const CHANNEL_PATCH_COLUMNS: Readonly<Record<string, readonly [string, ColumnKind]>> = {
  name: ["name", "text"],
  service: ["service", "plain"],
  urlSealed: ["url_sealed", "plain"],
  urlMasked: ["url_masked", "text"],
  minSeverity: ["min_severity", "plain"],
  tags: ["tags", "json"],
  events: ["events", "json"],
  groupSeconds: ["group_seconds", "plain"],
  quietHours: ["quiet_hours", "json"],
  template: ["template", "text"],
  paused: ["paused", "bool"],
  status: ["status", "plain"],
  statusReason: ["status_reason", "text"],
  updatedAt: ["updated_at", "time"],
};

/** Fields whose `null` is a value to write (the others are NOT NULL). */
const NULLABLE = new Set(["quietHours", "template", "statusReason"]);


/**
 * Notification channels and their outbox on the shared SQL adapter: the statements are the
 * dialect-neutral ones of `SqlStoreAdapter`, with the claim's row lock where the database locks rows.
 */
/** Organizations with pending messages a claim walks one by one; with more, one query ranks every due message. */
const CLAIM_ORGS_WALKED = 32;
/** Reads of candidates a PostgreSQL claim makes at most when other claimers hold the ones it read. */
const CLAIM_ROUNDS = 4;

export class SqlChannels {
  readonly #driver: SqlDriver;
  readonly #ctx: SqlContext;

  constructor(driver: SqlDriver, ctx: SqlContext) {
    this.#driver = driver;
    this.#ctx = ctx;
  }

  get #t() {
    return this.#ctx.t;
  }

  #time(value: unknown): string {
    return this.#ctx.dialect.readTime(value);
  }
  #timeOrNull(value: unknown): string | null {
    return value === null || value === undefined ? null : this.#ctx.dialect.readTime(value);
  }

  channel(row: Row): ChannelRecord {
    const d = this.#ctx.dialect;
    return {
      id: row.id as string,
      orgId: row.org_id as string,
      name: decodeTextOrNull(row.name as string) as string,
      service: row.service as string,
      urlSealed: row.url_sealed as string,
      urlMasked: decodeTextOrNull(row.url_masked as string) as string,
      minSeverity: row.min_severity as ChannelRecord["minSeverity"],
      tags: d.readJson(row.tags),
      events: d.readJson(row.events),
      groupSeconds: Number(row.group_seconds),
      quietHours: row.quiet_hours === null || row.quiet_hours === undefined ? null : d.readJson(row.quiet_hours),
      template: decodeTextOrNull(row.template as string | null),
      paused: d.readBool(row.paused),
      status: row.status as ChannelRecord["status"],
      statusReason: decodeTextOrNull(row.status_reason as string | null),
      createdAt: this.#time(row.created_at),
      updatedAt: this.#time(row.updated_at),
    };
  }

  delivery(row: Row): ChannelDeliveryRecord {
    return channelDeliveryOf(this.#ctx, row);
  }

  async #page<T>(select: string, where: string, params: readonly unknown[], page: KeysetPage, map: (row: Row) => T): Promise<T[]> {
    const rows =
      page.after === null
        ? await this.#ctx.all(this.#driver, `${select} WHERE ${where} ORDER BY id DESC LIMIT ?`, [...params, page.take])
        : await this.#ctx.all(this.#driver, `${select} WHERE ${where} AND id < ? ORDER BY id DESC LIMIT ?`, [...params, page.after, page.take]);
    return rows.map(map);
  }

  async #first<T>(db: SqlExecutor, sql: string, params: readonly unknown[], map: (row: Row) => T): Promise<T | null> {
    const rows = await this.#ctx.all(db, sql, params);
    return rows.length === 0 ? null : map(rows[0]!);
  }

  // channels ---------------------------------------------------------------------------------

  async createChannel(orgId: string, input: NewChannel): Promise<ChannelRecord> {
    const d = this.#ctx.dialect;
    const now = this.#ctx.now();
    const rows = await this.#ctx.all(
      this.#driver,
      `INSERT INTO ${this.#t.channels} (id, org_id, name, service, url_sealed, url_masked, min_severity, tags, events, group_seconds, quiet_hours,
         template, paused, status, status_reason, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'ok', NULL, ?, ?) RETURNING *`,
      [
        input.id ?? newId("channel"),
        orgId,
        encodeText(input.name),
        input.service,
        input.urlSealed,
        encodeText(input.urlMasked),
        input.minSeverity,
        d.writeJson(input.tags),
        d.writeJson(input.events),
        input.groupSeconds,
        input.quietHours === null ? null : d.writeJson(input.quietHours),
        encodeTextOrNull(input.template),
        d.bool(input.paused),
        now,
        now,
      ],
    );
    return this.channel(rows[0]!);
  }

  getChannel(orgId: string, id: string): Promise<ChannelRecord | null> {
    return this.#first(this.#driver, `SELECT * FROM ${this.#t.channels} WHERE org_id = ? AND id = ?`, [orgId, id], (row) => this.channel(row));
  }

  listChannels(orgId: string, page: KeysetPage): Promise<ChannelRecord[]> {
    return this.#page(`SELECT * FROM ${this.#t.channels}`, "org_id = ?", [orgId], page, (row) => this.channel(row));
  }

  updateChannel(orgId: string, id: string, patch: ChannelPatch): Promise<ChannelRecord | null> {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [field, value] of Object.entries(patch)) {
      const column = CHANNEL_PATCH_COLUMNS[field];
      if (column === undefined || value === undefined || (value === null && !NULLABLE.has(field))) continue;
      sets.push(`${column[0]} = ?`);
      values.push(this.#ctx.rows.param(value, column[1]));
    }
    const ifUrl = patch.ifUrlSealed === undefined ? "" : " AND url_sealed = ?";
    return this.#first(
      this.#driver,
      `UPDATE ${this.#t.channels} SET ${sets.join(", ")} WHERE org_id = ? AND id = ?${ifUrl} RETURNING *`,
      [...values, orgId, id, ...(patch.ifUrlSealed === undefined ? [] : [patch.ifUrlSealed])],
      (row) => this.channel(row),
    );
  }

  async deleteChannel(orgId: string, id: string): Promise<boolean> {
    // its outbox and the attempts go by ON DELETE CASCADE
    return (await this.#ctx.run(this.#driver, `DELETE FROM ${this.#t.channels} WHERE org_id = ? AND id = ?`, [orgId, id])) > 0;
  }

  // the outbox -------------------------------------------------------------------------------

  enqueueChannelDeliveries(orgId: string, messages: readonly NewChannelDelivery[]): Promise<ChannelDeliveryRecord[]> {
    return this.#driver.transaction(async (tx) => {
      const channelIds = [...new Set(messages.map((m) => m.channelId))];
      const list = inList(channelIds);
      const found = await this.#ctx.all<{ id: string }>(tx, `SELECT id FROM ${this.#t.channels} WHERE org_id = ? AND id IN (${list.placeholders})`, [
        orgId,
        ...list.params,
      ]);
      const known = new Set(found.map((row) => row.id));
      const missing = channelIds.find((id) => !known.has(id));
      if (missing !== undefined) throw new StoreError("not_found", `Channel ${missing} does not exist.`);
      return this.insertDeliveries(tx, orgId, messages);
    });
  }

  /** Inserts messages of the organization's channels in the caller's transaction (see `insertChannelDeliveries`). */
  insertDeliveries(db: SqlExecutor, orgId: string, messages: readonly NewChannelDelivery[]): Promise<ChannelDeliveryRecord[]> {
    return insertChannelDeliveries(this.#ctx, db, orgId, messages, (row) => this.delivery(row));
  }

  getChannelDelivery(orgId: string, channelId: string, id: string): Promise<ChannelDeliveryRecord | null> {
    return this.#first(
      this.#driver,
      `SELECT * FROM ${this.#t.channel_deliveries} WHERE org_id = ? AND channel_id = ? AND id = ?`,
      [orgId, channelId, id],
      (row) => this.delivery(row),
    );
  }

  listChannelDeliveries(orgId: string, channelId: string, page: KeysetPage): Promise<ChannelDeliveryRecord[]> {
    return this.#page(`SELECT * FROM ${this.#t.channel_deliveries}`, "org_id = ? AND channel_id = ?", [orgId, channelId], page, (row) => this.delivery(row));
  }

  async listChannelDeliveryAttempts(orgId: string, deliveryId: string): Promise<DeliveryAttemptRecord[]> {
    const rows = await this.#ctx.all(
      this.#driver,
      `SELECT * FROM ${this.#t.channel_delivery_attempts} WHERE org_id = ? AND delivery_id = ? ORDER BY attempt`,
      [orgId, deliveryId],
    );
    return rows.map((row) => this.#ctx.rows.deliveryAttempt(row));
  }

  requeueChannelDelivery(orgId: string, channelId: string, id: string, now: string): Promise<ChannelDeliveryRecord | null> {
    return this.#first(
      this.#driver,
      `UPDATE ${this.#t.channel_deliveries} SET state = 'pending', next_attempt_at = ?, lease_owner = NULL, lease_expires_at = NULL
       WHERE org_id = ? AND channel_id = ? AND id = ? RETURNING *`,
      [now, orgId, channelId, id],
      (row) => this.delivery(row),
    );
  }

  /**
   * Oldest first, organizations in turn. With up to `CLAIM_ORGS_WALKED` organizations holding
   * pending messages, each one's oldest due messages are read on the index of pending messages by
   * organization, stopping at the limit (a claim costs what it takes, not what is pending), all in
   * one statement; with more, one query ranks every due message. These candidates are read without
   * a lock; where the database locks rows (PostgreSQL), the lease is then written on exactly the
   * candidates picked, locked with `FOR UPDATE SKIP LOCKED` in the same statement (re-checked, so a
   * message another claimer took meanwhile is not taken again), and when another claimer holds some
   * of them the next candidates are read in their place (up to `CLAIM_ROUNDS` times). When the
   * rounds run out with more due (a long transaction holds many of the oldest), one last statement
   * reads and locks the oldest due messages no one holds (`ORDER BY id LIMIT n FOR UPDATE SKIP
   * LOCKED`, organizations not in turn), so a claim does not come back short while others are due.
   * A claim thus never locks more rows than it takes and never waits on another claimer's locks.
   * Each statement commits on its own: when a later round fails, the leases of earlier rounds are
   * released before the error is thrown. SQLite's write transaction holds the whole database.
   * `limit` is clamped to `MAX_CHANNEL_CLAIM` by the store.
   */
  async claimDueChannelDeliveries(input: ClaimChannelDeliveriesInput): Promise<ClaimedChannelDelivery[]> {
    const limit = Math.max(0, Math.floor(input.limit));
    if (limit === 0) return [];
    const d = this.#ctx.dialect;
    const until = new Date(Date.parse(input.now) + input.leaseMs).toISOString();
    const filters: unknown[] = [d.bool(false), input.now];
    const conditions = ["d.state = 'pending'", "c.paused = ?", "c.status = 'ok'", "(d.lease_expires_at IS NULL OR d.lease_expires_at <= ?)"];
    if (input.force !== true) conditions.push("d.next_attempt_at <= ?"), filters.push(input.now);
    if (input.orgId !== undefined) conditions.push("d.org_id = ?"), filters.push(input.orgId);
    if (input.channelId !== undefined) conditions.push("d.channel_id = ?"), filters.push(input.channelId);
    const where = conditions.join(" AND ");
    const from = `${this.#t.channel_deliveries} d JOIN ${this.#t.channels} c ON c.id = d.channel_id AND c.org_id = d.org_id`;
    const lock = d.lockRows("d");
    const locks = lock !== "";
    type Picked = { id: string; org_id: string; lease_owner: string | null };
    // Rows lock on PostgreSQL only: there ids go as one array parameter (a list of placeholders
    // repeated in each organization's branch could pass PostgreSQL's 65,535 parameters).
    /** Candidates not among `tried` (messages another claimer holds): the condition and its values. */
    const fresh = (tried: readonly string[]): [string, unknown[]] =>
      tried.length === 0 ? ["", []] : locks ? [" AND d.id <> ALL(?::text[])", [[...tried]]] : [` AND d.id NOT IN (${tried.map(() => "?").join(", ")})`, [...tried]];
    const table = this.#t.channel_deliveries;
    /** Locks, re-checks and leases the rows `taken` selects (with its values): one statement. */
    const lease = async (tx: SqlExecutor, taken: string, values: unknown[]): Promise<ClaimedChannelDelivery[]> => {
      const rows = await this.#ctx.all(
        tx,
        `WITH taken AS (${taken})
         UPDATE ${table} SET lease_owner = ?, lease_expires_at = ? FROM taken
         WHERE ${table}.id = taken.id RETURNING ${table}.*, taken.lease_owner AS taken_over_from`,
        [...values, input.owner, until],
      );
      return rows.map((row) => ({ ...this.delivery(row), takenOverFrom: (row.taken_over_from as string | null) ?? null }));
    };
    // Where rows lock, each statement stands on its own (the lease is written by the statement that
    // locks and re-checks the rows): no transaction, so no BEGIN and COMMIT round trips and no lock
    // held past the statement. SQLite reads and writes in one write transaction.
    const claim = async (tx: SqlExecutor): Promise<ClaimedChannelDelivery[]> => {
      const orgs =
        input.orgId !== undefined
          ? [input.orgId]
          : (
              // The organizations with pending messages, one index probe each (a loose index scan on
              // channel_deliveries_pending_org): a backlog of one organization is not read through.
              await this.#ctx.all<{ org_id: string }>(
                tx,
                `WITH RECURSIVE o(org_id, n) AS (
                  SELECT (SELECT org_id FROM ${this.#t.channel_deliveries} WHERE state = 'pending' ORDER BY org_id LIMIT 1), 1
                  UNION ALL
                  SELECT (SELECT p.org_id FROM ${this.#t.channel_deliveries} p WHERE p.state = 'pending' AND p.org_id > o.org_id ORDER BY p.org_id LIMIT 1), o.n + 1
                  FROM o WHERE o.org_id IS NOT NULL AND o.n <= ?)
                SELECT org_id FROM o WHERE org_id IS NOT NULL`,
                [CLAIM_ORGS_WALKED],
              )
            ).map((row) => row.org_id);
      if (orgs.length === 0) return [];
      /** Up to `want` candidates, organizations in turn, none of `tried`; read without a lock. */
      const candidates = async (want: number, tried: readonly string[]): Promise<Picked[]> => {
        const [notTried, triedValues] = fresh(tried);
        if (orgs.length > CLAIM_ORGS_WALKED) {
          // Many organizations with pending messages: one query ranks every due message.
          return this.#ctx.all<Picked>(
            tx,
            `SELECT d.id, d.org_id, d.lease_owner FROM ${from}
             JOIN (SELECT d.id, row_number() OVER (PARTITION BY d.org_id ORDER BY d.id) AS turn FROM ${from} WHERE ${where}${notTried}) ranked ON ranked.id = d.id
             WHERE ${where} ORDER BY ranked.turn, d.id LIMIT ?`,
            [...filters, ...triedValues, ...filters, want],
          );
        }
        // Each organization's oldest due messages, walked on the index of pending messages by
        // organization (channel_deliveries_pending_org) and stopped at `want`: one statement.
        const ofOrg = `SELECT * FROM (SELECT d.id, d.org_id, d.lease_owner FROM ${from} WHERE ${where}${notTried} AND d.org_id = ? ORDER BY d.id LIMIT ?) o`;
        const rows = await this.#ctx.all<Picked>(
          tx,
          orgs.map(() => ofOrg).join(" UNION ALL "),
          orgs.flatMap((org) => [...filters, ...triedValues, org, want]),
        );
        const lists = new Map<string, Picked[]>();
        for (const row of rows) {
          const list = lists.get(row.org_id);
          if (list === undefined) lists.set(row.org_id, [row]);
          else list.push(row);
        }
        for (const list of lists.values()) list.sort((a, b) => (a.id < b.id ? -1 : 1));
        // The organizations in turn, oldest first within a turn.
        const picked: Picked[] = [];
        for (let turn = 0; picked.length < want; turn++) {
          const row = [...lists.values()].flatMap((list) => (turn < list.length ? [list[turn]!] : [])).sort((a, b) => (a.id < b.id ? -1 : 1));
          if (row.length === 0) break;
          picked.push(...row.slice(0, want - picked.length));
        }
        return picked;
      };
      const claimed: ClaimedChannelDelivery[] = [];
      const tried: string[] = [];
      let more = false;
      try {
        for (let round = 0; round < (locks ? CLAIM_ROUNDS : 1) && claimed.length < limit; round++) {
          const want = limit - claimed.length;
          const picked = await candidates(want, tried);
          more = false;
          if (picked.length === 0) break;
          const ids = picked.map((row) => row.id);
          if (locks) {
            // Locks exactly the picked messages that are still due and that no one else holds,
            // and writes the lease on them: one statement.
            claimed.push(...(await lease(tx, `SELECT d.id, d.lease_owner FROM ${from} WHERE d.id = ANY(?::text[]) AND ${where}${lock} SKIP LOCKED`, [ids, ...filters])));
          } else {
            const previous = new Map(picked.map((row) => [row.id, row.lease_owner]));
            for (const { placeholders: list, params: chunk } of inListChunks(ids)) {
              const rows = await this.#ctx.all(tx, `UPDATE ${table} SET lease_owner = ?, lease_expires_at = ? WHERE id IN (${list}) RETURNING *`, [input.owner, until, ...chunk]);
              for (const row of rows) claimed.push({ ...this.delivery(row), takenOverFrom: previous.get(row.id as string) ?? null });
            }
          }
          // Fewer than asked: nothing more is due.
          if (picked.length < want) break;
          more = true;
          tried.push(...ids);
        }
        if (locks && more && claimed.length < limit) {
          // The rounds ran out while others held the candidates read (a long transaction holding
          // many due messages would otherwise have every claim re-read them and come back short):
          // the oldest due messages no one holds, read and locked together, organizations not in
          // turn this once.
          const [notTried, triedValues] = fresh([...tried, ...claimed.map((m) => m.id)]);
          claimed.push(
            ...(await lease(tx, `SELECT d.id, d.lease_owner FROM ${from} WHERE ${where}${notTried} ORDER BY d.id LIMIT ?${lock} SKIP LOCKED`, [
              ...filters,
              ...triedValues,
              limit - claimed.length,
            ])),
          );
        }
      } catch (error) {
        // Each round commits on its own: leases of earlier rounds the caller will never get are
        // released (else the messages wait out the lease) before the error goes on.
        if (locks && claimed.length > 0) {
          await this.#ctx
            .run(tx, `UPDATE ${table} SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ANY(?::text[]) AND lease_owner = ?`, [claimed.map((m) => m.id), input.owner])
            .catch(() => undefined);
        }
        throw error;
      }
      return claimed.sort((a, b) => (a.id < b.id ? -1 : 1));
    };
    return locks ? claim(this.#driver) : this.#driver.transaction(claim);
  }

  recordChannelDeliveryAttempt(id: string, owner: string, attempt: DeliveryAttempt): Promise<ChannelDeliveryRecord | null> {
    return this.#driver.transaction((tx) => this.#recordAttempt(tx, id, owner, attempt));
  }

  /**
   * Several attempts in one transaction (the delivery worker's batches): one commit instead of one
   * per message. On PostgreSQL, one statement for them all (a round trip costs more than the
   * statement): the messages' updates and the attempts' rows, as the one-by-one statements would.
   */
  recordChannelDeliveryAttempts(owner: string, attempts: readonly ChannelAttemptEntry[]): Promise<(ChannelDeliveryRecord | null)[]> {
    if (attempts.length === 0) return Promise.resolve([]);
    if (this.#ctx.dialect.name === "postgres" && new Set(attempts.map((a) => a.id)).size === attempts.length) {
      return this.#recordAttemptsAtOnce(owner, attempts);
    }
    return this.#driver.transaction(async (tx) => {
      const saved: (ChannelDeliveryRecord | null)[] = [];
      for (const { id, attempt } of attempts) saved.push(await this.#recordAttempt(tx, id, owner, attempt));
      return saved;
    });
  }

  async #recordAttemptsAtOnce(owner: string, attempts: readonly ChannelAttemptEntry[]): Promise<(ChannelDeliveryRecord | null)[]> {
    const t = this.#t;
    const values: unknown[] = [];
    const rows: string[] = [];
    for (const { id, attempt } of attempts) {
      rows.push("(CAST(? AS text), CAST(? AS text), CAST(? AS timestamptz), CAST(? AS timestamptz), CAST(? AS integer), CAST(? AS text), CAST(? AS integer))");
      values.push(id, attempt.state, attempt.nextAttemptAt, attempt.at, attempt.responseStatus, encodeTextOrNull(attempt.error), Math.round(attempt.durationMs));
    }
    const saved = await this.#ctx.all(
      this.#driver,
      `WITH a(id, state, next_attempt_at, at, response_status, error, duration_ms) AS (VALUES ${rows.join(", ")}),
       u AS (UPDATE ${t.channel_deliveries} d SET state = a.state, attempts = d.attempts + 1, next_attempt_at = a.next_attempt_at,
               last_attempt_at = a.at, last_response_status = a.response_status, last_error = a.error, lease_owner = NULL, lease_expires_at = NULL
             FROM a WHERE d.id = a.id AND d.lease_owner = ? RETURNING d.*, a.duration_ms AS attempt_duration_ms),
       i AS (INSERT INTO ${t.channel_delivery_attempts} (delivery_id, attempt, org_id, at, response_status, error, duration_ms)
             SELECT id, attempts, org_id, last_attempt_at, last_response_status, last_error, attempt_duration_ms FROM u)
       SELECT * FROM u`,
      [...values, owner],
    );
    const byId = new Map(saved.map((row) => [row.id as string, row]));
    return attempts.map(({ id }) => {
      const row = byId.get(id);
      return row === undefined ? null : this.delivery(row);
    });
  }

  async #recordAttempt(tx: SqlExecutor, id: string, owner: string, attempt: DeliveryAttempt): Promise<ChannelDeliveryRecord | null> {
    const error = encodeTextOrNull(attempt.error);
    const rows = await this.#ctx.all(
      tx,
      `UPDATE ${this.#t.channel_deliveries} SET state = ?, attempts = attempts + 1, next_attempt_at = ?, last_attempt_at = ?,
         last_response_status = ?, last_error = ?, lease_owner = NULL, lease_expires_at = NULL
       WHERE id = ? AND lease_owner = ? RETURNING *`,
      [attempt.state, attempt.nextAttemptAt, attempt.at, attempt.responseStatus, error, id, owner],
    );
    const row = rows[0];
    if (row === undefined) return null;
    await this.#ctx.run(
      tx,
      `INSERT INTO ${this.#t.channel_delivery_attempts} (delivery_id, attempt, org_id, at, response_status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [id, row.attempts, row.org_id, attempt.at, attempt.responseStatus, error, Math.round(attempt.durationMs)],
    );
    return this.delivery(row);
  }

  releaseChannelDeliveryLeases(owner: string): Promise<number> {
    return this.#ctx.run(this.#driver, `UPDATE ${this.#t.channel_deliveries} SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ?`, [owner]);
  }

  async countPendingChannelDeliveries(orgId?: string): Promise<number> {
    const sql = `SELECT CAST(COUNT(*) AS INTEGER) AS n FROM ${this.#t.channel_deliveries} WHERE state = 'pending'`;
    const rows = await this.#ctx.all<{ n: unknown }>(this.#driver, orgId === undefined ? sql : `${sql} AND org_id = ?`, orgId === undefined ? [] : [orgId]);
    return Number(rows[0]?.n ?? 0);
  }
}

/**
 * Inserts messages inside the caller's transaction (a check's, or `enqueueChannelDeliveries`'): a
 * message of a channel that is not `orgId`'s is skipped, as is a (channel, dedup key) already present.
 */
export async function insertChannelDeliveries(
  ctx: SqlContext,
  db: SqlExecutor,
  orgId: string,
  messages: readonly NewChannelDelivery[],
  map: (row: Row) => ChannelDeliveryRecord = (row) => channelDeliveryOf(ctx, row),
): Promise<ChannelDeliveryRecord[]> {
  const added: ChannelDeliveryRecord[] = [];
  for (const m of messages) {
    const rows = await ctx.all(
      db,
      `INSERT INTO ${ctx.t.channel_deliveries} (id, org_id, channel_id, dedup_key, event_type, monitor_id, diff_id, payload, state, attempts, next_attempt_at, created_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ? WHERE EXISTS (SELECT 1 FROM ${ctx.t.channels} WHERE id = ? AND org_id = ?)
       ON CONFLICT (channel_id, dedup_key) DO NOTHING RETURNING *`,
      [newId("channelDelivery"), orgId, m.channelId, encodeText(m.dedupKey), m.eventType, m.monitorId, m.diffId, encodeText(m.payload), m.nextAttemptAt, m.createdAt, m.channelId, orgId],
    );
    if (rows[0] !== undefined) added.push(map(rows[0]));
  }
  return added;
}

/** A row of `channel_deliveries` as the port's record. */
export function channelDeliveryOf(ctx: SqlContext, row: Row): ChannelDeliveryRecord {
  const timeOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : ctx.dialect.readTime(value));
  return {
    id: row.id as string,
    orgId: row.org_id as string,
    channelId: row.channel_id as string,
    dedupKey: decodeTextOrNull(row.dedup_key as string) as string,
    eventType: row.event_type as ChannelDeliveryRecord["eventType"],
    monitorId: row.monitor_id as string | null,
    diffId: row.diff_id as string | null,
    payload: decodeTextOrNull(row.payload as string) as string,
    state: row.state as ChannelDeliveryRecord["state"],
    attempts: Number(row.attempts),
    nextAttemptAt: timeOrNull(row.next_attempt_at),
    lastAttemptAt: timeOrNull(row.last_attempt_at),
    lastResponseStatus: row.last_response_status as number | null,
    lastError: decodeTextOrNull(row.last_error as string | null),
    createdAt: ctx.dialect.readTime(row.created_at),
  };
}
