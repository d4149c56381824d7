// The configuration of `driftwatch serve`, from its flags, the environment and the defaults.
import { isWellFormedToken } from "@driftwatch/engine";
import { SERVE_OPTIONS, parseArgs } from "./cli-flags.js";
import { ENV, type Env } from "./env.js";
import { resolveLimits, type ServerLimits } from "./limits.js";
import { parseDatabaseUrl } from "./store-url.js";
import { checkSecretKey } from "./secret-key.js";
import os from "node:os";
import { SERVER_ROLES, type ServerRole } from "../roles.js";
import { ConfigError, parseBoolean, parseHost, parseInteger, parsePublicUrl } from "./values.js";
import type { SmtpSettings } from "@driftwatch/people";

/**
 * Configuration of `driftwatch serve`: command-line flags win over environment
 * variables, which win over the defaults. Every bad value is a `ConfigError` naming the flag or
 * variable, so the CLI can print it and exit 2 before anything starts.
 */
export interface DriftwatchConfig {
  port: number;
  host: string;
  /** `sqlite:<path>`, `postgres://...` / `postgresql://...`, or `memory:`. */
  databaseUrl: string;
  /** Lifts the SSRF guard for every address (development and tests only). */
  allowPrivateNetworks: boolean;
  /** Exact IP addresses exempted from the SSRF guard without lifting it (the demo's own loopback target). */
  allowAddresses: string[];
  /** Requests per minute per organization and endpoint. */
  rateLimitReads: number;
  rateLimitWrites: number;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** Used as the bootstrap admin token on an empty database instead of a random one. */
  adminToken: string | null;
  /** Chromium for website monitors with `browserOptions`. */
  chromiumPath: string;
  /** Grace period of a graceful shutdown before in-flight work is abandoned (it stays pending). */
  shutdownTimeoutMs: number;
  /** Serve the built-in demo (target, monitors, webhook receiver). */
  demo: boolean;
  /**
   * How long a claimed check or delivery stays leased to this process without a heartbeat (null:
   * the engine's default, 20 s; the heartbeat renews it every third). After a crash another
   * process takes the work over once the lease expires.
   */
  leaseMs: number | null;
  /** Wait between claims of due checks and deliveries when nothing more is due (default 1000 ms). */
  pollIntervalMs: number;
  /** Percent of the check and delivery slots one organization may hold while another's work waits (default 50). */
  orgSharePercent: number;
  /** Webhook attempts in flight at once to one receiver URL (absent: the engine's default, 4). */
  webhookEndpointConcurrency?: number;
  /** Size, time and memory limits of checks, diffs, webhook payloads and list responses. */
  limits: ServerLimits;
  /**
   * The API's public base URL (`https://driftwatch.example.com`), for absolute links in webhook
   * payloads; null: links are paths.
   */
  publicUrl: string | null;
  /**
   * Where due checks and deliveries are queued: `pg-boss` (the job queue on PostgreSQL, the default
   * there) or `leases` (the store's lease columns; the only one on SQLite and memory). Every process
   * on one database must use the same.
   */
  queue: QueueKind;
  /** What this process runs: `all` (default), `api` (no checks, no deliveries) or `worker` (checks and deliveries; only /healthz, /readyz, /metrics over HTTP). */
  role: ServerRole;
  /** Checks in flight at once in this process (default: 4 per CPU core, at least 4, at most 64). */
  checkConcurrency: number;
  /** Checks in flight at once against one host (`hostname:port`); never limits how many of its monitors get checked. */
  perHostConcurrency: number;
  /**
   * Extra fetches a monitor that learns its noise makes in the check that stores its first content
   * (at creation, and after its URL, method, body or selector changed), so it has learned from
   * three contents before its next check (default 2; 0: none). See docs/signal.md.
   */
  warmupSamples: number;
  /** Wait before each warm-up fetch, and the least time between two warm-up requests of this process to one host (default 1000 ms). */
  warmupIntervalMs: number;
  /**
   * A learning monitor's diffs are `learning` diffs (notified only for removals, type changes and,
   * from two contents on, changes rated medium or above or at a place that did not change between
   * the stored contents) while its noise profile was learned from
   * fewer than this many stored contents (default 3, 2 to 10). A monitor's settings may set their own. See docs/signal.md.
   */
  learningSamples: number;
  /** How long an api-only process waits for a worker to run a "check now" (default 30 s). */
  checkWaitMs: number;
  /** Log lines for people (`pretty`) or machines (`json`); unset: pretty on a terminal, JSON otherwise. */
  logFormat?: "pretty" | "json";
  /** Trust X-Forwarded-For/-Proto/-Host from a reverse proxy in front of the server. */
  trustProxy: boolean;
  /** Proxies in front that each append to X-Forwarded-For (a CDN, then nginx: 2); default 1. */
  trustProxyHops?: number;
  /** `/metrics` needs `Authorization: Bearer <it>` when set (a secret: never logged). */
  metricsToken?: string | null;
  /**
   * Serve `/metrics` on a listen address of its own (`DRIFTWATCH_METRICS_LISTEN`: `9464`,
   * `127.0.0.1:9464` or `[::1]:9464`) instead of the API's port, which then answers 404 there.
   */
  metricsListen?: { host: string; port: number } | null;
  /** SMTP server and From address for invitation mail; null: links only in the API answer. */
  smtp: SmtpSettings | null;
  /**
   * The key (then older keys, during a rotation) that seals the secrets users give driftwatch
   * (`DRIFTWATCH_SECRET_KEY`; only from the environment, never a flag). Absent: on SQLite a key
   * file beside the database, on PostgreSQL none (storing a secret is refused until it is set).
   */
  secretKey?: string | null;
  /**
   * Website monitors' screenshots as files under this directory (`DRIFTWATCH_SCREENSHOT_DIR`);
   * absent: in the database (the `screenshots` table).
   */
  screenshotDir?: string | null;
}

