// The server's limits: the engine's (@driftwatch/engine) and the API's, each settable by an
// environment variable within a range.
import { DEFAULT_ENGINE_LIMITS, type EngineLimits } from "@driftwatch/engine";
import type { Env } from "./env.js";
import { parseInteger } from "./values.js";

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
