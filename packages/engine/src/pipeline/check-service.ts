import { createHash } from "node:crypto";
import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import {
  buildPendingDiffDetectedEvent,
  compareSeverity,
  DriftwatchError,
  type DriftwatchErrorOptions,
  FetchError,
  type Fetcher,
  type FetchResponse,
  isDriftwatchError,
  type MonitorPatch,
  type MonitorRecord,
  newId,
  type NewChannelDelivery,
  type NewDiff,
  type NewSnapshot,
  type PendingDiffDetectedEvent,
  type PolicyRules,
  type RecordCheckInput,
  type RecordCheckResult,
  type ScreenshotStorage,
  type SettingsRecord,
  type SnapshotRecord,
  type Store,
  StoreError,
} from "@driftwatch/core";
import { type Change, type CheckResult, type MonitorFailure, NOISE_MIN_SAMPLES, type Severity, SILENCED_MAX_ENTRIES, type Silenced } from "@driftwatch/schema";
import {
  DEFAULT_CHECK_CONCURRENCY,
  DEFAULT_COMPARE_LIMITS,
  DEFAULT_MAX_WEBHOOK_PAYLOAD_BYTES,
  DEFAULT_SNAPSHOT_RETENTION,
  MAX_LEARNING_SAMPLES,
  MAX_STALE_RETRIES,
  MAX_WARMUP_SAMPLES,
} from "../limits.js";
import type { EngineMetrics } from "../metrics.js";
import type { CheckService } from "../ports.js";
import { type ComparePool, createComparePool, type PooledCompareResult } from "../workers/compare-pool.js";
import { learnedOriginOf, mergeSuggestedPolicy, type NoiseLearner } from "./noise.js";
import { alertNotifies, alertOnlyDiff, alertResultOf, type CheckConditions, failedCheckTracked, judgeCheck, loadConditions, withAlert } from "./conditions.js";
import type { HiddenChanges } from "../workers/compare.js";
import { FAILING_THRESHOLD, nextCheckTime } from "./schedule.js";
import { createVisualChecks, screenshotMaskOf, withVisual } from "./visual.js";
import { bundleResponse } from "../openapi/bundle.js";
import { ContractChecker, withViolations } from "../openapi/contract-checker.js";
import { channelMessagesFor, withMessages } from "./channel-messages.js";

/** Store errors a check passes on (not the content's doing): everything else is recorded on the monitor. */
const INFRASTRUCTURE_CODES: ReadonlySet<string> = new Set(["stale_snapshot", "not_found", "store_closed", "store_unavailable"]);

export type CheckErrorCode =
  | "bad_status"
  | "invalid_body"
  | "diff_failed"
  /** Another process checked the monitor on this one's behalf and recorded a failure (api-only servers). */
  | "check_failed"
  /** The content is larger than the comparison limit, or its comparison needs too much memory. */
  | "target_too_large"
  /** The comparison ran past its time limit in a worker thread and was stopped. */
  | "analysis_timeout"
  /** The page nests elements (or the JSON document containers) past the depth limit. */
  | "too_deep"
  /** The policy's selectors would take too much work to match on this page. */
  | "rule_budget_exceeded"
  /** The stored policy or selector cannot be applied (e.g. a selector the CSS engine refuses). */
  | "invalid_policy_rules"
  | "invalid_input"
  /** The store refused the check's result (e.g. a value the database cannot hold). */
  | "store_rejected"
  /** An api monitor's contract cannot be applied: its OpenAPI document cannot be read, or names no such operation or response. */
  | "contract_failed";

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
  /** Learns noise from recent snapshots for monitors with `autoApplySuggestions` (without it the setting has no effect). */
  noise?: NoiseLearner;
  /**
   * Parses and compares contents (in worker threads above a size threshold) and caps diffs.
   * Without it the service makes one with the default limits and closes it in `close()`.
   */
  compare?: ComparePool;
  /** A webhook payload lists changes up to this size (default 256 KB); past it, `data.truncated` and `data.diffUrl`. */
  maxWebhookPayloadBytes?: number;
  /**
   * Caps of a stored diff once a check's contract violations are added to it (default: the
   * `compare` pool's, else 1000 changes and 1 MB, as the comparison's own).
   */
  maxDiffChanges?: number;
  maxDiffBytes?: number;
  /** Base URL for `data.diffUrl` (`https://driftwatch.example.com`); without it the link is a path. */
  publicUrl?: string | null;
  /** Where website monitors' screenshots are kept (default: the store). */
  screenshots?: ScreenshotStorage;
  /** Largest screenshot kept, in bytes (default 4 MB); a larger one is compared but not kept. */
  maxStoredScreenshotBytes?: number;
  /** Resolves a browser step's `secret` (a stored secret's name in the monitor's organization) to its value. */
  resolveSecret?: (orgId: string, name: string) => Promise<string | undefined>;
  /** Told when a screenshot could not be compared or kept (the check itself goes on). */
  onScreenshotError?: (error: unknown, monitor: MonitorRecord) => void;
  /** Validates `api` monitors' responses against their contracts (default: one over `store` and `httpFetcher`). */
  contracts?: ContractChecker;
  /**
   * The warm-up of learning monitors (default: none): the check that stores the first content of
   * a monitor that learns its noise (at creation, and the first since its target changed) is
   * followed by `samples` more fetches, so the monitor's next check is judged with what it
   * learned from three contents instead of one. The check resolves after its warm-up, unless its
   * caller detaches it (`RunCheckContext.detachWarmup`, the scheduler's checks).
   */
  warmup?: WarmupOptions;
  /** Told when a warm-up fetch failed to run (a store error); the warm-up stops there. */
  onWarmupError?: (error: unknown, monitor: MonitorRecord) => void;
}

/** See `CheckServiceOptions.warmup` and docs/signal.md ("The first fetches"). */
export interface WarmupOptions {
  /** Extra fetches after a learning monitor's first content (0: no warm-up). */
  samples: number;
  /**
   * Wait before each of them (ms). Warm-up requests of one process to one host (`hostname:port`)
   * are also limited to `hostBurst` per interval, whichever monitors they are for.
   */
  intervalMs: number;
  /**
   * Warm-up requests one process sends to one host per `intervalMs`, all monitors together
   * (default 8): many monitors created at once on one API warm up within seconds, not minutes.
   */
  hostBurst?: number;
  /**
   * No warm-up fetch starts later than this after the first content (ms; default
   * `samples x intervalMs` + 10 s, at most 60 s): a slow target or a busy host shortens the
   * warm-up instead of a check (or a monitor's next check) waiting minutes for it.
   */
  maxMs?: number;
  /**
   * Warm-up fetches in flight at once in this process, all monitors together (default 8, the
   * engine's check concurrency): a burst of new monitors cannot double the requests in flight.
   */
  concurrency?: number;
  /**
   * Detached warm-ups (the scheduler's) running at once (default 1,000). Past it, a new monitor's
   * first check is not followed by a warm-up: the monitor learns from its regular checks, as with
   * `samples: 0`.
   */
  backlog?: number;
  /**
   * A learning monitor's diff is recorded as `learning` while its noise profile was learned from
   * fewer than this many stored contents (default 2, `NOISE_MIN_SAMPLES`: only the second content;
   * the engine's default is 3, `DEFAULT_LEARNING_SAMPLES`). A monitor's settings may set their own
   * (`learning.learningSamples`), as they may set `learning.warmupSamples`. A learning diff judged
   * from two contents or more notifies when a change is rated `medium` or above; any learning
   * diff notifies when it removes something or changes a type.
   */
  learningSamples?: number;
}

