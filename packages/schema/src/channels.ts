import { z } from "zod";
import { DeliveryStateSchema, SeveritySchema } from "./enums.js";
import { TagsSchema, TimestampSchema } from "./resources.js";
import { DeliveryAttemptLogSchema } from "./delivery-detail.js";

// ---------------------------------------------------------------------------------------------
// Notification channels (issue 27): a service reached through one Apprise URL, and its outbox.

/** What a channel can be sent: changes, and a monitor's health turning bad or good again. */
export const ChannelEventSchema = z.enum(["diff.detected", "monitor.failing", "monitor.recovered"]);
export type ChannelEvent = z.infer<typeof ChannelEventSchema>;

/** `ok`, or `failing` once the service said the hook, bot or chat is gone (see `statusReason`). */
export const ChannelStatusSchema = z.enum(["ok", "failing"]);
export type ChannelStatus = z.infer<typeof ChannelStatusSchema>;

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export const WeekdaySchema = z.enum(WEEKDAYS);
export type Weekday = z.infer<typeof WeekdaySchema>;

/** `HH:MM`, 00:00 to 24:00. */
const ClockSchema = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, { message: "must be a time HH:MM (00:00 to 24:00)" });

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * One quiet window in the channel's time zone: from `start` to `end` on the given days (every day
 * when absent); a window whose end is before its start runs past midnight (22:00 to 07:00).
 */
export const QuietWindowSchema = z.strictObject({
  days: z.array(WeekdaySchema).min(1).max(7).optional(),
  start: ClockSchema,
  end: ClockSchema,
});
export type QuietWindow = z.infer<typeof QuietWindowSchema>;

/**
 * Quiet hours: messages below `minSeverity` (every message when absent) that fall in a window are
 * held until it ends, then sent as one summary.
 */
export const QuietHoursSchema = z.strictObject({
  timeZone: z.string().max(100).refine(isTimeZone, { message: "must be an IANA time zone (Europe/Berlin)" }),
  windows: z.array(QuietWindowSchema).min(1).max(20),
  minSeverity: SeveritySchema.optional(),
});
export type QuietHours = z.infer<typeof QuietHoursSchema>;

/** Longest grouping window: one day. */
export const MAX_GROUP_SECONDS = 86_400;

export const ChannelSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The service (`slack`, `discord`, `email`, ...), from the URL. */
  service: z.string(),
  /** The channel URL with every secret (tokens, webhook paths, passwords) replaced by `***`. */
  url: z.string(),
  minSeverity: SeveritySchema,
  /** Monitors whose tags include one of these (every monitor when empty). */
  tags: z.array(z.string()),
  events: z.array(ChannelEventSchema),
  /** Changes within this many seconds go out as one message (0: each at once). */
  groupSeconds: z.number().int(),
  quietHours: QuietHoursSchema.nullable(),
  template: z.string().nullable(),
  paused: z.boolean(),
  status: ChannelStatusSchema,
  /** Why the channel is failing (the service's answer), null when ok. */
  statusReason: z.string().nullable(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type Channel = z.infer<typeof ChannelSchema>;

/** `GET /api/monitors/{id}/channels`: a channel routed a monitor's events, and how. */
export const MonitorChannelSchema = z.object({
  channel: ChannelSchema,
  /** The monitor's events the channel subscribes to. */
  events: z.array(ChannelEventSchema),
  /** Changes at or above this severity reach it: the higher of the channel's `minSeverity` and the monitor policy's `notify.minSeverity`. */
  minSeverity: SeveritySchema,
  /** The monitor's tags the channel names; empty when the channel takes every monitor. */
  matchedTags: z.array(z.string()),
  /** `active`; `paused` (nothing is queued for it); `failing` (messages wait in its outbox until it is fixed). */
  state: z.enum(["active", "paused", "failing"]),
});
export type MonitorChannel = z.infer<typeof MonitorChannelSchema>;

export const MonitorChannelsSchema = z.object({
  data: z.array(MonitorChannelSchema),
  /** The monitor policy's `notify.minSeverity`, when it sets one: changes below it reach no channel. */
  policyMinSeverity: SeveritySchema.nullable(),
});
export type MonitorChannels = z.infer<typeof MonitorChannelsSchema>;

export const ChannelCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  url: z.string().min(1).max(4000),
  minSeverity: SeveritySchema.default("info"),
  tags: TagsSchema.default([]),
  events: z.array(ChannelEventSchema).min(1).default(["diff.detected"]),
  groupSeconds: z.number().int().min(0).max(MAX_GROUP_SECONDS).default(0),
  quietHours: QuietHoursSchema.nullable().default(null),
  template: z.string().max(20_000).nullable().default(null),
});
export type ChannelCreate = z.input<typeof ChannelCreateSchema>;

/** A patch; `paused: false` also clears a `failing` status (the user fixed the hook). */
export const ChannelUpdateSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  url: z.string().min(1).max(4000).optional(),
  minSeverity: SeveritySchema.optional(),
  tags: TagsSchema.optional(),
  events: z.array(ChannelEventSchema).min(1).optional(),
  groupSeconds: z.number().int().min(0).max(MAX_GROUP_SECONDS).optional(),
  quietHours: QuietHoursSchema.nullable().optional(),
  template: z.string().max(20_000).nullable().optional(),
  paused: z.boolean().optional(),
});
export type ChannelUpdate = z.input<typeof ChannelUpdateSchema>;

/** One message in a channel's outbox (a change, a group of changes, a health event). */
export const ChannelDeliverySchema = z.object({
  id: z.string(),
  channelId: z.string(),
  eventType: ChannelEventSchema,
  /** The monitor, or null for a message about several (a group or a quiet-hours summary). */
  monitorId: z.string().nullable(),
  diffId: z.string().nullable(),
  state: DeliveryStateSchema,
  attempts: z.number().int(),
  nextAttemptAt: TimestampSchema.nullable(),
  lastAttemptAt: TimestampSchema.nullable(),
  lastResponseStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: TimestampSchema,
});
export type ChannelDelivery = z.infer<typeof ChannelDeliverySchema>;

/** `GET /api/channels/{id}/deliveries/{deliveryId}`: the message, the notification it sends and every attempt. */
export const ChannelDeliveryDetailSchema = ChannelDeliverySchema.extend({
  /** The notification as queued (a change, a health event); a group's messages are sent as one. */
  payload: z.unknown(),
  attemptLog: z.array(DeliveryAttemptLogSchema),
});
export type ChannelDeliveryDetail = z.infer<typeof ChannelDeliveryDetailSchema>;

/** `POST /api/channels/{id}/test`: what the service answered to a test message. */
export const ChannelTestResultSchema = z.object({
  outcome: z.enum(["delivered", "retry", "gone", "failed"]),
  status: z.number().int().nullable(),
  /** The service's reason (its error text), null when delivered. */
  reason: z.string().nullable(),
  /** Seconds the service asked to wait (a 429), or null. */
  retryAfterSeconds: z.number().int().nullable(),
});
export type ChannelTestResult = z.infer<typeof ChannelTestResultSchema>;
