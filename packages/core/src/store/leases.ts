import type { DeliveryState } from "@driftwatch/schema";
import type { MonitorRecord } from "./monitors.js";
import type { DeliveryRecord } from "./webhooks.js";

/** Work leased to one worker at a time: due monitors to check, due deliveries to send. */
export interface LeaseStore {
  /**
   * Leases up to `limit` monitors (any organization) that are `active` or `failing`, whose
   * `nextCheckAt <= now` and whose lease is free or expired, ordered by `nextCheckAt`, the
   * organizations in turn. Two callers never receive the same monitor while its lease holds.
   */
  claimDueMonitors(input: ClaimMonitorsInput): Promise<MonitorRecord[]>;
  /** Ends the lease held by `owner` and sets the next check time. False when the lease was lost. */
  releaseMonitor(id: string, owner: string, nextCheckAt: string | null): Promise<boolean>;
  /**
   * Leases up to `limit` pending deliveries whose `nextAttemptAt <= now` (any time when
   * `force`), oldest first, the organizations in turn, optionally only of one organization /
   * webhook, skipping those whose webhook is disabled. Two callers never receive the same
   * delivery while its lease holds.
   */
  claimDueDeliveries(input: ClaimDeliveriesInput): Promise<DeliveryRecord[]>;
  /** Records one attempt by the lease holder and ends the lease. Null when the lease was lost. */
  recordDeliveryAttempt(id: string, owner: string, attempt: DeliveryAttempt): Promise<DeliveryRecord | null>;
}

export interface ClaimMonitorsInput {
  now: string;
  limit: number;
  leaseMs: number;
  /** Identifies the worker holding the lease. */
  owner: string;
}

export interface ClaimDeliveriesInput {
  now: string;
  limit: number;
  leaseMs: number;
  owner: string;
  orgId?: string;
  webhookId?: string;
  /** Also deliveries whose `nextAttemptAt` is in the future. */
  force?: boolean;
}

export interface DeliveryAttempt {
  at: string;
  /** The delivery's new state: `pending` to retry at `nextAttemptAt`, `succeeded`, or `failed` (gave up). */
  state: DeliveryState;
  nextAttemptAt: string | null;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}