/** Warm-up requests to one host per interval, by default. */
export const DEFAULT_WARMUP_HOST_BURST = 8;
/** The default `maxMs` of a warm-up is `samples x intervalMs` plus this (ms). */
export const WARMUP_SLACK_MS = 10_000;
/** No warm-up fetch starts later than this after the first content, whatever the settings (ms). */
export const WARMUP_MAX_MS = 60_000;
/** Detached warm-ups running at once in one process, by default (`WarmupOptions.backlog`). */
export const DEFAULT_WARMUP_BACKLOG = 1000;

/**
 * The outbox event of a diff, bounded: when the diff was truncated or the event would pass
 * `maxBytes`, `data.changes` lists the first changes that fit, `data.truncated` is true and
 * `data.diffUrl` links to the stored diff. The counts always cover every change.
 */
export function boundEvent(
  event: PendingDiffDetectedEvent,
  diff: NewDiff,
  options: { maxBytes: number; publicUrl: string | null },
): PendingDiffDetectedEvent {
  const total = Buffer.byteLength(JSON.stringify(event), "utf8");
  if (diff.truncated !== true && total <= options.maxBytes) return event;
  const data = { ...event.data };
  if (diff.classification === "content_change") {
    data.valueChanges = diff.summary.additions + diff.summary.removals + diff.summary.modifications;
  }
  const path = `/api/monitors/${encodeURIComponent(event.monitorId)}/diffs/${encodeURIComponent(event.diffId)}`;
  data.truncated = true;
  data.diffUrl = `${options.publicUrl ?? ""}${path}`;
  const all = data.changes;
  data.changes = [];
  // Room left for the changes ("deliveredAt" is added at delivery: 60 bytes are kept for it).
  let bytes = Buffer.byteLength(JSON.stringify({ ...event, data }), "utf8") + 60;
  const kept: typeof all = [];
  for (const change of all) {
    const size = Buffer.byteLength(JSON.stringify(change), "utf8") + 1;
    if (bytes + size > options.maxBytes) break;
    bytes += size;
    kept.push(change);
  }
  data.changes = kept;
  return { ...event, data };
}

/** What every record of a check carries besides its result: retention, and the claim it ends. */
type RecordOptions = Pick<RecordCheckInput, "retention" | "releaseLease">;

/** What recording a successful check needs besides its content: how it is kept, its conditions, its request. */
interface RecordContext {
  keep: RecordOptions;
  conditions: CheckConditions | null;
  requestId: string;
}

export interface RunCheckContext {
  requestId: string;
  signal?: AbortSignal;
  /**
   * Called once the request to the target is over (answered, failed or cancelled), before the
   * result is compared and recorded: the scheduler frees the target host's slot then, so the
   * per-host cap bounds requests to the host, not database writes.
   */
  onFetched?: () => void;
  /**
   * The owner of the monitor's claim (the scheduler's work queue, when its claims are the
   * store's leases): the check's record ends the claim in the same write (`recordCheck`'s
   * `releaseLease`, with the next check time it records). When `runCheck` resolves, the claim has
   * ended (or had been taken over); when it throws, nothing was recorded and the claim still holds.
   */
  releaseLease?: string;
  /**
   * A warm-up fetch (the service's own, see `CheckServiceOptions.warmup`): its diff, if any, is a
   * `learning` one (notified only when it removes something or changes a type).
   */
  warmup?: boolean;
  /**
   * The check resolves as soon as its content is recorded, and a warm-up that follows it goes on
   * in the background (the scheduler's checks: a warm-up sleeping between its fetches holds no
   * check slot and no host slot). `onFetched` is called when the check's own request is over; the
   * warm-up's requests are bounded by the warm-up's own per-host limit and `concurrency`. Checks
   * of the same monitor in this process still run after the warm-up; a detached check of it (the
   * monitor's next scheduled check) ends the warm-up first. Without it, the check resolves after
   * its warm-up and frees the host only then (a "check now" a user waits for, see docs/signal.md).
   */
  detachWarmup?: boolean;
}

export interface EngineCheckService extends CheckService {
  /**
   * Runs one check of a monitor record the caller already holds (the scheduler's path). Never
   * throws for fetch, content or comparison problems: they are recorded with a code (a result the
   * store refuses too: `store_rejected`). Throws when `signal` aborts the fetch (nothing
   * recorded) and for store errors that are not the content's doing (`not_found` when the
   * monitor was deleted, `store_unavailable`, `store_closed`, `stale_snapshot` after retries).
   */
  runCheck(monitor: MonitorRecord, context: RunCheckContext): Promise<CheckOutcome>;
  /**
   * Ends the detached warm-ups (`RunCheckContext.detachWarmup`) where they are, a fetch in flight
   * cancelled and not recorded; resolves when they have ended (the engine's `stop()`).
   */
  stopDetachedWarmups(): Promise<void>;
  /** Ends the warm-ups and the comparison worker threads this service started (not a `compare` pool passed in). */
  close(): Promise<void>;
}

export function contentHash(body: string): string {
  return `sha256:${createHash("sha256").update(body, "utf8").digest("hex")}`;
}

