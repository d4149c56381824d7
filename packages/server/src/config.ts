import { DriftwatchError, type DriftwatchErrorOptions, openStore, parseStoreUrl, type Store } from "@driftwatch/core";
import { DEFAULT_ENGINE_LIMITS, type EngineLimits, isWellFormedToken } from "@driftwatch/engine";

/** Bounds on what targets and tenants can make the server compute, store and send (docs/deployment.md, "Limits"). */
export interface ServerLimits extends EngineLimits {
  /** A list response (diffs, snapshots, ...) stops early before passing this many bytes; `nextCursor` continues. */
  maxListResponseBytes: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  ...DEFAULT_ENGINE_LIMITS,
  maxListResponseBytes: 4 * 1024 * 1024,
};

/** Each limit's environment variable and accepted range. */
export const LIMIT_ENV: Record<keyof ServerLimits, { variable: string; min: number; max: number }> = {
  workerThresholdBytes: { variable: "DRIFTWATCH_WORKER_THRESHOLD_BYTES", min: 0, max: 1024 * 1024 * 1024 },
  compareTimeoutMs: { variable: "DRIFTWATCH_COMPARE_TIMEOUT_MS", min: 100, max: 600_000 },
  maxTargetBytes: { variable: "DRIFTWATCH_MAX_TARGET_BYTES", min: 1024, max: 1024 * 1024 * 1024 },
  workerMemoryMb: { variable: "DRIFTWATCH_WORKER_MEMORY_MB", min: 64, max: 16_384 },
  workers: { variable: "DRIFTWATCH_COMPARE_WORKERS", min: 1, max: 64 },
  maxDiffChanges: { variable: "DRIFTWATCH_MAX_DIFF_CHANGES", min: 1, max: 1_000_000 },
  maxDiffBytes: { variable: "DRIFTWATCH_MAX_DIFF_BYTES", min: 1024, max: 1024 * 1024 * 1024 },
  maxWebhookPayloadBytes: { variable: "DRIFTWATCH_MAX_WEBHOOK_PAYLOAD_BYTES", min: 1024, max: 1024 * 1024 * 1024 },
  maxListResponseBytes: { variable: "DRIFTWATCH_MAX_LIST_RESPONSE_BYTES", min: 64 * 1024, max: 1024 * 1024 * 1024 },
};

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
   * How long a claimed check or delivery stays leased to this process (null: the engine's
   * defaults). After a crash, another process takes the work over once the lease expires.
   */
  leaseMs: number | null;
  /** Webhook attempts in flight at once to one receiver URL (absent: the engine's default, 4). */
  webhookEndpointConcurrency?: number;
  /** Size, time and memory limits of checks, diffs, webhook payloads and list responses. */
  limits: ServerLimits;
  /**
   * The API's public base URL (`https://driftwatch.example.com`), for absolute links in webhook
   * payloads; null: links are paths.
   */
  publicUrl: string | null;
  /** Log lines for people (`pretty`) or machines (`json`); unset: pretty on a terminal, JSON otherwise. */
  logFormat?: "pretty" | "json";
}

export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_DATABASE_URL = "sqlite:./.driftwatch/driftwatch.db";
export const DEFAULT_RATE_LIMIT_READS = 600;
export const DEFAULT_RATE_LIMIT_WRITES = 120;
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

export type ConfigErrorCode = "unknown_option" | "missing_value" | "invalid_value" | "unexpected_argument";

export class ConfigError extends DriftwatchError<ConfigErrorCode> {
  override readonly name = "ConfigError";
  constructor(code: ConfigErrorCode, message: string, options?: DriftwatchErrorOptions) {
    super(code, message, options);
  }
}

/** The environment variables `serve` reads. */
export const ENV = {
  port: "DRIFTWATCH_PORT",
  host: "DRIFTWATCH_HOST",
  database: "DRIFTWATCH_DATABASE_URL",
  allowPrivateNetworks: "DRIFTWATCH_ALLOW_PRIVATE_NETWORKS",
  rateLimitReads: "DRIFTWATCH_RATE_LIMIT_READS",
  rateLimitWrites: "DRIFTWATCH_RATE_LIMIT_WRITES",
  adminToken: "DRIFTWATCH_ADMIN_TOKEN",
  chromiumPath: "DRIFTWATCH_CHROMIUM_PATH",
  bodyLimit: "DRIFTWATCH_BODY_LIMIT_BYTES",
  shutdownTimeout: "DRIFTWATCH_SHUTDOWN_TIMEOUT_MS",
  lease: "DRIFTWATCH_LEASE_MS",
  webhookEndpointConcurrency: "DRIFTWATCH_WEBHOOK_ENDPOINT_CONCURRENCY",
  publicUrl: "DRIFTWATCH_PUBLIC_URL",
  logFormat: "DRIFTWATCH_LOG_FORMAT",
} as const;

/** The limits from the environment (each `LIMIT_ENV` variable), defaults for the rest. */
export function resolveLimits(env: Record<string, string | undefined>): ServerLimits {
  const limits: ServerLimits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(LIMIT_ENV) as Array<keyof ServerLimits>) {
    const { variable, min, max } = LIMIT_ENV[key];
    const value = env[variable];
    if (value !== undefined && value !== "") limits[key] = parseInteger(value, variable, min, max);
  }
  return limits;
}

/** An http(s) base URL without query or fragment, without a trailing slash. */
export function parsePublicUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError("invalid_value", `${source} must be an absolute http or https URL (got ${JSON.stringify(value)}).`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new ConfigError("invalid_value", `${source} must be an absolute http or https URL without query, fragment or credentials (got ${JSON.stringify(value)}).`);
  }
  return url.href.replace(/\/+$/, "");
}

