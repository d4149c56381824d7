import type { ClaimDeliveriesInput, DeliveryAttempt, DeliveryRecord, IdempotencyClaim, IdempotencyClaimResult, RateLimitHit } from "@driftwatch/core";
import { toDelivery, type DeliveryRow } from "./rows.js";
import { encodeTextOrNull } from "@driftwatch/core";
import { isoTime, isoTimeOrNull, type Queries } from "./util.js";

// The delivery outbox's claims and attempts, idempotency keys and rate-limit counters: the writes,
// run inside the store's `BEGIN IMMEDIATE` transactions.

/** Oldest first, organizations in turn, so one tenant's backlog cannot fill a claim. */
export function claimDueDeliveryRows(q: Queries, input: ClaimDeliveriesInput): DeliveryRecord[] {
  const now = isoTime(input.now);
  const until = new Date(Date.parse(now) + input.leaseMs).toISOString();
  return q.all<DeliveryRow>(
    `UPDATE deliveries SET lease_owner = @owner, lease_expires_at = @until
     WHERE id IN (
       SELECT id FROM (
         SELECT d.id, ROW_NUMBER() OVER (PARTITION BY d.org_id ORDER BY d.id) AS turn
         FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.org_id = d.org_id
         WHERE d.state = 'pending' AND w.enabled = 1
           AND (@force = 1 OR (d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= @now))
           AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= @now)
           AND (@orgId IS NULL OR d.org_id = @orgId) AND (@webhookId IS NULL OR d.webhook_id = @webhookId))
       ORDER BY turn, id LIMIT @limit)
     RETURNING *`,
    {
      owner: input.owner,
      until,
      now,
      force: input.force === true ? 1 : 0,
      orgId: input.orgId ?? null,
      webhookId: input.webhookId ?? null,
      limit: Math.max(0, Math.floor(input.limit)),
    }
  )
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map(toDelivery);
}

export function recordDeliveryAttemptRows(q: Queries, id: string, owner: string, attempt: DeliveryAttempt): DeliveryRecord | null {
  const row = q.get<DeliveryRow>(
    `UPDATE deliveries SET state = ?, attempts = attempts + 1, next_attempt_at = ?, last_attempt_at = ?,
       last_response_status = ?, last_error = ?, lease_owner = NULL, lease_expires_at = NULL
     WHERE id = ? AND lease_owner = ? RETURNING *`,
    attempt.state,
    attempt.state === "pending" ? isoTimeOrNull(attempt.nextAttemptAt) : null,
    isoTime(attempt.at),
    attempt.responseStatus,
    encodeTextOrNull(attempt.error),
    id,
    owner
  );
  if (row === undefined) return null;
  q.run(
    "INSERT INTO delivery_attempts (delivery_id, attempt, org_id, at, response_status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
    id,
    row.attempts,
    row.org_id,
    isoTime(attempt.at),
    attempt.responseStatus,
    encodeTextOrNull(attempt.error),
    Math.round(attempt.durationMs)
  );
  return toDelivery(row);
}

export function claimIdempotencyKeyRows(q: Queries, orgId: string, input: IdempotencyClaim): IdempotencyClaimResult {
  const now = isoTime(input.now);
  const existing = q.get<{
    request_hash: string;
    response_status: number | null;
    response_body: string | null;
    expires_at: string;
  }>(
    "SELECT request_hash, response_status, response_body, expires_at FROM idempotency_keys WHERE org_id = ? AND key = ?",
    orgId,
    input.key
  );
  if (existing !== undefined && existing.expires_at > now) {
    return {
      state: "existing",
      requestHash: existing.request_hash,
      response: existing.response_status === null ? null : { status: existing.response_status, body: existing.response_body ?? "" },
    };
  }
  q.run(
    `INSERT INTO idempotency_keys (org_id, key, request_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (org_id, key) DO UPDATE SET request_hash = excluded.request_hash, response_status = NULL,
       response_body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at`,
    orgId,
    input.key,
    input.requestHash,
    now,
    isoTime(input.expiresAt)
  );
  return { state: "new" };
}

/** Fixed windows; expired windows of every key are dropped as we go, so the table stays small. */
export function hitRateLimitRows(q: Queries, key: string, windowMs: number, now: number): RateLimitHit {
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const resetAt = windowStart + windowMs;
  // expired windows of every key are dropped as we go, so the table stays small
  q.run("DELETE FROM rate_limits WHERE reset_at <= ?", now);
  const row = q.get<{ count: number }>(
    `INSERT INTO rate_limits (key, window_start, count, reset_at) VALUES (?, ?, 1, ?)
     ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1 RETURNING count`,
    key,
    windowStart,
    resetAt
  )!;
  return { count: row.count, resetAt };
}
