import {
  DEFAULT_SNAPSHOT_RETENTION,
  defaultSettings,
  StoreError,
  checkShapeError,
  newId,
  severityRank,
  snapshotRecordOf,
  staleSnapshotError,
  webhookReceives,
  type CheckBasis,
  type DiffRecord,
  type RecordCheckInput,
  type RecordCheckResult,
  type RecordCheckStage,
  type RenewedLeases,
  type RenewLeasesInput,
  type SnapshotRecord,
  type WebhookRecord,
} from "@driftwatch/core";
import { insertChannelDeliveries, MONITOR_PATCH_COLUMNS, recordTrackedRows, SNAPSHOT_INSERT_COLUMNS, snapshotInsertColumns, SqlStoreAdapter, type Row, type SqlContext, type SqlExecutor } from "@driftwatch/store-sql";
import { Coalescer, settle, type Settled } from "./coalesce.js";
import { renewLeasesStatement } from "./leases.js";

// PostgreSQL's hot path, kept from before the shared SQL store: recordCheck in two round trips
// (the monitor's write, then one statement of data-modifying CTEs) instead of one per write, each
// paid while the monitor's row lock is held. See the store-postgres section of docs/benchmarks.md.

/** Positional parameters for one statement: `add(value)` returns its `$n`. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${String(this.values.length)}`;
  }
}

/** What webhook matching needs of a webhook. */
interface WebhookTarget {
  id: string;
  events: WebhookRecord["events"];
  monitorIds: string[] | null;
  minSeverity: WebhookRecord["minSeverity"];
}

/** The columns of a snapshot row, as `getLatestSnapshot` reads them. */
const LATEST_COLUMNS = [...SNAPSHOT_INSERT_COLUMNS.split(", "), "silenced"];

/** Batches of checks' reads or writes running at once; calls made meanwhile join the next batch. */
const BATCH_CONCURRENCY = 2;
/** Checks per batched statement at most. */
const MAX_BATCH = 64;

interface BasisCall {
  orgId: string;
  monitorId: string;
}
interface RecordCall {
  orgId: string;
  input: RecordCheckInput;
}

/**
 * The SQL store with `recordCheck` as data-modifying CTEs: two round trips per check. Under load
 * the two statements of most checks are shared: reads of a check's basis and records of checks
 * without a snapshot that arrive together go to the server as one statement (see `Coalescer`).
 */
