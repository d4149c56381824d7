import { createSleeper } from "./background-loop.js";
import { newId, StoreError, type MonitorRecord, type Store } from "@driftwatch/core";
import {
  DEFAULT_CHECK_CONCURRENCY,
  DEFAULT_ORG_SHARE,
  DEFAULT_OVERDUE_AFTER_MS,
  DEFAULT_PER_HOST_CONCURRENCY,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_SPREAD_WINDOW_MS,
  MAX_HELD_MONITORS,
  MAX_HOST_QUEUE,
  SPREAD_BATCH_SIZE,
} from "./limits.js";
import type { EngineMetrics } from "./metrics.js";
import type { CheckOutcome, EngineCheckService } from "./pipeline/check-service.js";
import { createFairQueue, orgSlots } from "./queue/fair-queue.js";
import { queueFor, type WorkQueue } from "./queue/work-queue.js";

export interface SchedulerOptions {
  store: Store;
  checks: Pick<EngineCheckService, "runCheck">;
  /** Checks in flight at once. Default 8. */
  concurrency?: number;
  /** Checks in flight at once against one host (`hostname:port`). Default 2. */
  perHostConcurrency?: number;
  now?: () => Date;
  random?: () => number;
  /**
   * Where due monitors are claimed. Default: a queue on `store`'s leases of its own (owner
   * `owner`, lease `leaseMs`), whose claims `stop()` hands back at the end.
   */
  queue?: WorkQueue;
  /** Lease owner name of the default queue. Default `scheduler:<hostname>:<pid>:<random>`. */
  owner?: string;
  /** Lease of the default queue (renewed by its heartbeat). Default 20 s. */
  leaseMs?: number;
  /** Share of the check slots one organization may hold while another organization's checks wait. Default 0.5. */
  orgShare?: number;
  /** Wait between claims when nothing more is due. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Overdue monitors found at `start()` are spread over `min(interval, spreadWindowMs)`. Default 60 s. */
  spreadWindowMs?: number;
  /** Only monitors overdue by more than this at `start()` are spread; the others run as usual. Default 10 s. */
  overdueAfterMs?: number;
  metrics?: Pick<EngineMetrics, "setDueMonitors" | "observeCheckStart" | "observeTakeover" | "observeLeaseLost">;
  /** After every finished check (e.g. to wake the delivery worker). */
  onCheck?: (outcome: CheckOutcome) => void;
  /** A claim, release or check that threw (store unavailable, monitor deleted mid-check). */
  onError?: (error: unknown) => void;
}

export interface SchedulerStopOptions {
  /** How long in-flight checks may run before they are cancelled; a cancelled check records nothing and stays due. */
  graceMs?: number;
}

export interface Scheduler {
  /** Spreads the monitors already overdue, then claims and runs due monitors until `stop()`. */
  start(): void;
  /** No new claims; waiting monitors are released at once; resolves when the in-flight checks are done. */
  stop(options?: SchedulerStopOptions): Promise<void>;
  /** Claims at once instead of waiting for the poll interval. */
  wake(): void;
  /** Spreads the monitors that are due now over their window (what `start()` does first). Returns how many. */
  spreadOverdue(): Promise<number>;
  /** Claims once and starts what it may; resolves when the claim is done (not the checks). For tests. */
  tick(): Promise<number>;
  /** Resolves when no check is in flight or waiting. */
  idle(): Promise<void>;
  readonly inFlight: number;
  readonly waiting: number;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url;
  }
}

