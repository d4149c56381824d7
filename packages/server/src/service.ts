import type { AddressInfo } from "node:net";
import { createDirectoryScreenshotStorage, createSecretResolver, type Fetcher, type FetchRequest, type FetchResponse, type Store } from "@driftwatch/core";
import { createBrowserFetcher, type BrowserFetcher } from "@driftwatch/fetcher-browser";
import { ALL_SCOPES, type BootstrapResult, createEngine, DELIVERY_TIMEOUT_MS, type EngineMetrics, type UrlGuard, type WorkQueueContext } from "@driftwatch/engine";
import { assertSafeUrl, createHttpFetcher, createWebhookTransport, type GuardOptions } from "@driftwatch/fetcher-http";
import type { FastifyInstance } from "fastify";
import { pino, type Logger } from "pino";
import { buildApp } from "./app.js";
import { createSmtpMailer } from "@driftwatch/people";
import { createEventHub, observeStore } from "./live/events.js";
import type { PostgresRelay } from "./live/postgres-relay.js";
import { createCheckPoller } from "./live/check-poller.js";
import { startMetricsListener, type MetricsListener } from "./http/metrics-listener.js";
import { monitorEventLoop } from "./event-loop.js";
import { createDelegatedChecks, restrictToWorkerPaths, runsBackgroundWork } from "./roles.js";
import { resolveServerSecrets, type ServerSecrets } from "./config/secret-key.js";
import { createNotifier } from "@driftwatch/notify";
import { createChannelSender, resealInStore } from "./notify/channel-sender.js";
import {
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_CHROMIUM_PATH,
  DEFAULT_DATABASE_URL,
  DEFAULT_HOST,
  DEFAULT_LIMITS,
  DEFAULT_PORT,
  DEFAULT_RATE_LIMIT_READS,
  DEFAULT_RATE_LIMIT_WRITES,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_ORG_SHARE_PERCENT,
  DEFAULT_PER_HOST_CONCURRENCY,
  DEFAULT_WARMUP_INTERVAL_MS,
  DEFAULT_WARMUP_SAMPLES,
  DEFAULT_LEARNING_SAMPLES,
  DEFAULT_CHECK_WAIT_MS,
  ConfigError,
  defaultCheckConcurrency,
  type DriftwatchConfig,
  openDatabase,
  parseDatabaseUrl,
  type ServerLimits,
} from "./config/index.js";

export interface DriftwatchServerOptions extends Partial<Omit<DriftwatchConfig, "limits">> {
  /** Limits to change; the rest keep their defaults (`DEFAULT_LIMITS`). */
  limits?: Partial<ServerLimits>;
  /**
   * Where notification channels read `DRIFTWATCH_<SERVICE>_API_URL` (a service's API base, e.g.
   * `DRIFTWATCH_SLACK_API_URL`) from. Default `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** A store you opened: used instead of `databaseUrl`, and not closed by `close()`. */
  store?: Store;
  /** Replaces the HTTP fetcher (yours: `close()` leaves it open). */
  httpFetcher?: Fetcher;
  /** Replaces the lazily launched Chromium fetcher for website monitors with `browserOptions` (yours: left open). */
  browserFetcher?: Fetcher;
  logger?: Logger;
  /**
   * Origins (`http://127.0.0.1:4000`) exempted from the SSRF guard, exactly, without lifting it
   * for any other host or port. The demo uses it for its own loopback target and receiver.
   */
  trustedOrigins?: string[];
  /** Run the scheduler and the delivery worker (default true). Off: checks and deliveries run only when asked through the API. */
  background?: boolean;
  /** How often the delivery worker polls the outbox (default `pollIntervalMs`). */
  deliveryPollMs?: number;
  /**
   * Keep request rate-limit counters in the store, shared by every process on it (default: for a
   * `postgres://` databaseUrl, where several machines serve one database, and for a `store` you pass). Otherwise they stay in memory:
   * a SQLite write per request would cost more than the request itself. Sign-in limits and failed
   * authentications are kept in the store either way (a write per failure or sign-in only).
   */
  sharedRateLimits?: boolean;
  /** The API's clock (tests move it to reach session and invitation expiries); default the system clock. */
  now?: () => Date;
}

export { ALL_SCOPES, type BootstrapResult };

