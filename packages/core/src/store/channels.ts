import type { ChannelEvent, ChannelStatus, DeliveryState, Page, QuietHours, Severity } from "@driftwatch/schema";
import type { DeliveryAttempt } from "./leases.js";
import type { PageRequest } from "./paging.js";
import type { DeliveryAttemptRecord } from "./webhooks.js";

/**
 * Notification channels of an organization (Slack, Discord, e-mail, ... through one Apprise URL)
 * and their outbox. The URL is kept sealed (`urlSealed`, the server's secret box): the store
 * never sees it in clear; `urlMasked` is what answers and logs may show.
 */
export interface ChannelStore {
  createChannel(orgId: string, input: NewChannel): Promise<ChannelRecord>;
  getChannel(orgId: string, id: string): Promise<ChannelRecord | null>;
  /** Newest first. */
  listChannels(orgId: string, page: PageRequest): Promise<Page<ChannelRecord>>;
  updateChannel(orgId: string, id: string, patch: ChannelPatch): Promise<ChannelRecord | null>;
  /** Deletes the channel and its outbox. */
  deleteChannel(orgId: string, id: string): Promise<boolean>;

  /**
   * Adds messages to channels' outboxes, `pending` and due at their `nextAttemptAt`. A message
   * whose (`channelId`, `dedupKey`) is already in the outbox is skipped (a retried check, a
   * restarted worker): returns only the messages added. A channel of another organization, or an
   * unknown one, is a `StoreError` `not_found` and nothing is added.
   */
  enqueueChannelDeliveries(orgId: string, messages: readonly NewChannelDelivery[]): Promise<ChannelDeliveryRecord[]>;
  getChannelDelivery(orgId: string, channelId: string, id: string): Promise<ChannelDeliveryRecord | null>;
  /** The outbox of one channel, newest first. */
  listChannelDeliveries(orgId: string, channelId: string, page: PageRequest): Promise<Page<ChannelDeliveryRecord>>;
  /** Attempts of one message, oldest first. */
  listChannelDeliveryAttempts(orgId: string, deliveryId: string): Promise<DeliveryAttemptRecord[]>;
  /** Manual retry (replay): the message is `pending` again, due at `now`, its lease dropped. */
  requeueChannelDelivery(orgId: string, channelId: string, id: string, now: string): Promise<ChannelDeliveryRecord | null>;
  /**
   * Leases up to `limit` pending messages whose `nextAttemptAt <= now` (any time with `force`),
   * oldest first, the organizations in turn, optionally of one organization / channel, skipping
   * channels that are paused or failing. Two callers never receive the same message while its
   * lease holds. `limit` is at most `MAX_CHANNEL_CLAIM` (a larger one claims that many).
   */
  claimDueChannelDeliveries(input: ClaimChannelDeliveriesInput): Promise<ClaimedChannelDelivery[]>;
  /** Records one attempt by the lease holder and ends the lease; null when the lease was lost. */
  recordChannelDeliveryAttempt(id: string, owner: string, attempt: DeliveryAttempt): Promise<ChannelDeliveryRecord | null>;
  /**
   * Records several attempts by the lease holder in one transaction (as `recordChannelDeliveryAttempt`
   * each, in order): the delivery worker's batches. One entry per message, each null when its lease
   * was lost. Optional for an adapter: `defineStore` records them one by one where it has none.
   */
  recordChannelDeliveryAttempts?(owner: string, attempts: readonly ChannelAttemptEntry[]): Promise<(ChannelDeliveryRecord | null)[]>;
  /** Ends every channel-message lease `owner` holds (a graceful stop); the messages stay pending. */
  releaseChannelDeliveryLeases(owner: string): Promise<number>;
  /** Pending messages (held, grouped or due), optionally of one organization. */
  countPendingChannelDeliveries(orgId?: string): Promise<number>;
}

export interface NewChannel {
  name: string;
  service: string;
  /** The URL sealed by the server's secret box (context `channel:<id>`), opaque to the store. */
  urlSealed: string;
  /** The URL with its secrets masked. */
  urlMasked: string;
  minSeverity: Severity;
  tags: string[];
  events: ChannelEvent[];
  groupSeconds: number;
  quietHours: QuietHours | null;
  template: string | null;
  paused: boolean;
  /** The id to use (the server seals the URL with it first); a new `ch_` id when absent. */
  id?: string;
}

export interface ChannelRecord extends Omit<NewChannel, "id"> {
  id: string;
  orgId: string;
  status: ChannelStatus;
  statusReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export type ChannelPatch = Partial<
  Pick<
    ChannelRecord,
    | "name"
    | "service"
    | "urlSealed"
    | "urlMasked"
    | "minSeverity"
    | "tags"
    | "events"
    | "groupSeconds"
    | "quietHours"
    | "template"
    | "paused"
    | "status"
    | "statusReason"
  >
> & {
  updatedAt: string;
  /**
   * Applies the patch only while the stored `urlSealed` is this one (a re-seal of the same URL
   * under a newer key must not undo a URL changed meanwhile): otherwise nothing is written and
   * `updateChannel` answers null. Every store adapter must honour it (a compare-and-set on the
   * stored sealed URL, in the same statement or transaction as the write); the store testkit's
   * channel cases check it.
   */
  ifUrlSealed?: string;
};

export interface NewChannelDelivery {
  channelId: string;
  /**
   * Unique within the channel's outbox: `diff:<diffId>`, `health:<monitorId>:<eventId>`,
   * `test:<id>`. The same key again is skipped, so no message is sent twice.
   */
  dedupKey: string;
  eventType: ChannelEvent;
  monitorId: string | null;
  diffId: string | null;
  /** The notification (JSON text) the channel formats. */
  payload: string;
  createdAt: string;
  /** When it may go: now, the end of its grouping window, or the end of quiet hours. */
  nextAttemptAt: string;
}

export interface ChannelDeliveryRecord {
  id: string;
  orgId: string;
  channelId: string;
  dedupKey: string;
  eventType: ChannelEvent;
  monitorId: string | null;
  diffId: string | null;
  payload: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  createdAt: string;
}

/** The most messages one `claimDueChannelDeliveries` call leases (a larger `limit` is clamped to it). */
export const MAX_CHANNEL_CLAIM = 1000;

export interface ClaimChannelDeliveriesInput {
  now: string;
  /** Messages to lease at most; clamped to `MAX_CHANNEL_CLAIM`. */
  limit: number;
  leaseMs: number;
  owner: string;
  orgId?: string;
  channelId?: string;
  force?: boolean;
}

/** One message's attempt in `recordChannelDeliveryAttempts`. */
export interface ChannelAttemptEntry {
  id: string;
  attempt: DeliveryAttempt;
}

export type ClaimedChannelDelivery = ChannelDeliveryRecord & { takenOverFrom: string | null };
