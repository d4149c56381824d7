import { newId, type CheckResult, type Fetcher, type MonitorRecord, type ScreenshotStorage, type Store, type WebhookRecord, type WorkerRunResult } from "@driftwatch/core";
import { bootstrapStore, rotateWebhookSecret, type BootstrapOptions, type BootstrapResult } from "./accounts.js";
import { createDeliveryWorker, type DeliveryWorker } from "./delivery/delivery-worker.js";
import { createChannelDeliveryService, type ChannelDeliveryService, type ChannelSender } from "./delivery/channel-delivery.js";
import { createDeliveryService, type DeliverDueOptions, type DeliverDueResult, type EngineDeliveryService } from "./delivery/delivery.js";
import { DEFAULT_ENGINE_LIMITS, DEFAULT_LEARNING_SAMPLES, DEFAULT_WARMUP_INTERVAL_MS, DEFAULT_WARMUP_SAMPLES, SECRET_ROTATION_GRACE_MS, type EngineLimits } from "./limits.js";
import { createMetrics, type EngineMetrics } from "./metrics.js";
import { createCheckService, type CheckOutcome, type EngineCheckService, type WarmupOptions } from "./pipeline/check-service.js";
import { createNoiseLearner, type NoiseLearner } from "./pipeline/noise.js";
import type { EngineLogger, UrlGuard, WebhookTransport } from "./ports.js";
import { queueFor, type WorkQueue, type WorkQueueFactory } from "./queue/work-queue.js";
import { createScheduler, type Scheduler } from "./scheduler.js";
import { type ComparePool, createComparePool } from "./workers/compare-pool.js";

/** Where the engine's checks and deliveries go out. */
export interface EngineFetchers {
  /** Fetches `api` monitors and `website` monitors without browser options. */
  http: Fetcher;
  /** Renders `website` monitors that have browser options; without it they are fetched over HTTP. */
  browser?: Fetcher | undefined;
  /**
   * POSTs signed webhook deliveries. Default: Node's `fetch` without redirects and without an
   * SSRF guard; pass `createWebhookTransport()` of @driftwatch/fetcher-http where tenants choose
   * webhook URLs.
   */
  webhooks?: WebhookTransport | undefined;
}

export interface EngineOptions {
  store: Store;
  fetchers: EngineFetchers;
  /** The engine's clock (default `() => new Date()`); tests pass one they move by hand. */
  clock?: () => Date;
  /** Errors of background work (scheduler ticks, delivery batches, noise learning). Default: `console.error`. */
  logger?: EngineLogger;
  /** Limits to change; the rest keep `DEFAULT_ENGINE_LIMITS`. */
  limits?: Partial<EngineLimits>;
  /** Checked before every delivery attempt, for a clear `unsafe_url` in the delivery log. */
  urlGuard?: UrlGuard;
  /** Metrics to record into (default: a registry of the engine's own, on `engine.metrics`). */
  metrics?: EngineMetrics;
  /** Base URL for the `data.diffUrl` link of truncated webhook payloads; without it the link is a path. */
  publicUrl?: string | null;
  /** Where website monitors' screenshots are kept (default: the store's table). */
  screenshots?: ScreenshotStorage;
  /** Resolves a browser step's `secret` (a stored secret's name in the monitor's organization) to its value. */
  resolveSecret?: (orgId: string, name: string) => Promise<string | undefined>;
  /**
   * How long a claimed check or delivery stays leased to this process without a heartbeat
   * (default 20 s); the heartbeat renews held claims every third of it. After a crash other
   * processes take the work over within about one lease.
   */
  leaseMs?: number;
  /** The lease owner name of this engine's claims (default `engine:<hostname>:<pid>:<random>`). */
  owner?: string;
  /**
   * Where due checks and deliveries are claimed. Default: the store's leases
   * (`createStoreWorkQueue`). A factory is called once with the engine's owner name, clock,
   * metrics and error log (e.g. `jobs.workQueue` of `@driftwatch/queue-postgres`); the engine
   * closes a queue it made that way. The engine hands its claims back when it stops.
   */
  queue?: WorkQueue | WorkQueueFactory;
  /** Share of the check (and delivery) slots one organization may hold while another's work waits (default 0.5). */
  orgShare?: number;
  /**
   * The warm-up of monitors that learn their noise: extra fetches in the check that stores a
   * monitor's first content (default 2, `DEFAULT_WARMUP_SAMPLES`, 1 s apart; `{ samples: 0 }`:
   * none), and how many stored contents a monitor learns from before its diffs stop being
   * `learning` ones (`learningSamples`, default 3, `DEFAULT_LEARNING_SAMPLES`). See docs/signal.md.
   */
  warmup?: Partial<WarmupOptions>;
  /** Checks in flight at once (default 8) and against one host (default 2). */
  checkConcurrency?: number;
  perHostConcurrency?: number;
  /** Webhook attempts in flight at once to one receiver URL (default 4). */
  endpointConcurrency?: number;
  /** Wait between scheduler claims when nothing is due (default 1000 ms). */
  schedulerPollMs?: number;
  /** Wait between outbox polls when nothing is due (default 1000 ms). */
  deliveryPollMs?: number;
  /** Randomness of jitter (tests make it fixed). */
  random?: () => number;
  /**
   * Sends notification channels' messages (the server's: `@driftwatch/notify` with the secret key).
   * Without it, checks still write channel messages to the outbox; this engine sends none.
   */
  channels?: ChannelSender;
}