export const QUEUE_KINDS = ["pg-boss", "leases"] as const;
export type QueueKind = (typeof QUEUE_KINDS)[number];

export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_DATABASE_URL = "sqlite:./.driftwatch/driftwatch.db";
export const DEFAULT_RATE_LIMIT_READS = 600;
export const DEFAULT_RATE_LIMIT_WRITES = 120;
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
export const DEFAULT_PER_HOST_CONCURRENCY = 2;
export const DEFAULT_WARMUP_SAMPLES = 2;
export const DEFAULT_WARMUP_INTERVAL_MS = 1000;
export const DEFAULT_LEARNING_SAMPLES = 3;
export const DEFAULT_CHECK_WAIT_MS = 30_000;
export const DEFAULT_POLL_INTERVAL_MS = 1000;
export const DEFAULT_ORG_SHARE_PERCENT = 50;

/** Checks in flight by default: 4 per CPU core (checks mostly wait on the network), 4 to 64. */
export function defaultCheckConcurrency(cores: number = os.availableParallelism()): number {
  return Math.max(4, Math.min(64, 4 * cores));
}

/** Resolves `serve`'s configuration from its arguments (after `serve`) and the environment. */
export function resolveServeConfig(args: readonly string[], env: Env = process.env): DriftwatchConfig {
  const { options, positionals } = parseArgs(args, SERVE_OPTIONS);
  if (positionals.length > 0) throw new ConfigError("unexpected_argument", `serve takes no arguments (got ${positionals[0]}).`);
  const pick = (flag: string, variable: string): { value: string; source: string } | undefined => {
    const fromFlag = options[flag];
    if (typeof fromFlag === "string") return { value: fromFlag, source: `--${flag}` };
    const fromEnv = env[variable];
    if (fromEnv !== undefined && fromEnv !== "") return { value: fromEnv, source: variable };
    return undefined;
  };

  const port = pick("port", ENV.port);
  const host = pick("host", ENV.host);
  const database = pick("database", ENV.database);
  const reads = pick("rate-limit-reads", ENV.rateLimitReads);
  const writes = pick("rate-limit-writes", ENV.rateLimitWrites);
  const logFormat = pick("log-format", ENV.logFormat);
  const role = pick("role", ENV.role);
  if (role !== undefined && !(SERVER_ROLES as readonly string[]).includes(role.value)) {
    throw new ConfigError("invalid_value", `${role.source} must be one of ${SERVER_ROLES.join(", ")} (got ${JSON.stringify(role.value)}).`);
  }
  const queue = pick("queue", ENV.queue);
  if (queue !== undefined && !(QUEUE_KINDS as readonly string[]).includes(queue.value)) {
    throw new ConfigError("invalid_value", `${queue.source} must be one of ${QUEUE_KINDS.join(", ")} (got ${JSON.stringify(queue.value)}).`);
  }
  const checkConcurrency = pick("check-concurrency", ENV.checkConcurrency);
  const perHostConcurrency = pick("per-host-concurrency", ENV.perHostConcurrency);
  const warmupSamples = pick("warmup-samples", ENV.warmupSamples);
  const warmupInterval = pick("warmup-interval-ms", ENV.warmupInterval);
  const learningSamples = pick("learning-samples", ENV.learningSamples);
  const checkWait = env[ENV.checkWait];
  if (logFormat !== undefined && logFormat.value !== "pretty" && logFormat.value !== "json") {
    throw new ConfigError("invalid_value", `${logFormat.source} must be pretty or json (got ${JSON.stringify(logFormat.value)}).`);
  }
  // Read by the binary before anything loads (cli/heap.ts); checked here so that a typo stops `serve`.
  const heap = env[ENV.heap];
  if (heap !== undefined && heap.trim() !== "" && !["lean", "node"].includes(heap.trim().toLowerCase())) {
    throw new ConfigError("invalid_value", `${ENV.heap} must be lean or node (got ${JSON.stringify(heap)}).`);
  }

  const allowFlag = options["allow-private-networks"];
  const allowEnv = env[ENV.allowPrivateNetworks];
  const allowPrivateNetworks =
    typeof allowFlag === "boolean"
      ? allowFlag
      : allowEnv !== undefined && allowEnv !== ""
        ? parseBoolean(allowEnv, ENV.allowPrivateNetworks)
        : false;

  const adminToken = env[ENV.adminToken];
  if (adminToken !== undefined && adminToken !== "" && !isWellFormedToken(adminToken)) {
    throw new ConfigError(
      "invalid_value",
      `${ENV.adminToken} must be a driftwatch token: "dw_" followed by 43 base64url characters (32 random bytes).`,
    );
  }
  const chromiumPath = env[ENV.chromiumPath];
  const bodyLimit = env[ENV.bodyLimit];
  const shutdownTimeout = env[ENV.shutdownTimeout];
  const lease = env[ENV.lease];
  const pollInterval = env[ENV.pollInterval];
  const orgShare = env[ENV.orgShare];
  const endpointConcurrency = env[ENV.webhookEndpointConcurrency];
  const publicUrl = env[ENV.publicUrl];
  const trustProxy = env[ENV.trustProxy];
  const trustProxyHops = env[ENV.trustProxyHops];
  const metricsToken = env[ENV.metricsToken];
  const hops = trustProxyHops === undefined || trustProxyHops === "" ? undefined : parseInteger(trustProxyHops, ENV.trustProxyHops, 1, 10);

  const databaseUrl = database === undefined ? DEFAULT_DATABASE_URL : parseDatabaseUrl(database.value, database.source).url;
  const onPostgres = parseDatabaseUrl(databaseUrl).kind === "postgres";
  if (queue?.value === "pg-boss" && !onPostgres) {
    throw new ConfigError("invalid_value", `${queue.source} pg-boss needs a PostgreSQL database; on SQLite and memory: databases the queue is the store's leases.`);
  }
  return {
    port: port === undefined ? DEFAULT_PORT : parseInteger(port.value, port.source, 0, 65_535),
    host: host === undefined ? DEFAULT_HOST : parseHost(host.value, host.source),
    databaseUrl,
    allowPrivateNetworks,
    allowAddresses: [],
    rateLimitReads: reads === undefined ? DEFAULT_RATE_LIMIT_READS : parseInteger(reads.value, reads.source, 1, 1_000_000),
    rateLimitWrites: writes === undefined ? DEFAULT_RATE_LIMIT_WRITES : parseInteger(writes.value, writes.source, 1, 1_000_000),
    bodyLimitBytes:
      bodyLimit === undefined || bodyLimit === "" ? DEFAULT_BODY_LIMIT_BYTES : parseInteger(bodyLimit, ENV.bodyLimit, 1024, 100 * 1024 * 1024),
    adminToken: adminToken === undefined || adminToken === "" ? null : adminToken,
    chromiumPath: chromiumPath === undefined || chromiumPath === "" ? DEFAULT_CHROMIUM_PATH : chromiumPath,
    shutdownTimeoutMs:
      shutdownTimeout === undefined || shutdownTimeout === ""
        ? DEFAULT_SHUTDOWN_TIMEOUT_MS
        : parseInteger(shutdownTimeout, ENV.shutdownTimeout, 0, 600_000),
    demo: options.demo === true,
    leaseMs: lease === undefined || lease === "" ? null : parseInteger(lease, ENV.lease, 1000, 3_600_000),
    pollIntervalMs: pollInterval === undefined || pollInterval === "" ? DEFAULT_POLL_INTERVAL_MS : parseInteger(pollInterval, ENV.pollInterval, 10, 60_000),
    orgSharePercent: orgShare === undefined || orgShare === "" ? DEFAULT_ORG_SHARE_PERCENT : parseInteger(orgShare, ENV.orgShare, 1, 100),
    ...(endpointConcurrency === undefined || endpointConcurrency === ""
      ? {}
      : { webhookEndpointConcurrency: parseInteger(endpointConcurrency, ENV.webhookEndpointConcurrency, 1, 1000) }),
    limits: resolveLimits(env),
    publicUrl: publicUrl === undefined || publicUrl === "" ? null : parsePublicUrl(publicUrl, ENV.publicUrl),
    ...(logFormat === undefined ? {} : { logFormat: logFormat.value as "pretty" | "json" }),
    role: role === undefined ? "all" : (role.value as ServerRole),
    queue: queue === undefined ? (onPostgres ? "pg-boss" : "leases") : (queue.value as QueueKind),
    checkConcurrency: checkConcurrency === undefined ? defaultCheckConcurrency() : parseInteger(checkConcurrency.value, checkConcurrency.source, 1, 1000),
    perHostConcurrency:
      perHostConcurrency === undefined ? DEFAULT_PER_HOST_CONCURRENCY : parseInteger(perHostConcurrency.value, perHostConcurrency.source, 1, 1000),
    warmupSamples: warmupSamples === undefined ? DEFAULT_WARMUP_SAMPLES : parseInteger(warmupSamples.value, warmupSamples.source, 0, 10),
    warmupIntervalMs: warmupInterval === undefined ? DEFAULT_WARMUP_INTERVAL_MS : parseInteger(warmupInterval.value, warmupInterval.source, 0, 10_000),
    learningSamples: learningSamples === undefined ? DEFAULT_LEARNING_SAMPLES : parseInteger(learningSamples.value, learningSamples.source, 2, 10),
    checkWaitMs: checkWait === undefined || checkWait === "" ? DEFAULT_CHECK_WAIT_MS : parseInteger(checkWait, ENV.checkWait, 1000, 600_000),
    // a number of hops says a proxy is in front: DRIFTWATCH_TRUST_PROXY is implied
    trustProxy: trustProxy === undefined || trustProxy === "" ? hops !== undefined : parseBoolean(trustProxy, ENV.trustProxy),
    ...(hops === undefined ? {} : { trustProxyHops: hops }),
    metricsToken: metricsToken === undefined || metricsToken === "" ? null : parseMetricsToken(metricsToken),
    metricsListen: parseMetricsListen(env[ENV.metricsListen]),
    smtp: resolveSmtp(env),
    secretKey: env[ENV.secretKey] === undefined || env[ENV.secretKey]!.trim() === "" ? null : checkSecretKey(env[ENV.secretKey]!),
    screenshotDir: env[ENV.screenshotDir] === undefined || env[ENV.screenshotDir]!.trim() === "" ? null : env[ENV.screenshotDir]!.trim(),
  };
}

