import type { Classification, Store } from "@driftwatch/core";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { MetricsRegistry } from "./ports.js";

/** How one check ended (`changed`: a new diff; `new_snapshot`: first or policy-silent content). */
export type CheckMetricResult = "changed" | "new_snapshot" | "unchanged" | "failed";
/** How one delivery attempt ended. */
export type DeliveryMetricOutcome = "succeeded" | "retry" | "failed" | "disabled";
/** Kinds of claimed work (as `WorkKind` of the work queue). */
export type WorkMetricKind = "monitor" | "delivery";

/** Organizations that get a label value of their own in the per-org counters; the rest share `org="other"`. */
export const MAX_ORG_LABELS = 100;
/** Hosts whose scheduling lag is reported by name (the laggiest since the previous scrape). */
export const MAX_HOST_LAG_LABELS = 20;
/** Hosts whose lag is remembered between two scrapes. */
const MAX_HOST_LAG_TRACKED = 10_000;

export interface MetricsOptions {
  /** Prefix of every metric name. Default `driftwatch_`. */
  prefix?: string;
  /** When given, the pending-deliveries gauge is read from it at every scrape. */
  store?: Store;
}

/**
 * The engine's metrics, on a registry of their own (never prom-client's global one, so two
 * servers in one process, or an embedder's own metrics, never collide).
 */
export interface EngineMetrics extends MetricsRegistry {
  readonly registry: Registry;
  observeCheck(result: CheckMetricResult, durationSeconds: number, orgId?: string): void;
  observeDiff(classification: Classification): void;
  observeDelivery(outcome: DeliveryMetricOutcome, durationSeconds: number, orgId?: string): void;
  /** A scheduled check starts: its lag behind its due time, by host (see `driftwatch_host_lag_seconds`). */
  observeCheckStart(start: { orgId: string; host: string; lagSeconds: number }): void;
  /** A claim took over work whose lease another process let expire (it stopped or stalled). */
  observeTakeover(kind: WorkMetricKind): void;
  /** A held claim was found taken over by another process at renewal (this one stalled past its lease). */
  observeLeaseLost(kind: WorkMetricKind): void;
  /** Monitors that are due and waiting for a free slot in this process's scheduler. */
  setDueMonitors(count: number): void;
  /** Sets the pending-deliveries gauge by hand (when no store was given). */
  setPendingDeliveries(count: number): void;
  /** Attaches the store the pending-deliveries gauge is read from at scrape time. */
  useStore(store: Store): void;
  /**
   * Attaches the job queue's counts, read at scrape time into `driftwatch_queue_jobs` (the
   * PostgreSQL job queue: jobs due and waiting, scheduled for later, and running, per queue).
   */
  useJobCounts(read: () => Promise<JobCounts>): void;
  observeRequest(route: string, method: string, status: number, durationSeconds: number): void;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LAG_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900];

/** Jobs of one queue of a job engine, by state. */
export interface JobStateCounts {
  /** Due and waiting for a worker. */
  due: number;
  /** Waiting for a later due time. */
  scheduled: number;
  /** Taken by a worker. */
  running: number;
}

/** Jobs of the job queue's two queues: one per monitor (checks), one per pending delivery. */
export interface JobCounts {
  checks: JobStateCounts;
  deliveries: JobStateCounts;
}

