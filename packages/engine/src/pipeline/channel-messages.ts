import {
  channelDueAt,
  channelReceives,
  healthEventSeverity,
  severityRank,
  type Change,
  type ChannelEvent,
  type ChannelRecord,
  type MonitorRecord,
  type NewChannelDelivery,
  type NewDiff,
  type Severity,
  type Store,
} from "@driftwatch/core";

/** Changes a channel message carries at most (the most severe first); `totalChanges` counts all. */
export const CHANNEL_MESSAGE_MAX_CHANGES = 20;
/** A before/after value whose JSON is longer is carried as its first characters. */
const MAX_VALUE_CHARS = 500;
/** Channels of one organization routing reads at most. */
/** The channels of an organization that messages are routed to (an organization cannot have more). */
export const MAX_CHANNELS = 1000;

/** What a check tells the channels: a recorded diff, or the monitor's health turning bad or good. */
export type ChannelNotice =
  | { kind: "diff"; monitor: MonitorRecord; diff: NewDiff; snapshotId: string; policyMinSeverity: Severity | undefined }
  | { kind: "health"; event: Extract<ChannelEvent, "monitor.failing" | "monitor.recovered">; monitor: MonitorRecord; reason: string | null; consecutiveFailures: number };

function boundedValue(value: unknown): unknown {
  if (value === undefined) return undefined;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return String(value);
  }
  if (text === undefined || text.length <= MAX_VALUE_CHARS) return value;
  return `${text.slice(0, MAX_VALUE_CHARS)}...`;
}

function messageChange(change: Change): Record<string, unknown> {
  const out: Record<string, unknown> = { path: change.path, op: change.op, severity: change.severity };
  if (change.category === "schema" || change.category === "value") out["category"] = change.category;
  if (change.from !== undefined) out["from"] = change.from;
  if (change.detail !== undefined) out["detail"] = change.detail;
  if (change.before !== undefined) out["before"] = boundedValue(change.before);
  if (change.after !== undefined) out["after"] = boundedValue(change.after);
  return out;
}

function monitorOf(monitor: MonitorRecord): Record<string, unknown> {
  return { id: monitor.id, name: monitor.name, url: monitor.url, tags: monitor.tags ?? [] };
}

/**
 * The notification a message carries (the shape `@driftwatch/notify` formats), as JSON text, and
 * its dedup key: one message per diff per channel; one per health change of a monitor.
 */
export function notificationOf(notice: ChannelNotice, at: Date): { event: ChannelEvent; dedupKey: string; payload: string; severity: Severity; diffId: string | null } {
  if (notice.kind === "diff") {
    const { diff } = notice;
    const changes = diff.changes
      .map((change, index) => ({ change, index }))
      .sort((a, b) => severityRank(b.change.severity) - severityRank(a.change.severity) || a.index - b.index)
      .slice(0, CHANNEL_MESSAGE_MAX_CHANGES)
      .map(({ change }) => messageChange(change));
    // website diffs (content or visual changes) have no schema/value counts
    const counts = "schemaChanges" in diff ? { schemaChanges: diff.schemaChanges, valueChanges: diff.valueChanges } : {};
    const total = "schemaChanges" in diff ? Math.max(diff.changes.length, diff.schemaChanges + diff.valueChanges) : diff.changes.length;
    // a monitor with conditions: what held and why, so the message can say why it alerts
    const alert = diff.alert === undefined ? {} : { alert: { matched: diff.alert.matched, results: diff.alert.results.map((r) => ({ index: r.index, matched: r.matched, reason: r.reason.slice(0, MAX_VALUE_CHARS) })) } };
    const alertOnly = diff.alertOnly === true ? { alertOnly: true } : {};
    const payload = {
      event: "diff.detected",
      id: diff.id,
      occurredAt: at.toISOString(),
      monitor: monitorOf(notice.monitor),
      diff: { id: diff.id, snapshotId: notice.snapshotId, classification: diff.classification, topSeverity: diff.topSeverity, changes, totalChanges: total, ...counts, ...alert, ...alertOnly },
    };
    return { event: "diff.detected", dedupKey: `diff:${diff.id}`, payload: JSON.stringify(payload), severity: diff.topSeverity, diffId: diff.id };
  }
  const id = `${notice.event}:${notice.monitor.id}:${at.toISOString()}`;
  const payload = {
    event: notice.event,
    id,
    occurredAt: at.toISOString(),
    monitor: monitorOf(notice.monitor),
    ...(notice.reason === null ? {} : { reason: notice.reason }),
    consecutiveFailures: notice.consecutiveFailures,
  };
  return { event: notice.event, dedupKey: id, payload: JSON.stringify(payload), severity: healthEventSeverity(notice.event), diffId: null };
}

/** The organization's channels (newest first), for routing. */
async function channelsOf(store: Store, orgId: string): Promise<ChannelRecord[]> {
  const channels: ChannelRecord[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listChannels(orgId, { limit: 100, cursor });
    channels.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== null && channels.length < MAX_CHANNELS);
  return channels;
}

/**
 * The messages a check writes with its record (`RecordCheckInput.channelMessages`): one per
 * channel that gets the notice (see `channelReceives`), due at once, at the end of the channel's
 * grouping window, or when its quiet hours end (`channelDueAt`).
 */
export async function channelMessagesFor(store: Store, notice: ChannelNotice, at: Date): Promise<NewChannelDelivery[]> {
  const channels = await channelsOf(store, notice.monitor.orgId);
  if (channels.length === 0) return [];
  const message = notificationOf(notice, at);
  const messages: NewChannelDelivery[] = [];
  for (const channel of channels) {
    const routed = channelReceives(channel, {
      event: message.event,
      monitorTags: notice.monitor.tags ?? [],
      severity: message.severity,
      policyMinSeverity: notice.kind === "diff" ? notice.policyMinSeverity : undefined,
    });
    if (!routed) continue;
    const { dueAt } = channelDueAt(channel, message.event, message.severity, at);
    messages.push({
      channelId: channel.id,
      dedupKey: message.dedupKey,
      eventType: message.event,
      monitorId: notice.monitor.id,
      diffId: message.diffId,
      payload: message.payload,
      createdAt: at.toISOString(),
      nextAttemptAt: dueAt.toISOString(),
    });
  }
  return messages;
}

/** `{ channelMessages }` for a record when there are any, else nothing (the record stays as it was). */
export function withMessages(messages: readonly NewChannelDelivery[]): { channelMessages?: readonly NewChannelDelivery[] } {
  return messages.length === 0 ? {} : { channelMessages: messages };
}
