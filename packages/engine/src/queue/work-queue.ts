import { randomUUID } from "node:crypto";
import os from "node:os";
import type { ClaimDeliveriesInput, ClaimedDelivery, ClaimedMonitor, DeliveryAttempt, DeliveryRecord, ReleasedLeases, Store } from "@driftwatch/core";
import { DEFAULT_LEASE_MS, leaseRenewalMs } from "../limits.js";
import type { EngineMetrics } from "../metrics.js";

/** The kinds of work the queue hands out. */
export type WorkKind = "monitor" | "delivery";

/**
 * The queue operations the engine uses, and nothing else: claim due work, finish it, know whether
 * a claim is still held, hand everything back. The scheduler and the delivery service see only
 * this port, so the queue can move to another backend (a job queue such as pg-boss or
 * graphile-worker) without touching them. `createStoreWorkQueue` is the one on the `Store`'s
 * leases.
 */
export interface WorkQueue {
  /** The name the queue's claims are held under (one per process by default). */
  readonly owner: string;
  /** Claims due monitors (see `Store.claimDueMonitors`); they stay held until completed, dropped or released. */
  claimMonitors(input: { now: string; limit: number }): Promise<ClaimedMonitor[]>;
  /** Ends a monitor's claim with its next check time (null parks it). False when the claim was lost. */
  completeMonitor(id: string, nextCheckAt: string | null): Promise<boolean>;
  /**
   * Present when a monitor's claim is the store's lease under `owner`: then the check's own
   * record may end it (`recordCheck` with `releaseLease: owner`, one write instead of two), and
   * this tells the queue the claim is over, instead of `completeMonitor`.
   */
  monitorReleasedByRecord?(id: string): void;
  /** Claims due deliveries (see `Store.claimDueDeliveries`). */
  claimDeliveries(input: Omit<ClaimDeliveriesInput, "owner" | "leaseMs">): Promise<ClaimedDelivery[]>;
  /** Records a delivery attempt and ends its claim. Null when the claim was lost. */
  completeDelivery(id: string, attempt: DeliveryAttempt): Promise<DeliveryRecord | null>;
  /** Whether the claim is still held: false once completed, dropped, or taken over by another worker. */
  holds(kind: WorkKind, id: string): boolean;
  /** Stops renewing a claim without finishing it: another worker takes the work once the lease expires. */
  drop(kind: WorkKind, id: string): void;
  /**
   * Hands every claim of this owner back at once (the work is due for other workers now). Call
   * it when no work of this owner is in flight, e.g. at the end of a graceful stop.
   */
  releaseAll(): Promise<ReleasedLeases>;
  /** Claims held now, by kind. */
  readonly held: Readonly<Record<WorkKind, number>>;
  /** Stops the heartbeat (claims still held expire with their leases). */
  close(): void;
}

/**
 * The heartbeat of a queue's held claims: after `everyMs`, `renew` runs (one at a time), and again
 * while `holding()` says there is something held. `kick` after a claim starts it; `settled` waits
 * for a renewal in progress; `stop` ends it (claims still held expire with their leases).
 */
export interface Heartbeat {
  kick(): void;
  settled(): Promise<void>;
  stop(): void;
}