/** DRIFTWATCH_SMTP_URL and DRIFTWATCH_SMTP_FROM: both or neither. */
export function resolveSmtp(env: Env): SmtpSettings | null {
  const url = env[ENV.smtpUrl]?.trim() ?? "";
  const from = env[ENV.smtpFrom]?.trim() ?? "";
  if (url === "" && from === "") return null;
  if (url === "" || from === "") throw new ConfigError("invalid_value", `${ENV.smtpUrl} and ${ENV.smtpFrom} are set together (invitation mail needs both).`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError("invalid_value", `${ENV.smtpUrl} must be an smtp:// or smtps:// URL.`);
  }
  if (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") throw new ConfigError("invalid_value", `${ENV.smtpUrl} must be an smtp:// or smtps:// URL.`);
  if (!/^[^<>@\s]+@[^<>@\s]+$|<[^<>@\s]+@[^<>@\s]+>$/.test(from)) throw new ConfigError("invalid_value", `${ENV.smtpFrom} must be an email address ("driftwatch <noreply@example.com>" or "noreply@example.com").`);
  return { url, from };
}

/** `9464`, `127.0.0.1:9464`, `0.0.0.0:9464` or `[::1]:9464` (a port alone listens on 127.0.0.1). */
export function parseMetricsListen(value: string | undefined): { host: string; port: number } | null {
  const v = value?.trim() ?? "";
  if (v === "") return null;
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):)?(\d{1,5})$/.exec(v);
  if (match === null) {
    throw new ConfigError("invalid_value", `${ENV.metricsListen} must be a port or host:port, such as 9464 or 127.0.0.1:9464 (got ${JSON.stringify(value)}).`);
  }
  const host = match[1] === undefined ? DEFAULT_HOST : match[1].replace(/^\[|\]$/g, "");
  return { host: parseHost(host, ENV.metricsListen), port: parseInteger(match[2]!, ENV.metricsListen, 1, 65_535) };
}

/** A metrics token: 16 to 512 printable ASCII characters without spaces (it goes in a header). */
function parseMetricsToken(value: string): string {
  if (!/^[\x21-\x7e]{16,512}$/.test(value)) {
    throw new ConfigError("invalid_value", `${ENV.metricsToken} must be 16 to 512 printable characters without spaces (for example: openssl rand -hex 32).`);
  }
  return value;
}