function errorMessage(error: unknown): string {
  if (isDriftwatchError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** A failed check's error as the monitor keeps it structured (`lastFailure`): its code, message and failed browser step. */
function failureOf(error: FetchError | CheckError): MonitorFailure {
  const failed = error.name === "FetchError" ? (error as FetchError).step : undefined;
  const step = failed === undefined ? null : { index: failed.index, action: failed.action, selector: failed.selector };
  return { reason: error.code, message: error.message, step };
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
  const compare = options.compare ?? createComparePool();
  const visuals = createVisualChecks({
    storage: options.screenshots ?? store,
    compare: (task) => compare.visual(task),
    ...(options.maxStoredScreenshotBytes === undefined ? {} : { maxStoredBytes: options.maxStoredScreenshotBytes }),
    ...(options.onScreenshotError === undefined ? {} : { onError: options.onScreenshotError }),
  });
  // contract documents too big to read on the event loop are read (and checked against) in the compare pool
  const contracts = options.contracts ?? new ContractChecker({ store, fetcher: httpFetcher, now, compare });
  const diffCaps = {
    maxChanges: options.maxDiffChanges ?? compare.diffCaps?.maxDiffChanges ?? DEFAULT_COMPARE_LIMITS.maxDiffChanges,
    maxBytes: options.maxDiffBytes ?? compare.diffCaps?.maxDiffBytes ?? DEFAULT_COMPARE_LIMITS.maxDiffBytes,
  };

  function fetcherFor(monitor: MonitorRecord): Fetcher {
    if (monitor.type === "website" && monitor.browserOptionsJson && browserFetcher) return browserFetcher;
    return httpFetcher;
  }

  async function recordFailure(
    monitor: MonitorRecord,
    error: FetchError | CheckError,
    status: number | null,
    at: Date,
    keep: RecordOptions,
    conditions: CheckConditions | null = null,
    latestSnapshotId: string | null = null,
  ): Promise<MonitorRecord> {
    const failures = monitor.consecutiveFailures + 1;
    const patch: MonitorPatch = {
      lastCheckedAt: at.toISOString(),
      lastStatus: status,
      lastError: errorMessage(error),
      lastFailure: failureOf(error),
      consecutiveFailures: failures,
      // Only a transition writes `state`: a pause made while the check ran must not be undone.
      ...(monitor.state === "active" && failures >= FAILING_THRESHOLD ? { state: "failing" as const } : {}),
      nextCheckAt: nextCheckTime(monitor.intervalSeconds, failures, at.getTime(), random),
      updatedAt: at.toISOString(),
    };
    // Notification channels hear of the monitor turning failing (issue 27), in the same write.
    const channelMessages = patch.state === "failing" ? await channelMessagesFor(store, { kind: "health", event: "monitor.failing", monitor, reason: errorMessage(error), consecutiveFailures: failures }, at) : [];
    // A failed check has no values: its alert conditions do not hold and their `forChecks` streaks start again.
    const tracked = failedCheckTracked(conditions, errorMessage(error), at, latestSnapshotId);
    const recorded = await store.recordCheck(monitor.orgId, {
      monitorId: monitor.id,
      monitor: patch,
      snapshot: null,
      diff: null,
      event: null,
      ...keep,
      ...(tracked === null ? {} : { tracked }),
      ...withMessages(channelMessages),
    });
    return recorded.monitor;
  }

  /** Messages of a monitor that was failing and checks fine again: `monitor.recovered`. */
  function recoveredMessages(monitor: MonitorRecord, at: Date): Promise<NewChannelDelivery[]> {
    if (monitor.state !== "failing") return Promise.resolve([]);
    return channelMessagesFor(store, { kind: "health", event: "monitor.recovered", monitor, reason: null, consecutiveFailures: monitor.consecutiveFailures }, at);
  }

  function successPatch(monitor: MonitorRecord, response: FetchResponse, at: Date, changed: boolean): MonitorPatch {
    return {
      lastCheckedAt: at.toISOString(),
      lastStatus: response.status,
      lastError: null,
      lastFailure: null,
      consecutiveFailures: 0,
      ...(monitor.state === "failing" ? { state: "active" as const } : {}),
      nextCheckAt: nextCheckTime(monitor.intervalSeconds, 0, at.getTime(), random),
      updatedAt: at.toISOString(),
      ...(changed ? { lastChangedAt: at.toISOString() } : {}),
    };
  }

  /**
   * Parses the new content and compares it with `previous` (inline, or in a worker thread for
   * big contents): a diff, null for no diff (first snapshot, nothing changed after the policy,
   * previous content not JSON), or the CheckError to record.
   */
  async function analyze(
    monitor: MonitorRecord,
    previous: SnapshotRecord | null,
    response: FetchResponse,
    policy: PolicyRules,
    context: { requestId: string; at: Date; explain: boolean },
  ): Promise<{ diff: NewDiff | null; hidden: HiddenChanges | undefined } | CheckError> {
    let result: PooledCompareResult;
    try {
      result = await compare.compare({
        type: monitor.type,
        ...(monitor.type === "openapi" ? { url: monitor.url } : {}),
        body: response.body,
        previousBody: previous === null ? null : (previous.body ?? ""),
        policy,
        selector: monitor.selector,
        ...(context.explain ? { explain: true } : {}),
      });
    } catch (cause) {
      return new CheckError("diff_failed", `The new content could not be compared: ${errorMessage(cause)}`, { cause });
    }
    if (!result.ok) {
      const message =
        result.code === "invalid_body" ? `${result.message} (${response.contentType ?? "no content-type"}, ${String(response.size)} bytes)` : result.message;
      return new CheckError(result.code, message);
    }
    const found = result.diff;
    const hidden = result.hidden;
    if (found === null || previous === null) return { diff: null, hidden };
    const common = {
      id: newId("diff", context.at.getTime()),
      previousSnapshotId: previous.id,
      requestId: context.requestId,
      status: response.status,
      latencyMs: response.latencyMs,
      createdAt: context.at.toISOString(),
    };
    if (found.classification !== "content_change") return { diff: { ...common, ...found }, hidden };
    return {
      diff: {
        ...common,
        ...found,
        browserRender: response.browserRender,
        waitStrategy: response.waitStrategy,
        selector: monitor.selector,
      },
      hidden,
    };
  }

  /**
   * Checks of one monitor in this process run one after the other (a "check now" while the
   * scheduler checks the same monitor): two checks reading the same previous snapshot would
   * record the same change twice. A check that waited re-reads the monitor first.
   */
  const tails = new Map<string, Promise<void>>();
  async function runCheck(monitor: MonitorRecord, context: RunCheckContext): Promise<CheckOutcome> {
    const key = `${monitor.orgId}/${monitor.id}`;
    // The monitor's next scheduled check ends its detached warm-up (a fetch in flight is
    // cancelled) instead of holding a check slot while the warm-up sleeps: the schedule takes over.
    if (context.detachWarmup === true) detachedWarmups.get(key)?.stop.abort();
    const previousTail = tails.get(key);
    let done!: () => void;
    const tail = new Promise<void>((resolve) => (done = resolve));
    tails.set(key, tail);
    const release = (): void => {
      done();
      if (tails.get(key) === tail) tails.delete(key);
    };
    // A detached warm-up keeps the monitor's tail until it ends.
    let detached = false;
    try {
      let current = monitor;
      if (previousTail !== undefined) {
        await previousTail;
        const fresh = await store.getMonitor(monitor.orgId, monitor.id);
        if (fresh === null) throw new StoreError("not_found", `Monitor ${monitor.id} no longer exists`);
        current = fresh;
      }
      // A check that may be followed by a warm-up tells the caller the target's host is free only
      // after the warm-up: its requests count against the host's limit as the check's own.
      const plan = { deferFetched: false };
      try {
        const outcome = await runCheckAlone(current, context, plan);
        // The warm-up is part of the check: the check resolves after it (a check asked for meanwhile
        // runs after it), so the next check finds the contents it stored. A detached one goes on in
        // the background, still ahead of this monitor's next check in this process.
        if (startsWarmup.has(outcome)) {
          if (context.detachWarmup === true) detached = warmUpDetached(outcome.monitor, key, context, release);
          else await warmUp(outcome.monitor, context);
        }
        return outcome;
      } finally {
        if (plan.deferFetched) context.onFetched?.();
      }
    } finally {
      if (!detached) release();
    }
  }

  /** Outcomes of checks that stored a learning monitor's first content: a warm-up follows. */
  const startsWarmup = new WeakSet<CheckOutcome>();
  const warmup: Required<WarmupOptions> = {
    samples: clampSamples(options.warmup?.samples ?? 0, 0, MAX_WARMUP_SAMPLES),
    learningSamples: clampSamples(options.warmup?.learningSamples ?? NOISE_MIN_SAMPLES, NOISE_MIN_SAMPLES, MAX_LEARNING_SAMPLES),
    intervalMs: Math.max(0, options.warmup?.intervalMs ?? 0),
    hostBurst: Math.max(1, Math.floor(options.warmup?.hostBurst ?? DEFAULT_WARMUP_HOST_BURST)),
    maxMs: 0,
    concurrency: Math.max(1, Math.floor(options.warmup?.concurrency ?? DEFAULT_CHECK_CONCURRENCY)),
    backlog: Math.max(0, Math.floor(options.warmup?.backlog ?? DEFAULT_WARMUP_BACKLOG)),
  };
  warmup.maxMs = Math.min(WARMUP_MAX_MS, Math.max(0, options.warmup?.maxMs ?? warmup.samples * warmup.intervalMs + WARMUP_SLACK_MS));
  /** The monitor's own warm-up fetches (its settings' `learning.warmupSamples`), else the service's. */
  const warmupSamplesOf = (settings: SettingsRecord | null): number =>
    settings?.learning?.warmupSamples == null ? warmup.samples : clampSamples(settings.learning.warmupSamples, 0, MAX_WARMUP_SAMPLES);
  /** The monitor's own learning samples (its settings' `learning.learningSamples`), else the service's. */
  const learningSamplesOf = (settings: SettingsRecord | null): number =>
    settings?.learning?.learningSamples == null ? warmup.learningSamples : clampSamples(settings.learning.learningSamples, NOISE_MIN_SAMPLES, MAX_LEARNING_SAMPLES);
  /**
   * How many stored contents a learning monitor grows up at: its learning samples, but never more
   * than it can ever have (its snapshot retention keeps that many; the learner counts at most its
   * `capacity`), or it would stay young forever.
   */
  const grownUpAt = (settings: SettingsRecord | null, learned: LearnedPolicy): number =>
    Math.min(learningSamplesOf(settings), Math.max(1, settings?.snapshotRetention ?? DEFAULT_SNAPSHOT_RETENTION), learned.capacity ?? Infinity);
  /** With a per-monitor number of fetches, the warm-up's own deadline. */
  const warmupMaxMs = (samples: number): number =>
    options.warmup?.maxMs !== undefined ? warmup.maxMs : Math.min(WARMUP_MAX_MS, samples * warmup.intervalMs + WARMUP_SLACK_MS);
  const warmupStop = new AbortController();
  // one listener per warm-up a caller waits for (as many as the callers)
  setMaxListeners(0, warmupStop.signal);
  /** Warm-ups running: closing the service waits for them (they use the compare pool). */
  const warmups = new Set<Promise<void>>();
  /** Per host (`hostname:port`): when this process may send its next warm-up request there (epoch ms). */
  const warmupHostFree = new Map<string, number>();
  /** Detached warm-ups running, per monitor (`orgId/id`): what ends each, and its end. */
  const detachedWarmups = new Map<string, { stop: AbortController; done: Promise<void> }>();
  /** Warm-up fetches in flight, and the warm-ups waiting for one of the `warmup.concurrency` slots. */
  let warmupFetching = 0;
  const warmupFetchWaiters: (() => void)[] = [];

  function hostOf(url: string): string {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  }

  /**
   * Takes the host's next warm-up slot no sooner than `notBefore` and waits for it; false (no slot
   * taken) when that slot is past `deadline`: a busy host skips the sample instead of queueing it.
   */
  async function warmupTurn(host: string, signal: AbortSignal, notBefore: number, deadline: number): Promise<boolean> {
    const at = Math.max(notBefore, warmupHostFree.get(host) ?? 0);
    if (at > deadline) return false;
    warmupHostFree.set(host, at + warmup.intervalMs / warmup.hostBurst);
    if (warmupHostFree.size > 10_000) {
      const now = Date.now();
      for (const [name, free] of warmupHostFree) if (free < now) warmupHostFree.delete(name);
    }
    const wait = at - Date.now();
    if (wait > 0) await sleep(wait, undefined, { signal });
    return true;
  }

  /** Waits for one of the `warmup.concurrency` warm-up fetch slots (rejects when `signal` aborts). */
  async function warmupFetchSlot(signal: AbortSignal): Promise<void> {
    while (warmupFetching >= warmup.concurrency) {
      signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const wake = (): void => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        };
        const onAbort = (): void => {
          const at = warmupFetchWaiters.indexOf(wake);
          if (at >= 0) warmupFetchWaiters.splice(at, 1);
          reject(signal.reason as Error);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        warmupFetchWaiters.push(wake);
      });
    }
    warmupFetching++;
  }
  function warmupFetchDone(): void {
    warmupFetching--;
    warmupFetchWaiters.shift()?.();
  }

  /**
   * Starts a detached warm-up (see `RunCheckContext.detachWarmup`); `finished` is called when it
   * ends. False when `warmup.backlog` detached warm-ups already run: the monitor has none.
   */
  function warmUpDetached(first: MonitorRecord, key: string, context: RunCheckContext, finished: () => void): boolean {
    if (detachedWarmups.size >= warmup.backlog || warmupStop.signal.aborted) return false;
    const stop = new AbortController();
    const entry = {
      stop,
      done: warmUp(first, context, stop).finally(() => {
        if (detachedWarmups.get(key) === entry) detachedWarmups.delete(key);
        finished();
      }),
    };
    detachedWarmups.set(key, entry);
    return true;
  }

  /**
   * `warmup.samples` more fetches of a monitor whose first content was just stored, each one
   * `intervalMs` after the one before (and no sooner than the host's next warm-up slot), recorded
   * as checks (a changed content is a snapshot, a diff is `learning`). It stops when the service
   * closes or the caller cancels, the monitor is gone, paused, no longer learning or points
   * elsewhere, or a fetch fails. Its errors are told to `onWarmupError`, never thrown: the check
   * it follows has been recorded.
   */
  async function warmUp(first: MonitorRecord, context: RunCheckContext, detached?: AbortController): Promise<void> {
    // stopped when the service closes, or when the caller cancels the check (shutdown); a listener
    // removed at the end, not AbortSignal.any (whose signals live as long as the caller's). A
    // detached one is stopped through `detachedWarmups` instead (no listener per warm-up).
    const stop = detached ?? new AbortController();
    const signal = stop.signal;
    const abort = (): void => stop.abort();
    const sources = detached !== undefined ? [] : context.signal === undefined ? [warmupStop.signal] : [warmupStop.signal, context.signal];
    for (const source of sources) {
      if (source.aborted) stop.abort();
      else source.addEventListener("abort", abort, { once: true });
    }
    const running = warmUpRun(first, context, signal).finally(() => {
      for (const source of sources) source.removeEventListener("abort", abort);
      warmups.delete(running);
    });
    warmups.add(running);
    return running;
  }

  async function warmUpRun(first: MonitorRecord, context: RunCheckContext, signal: AbortSignal): Promise<void> {
    const target = (m: MonitorRecord): string => JSON.stringify([m.url, m.method, m.body, m.selector, m.learningSince ?? null]);
    const host = hostOf(first.url);
    // a check (or the monitor's next check) waits for the warm-up: a slow target or a busy host shortens it instead
    const samples = warmupSamplesOf(await store.getSettings(first.orgId, first.id));
    const deadline = Date.now() + warmupMaxMs(samples);
    // The last check this warm-up knows of: another one (another process's, sharing the store) means
    // the monitor is checked elsewhere now, and the warm-up stops rather than record beside it.
    let lastCheckedAt = first.lastCheckedAt;
    try {
      for (let sample = 1; sample <= samples; sample++) {
        if (!(await warmupTurn(host, signal, Date.now() + warmup.intervalMs, deadline))) return;
        await warmupFetchSlot(signal);
        try {
          if (Date.now() > deadline) return;
          const monitor = await store.getMonitor(first.orgId, first.id);
          if (monitor === null || monitor.state === "paused" || target(monitor) !== target(first) || monitor.lastCheckedAt !== lastCheckedAt) return;
          const settings = await store.getSettings(monitor.orgId, monitor.id);
          if (settings?.autoApplySuggestions !== true) return;
          const outcome = await runCheckAlone(monitor, { requestId: context.requestId, signal, warmup: true });
          if (outcome.result === "failed") return;
          lastCheckedAt = outcome.monitor.lastCheckedAt;
        } finally {
          warmupFetchDone();
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      // the monitor was deleted, or checked elsewhere meanwhile (a newer snapshot than the one compared with)
      if (isDriftwatchError(error) && (error.code === "not_found" || error.code === "stale_snapshot")) return;
      options.onWarmupError?.(error, first);
    }
  }

  async function runCheckAlone(monitor: MonitorRecord, context: RunCheckContext, plan?: { deferFetched: boolean }): Promise<CheckOutcome> {
    const started = performance.now();
    // Settings and the newest snapshot, in one read where the store has one.
    const basis =
      store.getCheckBasis !== undefined
        ? await store.getCheckBasis(monitor.orgId, monitor.id)
        : await Promise.all([store.getSettings(monitor.orgId, monitor.id), store.getLatestSnapshot(monitor.orgId, monitor.id)]).then(([settings, latestSnapshot]) =>
            settings === null ? null : { settings, latestSnapshot },
          );
    const settings = basis?.settings ?? null;
    const userPolicy: PolicyRules = settings?.policyRulesJson ?? { rules: [] };
    // An OpenAPI document's versions are compared by API rules, not learned from.
    const learning = settings?.autoApplySuggestions === true && options.noise !== undefined && monitor.type !== "openapi";
    // How the check is recorded: snapshots to keep, and the claim its write ends (the scheduler's).
    const keep: RecordOptions = {
      retention: settings?.snapshotRetention ?? DEFAULT_SNAPSHOT_RETENTION,
      ...(context.releaseLease !== undefined ? { releaseLease: context.releaseLease } : {}),
    };
    let previous = basis?.latestSnapshot ?? null;
    // A learning monitor's first content (at creation, or the first since its target changed): a warm-up follows it.
    const firstContent =
      learning &&
      context.warmup !== true &&
      (previous === null || (monitor.learningSince != null && Date.parse(previous.fetchedAt) < Date.parse(monitor.learningSince)));
    // A warm-up fetch that fails only ends the warm-up: the check the user asked for succeeded, so
    // nothing of it is recorded (no lastError, no failure count, no broken alert streak).
    const fail: typeof recordFailure = context.warmup === true ? async (m) => m : recordFailure;
    // Tracked values and alert conditions (null: the monitor has none).
    const conditions = await loadConditions(monitor, settings, () => store.getAlertState(monitor.orgId, monitor.id));
    const record: RecordContext = { keep, conditions, requestId: context.requestId };
    const finish = (partial: Omit<CheckOutcome, "durationMs">): CheckOutcome => {
      const outcome = { ...partial, durationMs: performance.now() - started };
      options.metrics?.observeCheck(outcome.result, outcome.durationMs / 1000, monitor.orgId);
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
        ...screenshotMaskOf(userPolicy),
        ...(options.resolveSecret === undefined ? {} : { resolveSecret: (name: string) => options.resolveSecret!(monitor.orgId, name) }),
        etag: previous?.etag ?? null,
        lastModified: previous?.lastModified ?? null,
        ...(context.signal ? { signal: context.signal } : {}),
      });
      // a check whose warm-up may follow frees the host after it (see runCheck)
      if (firstContent && warmupSamplesOf(settings) > 0 && plan !== undefined && context.detachWarmup !== true && !warmupStop.signal.aborted) plan.deferFetched = true;
      else context.onFetched?.();
    } catch (error) {
      context.onFetched?.();
      // Cancelled by the caller (shutdown): not the target's fault, so nothing is recorded.
      if (context.signal?.aborted) throw error;
      const fetchError =
        error instanceof FetchError || (isDriftwatchError(error) && error.name === "FetchError")
          ? (error as FetchError)
          : new FetchError("connection_failed", errorMessage(error), { cause: error });
      const failedAt = now();
      const updated = await fail(monitor, fetchError, null, failedAt, keep, conditions, previous?.id ?? null);
      if (context.warmup !== true) await visuals.keepFailure(updated, fetchError, failedAt);
      return finish({ monitor: updated, result: "failed", snapshot: previous, diff: null, deliveries: 0, error: fetchError });
    }
    const at = now();

    if (response.notModified && previous) return finish(await recordUnchanged(monitor, response, previous, at, record));
    if (response.status < 200 || response.status >= 300) {
      const error = new CheckError("bad_status", `The target answered HTTP ${String(response.status)}`);
      const updated = await fail(monitor, error, response.status, at, keep, conditions, previous?.id ?? null);
      return finish({ monitor: updated, result: "failed", snapshot: previous, diff: null, deliveries: 0, error });
    }
    if (monitor.type === "openapi") {
      // read in the compare pool's worker threads unless small (the event loop never parses a big document)
      const bundled = await bundleResponse(response, { url: monitor.url, fetcher: httpFetcher, headers: monitor.headers, signal: context.signal, reader: compare });
      if (!bundled.ok) {
        const error = new CheckError("invalid_body", bundled.message, { cause: bundled.cause });
        const updated = await fail(monitor, error, response.status, at, keep, conditions, previous?.id ?? null);
        return finish({ monitor: updated, result: "failed", snapshot: previous, diff: null, deliveries: 0, error });
      }
      response = bundled.response;
    }
    const hash = contentHash(response.body);
    // The policy: the user's, merged with the one learned from the recent snapshots (the user's
    // rules first, so they always win); learned only when the content changed. The content being
    // checked is not a sample: learning from it would hide the change it is judged for.
    let policy = userPolicy;
    let learnedNoise: LearnedPolicy | null = null;
    if (learning && previous !== null && previous.contentHash !== hash) {
      const learned = await options.noise!.profile(monitor);
      policy = mergeSuggestedPolicy(userPolicy, learned.policy, monitor.type === "api" ? "json" : "html", settings?.rejectedSuggestions ?? []);
      learnedNoise = { learned: learned.policy, merged: policy, samples: learned.samples, stored: learned.stored ?? learned.samples, capacity: learned.capacity, evidence: learned.evidence };
    }
    // The store records a new snapshot only if `previous` is still the newest: a check of this
    // monitor in another process may have recorded one meanwhile (stale_snapshot). Then the new
    // content is compared again with that snapshot, so one change is recorded (and sent) once.
    for (let attempt = 1; ; attempt++) {
      // Parsed and compared only when the content changed (an unchanged hash means the same valid document).
      let diff: NewDiff | null = null;
      let silenced: Silenced | null = null;
      /** A learning diff judged from two contents or more notifies from this severity on. */
      let loudFrom: Severity | null = null;
      /** What changed between the stored contents: a learning diff's change elsewhere notifies. */
      let changedBefore: readonly ChangedPlace[] | null = null;
      if (previous?.contentHash !== hash) {
        const explain = previous !== null && hasHidingEntries(policy);
        const analyzed = await analyze(monitor, previous, response, policy, { requestId: context.requestId, at, explain });
        if (analyzed instanceof CheckError) {
          const updated = await fail(monitor, analyzed, response.status, at, keep, conditions, previous?.id ?? null);
          return finish({ monitor: updated, result: "failed", snapshot: previous, diff: null, deliveries: 0, error: analyzed });
        }
        diff = analyzed.diff;
        if (diff === null && analyzed.hidden !== undefined && analyzed.hidden.count > 0) {
          silenced = silencedOf(analyzed.hidden, learnedNoise, userPolicy, previous!.id);
        }
        // The first pair of a learning monitor: too few samples to tell noise from change yet.
        // A warm-up fetch's diff is one too (the monitor is still learning what its target does).
        // A young monitor's diff (fewer than its learning samples: one pair cannot tell a rotating
        // block from a changed headline) is one as well.
        // Counted in stored contents, not in those the byte budget let it learn from.
        if (diff !== null && ((learnedNoise !== null && learnedNoise.stored < grownUpAt(settings, learnedNoise)) || context.warmup === true)) {
          diff = { ...diff, learning: true };
          if (context.warmup !== true && learnedNoise !== null && learnedNoise.stored >= NOISE_MIN_SAMPLES) {
            loudFrom = "medium";
            changedBefore = learnedNoise.evidence ?? null;
          }
        }
        if (monitor.type === "api" && monitor.contract != null) {
          const checked = await contracts.check(monitor, response, previous, context.signal);
          if (!checked.ok) {
            const error = new CheckError("contract_failed", checked.message);
            const updated = await fail(monitor, error, response.status, at, keep, conditions, previous?.id ?? null);
            return finish({ monitor: updated, result: "failed", snapshot: previous, diff: null, deliveries: 0, error });
          }
          const base = { id: newId("diff", at.getTime()), previousSnapshotId: previous?.id ?? null, requestId: context.requestId, status: response.status, latencyMs: response.latencyMs, createdAt: at.toISOString() };
          diff = withViolations(diff, checked.violations, base, diffCaps);
          if (diff !== null) silenced = null;
        }
      }
      // Screenshots: compared with the previous snapshot's (a visual change alone is a diff too).
      if (previous !== null && response.screenshot !== undefined) {
        const visual = await visuals.compare(monitor, previous, response.screenshot, policy, { sameContent: previous.contentHash === hash, at });
        diff = withVisual(diff, visual, { previous, response, monitor, id: diff?.id ?? newId("diff", at.getTime()), requestId: context.requestId, at });
      }
      try {
        const outcome = finish(await compareAndRecord(monitor, response, previous, hash, diff, { policy, record, at, silenced, loudFrom, changedBefore }));
        if (firstContent && warmupSamplesOf(settings) > 0 && outcome.result !== "unchanged") startsWarmup.add(outcome);
        return outcome;
      } catch (error) {
        // (A warm-up fetch stops there instead: the monitor is checked elsewhere.)
        if (isDriftwatchError(error) && error.code === "stale_snapshot" && attempt < MAX_STALE_RETRIES && context.warmup !== true) {
          // The content was parsed above: it differed from the snapshot this attempt compared with.
          previous = await store.getLatestSnapshot(monitor.orgId, monitor.id);
          continue;
        }
        // The monitor is gone, the store is down or closing, or checks keep racing: the caller's
        // concern. Anything else is the store refusing what this content made of the check (a
        // value the database cannot hold): recorded as the check's failure, when that works.
        if (isDriftwatchError(error) && INFRASTRUCTURE_CODES.has(error.code)) throw error;
        const failure = new CheckError("store_rejected", `The store refused the check's result: ${errorMessage(error)}`, { cause: error });
        let updated: MonitorRecord;
        try {
          updated = await fail(monitor, failure, response.status, at, keep, conditions, previous?.id ?? null);
        } catch {
          throw error;
        }
        return finish({ monitor: updated, result: "failed", snapshot: previous, diff: null, deliveries: 0, error: failure });
      }
    }
  }

  /**
   * A successful check that found the newest snapshot's content again: only the monitor's fields
   * change (and its tracked values are read again). When its alert conditions became true, the
   * content is recorded again as a new snapshot with an alert-only diff, so the alert is delivered.
   */
  async function recordUnchanged(
    monitor: MonitorRecord,
    response: FetchResponse,
    previous: SnapshotRecord,
    at: Date,
    record: RecordContext,
  ): Promise<Omit<CheckOutcome, "durationMs">> {
    const body = previous.body ?? response.body;
    const judged = record.conditions === null ? null : judgeCheck(record.conditions, monitor, { body, snapshotId: previous.id, at: at.toISOString(), topSeverity: null });
    if (judged?.evaluation != null && alertNotifies(judged.evaluation, false)) {
      const again = { ...response, body, status: previous.status, contentType: previous.contentType, size: previous.size, browserRender: previous.browserRender };
      return compareAndRecord(monitor, again, previous, null, null, { policy: { rules: [] }, record, at, silenced: null });
    }
    const recorded = await store.recordCheck(monitor.orgId, {
      monitorId: monitor.id,
      monitor: successPatch(monitor, response, at, false),
      snapshot: null,
      diff: null,
      event: null,
      ...record.keep,
      ...(judged !== null ? { tracked: judged.tracked } : {}),
      ...withMessages(await recoveredMessages(monitor, at)),
    });
    return { monitor: recorded.monitor, result: "unchanged", snapshot: previous, diff: null, deliveries: 0, error: null };
  }

  async function compareAndRecord(
    monitor: MonitorRecord,
    response: FetchResponse,
    previous: SnapshotRecord | null,
    /** The content's hash; null records the newest snapshot's content again (an alert-only diff of unchanged content). */
    hash: string | null,
    found: NewDiff | null,
    context: { policy: PolicyRules; record: RecordContext; at: Date; silenced: Silenced | null; loudFrom?: Severity | null; changedBefore?: readonly ChangedPlace[] | null },
  ): Promise<Omit<CheckOutcome, "durationMs">> {
    const { policy, record, at } = context;
    const keep = record.keep;
    // unchanged content records no snapshot, unless a visual change alone makes a diff
    if (previous && previous.contentHash === hash && found === null) return recordUnchanged(monitor, response, previous, at, record);
    const again = hash === null && previous !== null;
    let diff = found;
    const snapshot: NewSnapshot = {
      id: newId("snapshot", at.getTime()),
      fetchedAt: at.toISOString(),
      status: response.status,
      latencyMs: response.latencyMs,
      contentType: response.contentType,
      contentHash: again ? previous.contentHash : (hash ?? contentHash(response.body)),
      size: response.size,
      browserRender: response.browserRender,
      body: response.body,
      etag: again ? previous.etag : (response.headers["etag"] ?? null),
      lastModified: again ? previous.lastModified : (response.headers["last-modified"] ?? null),
      ...(diff === null && context.silenced !== null ? { silenced: context.silenced } : {}),
    };
    // With alert conditions: the diff carries what they said, and they alone decide whether it notifies;
    // when they became true on a check with no diff to report, an alert-only diff delivers the alert.
    const judged =
      record.conditions === null
        ? null
        : judgeCheck(record.conditions, monitor, { body: response.body, snapshotId: snapshot.id, at: at.toISOString(), topSeverity: diff?.topSeverity ?? null });
    const evaluation = judged?.evaluation ?? null;
    if (evaluation !== null && diff !== null) diff = { ...diff, alert: alertResultOf(evaluation) };
    if (evaluation !== null && diff === null && alertNotifies(evaluation, false)) {
      const common = { id: newId("diff", at.getTime()), previousSnapshotId: previous?.id ?? null, requestId: record.requestId, status: response.status, latencyMs: response.latencyMs, createdAt: at.toISOString() };
      diff = alertOnlyDiff(monitor, evaluation, common, { browserRender: response.browserRender, waitStrategy: response.waitStrategy });
    }
    const minSeverity = policy.notify?.minSeverity;
    // A learning diff notifies only when it removes something or changes a type (those are never
    // held back), or, judged from two contents or more, holds a change rated `loudFrom` or above
    // (a stable status, boolean, price or version that flipped).
    const loudFrom = context.loudFrom ?? null;
    const notify =
      diff !== null &&
      (evaluation !== null
        ? alertNotifies(evaluation, diff.alertOnly !== true)
        : (minSeverity === undefined || compareSeverity(diff.topSeverity, minSeverity) >= 0) &&
          (diff.learning !== true || learningDiffNotifies(diff.changes, loudFrom, context.changedBefore ?? null)));
    const input: RecordCheckInput = {
      monitorId: monitor.id,
      monitor: successPatch(monitor, response, at, diff !== null && diff.alertOnly !== true),
      snapshot,
      diff,
      event:
        diff && notify
          ? boundEvent(withAlert(buildPendingDiffDetectedEvent(diff, { monitorId: monitor.id, snapshotId: snapshot.id, diffId: diff.id, occurredAt: at }), diff), diff, {
              maxBytes: options.maxWebhookPayloadBytes ?? DEFAULT_MAX_WEBHOOK_PAYLOAD_BYTES,
              publicUrl: options.publicUrl ?? null,
            })
          : null,
      ...keep,
      previousSnapshotId: previous?.id ?? null,
      ...(judged !== null ? { tracked: judged.tracked } : {}),
    };
    // Notification channels (issue 27): the diff where webhooks hear of it, and a recovery, in the same write.
    // With conditions, they alone decide (as for webhooks): the policy's notify.minSeverity does not apply.
    const policyMinSeverity = evaluation !== null ? undefined : minSeverity;
    const diffMessages = diff && notify ? await channelMessagesFor(store, { kind: "diff", monitor, diff, snapshotId: snapshot.id, policyMinSeverity }, at) : [];
    Object.assign(input, withMessages([...diffMessages, ...(await recoveredMessages(monitor, at))]));
    const recorded = await store.recordCheck(monitor.orgId, input);
    if (response.screenshot !== undefined && recorded.snapshot !== null) {
      await visuals.keep(monitor, recorded.snapshot.id, response.screenshot, keep.retention ?? DEFAULT_SNAPSHOT_RETENTION, at);
    }
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
    async stopDetachedWarmups(): Promise<void> {
      const running = [...detachedWarmups.values()];
      for (const { stop } of running) stop.abort();
      await Promise.allSettled(running.map(({ done }) => done));
    },
    async close(): Promise<void> {
      // warm-ups stop where they are (a fetch in flight is cancelled, nothing of it recorded), and
      // end before the compare pool they use closes
      warmupStop.abort();
      for (const { stop } of detachedWarmups.values()) stop.abort();
      await Promise.allSettled([...warmups]);
      if (options.compare === undefined) await compare.close();
    },
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

/** What the learned part of a check's policy is (to say which learned entry hid a change). */
export interface LearnedPolicy {
  learned: PolicyRules;
  merged: PolicyRules;
  /** Contents learned from, this check's included. */
  samples: number;
  /** Stored contents of the current target (a young monitor has fewer than its learning samples), whatever the byte budget learned from. */
  stored: number;
  /** The most stored contents the learner counts (see `LearnedNoise.capacity`). */
  capacity?: number;
  /** What the learner saw change between the stored contents. */
  evidence?: readonly ChangedPlace[];
}

/** A whole number of samples within [min, max] (a per-monitor or embedder value out of range is clamped). */
function clampSamples(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, Math.floor(value))) : min;
}