/** One command-line option: `--name value`, `--name=value`, or a boolean `--name`. */
export interface OptionSpec {
  type: "string" | "boolean";
}

export interface ParsedArgs {
  options: Record<string, string | boolean>;
  positionals: string[];
}

/**
 * A small strict parser (node:util parseArgs reports unknown options with messages meant for
 * developers; these go to users). `--` ends the options.
 */
export function parseArgs(args: readonly string[], spec: Record<string, OptionSpec>): ParsedArgs {
  const options: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--") || arg === "-") {
      if (arg.startsWith("-") && arg !== "-") throw new ConfigError("unknown_option", `Unknown option ${arg}.`);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const option = spec[name];
    if (option === undefined) throw new ConfigError("unknown_option", `Unknown option --${name}.`);
    if (option.type === "boolean") {
      if (eq !== -1) options[name] = parseBoolean(arg.slice(eq + 1), `--${name}`);
      else options[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = args[i + 1];
      if (value === undefined || value.startsWith("--")) throw new ConfigError("missing_value", `Option --${name} needs a value.`);
      i++;
    }
    options[name] = value;
  }
  return { options, positionals };
}

export const SERVE_OPTIONS: Record<string, OptionSpec> = {
  port: { type: "string" },
  host: { type: "string" },
  database: { type: "string" },
  "allow-private-networks": { type: "boolean" },
  "rate-limit-reads": { type: "string" },
  "rate-limit-writes": { type: "string" },
  demo: { type: "boolean" },
  "log-format": { type: "string" },
};

type Env = Record<string, string | undefined>;

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
  if (logFormat !== undefined && logFormat.value !== "pretty" && logFormat.value !== "json") {
    throw new ConfigError("invalid_value", `${logFormat.source} must be pretty or json (got ${JSON.stringify(logFormat.value)}).`);
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
  const endpointConcurrency = env[ENV.webhookEndpointConcurrency];
  const publicUrl = env[ENV.publicUrl];

  return {
    port: port === undefined ? DEFAULT_PORT : parseInteger(port.value, port.source, 0, 65_535),
    host: host === undefined ? DEFAULT_HOST : parseHost(host.value, host.source),
    databaseUrl: database === undefined ? DEFAULT_DATABASE_URL : parseDatabaseUrl(database.value, database.source).url,
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
    ...(endpointConcurrency === undefined || endpointConcurrency === ""
      ? {}
      : { webhookEndpointConcurrency: parseInteger(endpointConcurrency, ENV.webhookEndpointConcurrency, 1, 1000) }),
    limits: resolveLimits(env),
    publicUrl: publicUrl === undefined || publicUrl === "" ? null : parsePublicUrl(publicUrl, ENV.publicUrl),
    ...(logFormat === undefined ? {} : { logFormat: logFormat.value as "pretty" | "json" }),
  };
}

export function parseInteger(value: string, source: string, min: number, max: number): number {
  if (!/^\d+$/.test(value.trim())) {
    throw new ConfigError("invalid_value", `${source} must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)}).`);
  }
  const n = Number(value.trim());
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError("invalid_value", `${source} must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)}).`);
  }
  return n;
}

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);

export function parseBoolean(value: string, source: string): boolean {
  const v = value.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new ConfigError("invalid_value", `${source} must be true or false (got ${JSON.stringify(value)}).`);
}

function parseHost(value: string, source: string): string {
  const v = value.trim();
  if (v === "" || /[\s/]/.test(v)) throw new ConfigError("invalid_value", `${source} must be a host name or IP address (got ${JSON.stringify(value)}).`);
  return v;
}

export type DatabaseLocation =
  | { kind: "sqlite"; url: string; filename: string }
  | { kind: "postgres"; url: string }
  | { kind: "memory"; url: string };

/**
 * Checks a database URL the way `openStore` of @driftwatch/core reads it: `sqlite:<path>`
 * (relative to `cwd`; `sqlite:///abs` and `sqlite:/abs` are absolute; `file:` URLs too),
 * `postgres://` or `postgresql://`, or `memory:`. A `ConfigError` naming `source` otherwise.
 */
export function parseDatabaseUrl(value: string, source = "--database", cwd: string = process.cwd()): DatabaseLocation {
  const v = value.trim();
  let location;
  try {
    location = parseStoreUrl(v, cwd);
  } catch (error) {
    throw new ConfigError("invalid_value", `${source}: ${(error as Error).message}`, { cause: error });
  }
  switch (location.kind) {
    case "memory":
      return { kind: "memory", url: "memory:" };
    case "sqlite":
      return { kind: "sqlite", url: v, filename: location.filename };
    case "postgres":
      return { kind: "postgres", url: v };
  }
}

/** A database URL without its password, for logs and error messages. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password !== "") url.password = "***";
    return url.toString();
  } catch {
    return value;
  }
}

/**
 * Opens the store a database URL names with `openStore` of @driftwatch/core (the adapter is
 * imported on demand, so a SQLite user never loads `pg`). Relative SQLite paths resolve against `cwd`.
 */
export async function openDatabase(databaseUrl: string, options: { cwd?: string } = {}): Promise<Store> {
  const cwd = options.cwd ?? process.cwd();
  parseDatabaseUrl(databaseUrl, "database URL", cwd);
  return openStore(databaseUrl.trim(), { cwd });
}