export class PostgresAdapter extends SqlStoreAdapter {
  readonly #bases = new Coalescer<BasisCall, CheckBasis | null>((calls) => this.#basisBatch(calls), { concurrency: BATCH_CONCURRENCY, maxBatch: MAX_BATCH });
  readonly #records = new Coalescer<RecordCall, RecordCheckResult>((calls) => recordMonitorsOnly(this.ctx, this.driver, calls), {
    concurrency: BATCH_CONCURRENCY,
    maxBatch: MAX_BATCH,
  });

  /**
   * A check's settings and newest snapshot in one round trip (the SQL store reads them with two):
   * the snapshot's columns come prefixed (`l_`) beside the settings' and are mapped back.
   */
  getCheckBasis(orgId: string, monitorId: string): Promise<CheckBasis | null> {
    return this.#bases.call({ orgId, monitorId });
  }

  /** The bases of several checks: one statement for all (keys may repeat). */
  async #basisBatch(calls: readonly BasisCall[]): Promise<Settled<CheckBasis | null>[]> {
    const { t } = this.ctx;
    const one = calls.length === 1;
    const rows = await this.driver.all<Row>(
      `SELECT m.id AS monitor_id, m.org_id, s.policy_rules, s.snapshot_retention, s.auto_apply_suggestions, s.rejected_suggestions, s.track, s.alert, s.learning, s.updated_at,
         s.monitor_id AS settings_of, ${LATEST_COLUMNS.map((column) => `l.${column} AS l_${column}`).join(", ")}
       FROM ${one ? `${t.monitors} m` : `unnest($1::text[], $2::text[]) AS k(org_id, id) JOIN ${t.monitors} m ON m.org_id = k.org_id AND m.id = k.id`}
       LEFT JOIN ${t.settings} s ON s.monitor_id = m.id AND s.org_id = m.org_id
       LEFT JOIN LATERAL (SELECT * FROM ${t.snapshots} WHERE org_id = m.org_id AND monitor_id = m.id ORDER BY id DESC LIMIT 1) l ON true
       ${one ? "WHERE m.org_id = $1 AND m.id = $2" : ""}`,
      one ? [calls[0]!.orgId, calls[0]!.monitorId] : [calls.map((call) => call.orgId), calls.map((call) => call.monitorId)],
    );
    const byKey = new Map(rows.map((row) => [monitorKey(row.org_id as string, row.monitor_id as string), row]));
    return calls.map((call) => {
      const row = byKey.get(monitorKey(call.orgId, call.monitorId));
      try {
        return { ok: true as const, value: row === undefined ? null : this.#basisOf(call.orgId, call.monitorId, row) };
      } catch (error) {
        return { ok: false as const, error };
      }
    });
  }

  #basisOf(orgId: string, monitorId: string, row: Row): CheckBasis {
    const codec = this.ctx.rows;
    const settings = row.settings_of !== null ? codec.settings(row) : defaultSettings(orgId, monitorId, DEFAULT_SNAPSHOT_RETENTION);
    const latestSnapshot = row.l_id === null ? null : codec.snapshot(Object.fromEntries(LATEST_COLUMNS.map((column) => [column, row[`l_${column}`]])));
    return { settings, latestSnapshot };
  }

  /** The heartbeat, without waiting for row locks (a wait could deadlock with a grouped record: see `renewLeasesStatement`). */
  override async renewLeases(input: RenewLeasesInput): Promise<RenewedLeases> {
    const until = new Date(Date.parse(input.now) + input.leaseMs).toISOString();
    const renew = async (table: "monitors" | "deliveries", ids: readonly string[]): Promise<string[]> => {
      if (ids.length === 0) return [];
      const rows = await this.driver.all<{ id: string }>(renewLeasesStatement(this.ctx.t[table]), [until, input.owner, ids]);
      return rows.map((row) => row.id);
    };
    return { monitorIds: await renew("monitors", input.monitorIds), deliveryIds: await renew("deliveries", input.deliveryIds) };
  }

  override recordCheck(orgId: string, input: RecordCheckInput): Promise<RecordCheckResult> {
    // A check that stores no snapshot (most checks: the content did not change, or the fetch
    // failed) writes the monitor and applies retention in one statement, with no transaction
    // around it, shared with other such checks recorded at the same time. With stage hooks (the
    // contract suite's instrumentation) every stage is its own step of one transaction, so a
    // throwing hook can undo the check.
    const messages = input.channelMessages !== undefined && input.channelMessages.length > 0;
    // A check that records tracked values or channel messages writes them in the transaction below.
    if (input.snapshot === null && input.diff === null && input.event === null && !messages && input.tracked === undefined && this.ctx.hooks.onRecordCheckStage === undefined) {
      return batchable(input) ? this.#records.call({ orgId, input }) : recordMonitorOnly(this.ctx, this.driver, orgId, input);
    }
    return this.driver.transaction((tx) => recordCheckInTwoStatements(this.ctx, tx, orgId, input));
  }
}

function monitorKey(orgId: string, monitorId: string): string {
  return `${orgId}\u0000${monitorId}`;
}

/** The monitor fields a check sets, each a column whose value the row document carries. */
function patchFields(input: RecordCheckInput): string[] {
  return Object.entries(input.monitor)
    .filter(([, value]) => value !== undefined)
    .map(([field]) => field)
    .sort();
}

function batchable(input: RecordCheckInput): boolean {
  // JSON columns (a failed check's `lastFailure`) go into the row document as JSON values.
  return patchFields(input).every((field) => MONITOR_PATCH_COLUMNS[field] !== undefined);
}

/**
 * Records of checks without a snapshot, several per statement: checks that set the same fields
 * (and end the same owner's claims) share one `UPDATE ... FROM` over their values as JSON rows
 * (typed by the monitors table's row type) with retention for each. A monitor appears in a
 * statement once; a second record of it, and every record of a statement that failed as a whole
 * (a deadlock with another writer, say), is written on its own afterwards, in order.
 */