/** A removal, or a type change (a schema replace): reported even while a monitor is learning. */
function isNeverHidden(change: Change): boolean {
  return change.op === "remove" || (change.category === "schema" && change.op === "replace");
}

/**
 * The container of a change's place: its path or selector without the last index (`$.plans[2]` →
 * `$.plans[*]`, `ul:nth-of-type(2) > li:nth-of-type(3)` → `ul:nth-of-type(2) > li`; in a list, the
 * last item's index, whatever block inside the item holds the text). Two places in one
 * container are siblings: an item that changes places among them moved; one that leaves them for
 * another container (an "Included" list for a "Not included" one) was removed from the first.
 */
export function containerOf(path: string): string {
  // a list's items: the item's place is the index, whatever block inside it holds the text
  // (`ul > li:nth-of-type(3) > div:nth-of-type(1)` → `ul > li > div:nth-of-type(1)`)
  const item = [...path.matchAll(/(?:^|[\s>])(?:li|tr|dt|dd)(:nth-(?:of-type|child)\(\d+\))/gu)].at(-1);
  if (item !== undefined) {
    const at = item.index + item[0].length - item[1]!.length;
    return path.slice(0, at) + path.slice(at + item[1]!.length);
  }
  const nth = /:nth-(?:of-type|child)\(\d+\)(?=[^:]*$)/u.exec(path);
  const index = /\[\d+\](?=[^[]*$)/u.exec(path);
  // the later of the two is the last index
  const last = nth !== null && (index === null || nth.index > index.index) ? nth : index;
  if (last === null) return path;
  return path.slice(0, last.index) + (last === index ? "[*]" : "") + path.slice(last.index + last[0].length);
}

/** Texts counted as a multiset (JSON of each value). */
function addTo(bag: Map<string, number>, value: unknown): void {
  const key = JSON.stringify(value);
  bag.set(key, (bag.get(key) ?? 0) + 1);
}

/**
 * Whether a learning diff notifies: it removes something or changes a type, or holds a change
 * rated `loudFrom` or above. One exception, a move among siblings: a value removal is not sent
 * when the same diff puts its text in another place of the SAME container (an added or replaced
 * sibling: "Most read" reordered) and that container loses nothing (every text removed or replaced
 * in it comes back in it, counted with repetitions). A removed member (a schema removal), a
 * removal whose text reappears in another container or another member, and a removal in a
 * container that lost a text always notify.
 */
export function learningDiffNotifies(changes: readonly Change[], loudFrom: Severity | null, changedBefore?: readonly ChangedPlace[] | null): boolean {
  // judged from two stored contents or more: a change at a place that was stable across all of
  // them is no noise the monitor could have seen yet, so it notifies as usual
  if (changedBefore != null) {
    const places = volatilePlaces(changedBefore);
    let parents: Set<string> | undefined;
    const besideMoved = (path: string): boolean => {
      parents ??= new Set([...places].map(parentOf));
      return parents.has(parentOf(path)) || parents.has(parentOf(path.replace(/\[\d+\]/g, "[*]")));
    };
    if (changes.some((change) => !changedAt(change.path, places) && !(quietReading(change) && besideMoved(change.path)))) return true;
  }
  let containers: Map<string, { lost: Map<string, number>; gained: Map<string, number> }> | undefined;
  for (const change of changes) {
    if (loudFrom !== null && compareSeverity(change.severity, loudFrom) >= 0) return true;
    if (!isNeverHidden(change)) continue;
    if (change.op !== "remove" || change.category === "schema" || change.before === undefined) return true;
    if (containers === undefined) {
      containers = new Map();
      for (const other of changes) {
        if (other.op !== "add" && other.op !== "remove" && other.op !== "replace") continue;
        const key = containerOf(other.path);
        let entry = containers.get(key);
        if (entry === undefined) containers.set(key, (entry = { lost: new Map(), gained: new Map() }));
        if (other.op !== "add" && other.before !== undefined) addTo(entry.lost, other.before);
        if (other.op !== "remove" && other.after !== undefined) addTo(entry.gained, other.after);
      }
    }
    const container = containers.get(containerOf(change.path))!;
    // the removed text comes back in its container, and the container lost no text
    if (!container.gained.has(JSON.stringify(change.before))) return true;
    for (const [text, count] of container.lost) if ((container.gained.get(text) ?? 0) < count) return true;
  }
  return false;
}

/**
 * A fractional number that moved for the first time, rated `info` (no learned price, money, status
 * or version rule rates it higher): on a young monitor, judged from two contents, it is held back
 * like noise seen moving already when a sibling of it (a member of the same object, or of the same
 * collection's elements) moved between the stored contents (a reading on a clock slower than the
 * fetches beside readings that move: a voltage, an energy total, a wind gust). In an object none
 * of whose members moved it is an edit (a savings rate, an APR, a tariff, a rating, a price under
 * a name the learner does not know as one: `rrp`, `usd`, `monthly`) and notifies. Whole numbers are
 * not held back (a subscription's seats, a stock level, a quota: counts people set), nor a number
 * that changed type, appeared or went.
 */
function quietReading(change: Change): boolean {
  if (change.op !== "replace" || change.category !== "value" || change.severity !== "info") return false;
  const { before, after } = change;
  if (typeof before !== typeof after) return false;
  const value = (v: unknown): number | null =>
    typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && /^-?\d+(?:\.\d+)?$/.test(v) ? Number(v) : null;
  const a = value(before);
  const b = value(after);
  return a !== null && b !== null && (!Number.isInteger(a) || !Number.isInteger(b));
}

/** The place holding a member or element (`$.battery.v_out` -> `$.battery`, `$.items[*].x` -> `$.items[*]`; a page block's parent block). */
function parentOf(path: string): string {
  if (!path.startsWith("$")) return path.slice(0, Math.max(0, path.lastIndexOf(" > ")));
  const last = /(?:\.[^.[\]]+|\[[^\]]*\])$/.exec(path);
  return last === null ? path : path.slice(0, last.index);
}

