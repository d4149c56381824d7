// The server's limits: the engine's (@driftwatch/engine) and the API's, each settable by an
// environment variable within a range.
import { DEFAULT_ENGINE_LIMITS, type EngineLimits } from "@driftwatch/engine";
import { DEFAULT_PEOPLE_LIMITS, type PeopleLimits } from "@driftwatch/people";
import type { Env } from "./env.js";
import { parseInteger } from "./values.js";

export { DEFAULT_PEOPLE_LIMITS, MAX_SESSIONS_PER_USER, type PeopleLimits } from "@driftwatch/people";

/** Bounds on what targets and tenants can make the server compute, store and send (docs/deployment.md, "Limits"). */
export interface ServerLimits extends EngineLimits, PeopleLimits {
  /** A list response (diffs, snapshots, ...) stops early before passing this many bytes; `nextCursor` continues. */
  maxListResponseBytes: number;
}

/** Default of `maxListResponseBytes`. */
export const DEFAULT_MAX_LIST_RESPONSE_BYTES = 4 * 1024 * 1024;

export const DEFAULT_LIMITS: ServerLimits = {
  ...DEFAULT_ENGINE_LIMITS,
  ...DEFAULT_PEOPLE_LIMITS,
  maxListResponseBytes: DEFAULT_MAX_LIST_RESPONSE_BYTES,
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
  sessionIdleSeconds: { variable: "DRIFTWATCH_SESSION_IDLE_SECONDS", min: 60, max: 365 * 24 * 3600 },
  sessionMaxAgeSeconds: { variable: "DRIFTWATCH_SESSION_MAX_AGE_SECONDS", min: 60, max: 365 * 24 * 3600 },
  loginAccountLimit: { variable: "DRIFTWATCH_LOGIN_ACCOUNT_LIMIT", min: 1, max: 10_000 },
  loginAddressLimit: { variable: "DRIFTWATCH_LOGIN_ADDRESS_LIMIT", min: 1, max: 100_000 },
  loginWindowSeconds: { variable: "DRIFTWATCH_LOGIN_WINDOW_SECONDS", min: 1, max: 24 * 3600 },
  inviteTtlSeconds: { variable: "DRIFTWATCH_INVITE_TTL_SECONDS", min: 60, max: 90 * 24 * 3600 },
  setupTtlSeconds: { variable: "DRIFTWATCH_SETUP_TTL_SECONDS", min: 60, max: 30 * 24 * 3600 },
  scryptLogN: { variable: "DRIFTWATCH_SCRYPT_LOG_N", min: 14, max: 20 },
};

/** The limits from the environment (each `LIMIT_ENV` variable), defaults for the rest. */
export function resolveLimits(env: Env): ServerLimits {
  const limits: ServerLimits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(LIMIT_ENV) as Array<keyof ServerLimits>) {
    const { variable, min, max } = LIMIT_ENV[key];
    const value = env[variable];
    if (value !== undefined && value !== "") limits[key] = parseInteger(value, variable, min, max);
  }
  return limits;
}

// Bounds of the HTTP API that are not settings.

/** Diffs read from the store at a time while a list response fills up (each at most the diff size cap). */
export const LIST_CHUNK = 10;
/** Fixed one-minute rate-limit windows: the limits are configured per minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;
/** Rules previews (`POST /api/monitors/{id}/settings/preview`) per minute per caller (token or user). */
export const EXPENSIVE_RATE_PER_CALLER = 10;
/** Rules previews per minute per organization, all its callers together. */
export const EXPENSIVE_RATE_PER_ORG = 30;
/** Idempotency keys are honoured for 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** A token's `lastUsedAt` is written at most this often (it is a write on every request otherwise). */
export const TOUCH_INTERVAL_MS = 60_000;
/**
 * How long a token found in the store is trusted without asking the store again. A token revoked
 * through this process (`DELETE /api/tokens/{id}`) is refused at once; one revoked by another
 * process on the same database (another server, a script) is refused within this delay.
 */
export const TOKEN_CACHE_TTL_MS = 5_000;
/** Tokens kept in the cache at most (the oldest entry goes first). */
export const TOKEN_CACHE_MAX_ENTRIES = 10_000;
/**
 * Failed authentications (missing, malformed, unknown or revoked token) one client address may
 * make per one-minute window; beyond it every request of that address is answered
 * `429 rate_limited` (without a store lookup) until the window ends.
 */
export const AUTH_FAILURE_LIMIT = 60;
export const AUTH_FAILURE_WINDOW_MS = 60_000;
/** Client addresses whose failed authentications are tracked at most (the oldest entry goes first). */
export const AUTH_FAILURE_MAX_ENTRIES = 100_000;
/**
 * A session's `lastSeenAt` is written at most this often, or every half idle timeout when that is
 * shorter (the idle expiry moves in these steps).
 */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;

// Bounds of `driftwatch learn`.

/** Most `--samples`. */
export const LEARN_MAX_SAMPLES = 50;
/** All answers together: a large target asked many times must not exhaust memory. */
export const LEARN_MAX_TOTAL_BYTES = 64 * 1024 * 1024;
/** Longest `--interval`. */
export const LEARN_MAX_INTERVAL_MS = 10 * 60_000;
