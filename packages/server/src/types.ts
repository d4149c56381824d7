import type { ScreenshotStorage, Store } from "@driftwatch/core";
import type { BrowserFetcher } from "@driftwatch/fetcher-browser";
import type { CheckService, ComparePool, DeliveryService, MetricsRegistry, NoiseLearner, UrlGuard } from "@driftwatch/engine";
import type { Logger } from "pino";
import type { PeopleLimits } from "./config/limits.js";
import type { InviteMailer } from "@driftwatch/people";
import type { EventHub } from "./live/events.js";
import type { ServerSecrets } from "./config/secret-key.js";
import type { Notifier } from "@driftwatch/notify";

/**
 * The seams between the HTTP API (src/app.ts, src/routes) and the engine (@driftwatch/engine:
 * checks, deliveries, the URL guard, metrics). The API only calls these; the composition root
 * (src/service.ts) wires real implementations.
 */
export type { CheckService, DeliveryService, MetricsRegistry, UrlGuard };

export interface ServerConfig {
  /** Lifts the SSRF guard (development and tests only). */
  allowPrivateNetworks: boolean;
  /** Requests per minute per organization and endpoint. */
  rateLimitReads: number;
  rateLimitWrites: number;
  /**
   * Expensive calls (the rules preview) per minute per caller (token or user), and per
   * organization (defaults: `EXPENSIVE_RATE_PER_CALLER`, `EXPENSIVE_RATE_PER_ORG`).
   */
  rateLimitExpensivePerCaller?: number;
  rateLimitExpensivePerOrg?: number;
  /**
   * Where request rate-limit counters live: `store` (shared by every process on the database; the
   * default when the store has the `rateLimits` capability) or `memory` (this process only; no
   * store write per request). Sign-in limits and failed authentications are counted in the store
   * whenever it has the capability, either way.
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
  /** Sessions, sign-in limits, invitation lifetime and password hashing cost (defaults: `DEFAULT_PEOPLE_LIMITS`). */
  people?: Partial<PeopleLimits>;
  /**
   * The public base URL (`https://driftwatch.example.com`): the origin of invitation links and the
   * only origin cookie-authenticated writes are accepted from. Null: the origin each request was
   * addressed to.
   */
  publicUrl?: string | null;
  /**
   * Trust X-Forwarded-* headers from the reverse proxy in front (one hop): the client address is the
   * last X-Forwarded-For entry, the scheme and host the forwarded ones; default false.
   */
  trustProxy?: boolean;
  /**
   * With `trustProxy`: how many proxies in front each append to X-Forwarded-For (a CDN in front of
   * nginx: 2); the client address is that many entries from the end. Default 1.
   */
  trustProxyHops?: number;
  /** When set, `/metrics` answers only `Authorization: Bearer <metricsToken>` (`DRIFTWATCH_METRICS_TOKEN`). */
  metricsToken?: string | null;
  /** `/metrics` has a listen address of its own (`DRIFTWATCH_METRICS_LISTEN`): the API answers 404 there. */
  metricsListen?: { host: string; port: number } | null;
}

export interface AppDependencies {
  store: Store;
  checks: CheckService;
  deliveries: DeliveryService;
  urlGuard: UrlGuard;
  /** Learns a monitor's noise from its recent snapshots (`GET /api/monitors/{id}/noise`); default: one on `store`. */
  noise?: NoiseLearner;
  /** The comparison worker pool (the engine's): the rules preview and `GET /api/monitors/{id}/compare` run their compares in it; default: a pool of the app's own, closed with the app. */
  compare?: ComparePool;
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
  /** Mails invitation links (SMTP); null or absent: links are only in the API answer. */
  mailer?: InviteMailer | null;
  /**
   * The key sealing the secrets users give driftwatch (channel tokens, step passwords); absent or
   * `box: null`: routes that store a secret answer `503 secret_key_missing` (see `requireSecretBox`).
   */
  secrets?: ServerSecrets;
  /** Where screenshots are read from (`GET .../screenshot`); default the store. The engine must keep them in the same one. */
  screenshots?: ScreenshotStorage;
  /** The browser fetcher the steps' dry run and the inspection render in; absent: those answer 503. */
  browser?: Pick<BrowserFetcher, "fetchWith" | "inspect">;
  /** The app's pino logger (every line carries `requestId`); defaults to pino at `DRIFTWATCH_LOG_LEVEL` or info. */
  logger?: Logger;
  /**
   * Parses, masks and sends to notification channels (`/api/channels`, the test send). Default: the
   * built-in channels, every request through `urlGuard`, `DRIFTWATCH_<SERVICE>_API_URL` read from
   * the process environment.
   */
  notifier?: Notifier;
}
