import { z } from "zod";
import { DeliverySchema, TimestampSchema } from "./resources.js";

/** One attempt to deliver an event: what the receiver answered (status) or why it failed. */
export const DeliveryAttemptLogSchema = z.object({
  attempt: z.number().int(),
  at: TimestampSchema,
  responseStatus: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int(),
});
export type DeliveryAttemptLogEntry = z.infer<typeof DeliveryAttemptLogSchema>;

/** `GET /api/webhooks/{id}/deliveries/{deliveryId}`: the delivery, the event it sends and every attempt. */
export const DeliveryDetailSchema = DeliverySchema.extend({
  /** The `diff.detected` envelope as sent (without `deliveredAt`, which each attempt sets). */
  payload: z.unknown(),
  attemptLog: z.array(DeliveryAttemptLogSchema),
});
export type DeliveryDetail = z.infer<typeof DeliveryDetailSchema>;