export interface DriftwatchServer {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly config: DriftwatchConfig;
  readonly metrics: EngineMetrics;
  readonly logger: Logger;
  /** The key that seals users' secrets at rest, and where it came from (`box` null: none configured). */
  readonly secrets: ServerSecrets;
  /**
   * On an empty database: creates organization `default` and an admin token (the configured
   * `adminToken` when set, else a new secret returned once). No-op otherwise.
   */
  bootstrap(): Promise<BootstrapResult>;
  /** Where `/metrics` listens when it has an address of its own (`metricsListen`), once listening; else null. */
  metricsAddress(): AddressInfo | null;
  /** Listens on `host:port`, then starts the scheduler and the delivery worker. Resolves with the base URL. */
  listen(): Promise<string>;
  /**
   * Graceful shutdown: stops accepting connections and claiming work, lets in-flight requests,
   * checks and deliveries finish (up to `shutdownTimeoutMs`, after which the unfinished ones stay
   * pending in the store and are retried by the next process), then closes fetchers and store.
   */
  close(): Promise<void>;
}

function withDefaults(options: DriftwatchServerOptions): DriftwatchConfig {
  return {
    port: options.port ?? DEFAULT_PORT,
    host: options.host ?? DEFAULT_HOST,
    databaseUrl: options.databaseUrl ?? DEFAULT_DATABASE_URL,
    allowPrivateNetworks: options.allowPrivateNetworks ?? false,
    allowAddresses: options.allowAddresses ?? [],
    rateLimitReads: options.rateLimitReads ?? DEFAULT_RATE_LIMIT_READS,
    rateLimitWrites: options.rateLimitWrites ?? DEFAULT_RATE_LIMIT_WRITES,
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    adminToken: options.adminToken ?? null,
    chromiumPath: options.chromiumPath ?? DEFAULT_CHROMIUM_PATH,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
    demo: options.demo ?? false,
    leaseMs: options.leaseMs ?? null,
    pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    orgSharePercent: options.orgSharePercent ?? DEFAULT_ORG_SHARE_PERCENT,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    publicUrl: options.publicUrl ?? null,
    role: options.role ?? "all",
    queue: options.queue ?? (options.store === undefined && parseDatabaseUrl(options.databaseUrl ?? DEFAULT_DATABASE_URL).kind === "postgres" ? "pg-boss" : "leases"),
    checkConcurrency: options.checkConcurrency ?? defaultCheckConcurrency(),
    perHostConcurrency: options.perHostConcurrency ?? DEFAULT_PER_HOST_CONCURRENCY,
    warmupSamples: options.warmupSamples ?? DEFAULT_WARMUP_SAMPLES,
    warmupIntervalMs: options.warmupIntervalMs ?? DEFAULT_WARMUP_INTERVAL_MS,
    learningSamples: options.learningSamples ?? DEFAULT_LEARNING_SAMPLES,
    checkWaitMs: options.checkWaitMs ?? DEFAULT_CHECK_WAIT_MS,
    trustProxy: options.trustProxy ?? false,
    smtp: options.smtp ?? null,
    secretKey: options.secretKey ?? null,
    // the optional settings pass through as given (a config from `resolveServeConfig` included)
    ...(options.trustProxyHops === undefined ? {} : { trustProxyHops: options.trustProxyHops }),
    ...(options.webhookEndpointConcurrency === undefined ? {} : { webhookEndpointConcurrency: options.webhookEndpointConcurrency }),
    ...(options.logFormat === undefined ? {} : { logFormat: options.logFormat }),
    metricsToken: options.metricsToken ?? null,
    metricsListen: options.metricsListen ?? null,
    screenshotDir: options.screenshotDir ?? null,
  };
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** The SSRF guard of monitor and webhook URLs, with exact-origin exemptions. */
export function createUrlGuard(guard: GuardOptions, trustedOrigins: ReadonlySet<string>): UrlGuard {
  return {
    async assertSafeUrl(url) {
      const origin = originOf(url);
      if (origin !== null && trustedOrigins.has(origin)) return;
      await assertSafeUrl(url, guard);
    },
  };
}

/**
 * Sends requests for trusted origins to `trusted` (a fetcher whose guard admits their loopback
 * address, with redirects off so nothing leaves the origin) and everything else to `strict`.
 */
function routeTrustedOrigins(strict: Fetcher, trusted: Fetcher | null, trustedOrigins: ReadonlySet<string>): Fetcher {
  if (trusted === null || trustedOrigins.size === 0) return strict;
  return {
    fetch(request: FetchRequest): Promise<FetchResponse> {
      const origin = originOf(request.url);
      return origin !== null && trustedOrigins.has(origin) ? trusted.fetch(request) : strict.fetch(request);
    },
    async close() {
      await Promise.all([strict.close(), trusted.close()]);
    },
  };
}

/** Loopback addresses of trusted origins, for the guard's exact-address exemption. */
function trustedAddresses(origins: ReadonlySet<string>): string[] {
  const addresses = new Set<string>();
  for (const origin of origins) {
    const host = new URL(origin).hostname.replace(/^\[|\]$/g, "");
    if (host === "localhost") addresses.add("127.0.0.1").add("::1");
    else addresses.add(host);
  }
  return [...addresses];
}

/**
 * The composition root of the reference server: store, fetchers, the engine (@driftwatch/engine:
 * checks, scheduler, deliveries, metrics) and the HTTP app, with a graceful `close()`.
 */
export async function createDriftwatchServer(options: DriftwatchServerOptions = {}): Promise<DriftwatchServer> {
  const config = withDefaults(options);
  if (config.queue === "pg-boss" && (options.store !== undefined || parseDatabaseUrl(config.databaseUrl).kind !== "postgres")) {
    throw new ConfigError("invalid_value", 'The pg-boss queue needs the PostgreSQL database the server opens itself (a postgres:// databaseUrl); use queue: "leases" with a store you pass in.');
  }
  const logger = options.logger ?? pino({ level: process.env.DRIFTWATCH_LOG_LEVEL ?? "info" });
  const ownsStore = options.store === undefined;
  // Live events (GET /api/events/stream): the engine and the API write through an observed store.
  // On a PostgreSQL database it opens, the relay also carries them to and from the other processes
  // (an api process hears the checks and deliveries of the workers); SQLite and memory keep them
  // in this process.
  // An api process on SQLite polls for the checks of the worker processes on the file instead.
  const events = createEventHub();
  const baseStore = options.store ?? (await openDatabase(config.databaseUrl));
  const databaseKind = ownsStore ? parseDatabaseUrl(config.databaseUrl).kind : null;
  const onPostgres = databaseKind === "postgres";
  // PostgreSQL's modules (pg, the relay, pg-boss) are loaded only on PostgreSQL: a SQLite server
  // does not pay their memory.
  const relay: PostgresRelay | null =
    ownsStore && onPostgres
      ? (await import("./live/postgres-relay.js")).createPostgresRelay({ connectionString: config.databaseUrl.trim(), store: baseStore, hub: events, logger, listen: config.role !== "worker" })
      : null;
  const poller = ownsStore && databaseKind === "sqlite" && config.role === "api" ? createCheckPoller({ store: baseStore, hub: events, logger }) : null;
  const liveHub = poller?.hub ?? relay?.hub ?? events;
  const store = observeStore(baseStore, liveHub);

  // The key sealing the secrets users give driftwatch (channel tokens, step passwords).
  const secrets = await resolveServerSecrets({ secretKey: config.secretKey ?? null, databaseUrl: ownsStore ? config.databaseUrl : null }).catch(async (error: unknown) => {
    if (ownsStore) await baseStore.close();
    throw error;
  });
  if (secrets.box === null) logger.warn({ secretKey: secrets.source }, `no secret key: storing channel and step secrets is refused (${secrets.missingReason})`);
  else logger.debug({ secretKey: secrets.source, keyId: secrets.box.keyId }, "secret key ready");

  const trustedOrigins = new Set((options.trustedOrigins ?? []).map((o) => new URL(o).origin));
  const guard: GuardOptions = { allowPrivateNetworks: config.allowPrivateNetworks, allowAddresses: config.allowAddresses };
  const trustedGuard: GuardOptions = { ...guard, allowAddresses: [...config.allowAddresses, ...trustedAddresses(trustedOrigins)] };
  const urlGuard = createUrlGuard(guard, trustedOrigins);

  const httpFetcher =
    options.httpFetcher ??
    routeTrustedOrigins(
      createHttpFetcher(guard),
      trustedOrigins.size > 0 ? createHttpFetcher({ ...trustedGuard, maxRedirects: 0 }) : null,
      trustedOrigins,
    );
  // Chromium is launched by the browser fetcher on its first render, never at startup.
  const browserFetcher = options.browserFetcher ?? createBrowserFetcher({ ...guard, executablePath: config.chromiumPath });
  // Screenshots in files when DRIFTWATCH_SCREENSHOT_DIR says so, else in the store's table.
  const screenshots = config.screenshotDir === undefined || config.screenshotDir === null ? undefined : createDirectoryScreenshotStorage(config.screenshotDir);
  const webhookTransport = createWebhookTransport({ ...(trustedOrigins.size > 0 ? trustedGuard : guard), connectTimeoutMs: DELIVERY_TIMEOUT_MS });

  // On PostgreSQL the work queue is pg-boss (unless told `leases`): started, with its triggers
  // installed and the lease queue's work moved over, before this process claims anything. An api
  // process claims nothing; the triggers enqueue what its writes make due.
  const jobs =
    config.queue === "pg-boss" && config.role !== "api"
      ? await (await import("@driftwatch/queue-postgres")).startPostgresJobs({
          connectionString: config.databaseUrl.trim(),
          ...(config.leaseMs === null ? {} : { leaseMs: config.leaseMs }),
          onError: (error) => logger.error({ err: error }, "job queue error"),
        }).catch(async (error: unknown) => {
          await Promise.allSettled([relay?.close(), poller?.close(), ownsStore ? baseStore.close() : undefined]);
          throw error;
        })
      : null;
  if (jobs !== null && (jobs.installed.monitors > 0 || jobs.installed.deliveries > 0)) {
    logger.info({ monitors: jobs.installed.monitors, deliveries: jobs.installed.deliveries }, "job queue: enqueued work that had no job (upgrade from the lease queue, or repair)");
  }

  // Notification channels: every request a channel sends passes the URL guard (as webhooks do).
  const notifier = createNotifier({
    env: options.env ?? process.env,
    ...(config.publicUrl === null ? {} : { publicUrl: config.publicUrl }),
    checkUrl: (url) => urlGuard.assertSafeUrl(url),
    guard,
  });

  const engine = createEngine({
    channels: createChannelSender(notifier, secrets, {
      // a key rotation: the channel's URL moves to the new key at its next send
      reseal: resealInStore(store),
    }),
    ...(jobs === null ? {} : { queue: (context: WorkQueueContext) => jobs.workQueue(store, context) }),
    store,
    fetchers: { http: httpFetcher, browser: browserFetcher, webhooks: webhookTransport },
    // Browser steps' `secret`: the organization's stored secret, opened with the server key.
    resolveSecret: createSecretResolver(store, secrets.box),
    ...(screenshots === undefined ? {} : { screenshots }),
    logger,
    limits: config.limits,
    urlGuard,
    publicUrl: config.publicUrl,
    checkConcurrency: config.checkConcurrency,
    perHostConcurrency: config.perHostConcurrency,
    warmup: { samples: config.warmupSamples, intervalMs: config.warmupIntervalMs, learningSamples: config.learningSamples },
    ...(config.leaseMs === null ? {} : { leaseMs: config.leaseMs }),
    orgShare: config.orgSharePercent / 100,
    schedulerPollMs: config.pollIntervalMs,
    ...(config.webhookEndpointConcurrency === undefined ? {} : { endpointConcurrency: config.webhookEndpointConcurrency }),
    deliveryPollMs: options.deliveryPollMs ?? config.pollIntervalMs,
  });
  if (jobs !== null) engine.metrics.useJobCounts(() => jobs.depth());
  const background = options.background ?? true;

  const mailer = config.smtp === null ? null : await createSmtpMailer(config.smtp);
  const sharedRateLimits = options.sharedRateLimits ?? (ownsStore ? onPostgres : true);
  const app = await buildApp({
    store,
    // An api-only process runs no checks: "check now" makes the monitor due and waits for a worker.
    checks: config.role === "api" ? createDelegatedChecks({ store, waitMs: config.checkWaitMs }) : engine,
    deliveries: engine.deliveries,
    urlGuard,
    noise: engine.noise,
    compare: engine.compare,
    config: {
      allowPrivateNetworks: config.allowPrivateNetworks,
      rateLimitReads: config.rateLimitReads,
      rateLimitWrites: config.rateLimitWrites,
      bodyLimitBytes: config.bodyLimitBytes,
      maxListResponseBytes: config.limits.maxListResponseBytes,
      // Request rate limits shared only where several processes share the database (PostgreSQL);
      // SQLite and memory keep them in this process, saving a write per request. Sign-in limits and
      // failed authentications go to the store on every database (app.ts).
      rateLimitCounters: sharedRateLimits ? "store" : "memory",
      people: config.limits,
      publicUrl: config.publicUrl,
      trustProxy: config.trustProxy,
      ...(config.trustProxyHops === undefined ? {} : { trustProxyHops: config.trustProxyHops }),
      metricsToken: config.metricsToken ?? null,
      metricsListen: config.metricsListen ?? null,
    },
    mailer,
    secrets,
    ...(screenshots === undefined ? {} : { screenshots }),
    ...(isBrowserFetcher(browserFetcher) ? { browser: browserFetcher } : {}),
    notifier,
    metrics: engine.metrics,
    logger,
    events: liveHub,
    ...(options.now === undefined ? {} : { now: options.now }),
  });

  if (config.role === "worker") restrictToWorkerPaths(app);
  // Last, so that nothing above failing leaves its connection open.
  await relay?.start();

  let closing: Promise<void> | null = null;
  let metricsListener: MetricsListener | null = null;
  // This process's event-loop delay on /metrics: whether anything (a hostile target included)
  // holds the loop, measured in the process itself rather than by a client's round trip.
  const eventLoop = monitorEventLoop({ registry: engine.metrics.registry });

  return {
    app,
    store,
    config,
    secrets,
    metrics: engine.metrics,
    logger,

    metricsAddress() {
      return metricsListener?.address ?? null;
    },

    bootstrap() {
      return engine.bootstrap({ adminToken: config.adminToken });
    },

    async listen() {
      const address = await app.listen({ port: config.port, host: config.host });
      if (config.metricsListen !== undefined && config.metricsListen !== null && metricsListener === null) {
        try {
          metricsListener = await startMetricsListener({ ...config.metricsListen, metrics: engine.metrics, token: config.metricsToken, logger });
        } catch (error) {
          await app.close();
          throw new Error(`cannot listen for /metrics on ${config.metricsListen.host}:${config.metricsListen.port}: ${(error as Error).message}`, { cause: error });
        }
      }
      if (background && runsBackgroundWork(config.role)) engine.start();
      return address;
    },

    close() {
      closing ??= (async () => {
        const graceMs = config.shutdownTimeoutMs;
        // No new connections, checks or delivery claims; in-flight work gets `graceMs` to finish.
        // A keep-alive connection whose request finishes after close() began stays open until its
        // idle timeout (72 s in Fastify): close such connections as soon as they turn idle, and
        // every connection once the grace period is over.
        const sweeper = setInterval(() => app.server.closeIdleConnections(), 100);
        const deadline = setTimeout(() => app.server.closeAllConnections(), graceMs);
        const results = await Promise.allSettled([app.close(), engine.close({ graceMs }), metricsListener?.close()]);
        eventLoop.stop();
        clearInterval(sweeper);
        clearTimeout(deadline);
        for (const result of results) {
          if (result.status === "rejected") logger.error({ err: result.reason }, "error while stopping");
        }
        await Promise.allSettled([
          options.httpFetcher === undefined ? httpFetcher.close() : undefined,
          options.browserFetcher === undefined ? browserFetcher.close() : undefined,
          webhookTransport.close(),
          notifier.close(),
        ]);
        mailer?.close();
        await Promise.all([relay?.close(), poller?.close(), jobs?.close().catch((error: unknown) => logger.error({ err: error }, "error while stopping the job queue"))]);
        if (ownsStore) await store.close();
      })();
      return closing;
    },
  };
}

/** Whether a fetcher passed in (or made here) is the browser fetcher, with dry runs and inspections. */
function isBrowserFetcher(fetcher: Fetcher): fetcher is BrowserFetcher {
  return typeof (fetcher as Partial<BrowserFetcher>).inspect === "function" && typeof (fetcher as Partial<BrowserFetcher>).fetchWith === "function";
}
