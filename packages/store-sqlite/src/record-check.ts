import {
  DEFAULT_SNAPSHOT_RETENTION,
  StoreError,
  newId,
  staleSnapshotError,
  webhookReceives,
  severityRank,
  type DeliveryRecord,
  type DiffRecord,
  type RecordCheckInput,
  type RecordCheckResult,
  type SnapshotRecord,
  type StoreHooks,
} from "@driftwatch/core";
import { MONITOR_PATCH_COLUMNS, toDelivery, toDiff, toMonitor, toSnapshot, toWebhook, type DeliveryRow, type MonitorRow, type SnapshotRow, type WebhookRow } from "./rows.js";
import { encodeText, encodeTextOrNull } from "@driftwatch/core";
import { isoTime, patchRow, type Queries } from "./util.js";

/**
 * The writes of `recordCheck`, run inside the store's `BEGIN IMMEDIATE` transaction; each stage hook is
 * called after its write, so a throwing hook rolls everything back.
 */
export function recordCheckRows(
  q: Queries,
  hooks: StoreHooks,
  clock: () => string,
  orgId: string,
  input: RecordCheckInput,
  onDiffsPruned: (ids: string[]) => void = () => undefined
): RecordCheckResult {
  const stage = (name: Parameters<NonNullable<StoreHooks["onRecordCheckStage"]>>[0]): void => hooks.onRecordCheckStage?.(name);
  const { monitorId, snapshot, diff, event } = input;
  if (diff !== null && snapshot === null) {
    throw new StoreError("invariant_violation", "A diff needs the snapshot it was computed on.");
  }
  if (event !== null && diff === null) {
    throw new StoreError("invariant_violation", "A diff.detected event needs its diff.");
  }
  const monitorRow = patchRow<MonitorRow>(q, "monitors", MONITOR_PATCH_COLUMNS, orgId, monitorId, input.monitor);
  if (monitorRow === undefined) throw new StoreError("not_found", `Monitor ${monitorId} does not exist.`);
  if (snapshot !== null && input.previousSnapshotId !== undefined) {
    // Inside BEGIN IMMEDIATE: no other connection can record a snapshot between this read and the writes.
    const latest = q.get<{ id: string }>("SELECT id FROM snapshots WHERE org_id = ? AND monitor_id = ? ORDER BY id DESC LIMIT 1", orgId, monitorId);
    const latestId = latest?.id ?? null;
    if (latestId !== input.previousSnapshotId) throw staleSnapshotError(input.previousSnapshotId, latestId);
  }
  if (diff !== null && diff.previousSnapshotId !== null) {
    const previous = q.get<{ monitor_id: string; org_id: string }>(
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
      content_type: encodeTextOrNull(snapshot.contentType),
      content_hash: snapshot.contentHash,
      size: snapshot.size,
      browser_render: snapshot.browserRender ? 1 : 0,
      body: encodeText(snapshot.body),
      etag: encodeTextOrNull(snapshot.etag),
      last_modified: encodeTextOrNull(snapshot.lastModified),
    };
    q.run(
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
    q.run(
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
    const payload = JSON.stringify(event);
    const now = clock();
    const due = isoTime(event.occurredAt);
    const webhooks = q.all<WebhookRow>("SELECT * FROM webhooks WHERE org_id = ? AND enabled = 1 ORDER BY id", orgId).map(toWebhook);
    for (const webhook of webhooks) {
      if (!webhookReceives(webhook, event.eventType, monitorId, diffRecord.topSeverity)) continue;
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
      q.run(
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
    q.get<{ snapshot_retention: number }>(
      "SELECT snapshot_retention FROM settings WHERE org_id = ? AND monitor_id = ?",
      orgId,
      monitorId
    )?.snapshot_retention ??
    DEFAULT_SNAPSHOT_RETENTION;
  const dropped = q.run(
    `DELETE FROM snapshots WHERE org_id = @orgId AND monitor_id = @monitorId AND id < (
       SELECT id FROM snapshots WHERE org_id = @orgId AND monitor_id = @monitorId ORDER BY id DESC LIMIT 1 OFFSET @keep)`,
    { orgId, monitorId, keep: Math.max(1, Math.floor(retention)) - 1 }
  );
  // Diffs go with their snapshot (and any older diff whose snapshot is already gone).
  if (dropped > 0) {
    const pruned = q.all<{ id: string }>(
      `DELETE FROM diffs WHERE org_id = @orgId AND monitor_id = @monitorId AND snapshot_id < (
         SELECT MIN(id) FROM snapshots WHERE org_id = @orgId AND monitor_id = @monitorId) RETURNING id`,
      { orgId, monitorId }
    );
    if (pruned.length > 0) onDiffsPruned(pruned.map((row) => row.id));
  }
  stage("retention");

  return { monitor: toMonitor(monitorRow), snapshot: snapshotRecord, diff: diffRecord, deliveries };
}