export interface EngineStopOptions {
  /**
   * How long in-flight checks and delivery attempts may run before they are cancelled. A cancelled
   * check records nothing and stays due; a cancelled attempt stays pending until its lease expires.
   * Default: wait for them.
   */
  graceMs?: number;
}

/** The monitoring engine: checks, their schedule, webhook deliveries and secret rotation on one store. */
export interface Engine {
  readonly store: Store;
  readonly metrics: EngineMetrics;
  readonly checks: EngineCheckService;
  readonly deliveries: EngineDeliveryService;
  readonly scheduler: Scheduler;
  readonly worker: DeliveryWorker;
  /** Notification channels' outbox delivery (null without `EngineOptions.channels`). */
  readonly channels: ChannelDeliveryService | null;
  readonly noise: NoiseLearner;
  /** The comparison worker pool the checks use; a host runs its own comparisons here too (the rules preview's batches, `GET /api/monitors/{id}/compare`), off the event loop. */
  readonly compare: ComparePool;
  /** Where the scheduler and the delivery worker claim their work. */
  readonly queue: WorkQueue;
  /** True between `start()` and `stop()`. */
  readonly running: boolean;
  /**
   * Checks a monitor now (fetch -> diff -> policy -> store -> outbox) and wakes the delivery
   * worker when it found a diff. Null when the monitor is not in this organization; a failed check
   * is recorded on the monitor and thrown (`FetchError`, `CheckError`).
   */
  checkNow(orgId: string, monitorId: string, context?: { requestId?: string }): Promise<CheckResult | null>;
  /** Checks a monitor record you hold; never throws for the target's faults (see `CheckOutcome`). */
  runCheck(monitor: MonitorRecord, context?: { requestId?: string; signal?: AbortSignal }): Promise<CheckOutcome>;
  /** Delivers what is due for one organization now (optionally one webhook; `force`: also retries not yet due). */
  runWorker(orgId: string, options?: { webhookId?: string | undefined; force?: boolean }): Promise<WorkerRunResult>;
  /** Claims and attempts due deliveries of every organization once. */
  deliverDue(options: DeliverDueOptions): Promise<DeliverDueResult>;
  /** A new signing secret; the previous one keeps signing for 24 h. Null when the webhook is not in this organization. */
  rotateWebhookSecret(orgId: string, webhookId: string): Promise<{ webhook: WebhookRecord; secret: string } | null>;
  /** On an empty store: organization `default` and an admin token (see `bootstrapStore`). */
  bootstrap(options?: BootstrapOptions): Promise<BootstrapResult>;
  /** Starts the scheduler (monitors are checked when due) and the delivery worker. */
  start(): void;
  /** Stops claiming work and waits for what is in flight (see `EngineStopOptions`); `start()` may follow. */
  stop(options?: EngineStopOptions): Promise<void>;
  /** `stop()`, then ends the comparison worker threads and the webhook transport the engine made. Leaves the store and the fetchers open. */
  close(options?: EngineStopOptions): Promise<void>;
}

