import { performance } from "node:perf_hooks";
import { newId, StoreError, type MonitorRecord, type Store } from "@driftwatch/core";
import { defaultOwner } from "./delivery/delivery.js";
import {
  ASSUMED_DURATION_MS,
  DEFAULT_CHECK_CONCURRENCY,
  DEFAULT_OVERDUE_AFTER_MS,
  DEFAULT_PER_HOST_CONCURRENCY,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_SPREAD_WINDOW_MS,
  MAX_DURATION_STATS,
  MAX_HELD_MONITORS,
  MAX_HOST_QUEUE,
  MONITOR_LEASE_MS,
  SPREAD_BATCH_SIZE,
} from "./limits.js";
import type { EngineMetrics } from "./metrics.js";
import type { CheckOutcome, EngineCheckService } from "./pipeline/check-service.js";

export interface SchedulerOptions {
  store: Store;
  checks: Pick<EngineCheckService, "runCheck">;
  /** Checks in flight at once. Default 8. */
  concurrency?: number;
  /** Checks in flight at once against one host (`hostname:port`). Default 2. */
  perHostConcurrency?: number;
  now?: () => Date;
  random?: () => number;
  /** Lease owner name. Default `<hostname>:<pid>:<random>`. */
  owner?: string;
  leaseMs?: number;
  /** Wait between claims when nothing more is due. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Overdue monitors found at `start()` are spread over `min(interval, spreadWindowMs)`. Default 60 s. */
  spreadWindowMs?: number;
  /** Only monitors overdue by more than this at `start()` are spread; the others run as usual. Default 10 s. */
  overdueAfterMs?: number;
  metrics?: Pick<EngineMetrics, "setDueMonitors">;
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
 * Runs due monitors: claims them with a lease (so several processes share the work), runs each
 * check with bounded concurrency overall and per host, and releases the lease with the next check
 * time the check recorded (interval with jitter, or back-off after a failure).
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, checks, metrics } = options;
  const now = options.now ?? ((): Date => new Date());
  const random = options.random ?? Math.random;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CHECK_CONCURRENCY);
  const perHost = Math.max(1, Math.min(concurrency, options.perHostConcurrency ?? DEFAULT_PER_HOST_CONCURRENCY));
  const owner = options.owner ?? defaultOwner("scheduler");
  const leaseMs = options.leaseMs ?? MONITOR_LEASE_MS;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const spreadWindowMs = options.spreadWindowMs ?? DEFAULT_SPREAD_WINDOW_MS;
  const overdueAfterMs = options.overdueAfterMs ?? DEFAULT_OVERDUE_AFTER_MS;
  const report = (error: unknown): void => options.onError?.(error);

  /**
   * Claimed monitors waiting for a slot: per org, then per host, each queue in claim (due) order.
   * Orgs and, within an org, hosts take turns (a served entry moves to the end of its Map).
   */
  const queues = new Map<string, Map<string, MonitorRecord[]>>();
  let waitingCount = 0;
  /** When each queued org was last served (a dispatch counter); orgs take turns by it. */
  const lastServed = new Map<string, number>();
  let served = 0;
  const perHostRunning = new Map<string, number>();
  const perHostWaiting = new Map<string, number>();
  /** Mean check duration per host (moving average), to keep a host's queue within its lease. */
  const hostMs = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let abort = new AbortController();
  let started = false;
  let loop: Promise<void> | null = null;
  let wakeUp: (() => void) | null = null;
  let woken = false;
  let lastClaimFull = false;
  let idleWaiters: (() => void)[] = [];

  const bump = (map: Map<string, number>, key: string, by: number): void => {
    const next = (map.get(key) ?? 0) + by;
    if (next <= 0) map.delete(key);
    else map.set(key, next);
  };

  const saturated = (host: string): boolean => (perHostRunning.get(host) ?? 0) >= perHost;

  /** Waiting monitors that could start now (their host has a free slot). */
  function runnable(): number {
    let count = 0;
    for (const [host, queued] of perHostWaiting) count += Math.min(queued, Math.max(0, perHost - (perHostRunning.get(host) ?? 0)));
    return count;
  }

  /**
   * Claim room: at most two monitors per slot that could run now (running + runnable waiting).
   * Monitors queued behind a saturated host do not count: they wait for their host, not for a
   * slot, so a busy host never stops the claims of other hosts' monitors.
   */
  function room(): number {
    return Math.min(concurrency * 2 - running.size - runnable(), MAX_HELD_MONITORS - running.size - waitingCount);
  }

  /**
   * How many monitors a host may queue: as many as its slots can check within half a lease at
   * its mean check duration (so a queued monitor's lease never runs out), at least twice its
   * slots, at most {@link MAX_HOST_QUEUE}.
   */
  function hostQueueLimit(host: string): number {
    const mean = hostMs.get(host) ?? ASSUMED_DURATION_MS;
    const fits = Math.floor(((leaseMs / 2) / Math.max(1, mean)) * perHost);
    return Math.max(2 * perHost, Math.min(MAX_HOST_QUEUE, fits));
  }

  function observe(host: string, ms: number): void {
    const mean = hostMs.get(host);
    hostMs.delete(host);
    // Most recently used last; forget the oldest hosts beyond a bound.
    if (hostMs.size >= MAX_DURATION_STATS) hostMs.delete(hostMs.keys().next().value!);
    hostMs.set(host, mean === undefined ? ms : mean * 0.8 + ms * 0.2);
  }

  function enqueue(monitor: MonitorRecord, host: string): void {
    let byHost = queues.get(monitor.orgId);
    if (byHost === undefined) queues.set(monitor.orgId, (byHost = new Map()));
    const queue = byHost.get(host);
    if (queue === undefined) byHost.set(host, [monitor]);
    else queue.push(monitor);
    bump(perHostWaiting, host, 1);
    waitingCount++;
  }

  /**
   * The next monitor to start: the org served least recently (an org new to the queue first) with
   * a monitor whose host has a free slot; within the org its hosts take turns.
   */
  function dequeue(): { monitor: MonitorRecord; host: string } | null {
    let pick: { orgId: string; byHost: Map<string, MonitorRecord[]>; host: string; queue: MonitorRecord[] } | null = null;
    let pickTurn = Infinity;
    for (const [orgId, byHost] of queues) {
      const turn = lastServed.get(orgId) ?? -1;
      if (turn >= pickTurn) continue;
      for (const [host, queue] of byHost) {
        if (saturated(host)) continue;
        pick = { orgId, byHost, host, queue };
        pickTurn = turn;
        break;
      }
    }
    if (pick === null) return null;
    const { orgId, byHost, host, queue } = pick;
    const monitor = queue.shift()!;
    byHost.delete(host);
    if (queue.length > 0) byHost.set(host, queue);
    if (byHost.size > 0) lastServed.set(orgId, ++served);
    else {
      queues.delete(orgId);
      lastServed.delete(orgId);
    }
    bump(perHostWaiting, host, -1);
    waitingCount--;
    return { monitor, host };
  }

  function drainQueues(): MonitorRecord[] {
    const held: MonitorRecord[] = [];
    for (const byHost of queues.values()) for (const queue of byHost.values()) held.push(...queue);
    queues.clear();
    lastServed.clear();
    perHostWaiting.clear();
    waitingCount = 0;
    return held;
  }

  function settleIdle(): void {
    if (running.size > 0 || waitingCount > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  async function release(monitor: MonitorRecord, nextCheckAt: string | null): Promise<void> {
    try {
      await store.releaseMonitor(monitor.id, owner, nextCheckAt);
    } catch (error) {
      report(error);
    }
  }

  function runOne(monitor: MonitorRecord, host: string): void {
    bump(perHostRunning, host, 1);
    const begun = performance.now();
    const task = (async () => {
      let nextCheckAt: string | null = monitor.nextCheckAt;
      let outcome: CheckOutcome | null = null;
      try {
        outcome = await checks.runCheck(monitor, { requestId: newId("request"), signal: abort.signal });
        nextCheckAt = outcome.monitor.nextCheckAt;
      } catch (error) {
        // Cancelled at shutdown: stays due (its old nextCheckAt). Otherwise try again one interval later.
        if (!abort.signal.aborted) {
          // A monitor deleted while its check ran is not an error worth reporting.
          if (!(error instanceof StoreError || (error as { name?: unknown } | null)?.name === "StoreError") || (error as StoreError).code !== "not_found") report(error);
          nextCheckAt = new Date(now().getTime() + monitor.intervalSeconds * 1000).toISOString();
        }
      }
      observe(host, performance.now() - begun);
      await release(monitor, nextCheckAt);
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
      bump(perHostRunning, host, -1);
      pump();
      // Claim again once half the holding room is free, not after every check: one claim per batch.
      if (lastClaimFull && room() >= concurrency) wake();
      settleIdle();
    });
  }

  /** Starts waiting monitors while slots are free: orgs take turns, saturated hosts are skipped. */
  function pump(): void {
    while (running.size < concurrency) {
      const next = dequeue();
      if (next === null) break;
      runOne(next.monitor, next.host);
    }
    metrics?.setDueMonitors(waitingCount);
  }

  async function tick(): Promise<number> {
    const limit = room();
    if (limit <= 0) return 0;
    const claimed = await store.claimDueMonitors({ now: now().toISOString(), limit, leaseMs, owner });
    lastClaimFull = claimed.length >= limit;
    const deferred: MonitorRecord[] = [];
    for (const monitor of claimed) {
      const host = hostOf(monitor.url);
      // A monitor waits in its host's queue for a host slot. Only beyond what the host can check
      // within half a lease does it give its lease back, for one poll interval.
      if ((perHostWaiting.get(host) ?? 0) >= hostQueueLimit(host)) {
        deferred.push(monitor);
        continue;
      }
      enqueue(monitor, host);
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
      const batch = await store.claimDueMonitors({ now: cutoff, limit: SPREAD_BATCH_SIZE, leaseMs, owner });
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

  function sleep(ms: number): Promise<void> {
    if (woken) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });
  }

  function wake(): void {
    if (wakeUp) wakeUp();
    else woken = true;
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
      await sleep(pollIntervalMs);
    }
  }

  return {
    get inFlight() {
      return running.size;
    },
    get waiting() {
      return waitingCount;
    },
    start() {
      if (started) return;
      started = true;
      abort = new AbortController();
      loop = run();
    },
    async stop(stopOptions = {}) {
      started = false;
      wakeUp?.();
      if (loop !== null) await loop;
      loop = null;
      // Waiting monitors give their lease back untouched: still due, for the next process.
      const held = drainQueues();
      metrics?.setDueMonitors(0);
      await Promise.all(held.map((monitor) => release(monitor, monitor.nextCheckAt)));
      let timer: NodeJS.Timeout | undefined;
      if (stopOptions.graceMs !== undefined) timer = setTimeout(() => abort.abort(new Error("scheduler stopped")), stopOptions.graceMs);
      try {
        while (running.size > 0) await Promise.allSettled([...running]);
      } finally {
        clearTimeout(timer);
      }
      settleIdle();
    },
    wake,
    spreadOverdue,
    tick,
    idle() {
      if (running.size === 0 && waitingCount === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