/**
 * Runs due monitors: claims them from the work queue (so several processes share the work), runs
 * each check with bounded concurrency overall and per host, and completes the claim with the next
 * check time the check recorded (interval with jitter, or back-off after a failure). Claimed
 * monitors of a busy host wait in that host's queue (their claims renewed by the queue's
 * heartbeat) instead of being handed back, so a host's throughput is bounded by its answers and
 * its slots, not by the poll loop.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, checks, metrics } = options;
  const now = options.now ?? ((): Date => new Date());
  const random = options.random ?? Math.random;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CHECK_CONCURRENCY);
  const perHost = Math.max(1, Math.min(concurrency, options.perHostConcurrency ?? DEFAULT_PER_HOST_CONCURRENCY));
  const ownsQueue = options.queue === undefined || typeof options.queue === "function";
  const queue = queueFor("scheduler", options, { now, metrics, onError: (error) => report(error) });
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const spreadWindowMs = options.spreadWindowMs ?? DEFAULT_SPREAD_WINDOW_MS;
  const overdueAfterMs = options.overdueAfterMs ?? DEFAULT_OVERDUE_AFTER_MS;
  const report = (error: unknown): void => options.onError?.(error);

  /** Claimed monitors waiting for a slot: per org, then per host (see `createFairQueue`). */
  const waiting = createFairQueue<MonitorRecord>({ keyConcurrency: perHost, orgSlots: orgSlots(concurrency, options.orgShare ?? DEFAULT_ORG_SHARE) });
  const running = new Set<Promise<void>>();
  let abort = new AbortController();
  let started = false;
  let loop: Promise<void> | null = null;
  const sleeper = createSleeper();
  let lastClaimFull = false;
  let idleWaiters: (() => void)[] = [];

  /**
   * Claim room: at most two monitors per slot that could run now (running + runnable waiting).
   * Monitors queued behind a saturated host do not count: they wait for their host, not for a
   * slot, so a busy host never stops the claims of other hosts' monitors.
   */
  function room(): number {
    return Math.min(concurrency * 2 - running.size - waiting.runnable(), MAX_HELD_MONITORS - running.size - waiting.waiting);
  }

  function settleIdle(): void {
    if (running.size > 0 || waiting.waiting > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  async function release(monitor: MonitorRecord, nextCheckAt: string | null): Promise<void> {
    try {
      await queue.completeMonitor(monitor.id, nextCheckAt);
    } catch (error) {
      report(error);
    }
  }

  function runOne(monitor: MonitorRecord, host: string): void {
    const startedAt = now();
    if (monitor.nextCheckAt !== null) {
      metrics?.observeCheckStart({ orgId: monitor.orgId, host, lagSeconds: Math.max(0, startedAt.getTime() - Date.parse(monitor.nextCheckAt)) / 1000 });
    }
    // The host's slot is free once the request to it is over; recording the result needs none.
    let hostFreed = false;
    const freeHost = (): void => {
      if (hostFreed) return;
      hostFreed = true;
      waiting.finish(monitor.orgId, host);
      pump();
    };
    const task = (async () => {
      let nextCheckAt: string | null = monitor.nextCheckAt;
      let outcome: CheckOutcome | null = null;
      // A queue whose claims are the store's leases has the check's record end the claim too.
      const releasedByRecord = queue.monitorReleasedByRecord !== undefined;
      try {
        outcome = await checks.runCheck(monitor, {
          requestId: newId("request"),
          signal: abort.signal,
          onFetched: freeHost,
          // A learning monitor's warm-up goes on after the check, holding neither this slot nor its host's.
          detachWarmup: true,
          ...(releasedByRecord ? { releaseLease: queue.owner } : {}),
        });
        nextCheckAt = outcome.monitor.nextCheckAt;
      } catch (error) {
        // Cancelled at shutdown: stays due (its old nextCheckAt). Otherwise try again one interval later.
        if (!abort.signal.aborted) {
          // A monitor deleted while its check ran is not an error worth reporting.
          if (!(error instanceof StoreError || (error as { name?: unknown } | null)?.name === "StoreError") || (error as StoreError).code !== "not_found") report(error);
          nextCheckAt = new Date(now().getTime() + monitor.intervalSeconds * 1000).toISOString();
        }
      }
      if (outcome !== null && releasedByRecord) queue.monitorReleasedByRecord!(monitor.id);
      else await release(monitor, nextCheckAt);
      if (outcome !== null) {
        try {
          options.onCheck?.(outcome);
        } catch (error) {
          report(error);
        }
      }
    })();
    running.add(task);
    void task.finally(() => {
      running.delete(task);
      if (hostFreed) pump();
      else freeHost();
      // Claim again once half the holding room is free, not after every check: one claim per batch.
      if (lastClaimFull && room() >= concurrency) wake();
      settleIdle();
    });
  }

  /** Starts waiting monitors while slots are free: orgs take turns, saturated hosts are skipped. */
  function pump(): void {
    while (running.size < concurrency) {
      const next = waiting.next();
      if (next === null) break;
      // Its claim was taken over (this process stalled past the lease): the other process checks it.
      if (!queue.holds("monitor", next.item.id)) {
        waiting.finish(next.orgId, next.key);
        continue;
      }
      runOne(next.item, next.key);
    }
    metrics?.setDueMonitors(waiting.waiting);
  }

  async function tick(): Promise<number> {
    const limit = room();
    if (limit <= 0) return 0;
    const claimed = await queue.claimMonitors({ now: now().toISOString(), limit });
    lastClaimFull = claimed.length >= limit;
    const deferred: MonitorRecord[] = [];
    for (const monitor of claimed) {
      const host = hostOf(monitor.url);
      // A monitor waits in its host's queue for a host slot; only past the bound of one host's
      // queue is it handed back, for one poll interval.
      if (waiting.waitingFor(host) >= MAX_HOST_QUEUE) deferred.push(monitor);
      else waiting.push(monitor.orgId, host, monitor);
    }
    pump();
    const retryAt = new Date(now().getTime() + pollIntervalMs).toISOString();
    await Promise.all(deferred.map((monitor) => release(monitor, retryAt)));
    return claimed.length;
  }

  async function spreadOverdue(): Promise<number> {
    const at = now().getTime();
    const cutoff = new Date(at - overdueAfterMs).toISOString();
    let spread = 0;
    for (;;) {
      const batch = await queue.claimMonitors({ now: cutoff, limit: SPREAD_BATCH_SIZE });
      for (const monitor of batch) {
        const window = Math.min(monitor.intervalSeconds * 1000, spreadWindowMs);
        // At least 1 ms ahead, so the next batch of this loop cannot claim it again.
        const next = new Date(at + 1 + Math.floor(random() * window)).toISOString();
        await release(monitor, next);
      }
      spread += batch.length;
      if (batch.length < SPREAD_BATCH_SIZE) return spread;
    }
  }
  function wake(): void {
    sleeper.wake();
  }

  async function run(): Promise<void> {
    try {
      await spreadOverdue();
    } catch (error) {
      report(error);
    }
    while (started) {
      try {
        await tick();
      } catch (error) {
        lastClaimFull = false;
        report(error);
      }
      if (!started) break;
      // After a full claim more may be due: claim again at once if there is room, else when a check ends.
      if (lastClaimFull && room() >= concurrency) continue;
      await sleeper.sleep(pollIntervalMs);
    }
  }

  return {
    get inFlight() {
      return running.size;
    },
    get waiting() {
      return waiting.waiting;
    },
    start() {
      if (started) return;
      started = true;
      abort = new AbortController();
      loop = run();
    },
    async stop(stopOptions = {}) {
      started = false;
      sleeper.interrupt();
      if (loop !== null) await loop;
      loop = null;
      // Waiting monitors give their lease back untouched at once: still due, for the next process.
      const held = waiting.drain();
      metrics?.setDueMonitors(0);
      await Promise.all(held.map((monitor) => release(monitor, monitor.nextCheckAt)));
      let timer: NodeJS.Timeout | undefined;
      if (stopOptions.graceMs !== undefined) timer = setTimeout(() => abort.abort(new Error("scheduler stopped")), stopOptions.graceMs);
      try {
        while (running.size > 0) await Promise.allSettled([...running]);
      } finally {
        clearTimeout(timer);
      }
      // Whatever is still claimed (a release that failed) is handed back now, not at lease expiry.
      if (ownsQueue) {
        try {
          await queue.releaseAll();
        } catch (error) {
          report(error);
        }
      }
      settleIdle();
    },
    wake,
    spreadOverdue,
    tick,
    idle() {
      if (running.size === 0 && waiting.waiting === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