async function recordMonitorsOnly(ctx: SqlContext, db: SqlExecutor, calls: readonly RecordCall[]): Promise<Settled<RecordCheckResult>[]> {
  const results: (Settled<RecordCheckResult> | undefined)[] = new Array(calls.length);
  const groups = new Map<string, { indexes: number[] }>();
  // Across groups too: the groups' statements run at once, so a monitor in two of them would be
  // written in no set order.
  const seen = new Set<string>();
  const alone: number[] = [];
  calls.forEach((call, index) => {
    const monitor = monitorKey(call.orgId, call.input.monitorId);
    if (seen.has(monitor)) {
      alone.push(index);
      return;
    }
    seen.add(monitor);
    const key = `${patchFields(call.input).join(",")}|${call.input.releaseLease ?? ""}`;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { indexes: [] }));
    group.indexes.push(index);
  });
  await Promise.all(
    [...groups.values()].map(async ({ indexes }) => {
      if (indexes.length === 1) {
        const index = indexes[0]!;
        results[index] = await settle(() => recordMonitorOnly(ctx, db, calls[index]!.orgId, calls[index]!.input));
        return;
      }
      let rows: Row[];
      try {
        rows = await db.all<Row>(...recordBatchStatement(ctx, indexes.map((index) => calls[index]!)));
      } catch {
        alone.push(...indexes);
        return;
      }
      const byKey = new Map(rows.map((row) => [monitorKey(row.org_id as string, row.id as string), row]));
      for (const index of indexes) {
        const { orgId, input } = calls[index]!;
        const row = byKey.get(monitorKey(orgId, input.monitorId));
        results[index] =
          row === undefined
            ? { ok: false, error: new StoreError("not_found", `Monitor ${input.monitorId} does not exist.`) }
            : { ok: true, value: { monitor: ctx.rows.monitor(row), snapshot: null, diff: null, deliveries: [] } };
      }
    }),
  );
  for (const index of alone.sort((a, b) => a - b)) results[index] = await settle(() => recordMonitorOnly(ctx, db, calls[index]!.orgId, calls[index]!.input));
  return results.map((result) => result ?? { ok: false, error: new Error("A record of the batch was not written.") });
}

/** The statement and parameters of one batch of `recordMonitorsOnly` (its calls set the same fields). */
function recordBatchStatement(ctx: SqlContext, calls: readonly RecordCall[]): [string, unknown[]] {
  const { t } = ctx;
  const fields = patchFields(calls[0]!.input);
  const owner = calls[0]!.input.releaseLease;
  const docs = calls.map(({ orgId, input }) => {
    const doc: Record<string, unknown> = {};
    for (const field of fields) {
      const [column, kind] = MONITOR_PATCH_COLUMNS[field]!;
      const value = (input.monitor as Record<string, unknown>)[field];
      // a jsonb column takes the JSON value itself from the row document (a string would stay a string)
      doc[column] = kind === "json" ? (value ?? null) : ctx.rows.param(value, kind);
    }
    return doc;
  });
  const sets = fields.map((field) => `${MONITOR_PATCH_COLUMNS[field]![0]} = v.${MONITOR_PATCH_COLUMNS[field]![0]}`);
  if (owner !== undefined) {
    // The right-hand sides see the row as it was: a lease ends only where this owner held it.
    sets.push(
      "lease_owner = CASE WHEN m.lease_owner = $5 THEN NULL ELSE m.lease_owner END",
      "lease_expires_at = CASE WHEN m.lease_owner = $5 THEN NULL ELSE m.lease_expires_at END",
    );
  }
  const columns = fields.map((field) => `r.${MONITOR_PATCH_COLUMNS[field]![0]}`);
  // The keys come as arrays, not inside the JSON: the planner knows how many rows an unnest of a
  // parameter gives (of a JSON array it assumes 100), and with the right count it deletes old
  // snapshots through the index of each monitor instead of reading the whole snapshots table.
  const text = `WITH v AS (
      SELECT k.org_id, k.id, ${[...columns, "k.keep"].join(", ")}
      FROM unnest($2::text[], $3::text[], $4::int[]) WITH ORDINALITY AS k(org_id, id, keep, n),
        LATERAL jsonb_populate_record(NULL::${t.monitors}, $1::jsonb -> (k.n::int - 1)) AS r),
    updated AS (UPDATE ${t.monitors} m SET ${sets.join(", ")} FROM v WHERE m.org_id = v.org_id AND m.id = v.id RETURNING m.*),
    cut AS (SELECT v.org_id, v.id AS monitor_id, (SELECT s.id FROM ${t.snapshots} s WHERE s.org_id = v.org_id AND s.monitor_id = v.id
        ORDER BY s.id DESC LIMIT 1 OFFSET GREATEST(1, COALESCE(v.keep,
          (SELECT snapshot_retention FROM ${t.settings} WHERE org_id = v.org_id AND monitor_id = v.id), ${String(DEFAULT_SNAPSHOT_RETENTION)})) - 1) AS id
      FROM v),
    retention AS (DELETE FROM ${t.snapshots} s USING cut WHERE s.org_id = cut.org_id AND s.monitor_id = cut.monitor_id AND s.id < cut.id
      RETURNING s.org_id, s.monitor_id, s.id),
    pruned_diffs AS (DELETE FROM ${t.diffs} d USING (SELECT org_id, monitor_id, MAX(id) AS id FROM retention GROUP BY org_id, monitor_id) r
      WHERE d.org_id = r.org_id AND d.monitor_id = r.monitor_id AND d.snapshot_id <= r.id)
    SELECT * FROM updated`;
  const keys = [
    calls.map(({ orgId }) => orgId),
    calls.map(({ input }) => input.monitorId),
    calls.map(({ input }) => (input.retention === undefined ? null : Math.floor(input.retention))),
  ];
  return [text, owner === undefined ? [JSON.stringify(docs), ...keys] : [JSON.stringify(docs), ...keys, owner]];
}

