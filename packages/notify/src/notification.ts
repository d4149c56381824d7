import { ClassificationSchema, SeveritySchema, compareSeverity, type Classification, type Severity } from "@driftwatch/schema";
import { z } from "zod";
import { NotifyError } from "./errors.js";
import { cleanText, oneLine, previewValue, truncate } from "./text.js";

const MonitorSchema = z.object({
  id: z.string().min(1).max(200),
  // Names and URLs come from users and targets; messages cut them, so only absurd sizes are refused.
  name: z.string().max(1_000_000),
  url: z.string().max(1_000_000).optional(),
  tags: z.array(z.string()).optional(),
});

const ChangeSchema = z.object({
  path: z.string(),
  op: z.string(),
  category: z.enum(["schema", "value"]).optional(),
  severity: SeveritySchema,
  from: z.string().optional(),
  detail: z.string().optional(),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
});

const AlertSchema = z.object({
  matched: z.boolean(),
  results: z.array(z.object({ index: z.number().int().nonnegative(), matched: z.boolean(), reason: z.string().max(100_000) })).max(100),
});

/** Reasons of the conditions that held, listed at most. */
const MAX_ALERT_REASONS = 5;

/** `conditions met: a; b` from a matched alert, or undefined. Reasons are plain text, cut. */
function alertSummary(alert: { matched: boolean; results: Array<{ matched: boolean; reason: string }> } | undefined): string | undefined {
  if (alert === undefined || !alert.matched) return undefined;
  const held = alert.results.filter((result) => result.matched);
  if (held.length === 0) return undefined;
  const reasons = held.slice(0, MAX_ALERT_REASONS).map((result) => truncate(oneLine(result.reason), 200));
  const more = held.length - reasons.length;
  return `conditions met: ${reasons.join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
}

/** A recorded diff to announce. `changes` may be the first ones only; `totalChanges` counts all. */
export const DiffNotificationSchema = z.object({
  event: z.literal("diff.detected"),
  /** The message's id: the same id on a retry (services that dedupe get it; Matrix uses it as txnId). */
  id: z.string().min(1).max(200),
  occurredAt: z.string(),
  monitor: MonitorSchema,
  /**
   * A grouped message of several monitors (groupDiffNotifications): each of them. `monitor` is then
   * the group ("5 changes on 3 monitors", with the newest change's monitor id).
   */
  monitors: z.array(MonitorSchema).max(10_000).optional(),
  diff: z.object({
    id: z.string().min(1).max(200),
    snapshotId: z.string().optional(),
    classification: ClassificationSchema,
    topSeverity: SeveritySchema,
    changes: z.array(ChangeSchema),
    totalChanges: z.number().int().nonnegative().optional(),
    schemaChanges: z.number().int().nonnegative().optional(),
    valueChanges: z.number().int().nonnegative().optional(),
    /** The monitor's alert conditions on this check (docs/conditions.md): what held, and why. */
    alert: AlertSchema.optional(),
    /** A diff recorded only to deliver an alert: no change to list. */
    alertOnly: z.boolean().optional(),
  }),
});

/** A monitor's health changed: failing after N failed checks, or recovered. */
export const HealthNotificationSchema = z.object({
  event: z.enum(["monitor.failing", "monitor.recovered"]),
  id: z.string().min(1).max(200),
  occurredAt: z.string(),
  monitor: MonitorSchema,
  reason: z.string().optional(),
  consecutiveFailures: z.number().int().nonnegative().optional(),
});

export const NotificationSchema = z.discriminatedUnion("event", [DiffNotificationSchema, HealthNotificationSchema]);

export type DiffNotification = z.infer<typeof DiffNotificationSchema>;
export type HealthNotification = z.infer<typeof HealthNotificationSchema>;
export type Notification = z.infer<typeof NotificationSchema>;
export type NotificationEvent = Notification["event"];

/** Validates a notification (the engine builds them; embedders may too). */
export function parseNotification(input: unknown): Notification {
  const result = NotificationSchema.safeParse(input);
  if (!result.success) {
    throw new NotifyError("invalid_notification", "the notification is invalid", {
      details: result.error.issues.map((issue) => ({ path: issue.path.map(String).join(".") || "$", message: issue.message })),
    });
  }
  return result.data;
}

/** One change as messages show it: plain, cleaned, cut text (each channel escapes it). */
export interface MessageChange {
  path: string;
  op: string;
  severity: Severity;
  before: string | undefined;
  after: string | undefined;
}

/**
 * What every channel renders: plain text, already cleaned of control characters and cut to sane
 * lengths, not yet escaped for any markup.
 */
export interface MessageModel {
  event: NotificationEvent;
  id: string;
  occurredAt: string;
  /** One line: `[HIGH] Orders API: schema change`. */
  title: string;
  monitorId: string;
  monitorName: string;
  monitorUrl: string | undefined;
  severity: Severity | undefined;
  classification: Classification | undefined;
  /** `schema change`, `value change`, `content change`, `failing`, `recovered`. */
  classificationLabel: string;
  /** `3 changes (1 high, 2 info)` or the failure reason. */
  summary: string;
  changes: MessageChange[];
  /** Changes not listed (`and N more`). */
  more: number;
  totalChanges: number;
  /** The diff (or monitor) in the dashboard, when a public URL is configured. */
  link: string | undefined;
}

export interface MessageOptions {
  /** The dashboard's public base URL (`DRIFTWATCH_PUBLIC_URL`). */
  publicUrl?: string | undefined;
  /** At most this many changes are listed (default 10). */
  maxChanges?: number;
  /** Each before/after preview is cut to this many characters (default 120). */
  maxValueChars?: number;
}

const LABELS: Record<string, string> = {
  schema_change: "schema change",
  value_change: "value change",
  content_change: "content change",
  "monitor.failing": "failing",
  "monitor.recovered": "recovered",
};

function dashboardLink(publicUrl: string | undefined, ...segments: string[]): string | undefined {
  if (publicUrl === undefined || publicUrl === "") return undefined;
  const base = publicUrl.replace(/\/+$/, "");
  return `${base}/${segments.map((s) => encodeURIComponent(s)).join("/")}`;
}

/** Builds the channel-neutral message of a notification. */
export function buildMessage(notification: Notification, options: MessageOptions = {}): MessageModel {
  const maxChanges = options.maxChanges ?? 10;
  const maxValue = options.maxValueChars ?? 120;
  const monitorName = truncate(oneLine(notification.monitor.name), 200) || notification.monitor.id;
  const base = {
    event: notification.event,
    id: notification.id,
    occurredAt: notification.occurredAt,
    monitorId: notification.monitor.id,
    monitorName,
    monitorUrl: notification.monitor.url === undefined ? undefined : truncate(oneLine(notification.monitor.url), 500),
  };
  if (notification.event !== "diff.detected") {
    const failing = notification.event === "monitor.failing";
    const reason = notification.reason === undefined ? "" : truncate(cleanText(notification.reason), 500);
    return {
      ...base,
      title: failing ? `[FAILING] ${monitorName}` : `[RECOVERED] ${monitorName}`,
      severity: failing ? "high" : "info",
      classification: undefined,
      classificationLabel: LABELS[notification.event] ?? notification.event,
      summary: failing
        ? `${notification.consecutiveFailures ?? "Several"} consecutive checks failed${reason === "" ? "" : `: ${reason}`}`
        : "The monitor's checks succeed again.",
      changes: [],
      more: 0,
      totalChanges: 0,
      link: dashboardLink(options.publicUrl, "monitors", notification.monitor.id),
    };
  }
  const { diff } = notification;
  // The most severe changes first, so "and N more" hides the least important ones.
  const ordered = diff.changes
    .map((change, index) => ({ change, index }))
    .sort((a, b) => compareSeverity(b.change.severity, a.change.severity) || a.index - b.index)
    .map(({ change }) => change);
  const total = Math.max(diff.totalChanges ?? 0, diff.changes.length);
  const listed = ordered.slice(0, maxChanges).map((change) => ({
    path: truncate(oneLine(change.path), 300),
    op: oneLine(change.op),
    severity: change.severity,
    before: "before" in change && change.before !== undefined ? previewValue(change.before, maxValue) : undefined,
    after: "after" in change && change.after !== undefined ? previewValue(change.after, maxValue) : undefined,
  }));
  const counts = new Map<Severity, number>();
  for (const change of diff.changes) counts.set(change.severity, (counts.get(change.severity) ?? 0) + 1);
  const bySeverity = [...counts.entries()]
    .sort((a, b) => compareSeverity(b[0], a[0]))
    .map(([severity, n]) => `${n} ${severity}`)
    .join(", ");
  // an alert-only diff has no change to count: it is an alert, and the conditions say why
  const alertOnly = diff.alertOnly === true && total === 0;
  const label = alertOnly ? "alert" : (LABELS[diff.classification] ?? diff.classification);
  const counted = `${total} change${total === 1 ? "" : "s"}${bySeverity === "" ? "" : ` (${bySeverity}${total > diff.changes.length ? ", ..." : ""})`}`;
  const conditions = alertSummary(diff.alert);
  return {
    ...base,
    title: `[${diff.topSeverity.toUpperCase()}] ${monitorName}: ${label}`,
    severity: diff.topSeverity,
    classification: diff.classification,
    classificationLabel: label,
    summary: conditions === undefined ? counted : alertOnly ? conditions : `${counted}; ${conditions}`,
    changes: listed,
    more: total - listed.length,
    totalChanges: total,
    link: dashboardLink(options.publicUrl, "monitors", notification.monitor.id, "diffs", diff.id),
  };
}

/** A change as one plain line: `$.price: 10 -> 12 (high)`. */
export function changeLine(change: MessageChange): string {
  return `${change.path} ${changeValues(change)}(${change.severity})`;
}

/** `before -> after `, `added: x `, `removed: x `, or the op. */
export function changeValues(change: MessageChange): string {
  if (change.before !== undefined && change.after !== undefined) return `${change.before} -> ${change.after} `;
  if (change.after !== undefined) return `${change.op === "add" ? "added: " : "-> "}${change.after} `;
  if (change.before !== undefined) return `${change.op === "remove" ? "removed: " : ""}${change.before} `;
  return `${change.op} `;
}

/** `and 3 more` or "". */
export function moreLine(model: MessageModel): string {
  return model.more > 0 ? `and ${model.more} more` : "";
}

/** A sample diff notification (what `notify test` sends). */
export function createTestNotification(now: Date = new Date()): DiffNotification {
  return {
    event: "diff.detected",
    id: `test_${now.getTime().toString(36)}`,
    occurredAt: now.toISOString(),
    monitor: { id: "mon_test", name: "driftwatch test notification" },
    diff: {
      id: "dif_test",
      // a signed webhook's envelope names the snapshot
      snapshotId: "snp_test",
      classification: "schema_change",
      topSeverity: "high",
      changes: [
        { path: "$.price", op: "replace", category: "schema", severity: "high", before: "12.50", after: 12.5 },
        { path: "$.items[0].sku", op: "remove", category: "schema", severity: "medium", before: "A-1" },
        { path: "$.updatedAt", op: "replace", category: "value", severity: "info", before: "2026-01-01", after: "2026-01-02" },
      ],
      totalChanges: 3,
    },
  };
}
