/** What the HTTP layer keeps per request: idempotency keys and shared rate-limit counters. */
export interface RequestStore {
  /**
   * Claims an idempotency key for a request. Returns `{ state: "new" }` for the first caller
   * (who must then `completeIdempotencyKey`), or the stored record for later ones (its
   * `response` is null while the first request is still in flight). Expired keys count as new.
   */
  claimIdempotencyKey(orgId: string, input: IdempotencyClaim): Promise<IdempotencyClaimResult>;
  completeIdempotencyKey(orgId: string, key: string, response: IdempotentResponse): Promise<void>;
  /** Forgets a claimed key whose request failed before completing, so a retry may run. */
  releaseIdempotencyKey(orgId: string, key: string): Promise<void>;
  /** Capability `rateLimits`: adds one hit to the fixed window `key` and returns the count in that window. */
  hitRateLimit?(key: string, windowMs: number, now: number): Promise<RateLimitHit>;
  /** Capability `rateLimits`: forgets every window of `key` (a successful sign-in clears the account's failures). */
  resetRateLimit?(key: string): Promise<void>;
  /**
   * Capability `rateLimits`: takes back one hit of the window of `key` that holds `now` (the
   * window `hitRateLimit(key, windowMs, now)` counted it in); never below zero, and nothing once
   * that window has ended. A successful sign-in gives back its own attempt this way, leaving the
   * address's failures counted.
   */
  refundRateLimitHit?(key: string, windowMs: number, now: number): Promise<void>;
}

export interface IdempotencyClaim {
  key: string;
  /** Hash of method, route and body: the same key with another request is a conflict. */
  requestHash: string;
  now: string;
  expiresAt: string;
}
export interface IdempotentResponse {
  status: number;
  body: string;
}
export type IdempotencyClaimResult =
  | { state: "new" }
  | { state: "existing"; requestHash: string; response: IdempotentResponse | null };

export interface RateLimitHit {
  count: number;
  /** Epoch ms when the window ends. */
  resetAt: number;
}
