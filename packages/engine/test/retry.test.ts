import { describe, expect, it } from "vitest";
import { MAX_DELIVERY_ATTEMPTS, MAX_RETRY_AFTER_MS, nextCheckTime, nextDeliveryDelayMs, parseRetryAfter } from "../src/index.js";

describe("retry and back-off arithmetic", () => {
  it("follows the delivery schedule and stops after the eighth attempt", () => {
    const delays = Array.from({ length: MAX_DELIVERY_ATTEMPTS - 1 }, (_, i) => nextDeliveryDelayMs(i + 1, () => 0.5));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(MAX_DELIVERY_ATTEMPTS).toBe(8);
    expect(nextDeliveryDelayMs(8, () => 0.5)).toBeNull();
    expect(nextDeliveryDelayMs(2, () => 0)).toBe(240_000);
    expect(nextDeliveryDelayMs(2, () => 0.999999)).toBe(360_000);
    expect(() => nextDeliveryDelayMs(0)).toThrow(RangeError);
  });

  it("reads Retry-After as seconds or an HTTP date, capped, and ignores garbage", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:10:00 GMT", now)).toBe(600_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("999999999", now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter("-5", now)).toBeNull();
    expect(parseRetryAfter("1.5", now)).toBeNull();
    expect(parseRetryAfter("soon", now)).toBeNull();
  });

  it("backs failed checks off as interval x 2^k, capped at one hour, with +-10 % jitter on success", () => {
    const now = 0;
    const delay = (interval: number, failures: number, r = 0.5): number => Date.parse(nextCheckTime(interval, failures, now, () => r)) - now;
    expect([0, 1, 2, 3, 4].map((k) => delay(300, k))).toEqual([300_000, 600_000, 1_200_000, 2_400_000, 3_600_000]);
    expect(delay(7200, 3)).toBe(7_200_000); // an interval above one hour is its own cap
    expect(delay(300, 0, 0)).toBe(270_000);
    expect(delay(300, 0, 1)).toBe(330_000);
  });
});