/** What the noise learner saw change between a monitor's stored contents (its evidence entries). */
export interface ChangedPlace {
  path?: string;
  selector?: string;
  changed: number;
}

/** The paths and selectors that changed at least once between the stored contents. */
function volatilePlaces(evidence: readonly ChangedPlace[]): Set<string> {
  const places = new Set<string>();
  for (const entry of evidence) {
    if (entry.changed <= 0) continue;
    if (entry.path !== undefined) places.add(entry.path);
    if (entry.selector !== undefined) places.add(entry.selector);
  }
  return places;
}

/** Whether a change's place (or its element pattern, `$.items[3].x` as `$.items[*].x`, or a place it is inside of) changed before. */
function changedAt(path: string, places: ReadonlySet<string>): boolean {
  if (places.size === 0) return false;
  const pattern = path.replace(/\[\d+\]/g, "[*]");
  for (const candidate of [path, pattern]) {
    if (places.has(candidate)) return true;
    // inside a place that changed (a member of an object that changed as a whole)
    for (let end = candidate.length - 1; end > 1; end--) {
      const c = candidate[end];
      if ((c === "." || c === "[" || c === " ") && places.has(candidate.slice(0, end).trimEnd())) return true;
    }
  }
  return false;
}

/** Whether a policy can hide a value change (so a check explains what it hid). */
function hasHidingEntries(policy: PolicyRules): boolean {
  return (
    (policy.rules ?? []).some((rule) => rule.action === "ignore") ||
    (policy.volatile?.length ?? 0) > 0 ||
    (policy.tolerance?.length ?? 0) > 0 ||
    (policy.unordered?.length ?? 0) > 0
  );
}

/** The silenced record of a check whose every change was hidden: the first ones, each with its entry. */
export function silencedOf(hidden: HiddenChanges, learned: LearnedPolicy | null, user: PolicyRules, previousSnapshotId: string): Silenced {
  const originOf = (rule: string) => (learned === null ? null : learnedOriginOf(rule, learned.merged, learned.learned, user));
  let learnedCount = 0;
  for (const [rule, n] of Object.entries(hidden.byRule)) if (originOf(rule) !== null) learnedCount += n;
  return {
    previousSnapshotId,
    count: hidden.count,
    learnedCount,
    changes: hidden.first.slice(0, SILENCED_MAX_ENTRIES).map((entry) => {
      const origin = originOf(entry.rule);
      return origin === null ? { ...entry } : { ...entry, learned: origin };
    }),
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
    ...(record.silenced != null ? { silenced: record.silenced } : {}),
  };
}

function toPublicDiff(record: NonNullable<RecordCheckResult["diff"]>): NonNullable<CheckResult["diff"]> {
  const { orgId: _orgId, ...diff } = record;
  return diff;
}
