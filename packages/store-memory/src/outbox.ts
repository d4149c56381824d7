import type {
  ClaimDeliveriesInput,
  ClaimedDelivery,
  DeliveryAttempt,
  DeliveryRecord,
  IdempotencyClaim,
  IdempotencyClaimResult,
  RateLimitHit,
} from "@driftwatch/core";
import type { MemoryDatabase } from "./database.js";
import { fairTake } from "./helpers.js";
import { toDeliveryRecord } from "./record-check.js";

// The delivery outbox, idempotency keys and rate-limit counters, with the SQL adapters' semantics.

/** Leases due pending deliveries of enabled webhooks, oldest first, organizations in turn ({@link fairTake}). */
export function claimDueDeliveries(
  db: MemoryDatabase,
  input: ClaimDeliveriesInput
): ClaimedDelivery[] {
  const now = input.now;
  const until = new Date(Date.parse(now) + input.leaseMs).toISOString();
  const limit = Math.max(0, Math.floor(input.limit));
  const due = fairTake(
    [...db.deliveries.values()]
      .filter((d) => {
        if (d.state !== "pending") return false;
        const webhook = db.webhooks.get(d.webhookId);
        if (
          webhook === undefined ||
          webhook.orgId !== d.orgId ||
          !webhook.enabled
        )
          return false;
        if (
          input.force !== true &&
          (d.nextAttemptAt === null || d.nextAttemptAt > now)
        )
          return false;
        if (d.leaseExpiresAt !== null && d.leaseExpiresAt > now) return false;
        if (input.orgId !== undefined && d.orgId !== input.orgId) return false;
        if (input.webhookId !== undefined && d.webhookId !== input.webhookId)
          return false;
        return true;
      })
      .sort((a, b) => (a.id < b.id ? -1 : 1)),
    limit
  );
  return due.map((row) => {
    const takenOverFrom = row.leaseOwner;
    row.leaseOwner = input.owner;
    row.leaseExpiresAt = until;
    return { ...toDeliveryRecord(row), takenOverFrom };
  });
}

/** Records one attempt by the lease holder; null when the lease was lost (or never held). */
export function recordDeliveryAttempt(
  db: MemoryDatabase,
  id: string,
  owner: string,
  attempt: DeliveryAttempt
): DeliveryRecord | null {
  const row = db.deliveries.get(id);
  if (row === undefined || row.leaseOwner !== owner) return null;
  const at = attempt.at;
  row.state = attempt.state;
  row.attempts += 1;
  row.nextAttemptAt =
    attempt.state === "pending" ? attempt.nextAttemptAt : null;
  row.lastAttemptAt = at;
  row.lastResponseStatus = attempt.responseStatus;
  row.lastError = attempt.error;
  row.leaseOwner = null;
  row.leaseExpiresAt = null;
  const attempts = db.deliveryAttempts.get(id) ?? [];
  attempts.push({
    deliveryId: id,
    attempt: row.attempts,
    at,
    responseStatus: attempt.responseStatus,
    error: attempt.error,
    durationMs: Math.round(attempt.durationMs),
  });
  db.deliveryAttempts.set(id, attempts);
  return toDeliveryRecord(row);
}

export function requeueDelivery(
  db: MemoryDatabase,
  orgId: string,
  webhookId: string,
  id: string,
  now: string
): DeliveryRecord | null {
  const row = db.deliveries.get(id);
  if (row === undefined || row.orgId !== orgId || row.webhookId !== webhookId)
    return null;
  row.state = "pending";
  row.nextAttemptAt = now;
  row.leaseOwner = null;
  row.leaseExpiresAt = null;
  return toDeliveryRecord(row);
}

const idempotencyKey = (orgId: string, key: string): string =>
  `${orgId}\u0000${key}`;

export function claimIdempotencyKey(
  db: MemoryDatabase,
  orgId: string,
  input: IdempotencyClaim
): IdempotencyClaimResult {
  const now = input.now;
  const existing = db.idempotencyKeys.get(idempotencyKey(orgId, input.key));
  if (existing !== undefined && existing.expiresAt > now) {
    return {
      state: "existing",
      requestHash: existing.requestHash,
      response:
        existing.responseStatus === null
          ? null
          : {
              status: existing.responseStatus,
              body: existing.responseBody ?? "",
            },
    };
  }
  db.idempotencyKeys.set(idempotencyKey(orgId, input.key), {
    requestHash: input.requestHash,
    responseStatus: null,
    responseBody: null,
    createdAt: now,
    expiresAt: input.expiresAt,
  });
  return { state: "new" };
}

export function completeIdempotencyKey(
  db: MemoryDatabase,
  orgId: string,
  key: string,
  response: { status: number; body: string }
): void {
  const row = db.idempotencyKeys.get(idempotencyKey(orgId, key));
  if (row === undefined) return;
  row.responseStatus = response.status;
  row.responseBody = response.body;
}

export function releaseIdempotencyKey(
  db: MemoryDatabase,
  orgId: string,
  key: string
): void {
  db.idempotencyKeys.delete(idempotencyKey(orgId, key));
}

/** Fixed windows; expired windows of every key are dropped as we go. */
export function hitRateLimit(
  db: MemoryDatabase,
  key: string,
  windowMs: number,
  now: number
): RateLimitHit {
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const resetAt = windowStart + windowMs;
  for (const [k, row] of db.rateLimits)
    if (row.resetAt <= now) db.rateLimits.delete(k);
  const k = `${key}\u0000${windowStart}`;
  const row = db.rateLimits.get(k) ?? { count: 0, resetAt };
  row.count += 1;
  db.rateLimits.set(k, row);
  return { count: row.count, resetAt };
}

/** Takes back one hit of the window of `key` holding `now`; never below zero, nothing for an ended window. */
export function refundRateLimitHit(
  db: MemoryDatabase,
  key: string,
  windowMs: number,
  now: number
): void {
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const row = db.rateLimits.get(`${key}\u0000${windowStart}`);
  if (row !== undefined && row.count > 0) row.count -= 1;
}
