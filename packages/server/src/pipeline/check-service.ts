import { createHash } from "node:crypto";
import {
  buildPendingDiffDetectedEvent,
  compareSeverity,
  diffHtml,
  diffJson,
  DriftwatchError,
  type DriftwatchErrorOptions,
  FetchError,
  type Fetcher,
  type FetchResponse,
  isDriftwatchError,
  type MonitorPatch,
  type MonitorRecord,
  newId,
  type NewDiff,
  type NewSnapshot,
  type PolicyRules,
  type RecordCheckInput,
  type RecordCheckResult,
  type SnapshotRecord,
  type Store,
  StoreError,
} from "@driftwatch/core";
import type { CheckResult } from "@driftwatch/schema";
import type { EngineMetrics } from "../engine/metrics.js";
import type { CheckService } from "../types.js";
import { FAILING_THRESHOLD, nextCheckTime } from "./schedule.js";

/** Attempts to record one fetched content when other processes keep recording newer snapshots. */
const MAX_STALE_RETRIES = 3;

export type CheckErrorCode = "bad_status" | "invalid_body" | "diff_failed";

/** A check that reached the target but could not use its answer (error status, non-JSON body). */
export class CheckError extends DriftwatchError<CheckErrorCode> {
  override readonly name = "CheckError";
  constructor(code: CheckErrorCode, message: string, options?: DriftwatchErrorOptions) {
    super(code, message, options);
  }
}

/** What one check did, for the scheduler and the metrics. */
export interface CheckOutcome {
  monitor: MonitorRecord;
  /** `changed`: a new diff; `new_snapshot`: first or policy-silent content; `unchanged`: same hash or 304. */
  result: "changed" | "new_snapshot" | "unchanged" | "failed";
  /** The latest snapshot after the check (null only when no check ever succeeded). */
  snapshot: SnapshotRecord | null;
  diff: RecordCheckResult["diff"];
  deliveries: number;
  /** The error of a failed check (already recorded on the monitor). */
  error: FetchError | CheckError | null;
  durationMs: number;
}

export interface CheckObserver {
  onCheck?(outcome: CheckOutcome): void;
}

export interface CheckServiceOptions {
  store: Store;
  /** Fetches `api` monitors and `website` monitors without browser options. */
  httpFetcher: Fetcher;
  /** Renders `website` monitors that have `browserOptionsJson`; without it they are fetched over HTTP. */
  browserFetcher?: Fetcher | undefined;
  now?: () => Date;
  random?: () => number;
  observer?: CheckObserver;
  /** Counts checks and diffs and times them. */
  metrics?: Pick<EngineMetrics, "observeCheck" | "observeDiff">;
}

export interface EngineCheckService extends CheckService {
  /**
   * Runs one check of a monitor record the caller already holds (the scheduler's path). Never
   * throws for fetch or body problems: they are recorded. Throws when `signal` aborts the fetch
   * (nothing recorded) and for store errors (e.g. `not_found` when the monitor was deleted).
   */
  runCheck(monitor: MonitorRecord, context: { requestId: string; signal?: AbortSignal }): Promise<CheckOutcome>;
}

export function contentHash(body: string): string {
  return `sha256:${createHash("sha256").update(body, "utf8").digest("hex")}`;
}

