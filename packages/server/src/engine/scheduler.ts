import { newId, StoreError, type MonitorRecord, type Store } from "@driftwatch/core";
import type { CheckOutcome, EngineCheckService } from "../pipeline/check-service.js";
import { defaultOwner } from "./delivery.js";
import type { EngineMetrics } from "./metrics.js";

/** A claimed monitor stays leased this long; longer than the slowest check (30 s fetch, 60 s render). */
export const MONITOR_LEASE_MS = 5 * 60_000;
/** Monitors overdue at start are spread over at most this window (or their interval, when shorter). */
export const DEFAULT_SPREAD_WINDOW_MS = 60_000;

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
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const perHost = Math.max(1, Math.min(concurrency, options.perHostConcurrency ?? 2));
  const owner = options.owner ?? defaultOwner("scheduler");
  const leaseMs = options.leaseMs ?? MONITOR_LEASE_MS;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const spreadWindowMs = options.spreadWindowMs ?? DEFAULT_SPREAD_WINDOW_MS;
  const overdueAfterMs = options.overdueAfterMs ?? 10_000;
  const report = (error: unknown): void => options.onError?.(error);

  /** Claimed monitors waiting for a slot (global or per host), in claim (due) order. */
  const waiting: MonitorRecord[] = [];
  const perHostRunning = new Map<string, number>();
  const perHostWaiting = new Map<string, number>();
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

  /** Hold at most two monitors per slot (running + waiting), so leases never sit idle for long. */
  function room(): number {
    return concurrency * 2 - running.size - waiting.length;
  }

  function settleIdle(): void {
    if (running.size > 0 || waiting.length > 0) return;
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

  /** Starts waiting monitors while slots are free, skipping those whose host is saturated. */
  function pump(): void {
    for (let i = 0; i < waiting.length && running.size < concurrency; ) {
      const monitor = waiting[i]!;
      const host = hostOf(monitor.url);
      if ((perHostRunning.get(host) ?? 0) >= perHost) {
        i++;
        continue;
      }
      waiting.splice(i, 1);
      bump(perHostWaiting, host, -1);
      runOne(monitor, host);
    }
    metrics?.setDueMonitors(waiting.length);
  }

  async function tick(): Promise<number> {
    const limit = room();
    if (limit <= 0) return 0;
    const claimed = await store.claimDueMonitors({ now: now().toISOString(), limit, leaseMs, owner });
    lastClaimFull = claimed.length >= limit;
    const deferred: MonitorRecord[] = [];
    for (const monitor of claimed) {
      const host = hostOf(monitor.url);
      // A host holds at most twice its share (running + waiting); the rest of its monitors give
      // their lease back for one poll interval, so one busy host cannot starve the others.
      if ((perHostRunning.get(host) ?? 0) + (perHostWaiting.get(host) ?? 0) >= 2 * perHost) {
        deferred.push(monitor);
        continue;
      }
      waiting.push(monitor);
      bump(perHostWaiting, host, 1);
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
      const batch = await store.claimDueMonitors({ now: cutoff, limit: 200, leaseMs, owner });
      for (const monitor of batch) {
        const window = Math.min(monitor.intervalSeconds * 1000, spreadWindowMs);
        // At least 1 ms ahead, so the next batch of this loop cannot claim it again.
        const next = new Date(at + 1 + Math.floor(random() * window)).toISOString();
        await release(monitor, next);
      }
      spread += batch.length;
      if (batch.length < 200) return spread;
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
      return waiting.length;
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
      const held = waiting.splice(0, waiting.length);
      perHostWaiting.clear();
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
      if (running.size === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
