import { performance } from "node:perf_hooks";
import {
  activeWebhookSecrets,
  createSignedDelivery,
  isDriftwatchError,
  type DeliveryAttempt,
  type DeliveryRecord,
  type Store,
  type WebhookRecord,
  type WorkerRunResult,
} from "@driftwatch/core";
import {
  DEFAULT_DELIVERY_CONCURRENCY,
  DEFAULT_ENDPOINT_CONCURRENCY,
  DEFAULT_ORG_SHARE,
  DELIVERY_TIMEOUT_MS,
  MAX_DELIVERIES_PER_RUN,
  MAX_ENDPOINT_QUEUE,
} from "../limits.js";
import type { DeliveryMetricOutcome, EngineMetrics } from "../metrics.js";
import type { DeliveryService, UrlGuard, WebhookTransport } from "../ports.js";
import { createFairQueue, orgSlots } from "../queue/fair-queue.js";
import { defaultOwner, queueFor, type WorkQueue } from "../queue/work-queue.js";

export { defaultOwner };
import { createFetchTransport } from "./fetch-transport.js";
import { MAX_DELIVERY_ATTEMPTS, nextDeliveryDelayMs, parseRetryAfter } from "./retry.js";

export interface DeliveryServiceOptions {
  store: Store;
  /**
   * How the signed POSTs leave the process. Default: Node's `fetch` without redirects and without
   * an SSRF guard; a server exposed to tenants passes `createWebhookTransport` of
   * @driftwatch/fetcher-http, which checks the resolved address of every connection.
   */
  transport?: WebhookTransport;
  /** Checked before every attempt, for a clear `unsafe_url` error in the delivery log. */
  urlGuard?: UrlGuard;
  now?: () => Date;
  random?: () => number;
  metrics?: Pick<EngineMetrics, "observeDelivery" | "observeTakeover" | "observeLeaseLost">;
  /** Where due deliveries are claimed. Default: a queue on `store`'s leases of its own (owner `owner`, lease `leaseMs`). */
  queue?: WorkQueue;
  /** Lease owner name of the default queue. Default `delivery:<hostname>:<pid>:<random>`. */
  owner?: string;
  /** Lease of the default queue (renewed by its heartbeat). Default 20 s. */
  leaseMs?: number;
  /** Share of the delivery slots one organization may hold while another organization's deliveries wait. Default 0.5. */
  orgShare?: number;
  /** Per attempt. Default 15 s. */
  timeoutMs?: number;
  /** Attempts in flight at once (a forced run starts all it claimed at once). Default 16. */
  concurrency?: number;
  /** Most deliveries one `runWorker` call attempts. Default 100. */
  maxPerRun?: number;
  /** Attempts in flight at once to one endpoint (webhook URL), over all orgs. Default 4. */
  endpointConcurrency?: number;
}

export interface DeliverDueOptions {
  orgId?: string | undefined;
  webhookId?: string | undefined;
  /** Also deliveries whose retry time has not come. */
  force?: boolean;
  limit: number;
  /** Aborting leaves the unfinished attempts unrecorded: their deliveries stay pending, no longer renewed (see `WorkQueue.drop`). */
  signal?: AbortSignal;
  /**
   * Keep claiming every `pollMs` while attempts are in flight (the background worker), until
   * `limit` deliveries were claimed or nothing is in flight. Default: claim until the outbox has
   * nothing more due, then wait for the attempts.
   */
  pollMs?: number;
}

export interface DeliverDueResult {
  /** Deliveries claimed (attempted unless aborted). */
  claimed: number;
  attempted: number;
  succeeded: number;
  /** Attempts that did not succeed (retried later, or given up). */
  failed: number;
}

export interface EngineDeliveryService extends DeliveryService {
  /** Claims due deliveries (a lease per delivery) and attempts each once. */
  deliverDue(options: DeliverDueOptions): Promise<DeliverDueResult>;
  /** Closes the transport it created (not one passed in). */
  close(): Promise<void>;
}

type AttemptOutcome = DeliveryMetricOutcome | "aborted" | "lost";

