import type { Delivery, Page, Severity, Webhook } from "@driftwatch/schema";
import { severityRank } from "@driftwatch/schema";
import type { PageRequest } from "./paging.js";

/** Webhook subscriptions of an organization. */
export interface WebhookStore {
  createWebhook(orgId: string, input: NewWebhook): Promise<WebhookRecord>;
  getWebhook(orgId: string, id: string): Promise<WebhookRecord | null>;
  listWebhooks(orgId: string, page: PageRequest): Promise<Page<WebhookRecord>>;
  updateWebhook(orgId: string, id: string, patch: WebhookPatch): Promise<WebhookRecord | null>;
  /** Deletes the webhook and its deliveries. */
  deleteWebhook(orgId: string, id: string): Promise<boolean>;
}

/** The delivery log (the outbox) as users see it; claims and attempts are in `LeaseStore`. */
export interface DeliveryStore {
  getDelivery(orgId: string, webhookId: string, id: string): Promise<DeliveryRecord | null>;
  /** The delivery log of one webhook, newest first. */
  listDeliveries(orgId: string, webhookId: string, page: PageRequest): Promise<Page<DeliveryRecord>>;
  /** Attempts of one delivery, oldest first. */
  listDeliveryAttempts(orgId: string, deliveryId: string): Promise<DeliveryAttemptRecord[]>;
  /** Manual retry: makes the delivery `pending` again, due at `now` (also a `failed` one). */
  requeueDelivery(orgId: string, webhookId: string, id: string, now: string): Promise<DeliveryRecord | null>;
  /** Counts of pending deliveries (queue depth), optionally of one organization. */
  countPendingDeliveries(orgId?: string): Promise<number>;
}

export interface NewWebhook {
  url: string;
  description: string | null;
  events: Webhook["events"];
  monitorIds: string[] | null;
  minSeverity: Severity;
  enabled: boolean;
  secret: string;
}
export interface WebhookRecord extends Omit<Webhook, "secret"> {
  orgId: string;
  secret: string;
  /** During a rotation the old secret also signs until `previousSecretExpiresAt`. */
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
}
export type WebhookPatch = Partial<
  Pick<WebhookRecord, "url" | "description" | "events" | "monitorIds" | "minSeverity" | "enabled" | "secret" | "previousSecret" | "previousSecretExpiresAt" | "updatedAt">
>;

/** The time fields of a webhook patch (normalised by `defineStore`). */
export const WEBHOOK_TIME_FIELDS = ["previousSecretExpiresAt", "updatedAt"] as const satisfies readonly (keyof WebhookPatch)[];

export interface DeliveryRecord extends Delivery {
  orgId: string;
  /** The event envelope without `deliveredAt`, as JSON text. */
  payload: string;
}

export interface DeliveryAttemptRecord {
  deliveryId: string;
  attempt: number;
  at: string;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * Whether `recordCheck` gives an (enabled) webhook a delivery of an event: it subscribes to the
 * event type, covers the monitor (all monitors when `monitorIds` is null), and its `minSeverity`
 * is at or below the diff's top severity.
 */
export function webhookReceives(
  webhook: Pick<WebhookRecord, "events" | "monitorIds" | "minSeverity">,
  eventType: WebhookRecord["events"][number],
  monitorId: string,
  severity: Severity,
): boolean {
  return (
    webhook.events.includes(eventType) &&
    (webhook.monitorIds === null || webhook.monitorIds.includes(monitorId)) &&
    severityRank(webhook.minSeverity) <= severityRank(severity)
  );
}
