import {
  DEFAULT_SNAPSHOT_RETENTION,
  StoreError,
  newId,
  normalizeStoreTime,
  staleSnapshotError,
  snapshotRecordOf,
  webhookReceives,
  type DeliveryRecord,
  type DiffRecord,
  type MonitorPatch,
  type RecordCheckInput,
  type RecordCheckResult,
  type RecordCheckStage,
  type SnapshotRecord,
  type StoreHooks,
  type ChannelDeliveryRecord,
  type NewChannelDelivery,
  type TrackedCheck,
  TRACKED_VALUE_RETENTION,
} from "@driftwatch/core";
import { transaction, type DeliveryRow, type Journal, type MemoryDatabase, type MonitorRow } from "./database.js";
import { newChannelDeliveryRow, toChannelDeliveryRecord } from "./channels.js";
import { copy } from "./helpers.js";

/** Monitor fields a patch may set; everything else in a patch (id, type, orgId, createdAt) is ignored, as in the SQL adapters. */
const MONITOR_PATCH_FIELDS = [
  "name",
  "url",
  "method",
  "headers",
  "body",
  "intervalSeconds",
  "selector",
  "browserOptionsJson",
  "tags",
  "contract",
  "state",
  "consecutiveFailures",
  "lastCheckedAt",
  "lastChangedAt",
  "nextCheckAt",
  "lastStatus",
  "lastError",
  "lastFailure",
  "updatedAt",
  "learningSince",
] as const;

/** The row after applying the defined, allowed fields of `patch` (times come normalised by `defineStore`); the input row is not changed. */
export function patchedMonitor(row: MonitorRow, patch: MonitorPatch): MonitorRow {
  const next: MonitorRow = { ...row };
  for (const field of MONITOR_PATCH_FIELDS) {
    const value = patch[field];
    if (value === undefined) continue;
    (next as unknown as Record<string, unknown>)[field] = copy(value);
  }
  return next;
}

/** The monitor record without its lease columns. */
export function toMonitorRecord(row: MonitorRow): RecordCheckResult["monitor"] {
  const { leaseOwner: _owner, leaseExpiresAt: _expires, ...record } = row;
  return copy(record);
}

export function toDeliveryRecord(row: DeliveryRow): DeliveryRecord {
  const { leaseOwner: _owner, leaseExpiresAt: _expires, ...record } = row;
  return copy(record);
}

/** Snapshot record without its body (lists never carry bodies). */
export function toSnapshotSummary(row: SnapshotRecord): SnapshotRecord {
  const { body: _body, ...summary } = row;
  return copy(summary);
}