export function createHeartbeat(everyMs: number, holding: () => boolean, renew: () => Promise<void>): Heartbeat {
  let timer: NodeJS.Timeout | null = null;
  let renewing: Promise<void> | null = null;
  let stopped = false;
  function kick(): void {
    if (stopped || timer !== null || !holding()) return;
    timer = setTimeout(() => {
      timer = null;
      renewing = renew().finally(() => {
        renewing = null;
        kick();
      });
    }, everyMs);
    timer.unref();
  }
  return {
    kick,
    async settled() {
      if (renewing !== null) await renewing;
    },
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}

/** A lease owner name unique to this process and part: `<kind>:<hostname>:<pid>:<random>`. */
export function defaultOwner(kind: string): string {
  return `${kind}:${os.hostname()}:${String(process.pid)}:${randomUUID().slice(0, 8)}`;
}

/** What a part (the engine, the scheduler, the delivery service) hands a queue factory: its owner name, clock, metrics and error log. */
export interface WorkQueueContext {
  owner: string;
  now: () => Date;
  metrics?: Pick<EngineMetrics, "observeTakeover" | "observeLeaseLost"> | undefined;
  onError?: ((error: unknown) => void) | undefined;
}

/** A work queue made for one part with that part's context (e.g. a PostgreSQL job queue's `workQueue`). */
export type WorkQueueFactory = (context: WorkQueueContext) => WorkQueue;

/** The options of a part that claims work: the queue it was given, or what to make its own queue of. */
export interface QueueChoice {
  /** A queue, or a factory the part calls once with its context; default: the store's leases. */
  queue?: WorkQueue | WorkQueueFactory | undefined;
  store: Store;
  owner?: string | undefined;
  leaseMs?: number | undefined;
}

/** The queue a part (scheduler, delivery service) was given, or one of its own on the store's leases. */
export function queueFor(
  kind: string,
  choice: QueueChoice,
  extra: Pick<StoreWorkQueueOptions, "now" | "metrics" | "onError">,
): WorkQueue {
  if (typeof choice.queue === "function") {
    return choice.queue({ owner: choice.owner ?? defaultOwner(kind), now: extra.now ?? ((): Date => new Date()), metrics: extra.metrics, onError: extra.onError });
  }
  if (choice.queue !== undefined) return choice.queue;
  return createStoreWorkQueue({
    store: choice.store,
    owner: choice.owner ?? defaultOwner(kind),
    ...(choice.leaseMs === undefined ? {} : { leaseMs: choice.leaseMs }),
    ...extra,
  });
}

export interface StoreWorkQueueOptions {
  store: Store;
  /** The lease owner name; one per process (`defaultOwner("engine")`). */
  owner: string;
  /** How long a claim holds without a heartbeat. Default 20 s. */
  leaseMs?: number;
  /** How often held claims are renewed. Default a third of the lease. */
  renewEveryMs?: number;
  now?: (() => Date) | undefined;
  metrics?: Pick<EngineMetrics, "observeTakeover" | "observeLeaseLost"> | undefined;
  /** A renewal that failed (store unavailable); the next heartbeat tries again. */
  onError?: ((error: unknown) => void) | undefined;
}

/**
 * The work queue on the store's leases: a claim is a short lease (default 20 s) that a heartbeat
 * renews every third of it while the work is held, so a process that dies loses its work to the
 * others within one lease, while work that runs long is never taken over. A claim that finds an
 * expired lease of another owner is a takeover (counted in the metrics).
 */
export function createStoreWorkQueue(options: StoreWorkQueueOptions): WorkQueue {
  const { store, owner, metrics } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const renewEveryMs = options.renewEveryMs ?? leaseRenewalMs(leaseMs);
  const now = options.now ?? ((): Date => new Date());
  /** Held claims and the claim number each was taken with, so a renewal's answer never drops a newer claim of the same id. */
  const held: Record<WorkKind, Map<string, number>> = { monitor: new Map(), delivery: new Map() };
  let claims = 0;
  const heartbeat = createHeartbeat(renewEveryMs, () => held.monitor.size > 0 || held.delivery.size > 0, renew);

  async function renew(): Promise<void> {
    const asked = { monitor: new Map(held.monitor), delivery: new Map(held.delivery) };
    const monitorIds = [...asked.monitor.keys()];
    const deliveryIds = [...asked.delivery.keys()];
    if (monitorIds.length === 0 && deliveryIds.length === 0) return;
    try {
      const renewed = await store.renewLeases({ owner, now: now().toISOString(), leaseMs, monitorIds, deliveryIds });
      // Claims asked about and not renewed were taken over (or finished meanwhile, then already gone).
      const lost = (kind: WorkKind, kept: string[]): void => {
        const keep = new Set(kept);
        for (const [id, claim] of asked[kind]) {
          if (keep.has(id) || held[kind].get(id) !== claim) continue;
          held[kind].delete(id);
          metrics?.observeLeaseLost(kind);
        }
      };
      lost("monitor", renewed.monitorIds);
      lost("delivery", renewed.deliveryIds);
    } catch (error) {
      options.onError?.(error);
    }
  }

  function track<T extends { id: string; takenOverFrom: string | null }>(kind: WorkKind, claimed: T[]): T[] {
    for (const item of claimed) {
      held[kind].set(item.id, ++claims);
      if (item.takenOverFrom !== null && item.takenOverFrom !== owner) metrics?.observeTakeover(kind);
    }
    heartbeat.kick();
    return claimed;
  }

  return {
    owner,
    get held() {
      return { monitor: held.monitor.size, delivery: held.delivery.size };
    },
    async claimMonitors(input) {
      return track("monitor", await store.claimDueMonitors({ ...input, leaseMs, owner }));
    },
    completeMonitor(id, nextCheckAt) {
      held.monitor.delete(id);
      return store.releaseMonitor(id, owner, nextCheckAt);
    },
    monitorReleasedByRecord(id) {
      held.monitor.delete(id);
    },
    async claimDeliveries(input) {
      return track("delivery", await store.claimDueDeliveries({ ...input, leaseMs, owner }));
    },
    completeDelivery(id, attempt) {
      held.delivery.delete(id);
      return store.recordDeliveryAttempt(id, owner, attempt);
    },
    holds: (kind, id) => held[kind].has(id),
    drop(kind, id) {
      held[kind].delete(id);
    },
    async releaseAll() {
      held.monitor.clear();
      held.delivery.clear();
      await heartbeat.settled();
      return store.releaseLeases(owner);
    },
    close() {
      heartbeat.stop();
    },
  };
}