function errorMessage(error: unknown): string {
  if (isDriftwatchError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The check pipeline: fetch (conditional GET with the previous snapshot's validators) -> hash ->
 * parse and diff with the monitor's policy -> one atomic `store.recordCheck` with the snapshot,
 * the diff, the outbox event and the monitor's new state.
 */
export function createCheckService(options: CheckServiceOptions): EngineCheckService {
  const { store, httpFetcher, browserFetcher } = options;
  const now = options.now ?? ((): Date => new Date());
  const random = options.random ?? Math.random;

  function fetcherFor(monitor: MonitorRecord): Fetcher {
    if (monitor.type === "website" && monitor.browserOptionsJson && browserFetcher) return browserFetcher;
    return httpFetcher;
  }

  async function recordFailure(
    monitor: MonitorRecord,
    error: FetchError | CheckError,
    status: number | null,
    at: Date,
    retention: number,
  ): Promise<MonitorRecord> {
    const failures = monitor.consecutiveFailures + 1;
    const patch: MonitorPatch = {
      lastCheckedAt: at.toISOString(),
      lastStatus: status,
      lastError: errorMessage(error),
      consecutiveFailures: failures,
      // Only a transition writes `state`: a pause made while the check ran must not be undone.
      ...(monitor.state === "active" && failures >= FAILING_THRESHOLD ? { state: "failing" as const } : {}),
      nextCheckAt: nextCheckTime(monitor.intervalSeconds, failures, at.getTime(), random),
      updatedAt: at.toISOString(),
    };
    const recorded = await store.recordCheck(monitor.orgId, { monitorId: monitor.id, monitor: patch, snapshot: null, diff: null, event: null, retention });
    return recorded.monitor;
  }

  function successPatch(monitor: MonitorRecord, response: FetchResponse, at: Date, changed: boolean): MonitorPatch {
    return {
      lastCheckedAt: at.toISOString(),
      lastStatus: response.status,
      lastError: null,
      consecutiveFailures: 0,
      ...(monitor.state === "failing" ? { state: "active" as const } : {}),
      nextCheckAt: nextCheckTime(monitor.intervalSeconds, 0, at.getTime(), random),
      updatedAt: at.toISOString(),
      ...(changed ? { lastChangedAt: at.toISOString() } : {}),
    };
  }

  function buildDiff(
    monitor: MonitorRecord,
    previous: SnapshotRecord,
    response: FetchResponse,
    policy: PolicyRules,
    context: { requestId: string; at: Date; parsed: unknown },
  ): NewDiff | null {
    const common = {
      id: newId("diff", context.at.getTime()),
      previousSnapshotId: previous.id,
      requestId: context.requestId,
      status: response.status,
      latencyMs: response.latencyMs,
      createdAt: context.at.toISOString(),
    };
    if (monitor.type === "api") {
      let before: unknown;
      try {
        before = JSON.parse(previous.body ?? "");
      } catch {
        return null; // the previous content was not JSON (the monitor changed type): start over
      }
      const after = context.parsed;
      const found = diffJson(before, after, { policy });
      if (!found) return null;
      return { ...common, ...found };
    }
    const found = diffHtml(previous.body ?? "", response.body, { selector: monitor.selector, policy });
    if (!found) return null;
    return {
      ...common,
      classification: found.classification,
      summary: found.summary,
      changedTargets: found.changedTargets,
      diffFingerprint: found.diffFingerprint,
      topSeverity: found.topSeverity,
      changes: found.changes,
      browserRender: response.browserRender,
      waitStrategy: response.waitStrategy,
      selector: monitor.selector,
    };
  }

  /**
   * Checks of one monitor in this process run one after the other (a "check now" while the
   * scheduler checks the same monitor): two checks reading the same previous snapshot would
   * record the same change twice. A check that waited re-reads the monitor first.
   */
  const tails = new Map<string, Promise<void>>();
  async function runCheck(monitor: MonitorRecord, context: { requestId: string; signal?: AbortSignal }): Promise<CheckOutcome> {
    const key = `${monitor.orgId}/${monitor.id}`;
    const previousTail = tails.get(key);
    let done!: () => void;
    const tail = new Promise<void>((resolve) => (done = resolve));
    tails.set(key, tail);
    try {
      let current = monitor;
      if (previousTail !== undefined) {
        await previousTail;
        const fresh = await store.getMonitor(monitor.orgId, monitor.id);
        if (fresh === null) throw new StoreError("not_found", `Monitor ${monitor.id} no longer exists`);
        current = fresh;
      }
      return await runCheckAlone(current, context);
    } finally {
      done();
      if (tails.get(key) === tail) tails.delete(key);
    }
  }

  async function runCheckAlone(monitor: MonitorRecord, context: { requestId: string; signal?: AbortSignal }): Promise<CheckOutcome> {
    const started = performance.now();
    const settings = await store.getSettings(monitor.orgId, monitor.id);
    const policy: PolicyRules = settings?.policyRulesJson ?? { rules: [] };
    const retention = settings?.snapshotRetention ?? 100;
    let previous = await store.getLatestSnapshot(monitor.orgId, monitor.id);
    const finish = (partial: Omit<CheckOutcome, "durationMs">): CheckOutcome => {
      const outcome = { ...partial, durationMs: performance.now() - started };
      options.metrics?.observeCheck(outcome.result, outcome.durationMs / 1000);
      if (outcome.diff) options.metrics?.observeDiff(outcome.diff.classification);
      options.observer?.onCheck?.(outcome);
      return outcome;
    };

    let response: FetchResponse;
    try {
      response = await fetcherFor(monitor).fetch({
        url: monitor.url,
        method: monitor.method,
        headers: monitor.headers,
        body: monitor.body,
        browserOptions: monitor.type === "website" ? monitor.browserOptionsJson : null,
        etag: previous?.etag ?? null,
        lastModified: previous?.lastModified ?? null,
        ...(context.signal ? { signal: context.signal } : {}),
      });
    } catch (error) {
      // Cancelled by the caller (shutdown): not the target's fault, so nothing is recorded.
      if (context.signal?.aborted) throw error;
      const fetchError =
        error instanceof FetchError || (isDriftwatchError(error) && error.name === "FetchError")
          ? (error as FetchError)
          : new FetchError("connection_failed", errorMessage(error), { cause: error });
      const updated = await recordFailure(monitor, fetchError, null, now(), retention);
      return finish({ monitor: updated, result: "failed", snapshot: previous, diff: null, deliveries: 0, error: fetchError });
    }
    const at = now();

    if (response.notModified && previous) return finish(await recordUnchanged(monitor, response, previous, at, retention));
    if (response.status < 200 || response.status >= 300) {
      const error = new CheckError("bad_status", `The target answered HTTP ${String(response.status)}`);
      const updated = await recordFailure(monitor, error, response.status, at, retention);
      return finish({ monitor: updated, result: "failed", snapshot: previous, diff: null, deliveries: 0, error });
    }
    const hash = contentHash(response.body);
    // Parsed only when the content changed (an unchanged hash means the same valid document).
    let parsed: unknown = null;
    if (monitor.type === "api" && previous?.contentHash !== hash) {
      try {
        parsed = JSON.parse(response.body);
      } catch (cause) {
        const error = new CheckError("invalid_body", `The response body is not JSON (${response.contentType ?? "no content-type"}, ${String(response.size)} bytes)`, { cause });
        const updated = await recordFailure(monitor, error, response.status, at, retention);
        return finish({ monitor: updated, result: "failed", snapshot: previous, diff: null, deliveries: 0, error });
      }
    }
    // The store records a new snapshot only if `previous` is still the newest: a check of this
    // monitor in another process may have recorded one meanwhile (stale_snapshot). Then the new
    // content is compared again with that snapshot, so one change is recorded (and sent) once.
    for (let attempt = 1; ; attempt++) {
      try {
        return finish(await compareAndRecord(monitor, response, previous, hash, parsed, { policy, retention, requestId: context.requestId, at }));
      } catch (error) {
        if (!isDriftwatchError(error) || error.code !== "stale_snapshot" || attempt >= MAX_STALE_RETRIES) throw error;
        // The content was parsed above: it differed from the snapshot this attempt compared with.
        previous = await store.getLatestSnapshot(monitor.orgId, monitor.id);
      }
    }
  }

  /** A successful check that found the newest snapshot's content again: only the monitor's fields change. */
  async function recordUnchanged(
    monitor: MonitorRecord,
    response: FetchResponse,
    previous: SnapshotRecord,
    at: Date,
    retention: number,
  ): Promise<Omit<CheckOutcome, "durationMs">> {
    const recorded = await store.recordCheck(monitor.orgId, {
      monitorId: monitor.id,
      monitor: successPatch(monitor, response, at, false),
      snapshot: null,
      diff: null,
      event: null,
      retention,
    });
    return { monitor: recorded.monitor, result: "unchanged", snapshot: previous, diff: null, deliveries: 0, error: null };
  }

  async function compareAndRecord(
    monitor: MonitorRecord,
    response: FetchResponse,
    previous: SnapshotRecord | null,
    hash: string,
    parsed: unknown,
    context: { policy: PolicyRules; retention: number; requestId: string; at: Date },
  ): Promise<Omit<CheckOutcome, "durationMs">> {
    const { policy, retention, at } = context;
    if (previous && previous.contentHash === hash) return recordUnchanged(monitor, response, previous, at, retention);
    const snapshot: NewSnapshot = {
      id: newId("snapshot", at.getTime()),
      fetchedAt: at.toISOString(),
      status: response.status,
      latencyMs: response.latencyMs,
      contentType: response.contentType,
      contentHash: hash,
      size: response.size,
      browserRender: response.browserRender,
      body: response.body,
      etag: response.headers["etag"] ?? null,
      lastModified: response.headers["last-modified"] ?? null,
    };
    let diff: NewDiff | null = null;
    if (previous) {
      try {
        diff = buildDiff(monitor, previous, response, policy, { requestId: context.requestId, at, parsed });
      } catch (cause) {
        const error = new CheckError("diff_failed", `The new content could not be compared: ${errorMessage(cause)}`, { cause });
        const updated = await recordFailure(monitor, error, response.status, at, retention);
        return { monitor: updated, result: "failed", snapshot: previous, diff: null, deliveries: 0, error };
      }
    }
    const minSeverity = policy.notify?.minSeverity;
    const notify = diff !== null && (minSeverity === undefined || compareSeverity(diff.topSeverity, minSeverity) >= 0);
    const input: RecordCheckInput = {
      monitorId: monitor.id,
      monitor: successPatch(monitor, response, at, diff !== null),
      snapshot,
      diff,
      event:
        diff && notify
          ? buildPendingDiffDetectedEvent(diff, { monitorId: monitor.id, snapshotId: snapshot.id, diffId: diff.id, occurredAt: at })
          : null,
      retention,
      previousSnapshotId: previous?.id ?? null,
    };
    const recorded = await store.recordCheck(monitor.orgId, input);
    return {
      monitor: recorded.monitor,
      result: recorded.diff ? "changed" : "new_snapshot",
      snapshot: recorded.snapshot,
      diff: recorded.diff,
      deliveries: recorded.deliveries.length,
      error: null,
    };
  }

  return {
    runCheck,
    async checkNow(orgId, monitorId, context): Promise<CheckResult | null> {
      const monitor = await store.getMonitor(orgId, monitorId);
      if (!monitor) return null;
      const outcome = await runCheck(monitor, context);
      if (outcome.error) throw outcome.error;
      if (!outcome.snapshot) throw new CheckError("invalid_body", "The check stored no snapshot");
      return { snapshot: toPublicSnapshot(outcome.snapshot), diff: outcome.diff ? toPublicDiff(outcome.diff) : null };
    },
  };
}

/** A stored snapshot as the API returns it from a check (no body, no store fields). */
export function toPublicSnapshot(record: SnapshotRecord): CheckResult["snapshot"] {
  return {
    id: record.id,
    monitorId: record.monitorId,
    fetchedAt: record.fetchedAt,
    status: record.status,
    latencyMs: record.latencyMs,
    contentType: record.contentType,
    contentHash: record.contentHash,
    size: record.size,
    browserRender: record.browserRender,
  };
}

function toPublicDiff(record: NonNullable<RecordCheckResult["diff"]>): NonNullable<CheckResult["diff"]> {
  const { orgId: _orgId, ...diff } = record;
  return diff;
}
