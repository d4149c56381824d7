import { insertChannelDeliveries } from "./channels.js";
import {
  DEFAULT_SNAPSHOT_RETENTION,
  StoreError,
  checkShapeError,
  newId,
  normalizeStoreTime,
  severityRank,
  snapshotRecordOf,
  staleSnapshotError,
  webhookReceives,
  type DeliveryRecord,
  type DiffRecord,
  type RecordCheckInput,
  type RecordCheckResult,
  type RecordCheckStage,
  type SnapshotRecord,
  TRACKED_VALUE_RETENTION,
} from "@driftwatch/core";
import type { SqlContext } from "./context.js";
import type { SqlExecutor } from "./dialect.js";
import { snapshotInsertColumns } from "./rows.js";
import { encodeTextOrNull } from "@driftwatch/core";

/**
 * The writes of `recordCheck`, inside the store's transaction on `tx` (times already normalised
 * by `defineStore`); each stage hook is called after its write, so a throwing hook rolls
 * everything back.
 */
export async function recordCheckRows(
  ctx: SqlContext,
  tx: SqlExecutor,
  orgId: string,
  input: RecordCheckInput,
  onDiffsDeleted: (ids: readonly string[]) => void,
): Promise<RecordCheckResult> {
  const stage = (name: RecordCheckStage): void => ctx.hooks.onRecordCheckStage?.(name);
  const { t, dialect: d, rows } = ctx;
  const { monitorId, snapshot, diff, event } = input;
  const shapeError = checkShapeError(input);
  if (shapeError !== null) throw shapeError;

  // The monitor's write locks its row (or the database), so checks of one monitor are serialised
  // and the reads below see a stable history.
  if (input.releaseLease !== undefined) {
    // Inside the transaction, before the patch: the patch's write returns the row as it is now.
    await ctx.run(tx, `UPDATE ${t.monitors} SET lease_owner = NULL, lease_expires_at = NULL WHERE org_id = ? AND id = ? AND lease_owner = ?`, [
      orgId,
      monitorId,
      input.releaseLease,
    ]);
  }
  const monitorRow = await ctx.patchRow(tx, "monitors", orgId, monitorId, input.monitor, true);
  if (monitorRow === undefined) throw new StoreError("not_found", `Monitor ${monitorId} does not exist.`);
  if (snapshot !== null && input.previousSnapshotId !== undefined) {
    const latest = await ctx.all<{ id: string }>(tx, `SELECT id FROM ${t.snapshots} WHERE org_id = ? AND monitor_id = ? ORDER BY id DESC LIMIT 1`, [
      orgId,
      monitorId,
    ]);
    const latestId = latest[0]?.id ?? null;
    if (latestId !== input.previousSnapshotId) throw staleSnapshotError(input.previousSnapshotId, latestId);
  }
  if (diff !== null && diff.previousSnapshotId !== null) {
    const previous = await ctx.all<{ monitor_id: string; org_id: string }>(tx, `SELECT monitor_id, org_id FROM ${t.snapshots} WHERE id = ?`, [
      diff.previousSnapshotId,
    ]);
    const owner = previous[0];
    if (owner !== undefined && (owner.monitor_id !== monitorId || owner.org_id !== orgId)) {
      throw new StoreError("invariant_violation", `Snapshot ${diff.previousSnapshotId} belongs to another monitor.`);
    }
  }
  stage("monitor");

  let snapshotRecord: SnapshotRecord | null = null;
  if (snapshot !== null) {
    const record = snapshotRecordOf(orgId, monitorId, snapshot);
    const values = rows.snapshotValues(record);
    await ctx.run(tx, `INSERT INTO ${t.snapshots} (${snapshotInsertColumns(record)}) VALUES (${values.map(() => "?").join(", ")})`, values);
    snapshotRecord = record;
    stage("snapshot");
  }

  let diffRecord: DiffRecord | null = null;
  if (diff !== null && snapshot !== null) {
    const data = d.writeJson({ ...diff, monitorId, snapshotId: snapshot.id });
    await ctx.run(
      tx,
      `INSERT INTO ${t.diffs} (id, org_id, monitor_id, snapshot_id, previous_snapshot_id, classification, top_severity,
         top_severity_rank, created_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [diff.id, orgId, monitorId, snapshot.id, diff.previousSnapshotId, diff.classification, diff.topSeverity, severityRank(diff.topSeverity), diff.createdAt, data],
    );
    // parsed back from the text written: a copy that shares nothing with the caller's input
    diffRecord = rows.diff({ id: diff.id, org_id: orgId, monitor_id: monitorId, snapshot_id: snapshot.id, data });
    stage("diff");
  }

  const deliveries: DeliveryRecord[] = [];
  if (event !== null && diffRecord !== null) {
    const payload = JSON.stringify(event);
    const now = ctx.now();
    const due = normalizeStoreTime(event.occurredAt);
    const webhooks = (await ctx.all(tx, `SELECT * FROM ${t.webhooks} WHERE org_id = ? AND enabled = ? ORDER BY id`, [orgId, d.bool(true)])).map((row) =>
      rows.webhook(row),
    );
    for (const webhook of webhooks) {
      if (!webhookReceives(webhook, event.eventType, monitorId, diffRecord.topSeverity)) continue;
      const inserted = await ctx.all(
        tx,
        `INSERT INTO ${t.deliveries} (id, org_id, webhook_id, event_id, event_type, monitor_id, diff_id, state, attempts,
           next_attempt_at, created_at, payload) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?) RETURNING *`,
        [newId("delivery"), orgId, webhook.id, event.eventId, event.eventType, monitorId, diffRecord.id, due, now, payload],
      );
      deliveries.push(rows.delivery(inserted[0]!));
    }
    stage("deliveries");
  }

  const retention =
    input.retention ??
    (await ctx.all<{ snapshot_retention: number }>(tx, `SELECT snapshot_retention FROM ${t.settings} WHERE org_id = ? AND monitor_id = ?`, [orgId, monitorId]))[0]
      ?.snapshot_retention ??
    DEFAULT_SNAPSHOT_RETENTION;
  const dropped = await ctx.run(
    tx,
    `DELETE FROM ${t.snapshots} WHERE org_id = ? AND monitor_id = ? AND id < (
       SELECT id FROM ${t.snapshots} WHERE org_id = ? AND monitor_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    [orgId, monitorId, orgId, monitorId, Math.max(1, Math.floor(retention)) - 1],
  );
  // Diffs go with their snapshot (and any older diff whose snapshot is already gone).
  if (dropped > 0) {
    const pruned = await ctx.all<{ id: string }>(
      tx,
      `DELETE FROM ${t.diffs} WHERE org_id = ? AND monitor_id = ? AND snapshot_id < (
         SELECT MIN(id) FROM ${t.snapshots} WHERE org_id = ? AND monitor_id = ?) RETURNING id`,
      [orgId, monitorId, orgId, monitorId],
    );
    if (pruned.length > 0) onDiffsDeleted(pruned.map((row) => row.id));
  }
  if (input.tracked !== undefined) await recordTrackedRows(ctx, tx, orgId, input);
  stage("retention");

  const channelDeliveries = input.channelMessages === undefined ? undefined : await insertChannelDeliveries(ctx, tx, orgId, input.channelMessages);
  return { monitor: rows.monitor(monitorRow), snapshot: snapshotRecord, diff: diffRecord, deliveries, ...(channelDeliveries === undefined ? {} : { channelDeliveries }) };
}

/**
 * The tracked values and alert state of a check (`RecordCheckInput.tracked`), inside the check's
 * transaction: the readings, the state (replaced or removed), then each name's readings past
 * retention (the oldest) dropped.
 */
export async function recordTrackedRows(ctx: SqlContext, tx: SqlExecutor, orgId: string, input: RecordCheckInput): Promise<void> {
  const tracked = input.tracked;
  if (tracked === undefined) return;
  const { t, dialect: d } = ctx;
  const { monitorId } = input;
  const at = normalizeStoreTime(tracked.at);
  const time = Date.parse(at);
  if (tracked.readings.length > 0) {
    const values: unknown[] = [];
    for (const reading of tracked.readings) {
      values.push(
        newId("reading", time),
        orgId,
        monitorId,
        reading.name,
        at,
        tracked.snapshotId,
        reading.value === null ? null : d.writeJson(reading.value),
        reading.value === null ? encodeTextOrNull(reading.reason ?? null) : null,
      );
    }
    await ctx.run(
      tx,
      `INSERT INTO ${t.tracked_values} (id, org_id, monitor_id, name, at, snapshot_id, value, reason) VALUES ${tracked.readings.map(() => "(?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
      values,
    );
  }
  if (tracked.alertState === null) {
    await ctx.run(tx, `DELETE FROM ${t.alert_states} WHERE org_id = ? AND monitor_id = ?`, [orgId, monitorId]);
  } else if (tracked.alertState !== undefined) {
    await ctx.run(
      tx,
      `INSERT INTO ${t.alert_states} (monitor_id, org_id, state, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (monitor_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      [monitorId, orgId, d.writeJson(tracked.alertState), at],
    );
  }
  const keep = Math.max(1, Math.floor(tracked.retention ?? TRACKED_VALUE_RETENTION));
  for (const name of new Set(tracked.readings.map((reading) => reading.name))) {
    await ctx.run(
      tx,
      `DELETE FROM ${t.tracked_values} WHERE org_id = ? AND monitor_id = ? AND name = ? AND id < (
         SELECT id FROM ${t.tracked_values} WHERE org_id = ? AND monitor_id = ? AND name = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
      [orgId, monitorId, name, orgId, monitorId, name, keep - 1],
    );
  }
}