/** The same semantics and order of writes as the SQL adapters' `recordCheck`, all undone on any failure. */
export function recordCheck(db: MemoryDatabase, hooks: StoreHooks, now: string, orgId: string, input: RecordCheckInput): RecordCheckResult {
  const stage = (name: RecordCheckStage): void => hooks.onRecordCheckStage?.(name);
  const { monitorId, snapshot, diff, event } = input;
  if (diff !== null && snapshot === null) {
    throw new StoreError("invariant_violation", "A diff needs the snapshot it was computed on.");
  }
  if (event !== null && diff === null) {
    throw new StoreError("invariant_violation", "A diff.detected event needs its diff.");
  }
  return transaction((journal: Journal): RecordCheckResult => {
    const current = db.monitors.get(monitorId);
    if (current === undefined || current.orgId !== orgId) throw new StoreError("not_found", `Monitor ${monitorId} does not exist.`);
    if (snapshot !== null && input.previousSnapshotId !== undefined) {
      let latest: string | null = null;
      for (const s of db.snapshots.values()) if (s.monitorId === monitorId && s.orgId === orgId && (latest === null || s.id > latest)) latest = s.id;
      if (latest !== input.previousSnapshotId) throw staleSnapshotError(input.previousSnapshotId, latest);
    }
    const monitorRow = patchedMonitor(current, input.monitor);
    if (input.releaseLease !== undefined && monitorRow.leaseOwner === input.releaseLease) {
      monitorRow.leaseOwner = null;
      monitorRow.leaseExpiresAt = null;
    }
    journal.set(db.monitors, monitorId, monitorRow);
    if (diff !== null && diff.previousSnapshotId !== null) {
      const previous = db.snapshots.get(diff.previousSnapshotId);
      if (previous !== undefined && (previous.monitorId !== monitorId || previous.orgId !== orgId)) {
        throw new StoreError("invariant_violation", `Snapshot ${diff.previousSnapshotId} belongs to another monitor.`);
      }
    }
    stage("monitor");

    let snapshotRecord: SnapshotRecord | null = null;
    if (snapshot !== null) {
      if (db.snapshots.has(snapshot.id)) throw new StoreError("conflict", `A snapshot with id ${snapshot.id} exists.`);
      const row = snapshotRecordOf(orgId, monitorId, snapshot);
      journal.set(db.snapshots, row.id, row);
      snapshotRecord = copy(row);
      stage("snapshot");
    }

    let diffRecord: DiffRecord | null = null;
    if (diff !== null && snapshot !== null) {
      if (db.diffs.has(diff.id)) throw new StoreError("conflict", `A diff with id ${diff.id} exists.`);
      const row = { ...copy(diff), createdAt: diff.createdAt, monitorId, snapshotId: snapshot.id, orgId } as DiffRecord;
      journal.set(db.diffs, row.id, row);
      diffRecord = copy(row);
      stage("diff");
    }

    const deliveries: DeliveryRecord[] = [];
    if (event !== null && diffRecord !== null) {
      const payload = JSON.stringify(event);
      const webhooks = [...db.webhooks.values()]
        .filter((w) => w.orgId === orgId && w.enabled)
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      for (const webhook of webhooks) {
        if (!webhookReceives(webhook, event.eventType, monitorId, diffRecord.topSeverity)) continue;
        const row: DeliveryRow = {
          id: newId("delivery"),
          orgId,
          webhookId: webhook.id,
          eventId: event.eventId,
          eventType: event.eventType,
          monitorId,
          diffId: diffRecord.id,
          state: "pending",
          attempts: 0,
          nextAttemptAt: normalizeStoreTime(event.occurredAt),
          lastAttemptAt: null,
          lastResponseStatus: null,
          lastError: null,
          createdAt: now,
          payload,
          leaseOwner: null,
          leaseExpiresAt: null,
        };
        journal.set(db.deliveries, row.id, row);
        deliveries.push(toDeliveryRecord(row));
      }
      stage("deliveries");
    }

    const retention = input.retention ?? db.settings.get(monitorId)?.snapshotRetention ?? DEFAULT_SNAPSHOT_RETENTION;
    const keep = Math.max(1, Math.floor(retention));
    const ofMonitor = [...db.snapshots.values()].filter((s) => s.orgId === orgId && s.monitorId === monitorId).sort((a, b) => (a.id < b.id ? 1 : -1));
    const dropped = ofMonitor.slice(keep);
    for (const old of dropped) {
      journal.delete(db.snapshots, old.id);
      // A screenshot goes with its snapshot.
      journal.delete(db.screenshots, old.id);
    }
    // Diffs go with their snapshot (and any older diff whose snapshot is already gone).
    if (dropped.length > 0) {
      const newestDropped = dropped[0]!.id;
      for (const d of [...db.diffs.values()]) {
        if (d.orgId === orgId && d.monitorId === monitorId && d.snapshotId <= newestDropped) journal.delete(db.diffs, d.id);
      }
    }
    if (input.tracked !== undefined) recordTracked(db, journal, orgId, monitorId, input.tracked);
    stage("retention");

    const channelDeliveries = input.channelMessages === undefined ? undefined : addChannelMessages(db, journal, orgId, input.channelMessages);
    return { monitor: toMonitorRecord(monitorRow), snapshot: snapshotRecord, diff: diffRecord, deliveries, ...(channelDeliveries === undefined ? {} : { channelDeliveries }) };
  });
}


/** A check's channel messages, journalled: those of channels not the organization's and repeated dedup keys are skipped. */
function addChannelMessages(db: MemoryDatabase, journal: Journal, orgId: string, messages: readonly NewChannelDelivery[]): ChannelDeliveryRecord[] {
  const taken = new Set<string>();
  for (const row of db.channelDeliveries.values()) taken.add(`${row.channelId}\u0000${row.dedupKey}`);
  const added: ChannelDeliveryRecord[] = [];
  for (const m of messages) {
    const channel = db.channels.get(m.channelId);
    const key = `${m.channelId}\u0000${m.dedupKey}`;
    if (channel === undefined || channel.orgId !== orgId || taken.has(key)) continue;
    taken.add(key);
    const row = newChannelDeliveryRow(orgId, m);
    journal.set(db.channelDeliveries, row.id, row);
    added.push(toChannelDeliveryRecord(row));
  }
  return added;
}

/** The readings and alert state of one check, then each name's readings past retention dropped. */
function recordTracked(db: MemoryDatabase, journal: Journal, orgId: string, monitorId: string, tracked: TrackedCheck): void {
  const at = normalizeStoreTime(tracked.at);
  const time = Date.parse(at);
  for (const reading of tracked.readings) {
    const id = newId("reading", time);
    journal.set(db.trackedValues, id, {
      id,
      orgId,
      monitorId,
      name: reading.name,
      at,
      snapshotId: tracked.snapshotId,
      value: reading.value === null ? null : copy(reading.value),
      reason: reading.value === null ? (reading.reason ?? null) : null,
    });
  }
  if (tracked.alertState !== undefined) {
    if (tracked.alertState === null) journal.delete(db.alertStates, monitorId);
    else journal.set(db.alertStates, monitorId, { orgId, state: copy(tracked.alertState) });
  }
  const keep = Math.max(1, Math.floor(tracked.retention ?? TRACKED_VALUE_RETENTION));
  const names = new Set(tracked.readings.map((reading) => reading.name));
  for (const name of names) {
    const ofName = [...db.trackedValues.values()].filter((r) => r.orgId === orgId && r.monitorId === monitorId && r.name === name).sort((a, b) => (a.id < b.id ? 1 : -1));
    for (const old of ofName.slice(keep)) journal.delete(db.trackedValues, old.id);
  }
}
