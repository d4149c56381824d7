import type { Classification, Store } from "@driftwatch/core";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { MetricsRegistry } from "./ports.js";

/** How one check ended (`changed`: a new diff; `new_snapshot`: first or policy-silent content). */
export type CheckMetricResult = "changed" | "new_snapshot" | "unchanged" | "failed";
/** How one delivery attempt ended. */
export type DeliveryMetricOutcome = "succeeded" | "retry" | "failed" | "disabled";

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
  observeCheck(result: CheckMetricResult, durationSeconds: number): void;
  observeDiff(classification: Classification): void;
  observeDelivery(outcome: DeliveryMetricOutcome, durationSeconds: number): void;
  /** Monitors that are due and waiting for a free slot in this process's scheduler. */
  setDueMonitors(count: number): void;
  /** Sets the pending-deliveries gauge by hand (when no store was given). */
  setPendingDeliveries(count: number): void;
  /** Attaches the store the pending-deliveries gauge is read from at scrape time. */
  useStore(store: Store): void;
  observeRequest(route: string, method: string, status: number, durationSeconds: number): void;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

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
  const requests = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: "HTTP API requests, by route template, method and status.",
    labelNames: ["route", "method", "status"] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });

  // Zero-initialise the known label values so dashboards see every series from the start.
  for (const result of ["changed", "new_snapshot", "unchanged", "failed"] as const) checks.inc({ result }, 0);
  for (const classification of ["schema_change", "value_change", "content_change"] as const) diffs.inc({ classification }, 0);
  for (const outcome of ["succeeded", "retry", "failed", "disabled"] as const) deliveries.inc({ outcome }, 0);

  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    observeCheck(result, durationSeconds) {
      checks.inc({ result });
      checkDuration.observe({ result }, durationSeconds);
    },
    observeDiff(classification) {
      diffs.inc({ classification });
    },
    observeDelivery(outcome, durationSeconds) {
      deliveries.inc({ outcome });
      deliveryDuration.observe({ outcome }, durationSeconds);
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
    observeRequest(route, method, status, durationSeconds) {
      requests.observe({ route, method, status: String(status) }, durationSeconds);
    },
  };
}
