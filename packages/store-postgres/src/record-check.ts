import {
  DEFAULT_SNAPSHOT_RETENTION,
  StoreError,
  checkShapeError,
  newId,
  severityRank,
  snapshotRecordOf,
  staleSnapshotError,
  webhookReceives,
  type DiffRecord,
  type RecordCheckInput,
  type RecordCheckResult,
  type RecordCheckStage,
  type SnapshotRecord,
  type WebhookRecord,
} from "@driftwatch/core";
import { MONITOR_PATCH_COLUMNS, SNAPSHOT_INSERT_COLUMNS, SqlStoreAdapter, type Row, type SqlContext, type SqlExecutor } from "@driftwatch/store-sql";

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

/** The SQL store with `recordCheck` as data-modifying CTEs: two round trips per check. */
export class PostgresAdapter extends SqlStoreAdapter {
  override recordCheck(orgId: string, input: RecordCheckInput): Promise<RecordCheckResult> {
    return this.driver.transaction((tx) => recordCheckInTwoStatements(this.ctx, tx, orgId, input));
  }
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
    writes.push(`snapshot AS (INSERT INTO ${ctx.t.snapshots} (${SNAPSHOT_INSERT_COLUMNS}) VALUES (${values.map((v) => params.add(v)).join(", ")}))`);
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

  // Retention: keep the newest `retention` snapshots. The statement sees the table as it was
  // before the insert above, so the new snapshot joins the ranking explicitly.
  const incoming = snapshot === null ? "" : `UNION ALL SELECT ${params.add(snapshot.id)}::text`;
  const keep = `GREATEST(1, COALESCE(${params.add(input.retention === undefined ? null : Math.floor(input.retention))}::int,
    (SELECT snapshot_retention FROM ${ctx.t.settings} WHERE org_id = ${org} AND monitor_id = ${monitor}),
    ${params.add(DEFAULT_SNAPSHOT_RETENTION)}::int))`;
  writes.push(
    `retention AS (DELETE FROM ${ctx.t.snapshots} WHERE org_id = ${org} AND monitor_id = ${monitor} AND id < (
       SELECT id FROM (SELECT id FROM ${ctx.t.snapshots} WHERE org_id = ${org} AND monitor_id = ${monitor} ${incoming}) ranked
       ORDER BY id DESC LIMIT 1 OFFSET ${keep} - 1) RETURNING id)`,
    // Diffs go with their snapshot (and any older diff whose snapshot is already gone).
    `pruned_diffs AS (DELETE FROM ${ctx.t.diffs} WHERE org_id = ${org} AND monitor_id = ${monitor}
       AND snapshot_id <= (SELECT MAX(id) FROM retention))`,
  );
  const written = await tx.all<Row>(
    `WITH ${writes.join(",\n")} ${targets.length > 0 ? "SELECT * FROM deliveries" : "SELECT NULL WHERE false"}`,
    params.values,
  );
  if (snapshot !== null) stage("snapshot");
  if (diffRecord !== null) stage("diff");
  if (event !== null && diffRecord !== null) stage("deliveries");
  stage("retention");

  const deliveries = written.sort((a, b) => ((a.webhook_id as string) < (b.webhook_id as string) ? -1 : 1)).map((row) => ctx.rows.delivery(row));
  return { monitor: ctx.rows.monitor(monitorRow), snapshot: snapshotRecord, diff: diffRecord, deliveries };
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
async function writeMonitor(ctx: SqlContext, tx: SqlExecutor, orgId: string, input: RecordCheckInput): Promise<CheckedMonitorRow | undefined> {
  const params = new Params();
  const sets: string[] = [];
  for (const [field, value] of Object.entries(input.monitor)) {
    const column = MONITOR_PATCH_COLUMNS[field];
    if (column !== undefined && value !== undefined) sets.push(`${column[0]} = ${params.add(ctx.rows.param(value, column[1]))}`);
  }
  const org = params.add(orgId);
  const where = `org_id = ${org} AND id = ${params.add(input.monitorId)}`;
  const previous = params.add(input.diff?.previousSnapshotId ?? null);
  const write =
    sets.length === 0
      ? `SELECT * FROM ${ctx.t.monitors} WHERE ${where} FOR UPDATE`
      : `UPDATE ${ctx.t.monitors} SET ${sets.join(", ")} WHERE ${where} RETURNING *`;
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
