import type { CheckResult, WorkerRunResult } from "@driftwatch/core";

/**
 * The seams of the engine: what an HTTP API (or any other caller) uses of it, and what it needs
 * from its host besides the store and the fetchers.
 */

/** Runs checks on demand. */
export interface CheckService {
  /**
   * Runs one check of the monitor now (fetch, diff with its policy, atomic record, outbox)
   * and returns the latest snapshot and the new diff (null when nothing changed). Returns null
   * when the monitor does not exist in this organization. Fetch failures are recorded on the
   * monitor (lastError, consecutiveFailures, state) and raised as `FetchError`.
   */
  checkNow(orgId: string, monitorId: string, context: { requestId: string }): Promise<CheckResult | null>;
}

/** Runs webhook deliveries on demand. */
export interface DeliveryService {
  /** Runs the delivery worker once for one organization (`POST /api/webhooks/worker/run`). */
  runWorker(orgId: string, options: { webhookId?: string | undefined; force: boolean }): Promise<WorkerRunResult>;
}

/** The SSRF guard of monitor and webhook URLs. */
export interface UrlGuard {
  /** Throws `FetchError` (`unsafe_url` or `invalid_url`) for a URL the SSRF guard refuses. */
  assertSafeUrl(url: string): Promise<void>;
}

/** Metrics in the Prometheus text format (the server serves them at `/metrics`). */
export interface MetricsRegistry {
  contentType: string;
  render(): Promise<string>;
  /** Called once per finished HTTP request by a server that serves the engine. */
  observeRequest?(route: string, method: string, status: number, durationSeconds: number): void;
}

/** One signed webhook POST. */
export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Aborted at the attempt's deadline or when the engine stops. */
  signal: AbortSignal;
}

/**
 * How webhook deliveries leave the process. It must not follow redirects; it rejects on network
 * errors (preferably with a `FetchError`, whose code the delivery log shows). `createWebhookTransport`
 * of @driftwatch/fetcher-http is one that checks every connection against the SSRF guard.
 */
export interface WebhookTransport {
  post(post: WebhookPost): Promise<{ status: number; retryAfter?: string | undefined }>;
  close(): Promise<void>;
}

/** Where the engine reports errors of background work (pino's logger fits). */
export interface EngineLogger {
  error(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}
