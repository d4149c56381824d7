import { MAX_RETRY_AFTER_MS } from "../limits.js";

export { MAX_RETRY_AFTER_MS };

/**
 * The webhook retry schedule: the first attempt at once, then retries after
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h. Entry `n` is the wait before attempt `n + 1`.
 */
export const DELIVERY_RETRY_DELAYS_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** Attempts before a delivery is `failed` (it can still be retried by hand). */
export const MAX_DELIVERY_ATTEMPTS = DELIVERY_RETRY_DELAYS_MS.length;

/** Share of each retry delay by which it is moved either way, so retries of many deliveries spread. */
export const DELIVERY_JITTER_RATIO = 0.2;


/**
 * When to try again after `attempts` failed attempts (1 after the first), or null when the
 * schedule is exhausted. The delay is moved by up to +-20 %.
 */
export function nextDeliveryDelayMs(attempts: number, random: () => number = Math.random): number | null {
  if (!Number.isInteger(attempts) || attempts < 1) throw new RangeError("attempts must be a positive integer");
  const base = DELIVERY_RETRY_DELAYS_MS[attempts];
  if (base === undefined) return null;
  return Math.round(base * (1 + (random() * 2 - 1) * DELIVERY_JITTER_RATIO));
}

/**
 * The wait a `Retry-After` header asks for, in ms: delta seconds or an HTTP date (RFC 9110
 * 10.2.3). Null when absent or unparseable; capped at {@link MAX_RETRY_AFTER_MS}; a date in the
 * past is 0.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    const at = Date.parse(text);
    if (Number.isNaN(at) || !/[a-z]/i.test(text)) return null;
    ms = at - nowMs;
  }
  if (!Number.isFinite(ms)) return null;
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}
