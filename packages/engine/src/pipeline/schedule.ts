import { MAX_BACKOFF_MS, MIN_CHECK_DELAY_MS } from "../limits.js";

export { MAX_BACKOFF_MS };

/** Consecutive failed checks that turn an `active` monitor `failing` (a success turns it `active` again). */
export const FAILING_THRESHOLD = 3;
/** Share of the interval by which the next check time is moved either way. */
export const CHECK_JITTER_RATIO = 0.1;

/**
 * When a monitor is next due: its interval after a success, interval x 2^failures (capped at one
 * hour, or at the interval when that is longer) after a failure, moved by up to +-10 % so
 * monitors created together drift apart.
 */
export function nextCheckTime(
  intervalSeconds: number,
  consecutiveFailures: number,
  nowMs: number,
  random: () => number = Math.random,
): string {
  const intervalMs = intervalSeconds * 1000;
  let delayMs = intervalMs;
  if (consecutiveFailures > 0) {
    const cap = Math.max(intervalMs, MAX_BACKOFF_MS);
    delayMs = Math.min(intervalMs * 2 ** Math.min(consecutiveFailures, 30), cap);
  }
  const jitter = (random() * 2 - 1) * CHECK_JITTER_RATIO * delayMs;
  return new Date(nowMs + Math.max(MIN_CHECK_DELAY_MS, Math.round(delayMs + jitter))).toISOString();
}
