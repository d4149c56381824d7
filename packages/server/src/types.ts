import type { CheckResult, Store, WorkerRunResult } from "@driftwatch/core";
import type { Logger } from "pino";
import type { EventHub } from "./live/events.js";
import type { NoiseLearner } from "./pipeline/noise.js";

/**
 * The seams between the HTTP API (src/app.ts, src/routes) and the engine (check pipeline,
 * scheduler, delivery worker). The API only calls these; the composition root (src/service.ts)
 * wires real implementations.
 */
export interface CheckService {
  /**
   * Runs one check of the monitor now (fetch, diff with its policy, atomic record, outbox)
   * and returns the latest snapshot and the new diff (null when nothing changed). Returns null
   * when the monitor does not exist in this organization. Fetch failures are recorded on the
   * monitor (lastError, consecutiveFailures, state) and raised as `FetchError`.
   */
  checkNow(orgId: string, monitorId: string, context: { requestId: string }): Promise<CheckResult | null>;
}

export interface DeliveryService {
  /** Runs the delivery worker once for one organization (`POST /api/webhooks/worker/run`). */
  runWorker(orgId: string, options: { webhookId?: string | undefined; force: boolean }): Promise<WorkerRunResult>;
}

export interface UrlGuard {
  /** Throws `FetchError` (`unsafe_url` or `invalid_url`) for a URL the SSRF guard refuses. */
  assertSafeUrl(url: string): Promise<void>;
}

export interface ServerConfig {
  /** Lifts the SSRF guard (development and tests only). */
  allowPrivateNetworks: boolean;
  /** Requests per minute per organization and endpoint. */
  rateLimitReads: number;
  rateLimitWrites: number;
  /**
   * Where rate-limit counters live: `store` (shared by every process on the database; the default
   * when the store has the `rateLimits` capability) or `memory` (this process only; no store write
   * per request).
   */
  rateLimitCounters?: "memory" | "store";
  /** Largest accepted request body. */
  bodyLimitBytes: number;
  /** A list response stops before passing this many bytes of items (default 4 MB); `nextCursor` continues. */
  maxListResponseBytes?: number;
  /**
   * How long a token read from the store is trusted before it is read again (default 5000 ms,
   * `TOKEN_CACHE_TTL_MS`; 0: on every request). A token revoked through this process is refused
   * at once; one revoked by another process on the same database within this delay.
   */
  tokenCacheTtlMs?: number;
}

/** Prometheus metrics (src/engine/metrics.ts); the app serves them at `/metrics`. */
export interface MetricsRegistry {
  contentType: string;
  render(): Promise<string>;
  /** Called by the app once per finished HTTP request. */
  observeRequest?(route: string, method: string, status: number, durationSeconds: number): void;
}

export interface AppDependencies {
  store: Store;
  checks: CheckService;
  deliveries: DeliveryService;
  urlGuard: UrlGuard;
  /** Learns a monitor's noise from its recent snapshots (`GET /api/monitors/{id}/noise`); default: one on `store`. */
  noise?: NoiseLearner;
  config: ServerConfig;
  /** Served at `/metrics`; without it `/metrics` serves an empty registry. */
  metrics?: MetricsRegistry;
  /** Injected clock for tests; defaults to `() => new Date()`. */
  now?: () => Date;
  /**
   * Live events for `GET /api/events/stream`: publish into it (`observeStore` does for the store the
   * engine writes to). Default: a hub of its own, which only ever sends `ready` and keep-alives.
   */
  events?: EventHub;
  /**
   * The built dashboard to serve at `/`: a directory with `index.html`; default the installed
   * `@driftwatch/dashboard` package's `dist`; null: none (`/` says how to build it).
   */
  dashboardDir?: string | null;
  /** The app's pino logger (every line carries `requestId`); defaults to pino at `DRIFTWATCH_LOG_LEVEL` or info. */
  logger?: Logger;
}