/** A check without a snapshot: one statement, atomic on its own. */
async function recordMonitorOnly(ctx: SqlContext, db: SqlExecutor, orgId: string, input: RecordCheckInput): Promise<RecordCheckResult> {
  const monitorRow = await writeMonitor(ctx, db, orgId, input, (params, org, monitor) => retentionWrites(ctx, params, input, org, monitor));
  if (monitorRow === undefined) throw new StoreError("not_found", `Monitor ${input.monitorId} does not exist.`);
  return { monitor: ctx.rows.monitor(monitorRow), snapshot: null, diff: null, deliveries: [] };
}

/** Runs inside the store's transaction on `tx`; each stage hook is called after its write, so a throwing hook rolls everything back. */
async function recordCheckInTwoStatements(ctx: SqlContext, tx: SqlExecutor, orgId: string, input: RecordCheckInput): Promise<RecordCheckResult> {
  const stage = (name: RecordCheckStage): void => ctx.hooks.onRecordCheckStage?.(name);
  const { monitorId, snapshot, diff, event } = input;
  const shapeError = checkShapeError(input);
  if (shapeError !== null) throw shapeError;

  const monitorRow = await writeMonitor(ctx, tx, orgId, input);
  if (monitorRow === undefined) throw new StoreError("not_found", `Monitor ${monitorId} does not exist.`);
  if (snapshot !== null && input.previousSnapshotId !== undefined) {
    // A statement of its own: it runs after the monitor row's lock was granted, so (read
    // committed) it sees a snapshot that a concurrent check of this monitor committed meanwhile.
    const latest = await tx.all<{ id: string }>(`SELECT id FROM ${ctx.t.snapshots} WHERE org_id = $1 AND monitor_id = $2 ORDER BY id DESC LIMIT 1`, [
      orgId,
      monitorId,
    ]);
    const latestId = latest[0]?.id ?? null;
    if (latestId !== input.previousSnapshotId) throw staleSnapshotError(input.previousSnapshotId, latestId);
  }
  stage("monitor");
  if (monitorRow.previous_monitor_id !== null && (monitorRow.previous_monitor_id !== monitorId || monitorRow.previous_org_id !== orgId)) {
    throw new StoreError("invariant_violation", `Snapshot ${diff?.previousSnapshotId ?? ""} belongs to another monitor.`);
  }

  // One more round trip writes the rest: snapshot, diff, deliveries and retention as
  // data-modifying CTEs of one statement. Their hooks run in order once it has returned.
  const params = new Params();
  const org = params.add(orgId);
  const monitor = params.add(monitorId);
  const writes: string[] = [];
  let snapshotRecord: SnapshotRecord | null = null;
  if (snapshot !== null) {
    const record = snapshotRecordOf(orgId, monitorId, snapshot);
    const values = ctx.rows.snapshotValues(record);
    writes.push(`snapshot AS (INSERT INTO ${ctx.t.snapshots} (${snapshotInsertColumns(record)}) VALUES (${values.map((v) => params.add(v)).join(", ")}))`);
    snapshotRecord = record;
  }

  let diffRecord: DiffRecord | null = null;
  if (diff !== null && snapshot !== null) {
    const data = ctx.dialect.writeJson({ ...diff, monitorId, snapshotId: snapshot.id });
    const values = [diff.id, snapshot.id, diff.previousSnapshotId, diff.classification, diff.topSeverity, severityRank(diff.topSeverity), diff.createdAt, data];
    writes.push(
      `diff AS (INSERT INTO ${ctx.t.diffs} (org_id, monitor_id, id, snapshot_id, previous_snapshot_id, classification,
         top_severity, top_severity_rank, created_at, data) VALUES (${org}, ${monitor}, ${values.map((v) => params.add(v)).join(", ")}))`,
    );
    // parsed back from the text written: a copy that shares nothing with the caller's input
    diffRecord = ctx.rows.diff({ id: diff.id, org_id: orgId, monitor_id: monitorId, snapshot_id: snapshot.id, data });
  }

  const targets =
    event !== null && diffRecord !== null
      ? (monitorRow.webhooks ?? []).filter((webhook) => webhookReceives(webhook, event.eventType, monitorId, diffRecord.topSeverity))
      : [];
  if (event !== null && targets.length > 0) {
    const shared = [
      org,
      params.add(event.eventId),
      params.add(event.eventType),
      monitor,
      params.add(diff!.id),
      `${params.add(event.occurredAt)}::timestamptz`,
      `${params.add(ctx.now())}::timestamptz`,
      params.add(JSON.stringify(event)),
    ].join(", ");
    const rows = targets.map((webhook) => `(${params.add(newId("delivery"))}, ${params.add(webhook.id)}, ${shared}, 'pending', 0)`);
    writes.push(
      `deliveries AS (INSERT INTO ${ctx.t.deliveries} (id, webhook_id, org_id, event_id, event_type, monitor_id, diff_id,
         next_attempt_at, created_at, payload, state, attempts) VALUES ${rows.join(", ")} RETURNING *)`,
    );
  }

  writes.push(retentionWrites(ctx, params, input, org, monitor));
  const written = await tx.all<Row>(
    `WITH ${writes.join(",\n")} ${targets.length > 0 ? "SELECT * FROM deliveries" : "SELECT NULL WHERE false"}`,
    params.values,
  );
  if (snapshot !== null) stage("snapshot");
  if (diffRecord !== null) stage("diff");
  if (event !== null && diffRecord !== null) stage("deliveries");
  await recordTrackedRows(ctx, tx, orgId, input);
  stage("retention");

  const deliveries = written.sort((a, b) => ((a.webhook_id as string) < (b.webhook_id as string) ? -1 : 1)).map((row) => ctx.rows.delivery(row));
  const channelDeliveries = input.channelMessages === undefined ? undefined : await insertChannelDeliveries(ctx, tx, orgId, input.channelMessages);
  return { monitor: ctx.rows.monitor(monitorRow), snapshot: snapshotRecord, diff: diffRecord, deliveries, ...(channelDeliveries === undefined ? {} : { channelDeliveries }) };
}