function errorText(error: unknown): string {
  if (isDriftwatchError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Webhook delivery from the outbox: each claimed delivery is signed (Standard
 * Webhooks, both secrets during a rotation), POSTed with a 15 s deadline, and its attempt recorded;
 * failures are retried on the schedule of `DELIVERY_RETRY_DELAYS_MS` with jitter, `410 Gone`
 * disables the webhook, and `429`/`503` are retried after their `Retry-After`.
 */
export function createDeliveryService(options: DeliveryServiceOptions): EngineDeliveryService {
  const { store, urlGuard, metrics } = options;
  const now = options.now ?? ((): Date => new Date());
  const random = options.random ?? Math.random;
  const queue = queueFor("delivery", options, { now, metrics });
  const orgShare = options.orgShare ?? DEFAULT_ORG_SHARE;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_DELIVERY_CONCURRENCY);
  const maxPerRun = Math.max(1, options.maxPerRun ?? MAX_DELIVERIES_PER_RUN);
  const endpointCap = Math.max(1, options.endpointConcurrency ?? DEFAULT_ENDPOINT_CONCURRENCY);
  const ownsTransport = options.transport === undefined;
  const transport = options.transport ?? createFetchTransport();

  /** POSTs one signed attempt; returns the status and `Retry-After`, or throws (network, guard, timeout). */
  async function post(url: string, body: string, headers: Record<string, string>, signal: AbortSignal | undefined) {
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([deadline, signal]) : deadline;
    try {
      return await transport.post({ url, body, headers: { ...headers, "user-agent": "driftwatch-webhooks/0.1" }, signal: combined });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (deadline.aborted) throw new Error(`timeout: no response within ${String(timeoutMs)} ms`);
      throw error;
    }
  }

  async function attempt(delivery: DeliveryRecord, webhook: WebhookRecord | null, signal: AbortSignal | undefined): Promise<AttemptOutcome> {
    const at = now();
    const started = performance.now();
    const attemptNumber = delivery.attempts + 1;
    let responseStatus: number | null = null;
    let error: string | null = null;
    let retryAfterMs: number | null = null;
    let outcome: DeliveryMetricOutcome;

    if (webhook === null) {
      error = "the webhook no longer exists";
      outcome = "failed";
    } else {
      try {
        await urlGuard?.assertSafeUrl(webhook.url);
        const signed = createSignedDelivery({ event: delivery.payload, deliveredAt: at, secrets: activeWebhookSecrets(webhook, at) });
        const response = await post(webhook.url, signed.body, signed.headers, signal);
        responseStatus = response.status;
        if (response.status >= 200 && response.status < 300) {
          outcome = "succeeded";
        } else if (response.status === 410) {
          outcome = "disabled";
          error = "HTTP 410 Gone: the webhook was disabled";
        } else {
          error = `HTTP ${String(response.status)}`;
          if (response.status === 429 || response.status === 503) retryAfterMs = parseRetryAfter(response.retryAfter, now().getTime());
          outcome = attemptNumber >= MAX_DELIVERY_ATTEMPTS ? "failed" : "retry";
        }
      } catch (cause) {
        if (signal?.aborted) return "aborted";
        error = errorText(cause);
        outcome = attemptNumber >= MAX_DELIVERY_ATTEMPTS ? "failed" : "retry";
      }
    }

    const durationMs = performance.now() - started;
    let nextAttemptAt: string | null = null;
    if (outcome === "retry") {
      // Counted from the attempt's end (a slow receiver does not shorten its own retry delay). A
      // Retry-After can put a retry later than the schedule, never sooner: `Retry-After: 0`
      // cannot burn the attempts in a burst.
      const scheduled = nextDeliveryDelayMs(attemptNumber, random) ?? 0;
      const delay = retryAfterMs === null ? scheduled : Math.max(retryAfterMs, scheduled);
      nextAttemptAt = new Date(now().getTime() + delay).toISOString();
    }
    const record: DeliveryAttempt = {
      at: at.toISOString(),
      state: outcome === "succeeded" ? "succeeded" : outcome === "retry" ? "pending" : "failed",
      nextAttemptAt,
      responseStatus,
      error,
      durationMs,
    };
    if (outcome === "disabled" && webhook !== null) {
      await store.updateWebhook(webhook.orgId, webhook.id, { enabled: false, updatedAt: at.toISOString() });
    }
    const saved = await queue.completeDelivery(delivery.id, record);
    metrics?.observeDelivery(outcome, durationMs / 1000, delivery.orgId);
    return saved === null ? "lost" : outcome;
  }

  /**
   * Claims only what can start at once (free slots), so no claimed delivery waits behind slow
   * receivers while its lease runs out; more is claimed as attempts finish, up to `run.limit`.
   * Claimed deliveries wait in per-org, per-endpoint queues (`createFairQueue`): the org served
   * least recently goes next, and an endpoint (webhook URL) has at most `endpointConcurrency`
   * attempts in flight, so one org's slow or hung receiver holds at most its own endpoint's slots.
   * Their claims are renewed while they wait; one that is not attempted (aborted, store failure)
   * is dropped, so another worker retries it once its lease expires.
   * A forced run claims once: with `force` a failed attempt is due again at once, and claiming
   * again would retry it within the same run.
   */
  async function deliverDue(run: DeliverDueOptions): Promise<DeliverDueResult> {
    const result: DeliverDueResult = { claimed: 0, attempted: 0, succeeded: 0, failed: 0 };
    const webhooks = new Map<string, Promise<WebhookRecord | null>>();
    const webhookOf = (d: DeliveryRecord): Promise<WebhookRecord | null> => {
      const key = `${d.orgId}/${d.webhookId}`;
      let found = webhooks.get(key);
      if (found === undefined) {
        found = store.getWebhook(d.orgId, d.webhookId);
        webhooks.set(key, found);
      }
      return found;
    };
    const force = run.force === true;
    const slots = force ? Math.max(concurrency, run.limit) : concurrency;
    const inFlight = new Set<Promise<void>>();
    let failure: unknown = null;
    let remaining = Math.max(0, Math.floor(run.limit));
    let exhausted = false;

    interface Queued {
      delivery: DeliveryRecord;
      webhook: WebhookRecord | null;
    }
    const waiting = createFairQueue<Queued>({ keyConcurrency: endpointCap, orgSlots: orgSlots(slots, orgShare) });
    const endpointOf = (entry: Queued): string => entry.webhook?.url ?? `(deleted) ${entry.delivery.webhookId}`;
    const drop = (entry: Queued): void => queue.drop("delivery", entry.delivery.id);

    const start = (entry: Queued, orgId: string, url: string): void => {
      const task = (async () => {
        if (run.signal?.aborted) return drop(entry);
        let outcome: AttemptOutcome;
        try {
          outcome = await attempt(entry.delivery, entry.webhook, run.signal);
        } catch (error) {
          // A store error (closed, unavailable): this delivery is retried once its lease expires;
          // the other attempts still finish and are recorded.
          drop(entry);
          failure ??= error;
          return;
        }
        if (outcome === "aborted") return drop(entry);
        if (outcome === "lost") return;
        result.attempted++;
        if (outcome === "succeeded") result.succeeded++;
        else result.failed++;
      })();
      inFlight.add(task);
      void task.finally(() => {
        inFlight.delete(task);
        waiting.finish(orgId, url);
        pump();
      });
    };

    function pump(): void {
      while (inFlight.size < slots && failure === null && run.signal?.aborted !== true) {
        const next = waiting.next();
        if (next === null) return;
        // Taken over by another worker while it waited (this process stalled past its lease).
        if (!queue.holds("delivery", next.item.delivery.id)) {
          waiting.finish(next.orgId, next.key);
          continue;
        }
        start(next.item, next.orgId, next.key);
      }
    }

    const enqueue = (entry: Queued): void => {
      const url = endpointOf(entry);
      // Beyond the bound of one endpoint's queue: left to its lease (no attempt counted).
      if (waiting.waitingFor(url) >= MAX_ENDPOINT_QUEUE) return drop(entry);
      waiting.push(entry.delivery.orgId, url, entry);
    };

    const idle = (ms: number): Promise<void> =>
      new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        void Promise.race(inFlight).finally(() => {
          clearTimeout(timer);
          resolve();
        });
      });

    for (;;) {
      while (!exhausted && remaining > 0 && failure === null && run.signal?.aborted !== true) {
        const free = Math.min(slots - inFlight.size - waiting.runnable(), remaining);
        // Claim in chunks (at least half the slots free), not one delivery per finished attempt.
        if (free > 0 && free >= Math.min(remaining, Math.ceil(slots / 2))) {
          const claimed = await queue.claimDeliveries({
            now: now().toISOString(),
            limit: free,
            ...(run.orgId === undefined ? {} : { orgId: run.orgId }),
            ...(run.webhookId === undefined ? {} : { webhookId: run.webhookId }),
            ...(force ? { force: true } : {}),
          });
          result.claimed += claimed.length;
          remaining -= claimed.length;
          if (claimed.length < free || force) exhausted = true;
          const entries = await Promise.all(claimed.map(async (delivery) => ({ delivery, webhook: await webhookOf(delivery) })));
          for (const entry of entries) enqueue(entry);
          pump();
          continue;
        }
        if (inFlight.size === 0) break;
        await Promise.race(inFlight);
      }
      // A worker run keeps claiming while its attempts are in flight, so work that becomes due
      // (another org's delivery) never waits for a slow receiver's attempts to end.
      if (run.pollMs === undefined || force || remaining <= 0 || failure !== null || run.signal?.aborted === true || inFlight.size === 0) break;
      await idle(run.pollMs);
      exhausted = false;
    }
    while (inFlight.size > 0) await Promise.race(inFlight);
    // Left unattempted (aborted, or a store failure stopped the run): no longer renewed.
    for (const entry of waiting.drain()) drop(entry);
    if (failure !== null) throw failure;
    return result;
  }

  return {
    deliverDue,
    async runWorker(orgId, runOptions): Promise<WorkerRunResult> {
      const result = await deliverDue({ orgId, webhookId: runOptions.webhookId, force: runOptions.force, limit: maxPerRun });
      const pending = await store.countPendingDeliveries(orgId);
      return { attempted: result.attempted, succeeded: result.succeeded, failed: result.failed, pending };
    },
    async close() {
      if (options.queue === undefined || typeof options.queue === "function") queue.close();
      if (ownsTransport) await transport.close();
    },
  };
}
