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
  claimDueMonitors(input: ClaimMonitorsInput): Promise<ClaimedMonitor[]>;
  /** Ends the lease held by `owner` and sets the next check time. False when the lease was lost. */
  releaseMonitor(id: string, owner: string, nextCheckAt: string | null): Promise<boolean>;
  /**
   * Leases up to `limit` pending deliveries whose `nextAttemptAt <= now` (any time when
   * `force`), oldest first, the organizations in turn, optionally only of one organization /
   * webhook, skipping those whose webhook is disabled. Two callers never receive the same
   * delivery while its lease holds.
   */
  claimDueDeliveries(input: ClaimDeliveriesInput): Promise<ClaimedDelivery[]>;
  /** Records one attempt by the lease holder and ends the lease. Null when the lease was lost. */
  recordDeliveryAttempt(id: string, owner: string, attempt: DeliveryAttempt): Promise<DeliveryRecord | null>;
  /**
   * The heartbeat of work in progress: extends to `now + leaseMs` the leases `owner` still holds
   * on these monitors and deliveries, and returns the ids it still holds. A lease another worker
   * took over (after it expired) is neither renewed nor returned; unknown ids are ignored.
   */
  renewLeases(input: RenewLeasesInput): Promise<RenewedLeases>;
  /**
   * Ends every lease `owner` holds, at once and without other changes: the monitors keep their
   * next check time and the deliveries stay pending, so other workers claim them now instead of
   * after expiry (a graceful shutdown). Returns how many leases ended.
   */
  releaseLeases(owner: string): Promise<ReleasedLeases>;
}

/** What a claim adds to a leased record. */
export interface ClaimInfo {
  /**
   * The owner whose lease had expired when this claim took the row (a takeover after that worker
   * stopped or stalled), or null when the row was free. A worker reclaiming its own expired lease
   * sees its own name.
   */
  takenOverFrom: string | null;
}
export type ClaimedMonitor = MonitorRecord & ClaimInfo;
export type ClaimedDelivery = DeliveryRecord & ClaimInfo;

export interface RenewLeasesInput {
  owner: string;
  now: string;
  leaseMs: number;
  monitorIds: readonly string[];
  deliveryIds: readonly string[];
}

export interface RenewedLeases {
  monitorIds: string[];
  deliveryIds: string[];
}

export interface ReleasedLeases {
  monitors: number;
  deliveries: number;
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