/**
 * Retention as data-modifying CTEs: keep the newest `retention` snapshots. The statement sees the
 * table as it was before its own insert, so a new snapshot joins the ranking explicitly. Diffs go
 * with their snapshot (and any older diff whose snapshot is already gone).
 */
function retentionWrites(ctx: SqlContext, params: Params, input: RecordCheckInput, org: string, monitor: string): string {
  const incoming = input.snapshot === null ? "" : `UNION ALL SELECT ${params.add(input.snapshot.id)}::text`;
  const keep = `GREATEST(1, COALESCE(${params.add(input.retention === undefined ? null : Math.floor(input.retention))}::int,
    (SELECT snapshot_retention FROM ${ctx.t.settings} WHERE org_id = ${org} AND monitor_id = ${monitor}),
    ${params.add(DEFAULT_SNAPSHOT_RETENTION)}::int))`;
  return `retention AS (DELETE FROM ${ctx.t.snapshots} WHERE org_id = ${org} AND monitor_id = ${monitor} AND id < (
       SELECT id FROM (SELECT id FROM ${ctx.t.snapshots} WHERE org_id = ${org} AND monitor_id = ${monitor} ${incoming}) ranked
       ORDER BY id DESC LIMIT 1 OFFSET ${keep} - 1) RETURNING id),
    pruned_diffs AS (DELETE FROM ${ctx.t.diffs} WHERE org_id = ${org} AND monitor_id = ${monitor}
       AND snapshot_id <= (SELECT MAX(id) FROM retention))`;
}

