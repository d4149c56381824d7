import type { ApiDiff, Classification, DiffDetectedEvent, Page, Severity, Silenced, Snapshot, TrackedValue, WebsiteDiff } from "@driftwatch/schema";
import { StoreError } from "./errors.js";
import type { DeliveryRecord } from "./webhooks.js";
import type { ChannelDeliveryRecord, NewChannelDelivery } from "./channels.js";
import type { MonitorPatch, MonitorRecord } from "./monitors.js";
import type { PageRequest } from "./paging.js";
import type { SettingsRecord } from "./settings.js";
import { normalizeStoreTime } from "./time.js";

/** Snapshots of a monitor's content, newest first. */
export interface SnapshotStore {
  getLatestSnapshot(orgId: string, monitorId: string): Promise<SnapshotRecord | null>;
  /** Newest first; records without `body`. */
  listSnapshots(orgId: string, monitorId: string, page: PageRequest): Promise<Page<SnapshotRecord>>;
  /** With `body`. */
  getSnapshot(orgId: string, monitorId: string, id: string): Promise<SnapshotRecord | null>;
  /**
   * What a check of the monitor starts from, in one read where the adapter can: its settings (as
   * `getSettings`) and its newest snapshot with `body` (as `getLatestSnapshot`). Null when the
   * monitor is unknown. Optional for stores written by hand; `defineStore`'s stores have it.
   */
  getCheckBasis?(orgId: string, monitorId: string): Promise<CheckBasis | null>;
}

/** The settings and the newest snapshot a check starts from (see `SnapshotStore.getCheckBasis`). */
export interface CheckBasis {
  settings: SettingsRecord;
  latestSnapshot: SnapshotRecord | null;
}

/** Diffs between a monitor's snapshots, and the check that records them. */
export interface DiffStore {
  /** Newest first, filtered. */
  listDiffs(orgId: string, monitorId: string, query: DiffQuery): Promise<Page<DiffRecord>>;
  getDiff(orgId: string, monitorId: string, id: string): Promise<DiffRecord | null>;
  /**
   * The diff as the API serialises it: `JSON.stringify` of `getDiff`'s record without `orgId`
   * (members in `getDiff`'s order), same scoping as `getDiff`. An adapter that keeps the diff as
   * JSON text can return it without parsing and re-serialising it.
   */
  getDiffJson(orgId: string, monitorId: string, id: string): Promise<string | null>;

  /**
   * Records one check atomically: the monitor's check fields, the new snapshot (if any),
   * the diff (if any), and, when `event` is given, one pending delivery for every webhook of the
   * organization that is enabled, subscribed to `diff.detected`, covers the monitor
   * (`monitorIds` null or containing it) and whose `minSeverity` is at most the diff's
   * `topSeverity`. All or nothing. Then applies snapshot retention (keep the newest
   * `retention` snapshots of the monitor; the diffs recorded with dropped snapshots go too).
   * Raises `StoreError` `not_found` for an unknown or foreign monitor, and
   * `invariant_violation` for a diff without a snapshot, an event without a diff, or a diff
   * whose `previousSnapshotId` belongs to another monitor.
   */
  recordCheck(orgId: string, input: RecordCheckInput): Promise<RecordCheckResult>;
}

export interface DiffQuery extends PageRequest {
  since?: string | undefined;
  until?: string | undefined;
  minSeverity?: Severity | undefined;
  classification?: Classification | undefined;
}

export interface NewSnapshot {
  id: string;
  fetchedAt: string;
  status: number;
  latencyMs: number;
  contentType: string | null;
  contentHash: string;
  size: number;
  browserRender: boolean;
  body: string;
  /** Validators for the next conditional GET. */
  etag?: string | null;
  lastModified?: string | null;
  /** What the check hid when it recorded no diff (`Snapshot.silenced`); absent or null otherwise. */
  silenced?: Silenced | null;
}
export interface SnapshotRecord extends Snapshot {
  orgId: string;
  etag: string | null;
  lastModified: string | null;
}

type DiffInput<D> = Omit<D, "monitorId" | "snapshotId">;
/** A diff to record; `monitorId` and `snapshotId` come from the check. */
export type NewDiff = DiffInput<ApiDiff> | DiffInput<WebsiteDiff>;
export type DiffRecord = (ApiDiff | WebsiteDiff) & { orgId: string };

export interface RecordCheckInput {
  monitorId: string;
  /** The check's effect on the monitor (lastCheckedAt, lastStatus, state, ...). */
  monitor: MonitorPatch;
  /** The new snapshot, or null when the content did not change (or the check failed). */
  snapshot: NewSnapshot | null;
  diff: NewDiff | null;
  /** The `diff.detected` event, without `deliveredAt` (set when sent). */
  event: Omit<DiffDetectedEvent, "deliveredAt"> | null;
  /** Snapshots to keep for this monitor (default 100). */
  retention?: number;
  /**
   * The monitor's newest snapshot when the check began (null: it had none), the one its diff was
   * computed against. When given together with a snapshot to record, the store writes nothing
   * and throws `StoreError` `stale_snapshot` if by then the newest snapshot is another one: a
   * check of the same monitor (in another process) recorded first, so this check's diff is
   * against an outdated snapshot. Omitted: no such check.
   */
  previousSnapshotId?: string | null;
  /**
   * The owner of the monitor's lease (a claim from `claimDueMonitors`): the same write also ends
   * that lease, as `releaseMonitor` after the check would (with the patch's next check time), so
   * a claimed check is recorded and handed back in one transaction. A lease another owner holds
   * (this one's expired and was taken over) is left alone. Omitted: the lease is not touched.
   */
  releaseLease?: string;
  /**
   * Messages for notification channels (the check's change, or its monitor's health turning bad
   * or good), written in the same transaction as the check: a message of a channel that is not
   * the organization's (deleted meanwhile) is skipped, as is one whose (`channelId`, `dedupKey`)
   * is already in the outbox. Omitted or empty: none.
   */
  channelMessages?: readonly NewChannelDelivery[];
  /**
   * The tracked values this check read (monitors with `settings.track`) and the alert state it
   * left: written in the same transaction, then each name's readings beyond `retention` (the
   * oldest) are dropped. Omitted: nothing about tracked values changes.
   */
  tracked?: TrackedCheck;
}