const consoleLogger: EngineLogger = {
  error: (fields, message) => console.error(message, fields),
  warn: (fields, message) => console.error(message, fields),
  info: () => undefined,
};

/**
 * The monitoring engine as a library: give it a store and fetchers, `start()` it, and monitors
 * are checked on their schedule, diffs recorded with their policy, and `diff.detected` webhooks
 * delivered, signed, with the retry schedule. `stop()` is graceful: nothing claimed is lost.
 */
export function createEngine(options: EngineOptions): Engine {
  const { store, fetchers } = options;
  const now = options.clock ?? ((): Date => new Date());
  const logger = options.logger ?? consoleLogger;
  const limits: EngineLimits = { ...DEFAULT_ENGINE_LIMITS, ...options.limits };
  const metrics = options.metrics ?? createMetrics({ store });
  const random = options.random === undefined ? {} : { random: options.random };
  const queue = queueFor("engine", options, { now, metrics, onError: (error) => logger.error({ err: error }, "lease renewal failed") });
  const share = options.orgShare === undefined ? {} : { orgShare: options.orgShare };

  const compare = createComparePool(limits);
  const noise = createNoiseLearner(store, {
    // suggestPolicy over big snapshots runs in the compare pool's worker threads, off the event loop
    learn: (task) => compare.learn(task),
    onError: (error, monitor) => logger.error({ err: error, monitorId: monitor.id }, "noise learning failed"),
  });
  const checks = createCheckService({
    store,
    httpFetcher: fetchers.http,
    browserFetcher: fetchers.browser,
    now,
    ...random,
    metrics,
    noise,
    compare,
    maxWebhookPayloadBytes: limits.maxWebhookPayloadBytes,
    maxDiffChanges: limits.maxDiffChanges,
    maxDiffBytes: limits.maxDiffBytes,
    publicUrl: options.publicUrl ?? null,
    ...(options.screenshots === undefined ? {} : { screenshots: options.screenshots }),
    ...(options.resolveSecret === undefined ? {} : { resolveSecret: options.resolveSecret }),
    onScreenshotError: (error, monitor) => logger.warn({ err: error, monitorId: monitor.id }, "screenshot not compared or kept"),
    warmup: {
      ...(options.checkConcurrency === undefined ? {} : { concurrency: options.checkConcurrency }),
      ...options.warmup,
      samples: options.warmup?.samples ?? DEFAULT_WARMUP_SAMPLES,
      intervalMs: options.warmup?.intervalMs ?? DEFAULT_WARMUP_INTERVAL_MS,
      learningSamples: options.warmup?.learningSamples ?? DEFAULT_LEARNING_SAMPLES,
    },
    onWarmupError: (error, monitor) => logger.error({ err: error, monitorId: monitor.id }, "warm-up fetch failed"),
  });
  const deliveries = createDeliveryService({
    store,
    now,
    ...random,
    metrics,
    queue,
    ...share,
    ...(fetchers.webhooks === undefined ? {} : { transport: fetchers.webhooks }),
    ...(options.urlGuard === undefined ? {} : { urlGuard: options.urlGuard }),
    ...(options.endpointConcurrency === undefined ? {} : { endpointConcurrency: options.endpointConcurrency }),
  });
  const worker = createDeliveryWorker({
    deliveries,
    ...(options.deliveryPollMs === undefined ? {} : { pollIntervalMs: options.deliveryPollMs }),
    onError: (error) => logger.error({ err: error }, "delivery worker batch failed"),
  });
  const channels =
    options.channels === undefined
      ? null
      : createChannelDeliveryService({ store, sender: options.channels, now, ...random, ...(options.owner === undefined ? {} : { owner: `${options.owner}:channels` }), ...share });
  const channelWorker =
    channels === null
      ? null
      : createDeliveryWorker({
          deliveries: channels,
          ...(options.deliveryPollMs === undefined ? {} : { pollIntervalMs: options.deliveryPollMs }),
          onError: (error) => logger.error({ err: error }, "channel delivery batch failed"),
        });
  const wake = (): void => {
    worker.wake();
    channelWorker?.wake();
  };
  const scheduler = createScheduler({
    store,
    checks,
    metrics,
    now,
    ...random,
    queue,
    ...share,
    ...(options.checkConcurrency === undefined ? {} : { concurrency: options.checkConcurrency }),
    ...(options.perHostConcurrency === undefined ? {} : { perHostConcurrency: options.perHostConcurrency }),
    ...(options.schedulerPollMs === undefined ? {} : { pollIntervalMs: options.schedulerPollMs }),
    onError: (error: unknown) => logger.error({ err: error }, "scheduler tick failed"),
    // A check that wrote to the outbox wakes the delivery worker at once.
    onCheck: (outcome) => {
      if (outcome.result === "changed") wake();
    },
  });

  let running = false;
  let closed: Promise<void> | null = null;

  async function stop(stopOptions: EngineStopOptions = {}): Promise<void> {
    running = false;
    // the scheduler's checks done, their warm-ups (which go on after them) end too
    const results = await Promise.allSettled([scheduler.stop(stopOptions).then(() => checks.stopDetachedWarmups()), worker.stop(stopOptions), channelWorker?.stop(stopOptions)]);
    for (const result of results) {
      if (result.status === "rejected") logger.error({ err: result.reason }, "error while stopping");
    }
    // Nothing of this engine runs any more: what it still holds (cancelled checks and attempts)
    // is handed back now, for the other processes, instead of at lease expiry.
    try {
      await queue.releaseAll();
      await channels?.releaseAll();
    } catch (error) {
      logger.error({ err: error }, "handing back claimed work failed");
    }
  }

  return {
    store,
    metrics,
    checks,
    deliveries,
    scheduler,
    worker,
    channels,
    noise,
    compare,
    queue,
    get running() {
      return running;
    },
    async checkNow(orgId, monitorId, context = {}) {
      const result = await checks.checkNow(orgId, monitorId, { requestId: context.requestId ?? newId("request") });
      if (result?.diff != null) wake();
      return result;
    },
    async runCheck(monitor, context = {}) {
      const outcome = await checks.runCheck(monitor, { ...context, requestId: context.requestId ?? newId("request") });
      if (outcome.result === "changed") wake();
      return outcome;
    },
    runWorker: (orgId, runOptions = {}) => deliveries.runWorker(orgId, { webhookId: runOptions.webhookId, force: runOptions.force === true }),
    deliverDue: (deliverOptions) => deliveries.deliverDue(deliverOptions),
    rotateWebhookSecret: (orgId, webhookId) => rotateWebhookSecret(store, orgId, webhookId, { now: now(), graceMs: SECRET_ROTATION_GRACE_MS }),
    bootstrap: (bootstrapOptions) => bootstrapStore(store, bootstrapOptions),
    start() {
      if (closed !== null) throw new Error("The engine was closed");
      running = true;
      scheduler.start();
      worker.start();
      channelWorker?.start();
    },
    stop,
    close(stopOptions) {
      closed ??= (async () => {
        await stop(stopOptions);
        if (options.queue === undefined || typeof options.queue === "function") queue.close();
        // the check service's warm-ups end before the compare pool they use
        await checks.close();
        await Promise.allSettled([deliveries.close(), compare.close()]);
      })();
      return closed;
    },
  };
}