/** The monitor row after the check's write, with what the rest of the check needs. */
interface CheckedMonitorRow extends Row {
  previous_monitor_id: string | null;
  previous_org_id: string | null;
  webhooks: WebhookTarget[] | null;
}

/**
 * One round trip: the monitor write (its row lock serialises checks of one monitor, so
 * retention and the previous-snapshot check see a stable history), the owner of the diff's
 * previous snapshot, and the enabled webhooks of the organization when there is an event.
 */
async function writeMonitor(
  ctx: SqlContext,
  tx: SqlExecutor,
  orgId: string,
  input: RecordCheckInput,
  extra?: (params: Params, org: string, monitor: string) => string,
): Promise<CheckedMonitorRow | undefined> {
  const params = new Params();
  const sets: string[] = [];
  for (const [field, value] of Object.entries(input.monitor)) {
    const column = MONITOR_PATCH_COLUMNS[field];
    if (column !== undefined && value !== undefined) sets.push(`${column[0]} = ${params.add(ctx.rows.param(value, column[1]))}`);
  }
  if (input.releaseLease !== undefined) {
    // The right-hand sides see the row as it was: the lease ends only where this owner held it.
    const owner = params.add(input.releaseLease);
    sets.push(
      `lease_owner = CASE WHEN lease_owner = ${owner} THEN NULL ELSE lease_owner END`,
      `lease_expires_at = CASE WHEN lease_owner = ${owner} THEN NULL ELSE lease_expires_at END`,
    );
  }
  const org = params.add(orgId);
  const where = `org_id = ${org} AND id = ${params.add(input.monitorId)}`;
  const write =
    sets.length === 0
      ? `SELECT * FROM ${ctx.t.monitors} WHERE ${where} FOR UPDATE`
      : `UPDATE ${ctx.t.monitors} SET ${sets.join(", ")} WHERE ${where} RETURNING *`;
  if (extra !== undefined) {
    // The monitor's write and the retention of its snapshots as one statement (its own transaction).
    const retention = extra(params, org, params.add(input.monitorId));
    const rows = await tx.all<CheckedMonitorRow>(
      `WITH m AS (${write}), ${retention}
       SELECT m.*, NULL AS previous_monitor_id, NULL AS previous_org_id, NULL::jsonb AS webhooks FROM m`,
      params.values,
    );
    return rows[0];
  }
  const previous = params.add(input.diff?.previousSnapshotId ?? null);
  const webhooks =
    input.event === null
      ? "NULL::jsonb"
      : `(SELECT COALESCE(jsonb_agg(jsonb_build_object('id', id, 'events', events, 'monitorIds', monitor_ids,
           'minSeverity', min_severity) ORDER BY id), '[]'::jsonb) FROM ${ctx.t.webhooks} WHERE org_id = ${org} AND enabled)`;
  const rows = await tx.all<CheckedMonitorRow>(
    `WITH m AS (${write})
     SELECT m.*,
       (SELECT monitor_id FROM ${ctx.t.snapshots} WHERE id = ${previous}::text) AS previous_monitor_id,
       (SELECT org_id FROM ${ctx.t.snapshots} WHERE id = ${previous}::text) AS previous_org_id,
       ${webhooks} AS webhooks
     FROM m`,
    params.values,
  );
  return rows[0];
}
