import type { RateLimitHit, Store } from "@driftwatch/core";
import type { FastifyReply } from "fastify";
import { RATE_LIMIT_WINDOW_MS } from "../config/limits.js";
import { ApiError } from "./problem.js";


export interface RateLimitCounter {
  hit(key: string, windowMs: number, now: number): Promise<RateLimitHit>;
}

/** Counters kept in this process (one server process). */
export function createMemoryCounter(): RateLimitCounter {
  const windows = new Map<string, RateLimitHit>();
  let nextSweep = 0;
  return {
    async hit(key, windowMs, now) {
      if (now >= nextSweep) {
        for (const [k, w] of windows) if (w.resetAt <= now) windows.delete(k);
        nextSweep = now + windowMs;
      }
      let window = windows.get(key);
      if (window === undefined || window.resetAt <= now) {
        window = { count: 0, resetAt: (Math.floor(now / windowMs) + 1) * windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, resetAt: window.resetAt };
    },
  };
}

/** Counters in the store, shared by every process on the same database. */
export function createStoreCounter(store: Store): RateLimitCounter | null {
  const hit = store.hitRateLimit;
  if (!store.capabilities.rateLimits || hit === undefined) return null;
  return { hit: (key, windowMs, now) => hit.call(store, key, windowMs, now) };
}

export interface RateLimitPolicy {
  /** Policy name in the headers: `reads`, `writes`, or for expensive calls `expensive-caller` and `expensive`. */
  name: "reads" | "writes" | "expensive" | "expensive-caller";
  limit: number;
  /** The `RateLimit-Policy` header value (computed from name and limit when absent). */
  header?: string;
}

/** A policy with its `RateLimit-Policy` header value built once. */
export function rateLimitPolicy(name: RateLimitPolicy["name"], limit: number): Required<RateLimitPolicy> {
  return { name, limit, header: policyHeader(name, limit) };
}

function policyHeader(name: string, limit: number): string {
  return `"${name}";q=${limit};w=${RATE_LIMIT_WINDOW_MS / 1000}`;
}

/**
 * Counts one request of `orgId` on `endpoint` (method + route template) and sets the IETF
 * draft headers (draft-ietf-httpapi-ratelimit-headers: structured-field `RateLimit-Policy` and
 * `RateLimit`). Over the limit: throws `rate_limited` with `Retry-After`. With `caller` (a token or
 * user id) the count is that caller's in the organization.
 */
export async function applyRateLimit(
  counter: RateLimitCounter,
  reply: FastifyReply,
  orgId: string,
  endpoint: string,
  policy: RateLimitPolicy,
  now: number,
  caller?: string,
): Promise<void> {
  // HEAD is a GET without the body: it counts against the GET bucket of its route, not its own.
  const bucket = endpoint.startsWith("HEAD ") ? `GET ${endpoint.slice(5)}` : endpoint;
  const window = await counter.hit(caller === undefined ? `rl:${orgId}:${bucket}` : `rl:${orgId}:${caller}:${bucket}`, RATE_LIMIT_WINDOW_MS, now);
  const resetSeconds = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  const remaining = Math.max(0, policy.limit - window.count);
  reply.header("ratelimit-policy", policy.header ?? policyHeader(policy.name, policy.limit));
  reply.header("ratelimit", `"${policy.name}";r=${remaining};t=${resetSeconds}`);
  if (window.count > policy.limit) {
    throw new ApiError(
      "rate_limited",
      `Too many requests to ${endpoint}: the limit is ${policy.limit} per minute per ${caller === undefined ? "organization" : "caller"}. Retry in ${resetSeconds} s.`,
      { headers: { "retry-after": String(resetSeconds) } },
    );
  }
}
