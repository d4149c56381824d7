import { completeEventForDelivery, type PendingDiffDetectedEvent } from "./envelope.js";
import { signWebhook, type WebhookHeaderValues } from "./signing.js";

export interface SignedDeliveryInput {
  /** The outbox envelope (a delivery record's `payload` JSON text, or the object). */
  event: PendingDiffDetectedEvent | string;
  /** When this attempt is sent; becomes `deliveredAt` and `webhook-timestamp`. Default now. */
  deliveredAt?: Date;
  /** The signing secrets (see `activeWebhookSecrets`). */
  secrets: readonly string[];
}

export interface SignedDelivery {
  /** The exact JSON body to POST. */
  body: string;
  /** `content-type` plus the Standard Webhooks headers; `webhook-id` is the event's `eventId`. */
  headers: WebhookHeaderValues & { "content-type": "application/json" };
}

/**
 * One delivery attempt, ready to POST: the envelope with `deliveredAt` set, serialised, and its
 * signature headers. `webhook-id` is the `eventId`, so every retry of an event carries the same id.
 */
export function createSignedDelivery(input: SignedDeliveryInput): SignedDelivery {
  const deliveredAt = input.deliveredAt ?? new Date();
  const event = completeEventForDelivery(input.event, deliveredAt);
  const body = JSON.stringify(event);
  const headers = signWebhook(body, { id: event.eventId, timestamp: deliveredAt, secrets: input.secrets });
  return { body, headers: { "content-type": "application/json", ...headers } };
}
