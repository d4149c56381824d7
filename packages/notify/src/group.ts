import { createHash } from "node:crypto";
import { maxSeverity, type Classification } from "@driftwatch/schema";
import { combineResults } from "./answer.js";
import type { SendResult } from "./channel.js";
import { parseNotification, type DiffNotification, type Notification } from "./notification.js";

/** Changes a grouped message carries at most (the notifications' first ones); `totalChanges` counts all. */
export const GROUP_MAX_CHANGES = 50;

const CLASSIFICATION_ORDER: readonly Classification[] = ["schema_change", "visual_change", "value_change", "content_change"];

/**
 * The changes of several diff notifications (a grouping window, or what quiet hours held) as one:
 * "5 changes on 3 monitors", the highest severity, the changes of every monitor (each path prefixed
 * with its monitor's name when there are several), and an id that is the same for the same group
 * (a retry of the message is the same message to services that dedupe). One notification is
 * returned as it is.
 */
export function groupDiffNotifications(list: readonly DiffNotification[]): DiffNotification {
  const [first] = list;
  if (first === undefined) throw new RangeError("groupDiffNotifications needs at least one notification");
  if (list.length === 1) return first;
  const monitors = new Map(list.map((n) => [n.monitor.id, n.monitor]));
  const several = monitors.size > 1;
  const total = list.reduce((sum, n) => sum + Math.max(n.diff.totalChanges ?? 0, n.diff.changes.length), 0);
  const changes = list
    .flatMap((n) => n.diff.changes.map((change) => (several ? { ...change, path: `${n.monitor.name || n.monitor.id}: ${change.path}` } : change)))
    .slice(0, GROUP_MAX_CHANGES);
  const classifications = new Set(list.map((n) => n.diff.classification));
  const classification = CLASSIFICATION_ORDER.find((c) => classifications.has(c)) ?? first.diff.classification;
  const id = `grp_${createHash("sha256").update(list.map((n) => n.id).join("\n")).digest("hex").slice(0, 24)}`;
  const newest = list.reduce((a, b) => (a.occurredAt >= b.occurredAt ? a : b));
  const summary = `${total} change${total === 1 ? "" : "s"} on ${monitors.size} monitor${monitors.size === 1 ? "" : "s"}`;
  // the reasons of the alerts in the group (each under its monitor when there are several)
  const held = list
    .flatMap((n) =>
      n.diff.alert?.matched === true
        ? n.diff.alert.results.filter((r) => r.matched).map((r) => ({ ...r, reason: several ? `${n.monitor.name || n.monitor.id}: ${r.reason}` : r.reason }))
        : [],
    )
    .slice(0, GROUP_MAX_CHANGES);
  const alert = held.length === 0 ? {} : { alert: { matched: true, results: held } };
  const alertOnly = list.every((n) => n.diff.alertOnly === true) ? { alertOnly: true } : {};
  return {
    event: "diff.detected",
    id,
    occurredAt: newest.occurredAt,
    monitor: several ? { id: newest.monitor.id, name: summary } : first.monitor,
    ...(several ? { monitors: [...monitors.values()] } : {}),
    diff: {
      id: newest.diff.id,
      classification,
      topSeverity: maxSeverity(list.map((n) => n.diff.topSeverity)) ?? first.diff.topSeverity,
      changes,
      totalChanges: total,
      ...alert,
      ...alertOnly,
    },
  };
}

/**
 * The notifications of one channel message, validated: the diffs grouped into one (see
 * `groupDiffNotifications`), each health event on its own, in their order.
 */
export function groupNotifications(payloads: readonly unknown[]): Notification[] {
  const notifications = payloads.map((payload) => parseNotification(payload));
  const diffs = notifications.filter((n): n is DiffNotification => n.event === "diff.detected");
  const health = notifications.filter((n) => n.event !== "diff.detected");
  return [...(diffs.length === 0 ? [] : [groupDiffNotifications(diffs)]), ...health];
}

/** Sends each notification of a message in turn (stopping at the first that is not delivered); one result for all. */
export async function sendAll(notifications: readonly Notification[], send: (notification: Notification) => Promise<SendResult>): Promise<SendResult> {
  const results: SendResult[] = [];
  for (const notification of notifications) {
    const result = await send(notification);
    results.push(result);
    if (result.outcome !== "delivered") break;
  }
  return combineResults(results);
}