/** Prometheus metrics of checks, diffs, deliveries, queue depth and HTTP requests. */
export function createMetrics(options: MetricsOptions = {}): EngineMetrics {
  const prefix = options.prefix ?? "driftwatch_";
  const registry = new Registry();
  const registers = [registry];
  let store: Store | undefined = options.store;
  let pendingFallback = 0;

  const checks = new Counter({
    name: `${prefix}checks_total`,
    help: "Monitor checks run, by result (changed, new_snapshot, unchanged, failed).",
    labelNames: ["result"] as const,
    registers,
  });
  const diffs = new Counter({
    name: `${prefix}diffs_total`,
    help: "Diffs recorded, by classification.",
    labelNames: ["classification"] as const,
    registers,
  });
  const deliveries = new Counter({
    name: `${prefix}deliveries_total`,
    help: "Webhook delivery attempts, by outcome (succeeded, retry, failed, disabled).",
    labelNames: ["outcome"] as const,
    registers,
  });
  const checkDuration = new Histogram({
    name: `${prefix}check_duration_seconds`,
    help: "Duration of one monitor check (fetch, diff, record).",
    labelNames: ["result"] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const deliveryDuration = new Histogram({
    name: `${prefix}delivery_duration_seconds`,
    help: "Duration of one webhook delivery attempt.",
    labelNames: ["outcome"] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const queueDepth = new Gauge({
    name: `${prefix}queue_depth`,
    help: "Work waiting: pending webhook deliveries (queue=deliveries), due monitors waiting for a scheduler slot (queue=monitors).",
    labelNames: ["queue"] as const,
    registers,
    async collect() {
      if (store === undefined) {
        this.set({ queue: "deliveries" }, pendingFallback);
        return;
      }
      try {
        this.set({ queue: "deliveries" }, await store.countPendingDeliveries());
      } catch {
        // A scrape must not fail because the store is briefly unavailable; keep the last value.
      }
    },
  });
  queueDepth.set({ queue: "monitors" }, 0);
  queueDepth.set({ queue: "deliveries" }, 0);
  let jobCounts: (() => Promise<JobCounts>) | undefined;
  new Gauge({
    name: `${prefix}queue_jobs`,
    help: "Jobs of the PostgreSQL job queue (the whole database, the same in every process), by queue (checks, deliveries) and state (due: waiting for a worker, scheduled: due later, running).",
    labelNames: ["queue", "state"] as const,
    registers,
    async collect() {
      if (jobCounts === undefined) return;
      try {
        const counts = await jobCounts();
        for (const queue of ["checks", "deliveries"] as const) {
          for (const state of ["due", "scheduled", "running"] as const) this.set({ queue, state }, counts[queue][state]);
        }
      } catch {
        // A scrape must not fail because the database is briefly unavailable; keep the last values.
      }
    },
  });
  const lag = new Histogram({
    name: `${prefix}check_lag_seconds`,
    help: "Scheduling lag: when a scheduled check started minus when it was due.",
    buckets: LAG_BUCKETS,
    registers,
  });
  /** The largest lag of each host since the previous scrape. */
  const hostLag = new Map<string, number>();
  new Gauge({
    name: `${prefix}host_lag_seconds`,
    help: `Largest scheduling lag of a host's checks since the previous scrape, for the ${String(MAX_HOST_LAG_LABELS)} laggiest hosts (a slow host lags alone).`,
    labelNames: ["host"] as const,
    registers,
    collect() {
      this.reset();
      const worst = [...hostLag].sort((a, b) => b[1] - a[1]).slice(0, MAX_HOST_LAG_LABELS);
      for (const [host, seconds] of worst) this.set({ host }, seconds);
      hostLag.clear();
    },
  });
  const orgWork = new Counter({
    name: `${prefix}org_work_total`,
    help: `Checks run (kind=check) and delivery attempts made (kind=delivery) by this process, per organization id (the first ${String(MAX_ORG_LABELS)} seen; the rest as org="other").`,
    labelNames: ["kind", "org"] as const,
    registers,
  });
  const orgLabels = new Set<string>();
  const orgLabel = (orgId: string): string => {
    if (orgLabels.has(orgId)) return orgId;
    if (orgLabels.size >= MAX_ORG_LABELS) return "other";
    orgLabels.add(orgId);
    return orgId;
  };
  const takeovers = new Counter({
    name: `${prefix}lease_takeovers_total`,
    help: "Claims that took over work whose lease another process let expire (it died or stalled), by kind (monitor, delivery).",
    labelNames: ["kind"] as const,
    registers,
  });
  const leasesLost = new Counter({
    name: `${prefix}leases_lost_total`,
    help: "Claims this process held and found taken over at renewal (it stalled past its lease), by kind.",
    labelNames: ["kind"] as const,
    registers,
  });
  const requests = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: "HTTP API requests, by route template, method and status.",
    labelNames: ["route", "method", "status"] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });

  // Zero-initialise the known label values so dashboards see every series from the start.
  for (const result of ["changed", "new_snapshot", "unchanged", "failed"] as const) checks.inc({ result }, 0);
  for (const classification of ["schema_change", "value_change", "content_change", "visual_change"] as const) diffs.inc({ classification }, 0);
  for (const outcome of ["succeeded", "retry", "failed", "disabled"] as const) deliveries.inc({ outcome }, 0);
  for (const kind of ["monitor", "delivery"] as const) {
    takeovers.inc({ kind }, 0);
    leasesLost.inc({ kind }, 0);
  }

  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    observeCheck(result, durationSeconds, orgId) {
      checks.inc({ result });
      checkDuration.observe({ result }, durationSeconds);
      if (orgId !== undefined) orgWork.inc({ kind: "check", org: orgLabel(orgId) });
    },
    observeDiff(classification) {
      diffs.inc({ classification });
    },
    observeDelivery(outcome, durationSeconds, orgId) {
      deliveries.inc({ outcome });
      deliveryDuration.observe({ outcome }, durationSeconds);
      if (orgId !== undefined) orgWork.inc({ kind: "delivery", org: orgLabel(orgId) });
    },
    observeCheckStart({ host, lagSeconds }) {
      lag.observe(lagSeconds);
      const worst = hostLag.get(host);
      if (worst === undefined && hostLag.size >= MAX_HOST_LAG_TRACKED) return;
      if (worst === undefined || lagSeconds > worst) hostLag.set(host, lagSeconds);
    },
    observeTakeover(kind) {
      takeovers.inc({ kind });
    },
    observeLeaseLost(kind) {
      leasesLost.inc({ kind });
    },
    setDueMonitors(count) {
      queueDepth.set({ queue: "monitors" }, count);
    },
    setPendingDeliveries(count) {
      pendingFallback = count;
      if (store === undefined) queueDepth.set({ queue: "deliveries" }, count);
    },
    useStore(next) {
      store = next;
    },
    useJobCounts(read) {
      jobCounts = read;
    },
    observeRequest(route, method, status, durationSeconds) {
      requests.observe({ route, method, status: String(status) }, durationSeconds);
    },
  };
}