/** One value a check read: the value, or null with the reason it is missing. */
export interface NewTrackedReading {
  name: string;
  value: TrackedValue | null;
  reason?: string | null;
}

/** What a check records about its tracked values and alert conditions (`RecordCheckInput.tracked`). */
export interface TrackedCheck {
  /** When the check ran (every reading's `at`). */
  at: string;
  /** The snapshot the values were read from: the check's new snapshot, or the monitor's newest one when the content did not change. */
  snapshotId: string;
  readings: NewTrackedReading[];
  /**
   * The alert evaluator's state after this check (JSON, see core's `AlertState`), kept for the
   * next check; null removes it; omitted leaves the stored state as it is.
   */
  alertState?: unknown;
  /** Readings kept per name, the newest (default `TRACKED_VALUE_RETENTION`). */
  retention?: number;
}

/** A stored reading of a tracked value. */
export interface TrackedReadingRecord {
  id: string;
  orgId: string;
  monitorId: string;
  name: string;
  at: string;
  snapshotId: string;
  value: TrackedValue | null;
  reason: string | null;
}

/** Tracked values a monitor's checks recorded, and the alert state its conditions carry from check to check. */
export interface TrackedValueStore {
  /** Readings of one tracked value of a monitor, newest first (an unknown or foreign monitor has none). */
  listTrackedValues(orgId: string, monitorId: string, name: string, page: PageRequest): Promise<Page<TrackedReadingRecord>>;
  /** The alert state the monitor's last check left (`TrackedCheck.alertState`), or null. */
  getAlertState(orgId: string, monitorId: string): Promise<unknown>;
}

export interface RecordCheckResult {
  monitor: MonitorRecord;
  snapshot: SnapshotRecord | null;
  diff: DiffRecord | null;
  deliveries: DeliveryRecord[];
  /** The channel messages added (see `RecordCheckInput.channelMessages`); absent when none were asked for. */
  channelDeliveries?: ChannelDeliveryRecord[];
}

/** The writes of `recordCheck`, in order. */
export type RecordCheckStage = "monitor" | "snapshot" | "diff" | "deliveries" | "retention";

/**
 * Instrumentation adapters accept in their options (`hooks`), for the contract suite: called
 * synchronously inside the transaction after each write of `recordCheck`; a hook that throws
 * must make the whole check roll back.
 */
export interface StoreHooks {
  onRecordCheckStage?(stage: RecordCheckStage): void;
}

/** The record `recordCheck` stores for a new snapshot: times normalised, absent validators null. */
export function snapshotRecordOf(orgId: string, monitorId: string, snapshot: NewSnapshot): SnapshotRecord & { body: string } {
  return {
    id: snapshot.id,
    orgId,
    monitorId,
    fetchedAt: normalizeStoreTime(snapshot.fetchedAt),
    status: snapshot.status,
    latencyMs: snapshot.latencyMs,
    contentType: snapshot.contentType,
    contentHash: snapshot.contentHash,
    size: snapshot.size,
    browserRender: snapshot.browserRender,
    body: snapshot.body,
    etag: snapshot.etag ?? null,
    lastModified: snapshot.lastModified ?? null,
    ...(snapshot.silenced != null ? { silenced: snapshot.silenced } : {}),
  };
}

/** The diff as the API serialises it: the record without `orgId`, through `JSON.stringify`. */
export function diffJsonOf(diff: DiffRecord): string {
  const { orgId: _orgId, ...rest } = diff;
  return JSON.stringify(rest);
}

/**
 * The refusal of `recordCheck` when `previousSnapshotId` is no longer the monitor's newest
 * snapshot (`latest`): nothing was written.
 */
export function staleSnapshotError(expected: string | null, latest: string | null): StoreError {
  return new StoreError(
    "stale_snapshot",
    `The check was compared with snapshot ${expected ?? "(none)"}, but the monitor's newest snapshot is now ${latest ?? "(none)"}; nothing was recorded.`,
  );
}

/** The refusals of `recordCheck` that need no data: a diff without its snapshot, an event without its diff. */
export function checkShapeError(input: RecordCheckInput): StoreError | null {
  if (input.diff !== null && input.snapshot === null) return new StoreError("invariant_violation", "A diff needs the snapshot it was computed on.");
  if (input.event !== null && input.diff === null) return new StoreError("invariant_violation", "A diff.detected event needs its diff.");
  return null;
}
