import { WEEKDAYS, severityRank, type ChannelEvent, type QuietHours, type QuietWindow, type Severity, type Weekday } from "@driftwatch/schema";
import type { ChannelRecord } from "../store/channels.js";

/** What routing needs to know about an event. */
export interface RoutedEvent {
  event: ChannelEvent;
  /** The monitor's tags (normalised). */
  monitorTags: readonly string[];
  /** The diff's top severity (diff.detected only). */
  severity?: Severity | undefined;
  /** The policy's `notify.minSeverity`, when it sets one: changes below it reach no channel. */
  policyMinSeverity?: Severity | undefined;
}

/**
 * Whether a channel gets an event: it is not paused, subscribes to the event type, names one of
 * the monitor's tags (or none: every monitor), and a change is at or above both its `minSeverity`
 * and the policy's `notify.minSeverity`. A failing channel still gets messages (they wait in its
 * outbox until it is fixed).
 */
export function channelReceives(channel: Pick<ChannelRecord, "paused" | "events" | "tags" | "minSeverity">, routed: RoutedEvent): boolean {
  if (channel.paused || !channel.events.includes(routed.event)) return false;
  if (channel.tags.length > 0 && !channel.tags.some((tag) => routed.monitorTags.includes(tag))) return false;
  if (routed.event === "diff.detected") {
    const severity = routed.severity ?? "info";
    if (severityRank(severity) < severityRank(channel.minSeverity)) return false;
    if (routed.policyMinSeverity !== undefined && severityRank(severity) < severityRank(routed.policyMinSeverity)) return false;
  }
  return true;
}

/** How a channel is routed a monitor's events (see `channelRouteFor`). */
export interface ChannelRoute {
  /** The monitor's events the channel subscribes to. */
  events: ChannelEvent[];
  /** Changes at or above this severity reach it: the higher of the channel's and the policy's `notify.minSeverity`. */
  minSeverity: Severity;
  /** The monitor's tags the channel names; empty when it takes every monitor. */
  matchedTags: string[];
  /** `active`; `paused` (nothing is queued for it); `failing` (messages wait in its outbox until it is fixed). */
  state: "active" | "paused" | "failing";
}

/**
 * Whether a channel is routed a monitor's events, and how, by the rules of `channelReceives`
 * (paused channels included, with their state): null when its tags name none of the monitor's.
 */
export function channelRouteFor(
  channel: Pick<ChannelRecord, "paused" | "status" | "events" | "tags" | "minSeverity">,
  monitorTags: readonly string[],
  policyMinSeverity?: Severity,
): ChannelRoute | null {
  const matchedTags = channel.tags.filter((tag) => monitorTags.includes(tag));
  if (channel.tags.length > 0 && matchedTags.length === 0) return null;
  if (channel.events.length === 0) return null;
  const minSeverity =
    policyMinSeverity !== undefined && severityRank(policyMinSeverity) > severityRank(channel.minSeverity) ? policyMinSeverity : channel.minSeverity;
  return {
    events: [...channel.events],
    minSeverity,
    matchedTags,
    state: channel.paused ? "paused" : channel.status === "failing" ? "failing" : "active",
  };
}

const PARTS = new Map<string, Intl.DateTimeFormat>();

/** The local weekday and minute of the day of `at` in `timeZone`. */
function localClock(at: Date, timeZone: string): { day: number; minute: number } {
  let format = PARTS.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    PARTS.set(timeZone, format);
  }
  let weekday = "Mon";
  let hour = 0;
  let minute = 0;
  for (const part of format.formatToParts(at)) {
    if (part.type === "weekday") weekday = part.value;
    else if (part.type === "hour") hour = Number(part.value);
    else if (part.type === "minute") minute = Number(part.value);
  }
  return { day: WEEKDAYS.indexOf(weekday.slice(0, 3).toLowerCase() as Weekday), minute: hour * 60 + minute };
}

function clockMinutes(text: string): number {
  const [h, m] = text.split(":");
  return Number(h) * 60 + Number(m);
}

function windowHas(window: QuietWindow, day: number): boolean {
  return window.days === undefined || window.days.includes(WEEKDAYS[day]!);
}

/** Minutes from `minute` of `day` to the end of `window`, when that moment lies in it; else null. */
function minutesLeft(window: QuietWindow, day: number, minute: number): number | null {
  const start = clockMinutes(window.start);
  const end = clockMinutes(window.end);
  if (start === end) return windowHas(window, day) ? 1440 - minute : null; // the whole day
  if (start < end) return windowHas(window, day) && minute >= start && minute < end ? end - minute : null;
  // past midnight: from `start` on its day to `end` the next morning
  if (windowHas(window, day) && minute >= start) return 1440 - minute + end;
  if (windowHas(window, (day + 6) % 7) && minute < end) return end - minute;
  return null;
}

/**
 * The end of the quiet window `at` falls in (windows that touch are followed through), or null
 * when `at` is outside every window. Minutes are counted on the local clock, so a window still
 * ends at its local time across a daylight-saving change.
 */
export function quietHoursEnd(quiet: QuietHours, at: Date): Date | null {
  let cursor = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
  let inside = false;
  // At most a week of windows chained end to start.
  for (let hop = 0; hop < 14; hop++) {
    const { day, minute } = localClock(cursor, quiet.timeZone);
    let longest: number | null = null;
    for (const window of quiet.windows) {
      const left = minutesLeft(window, day, minute);
      if (left !== null && (longest === null || left > longest)) longest = left;
    }
    if (longest === null) break;
    inside = true;
    const target = (minute + longest) % 1440;
    let next = new Date(cursor.getTime() + longest * 60_000);
    // A daylight-saving change within the window moves the wall clock by up to an hour.
    const reached = localClock(next, quiet.timeZone).minute;
    const drift = ((target - reached + 1440 + 720) % 1440) - 720;
    if (drift !== 0 && Math.abs(drift) <= 120) next = new Date(next.getTime() + drift * 60_000);
    cursor = next;
  }
  return inside ? cursor : null;
}

/** The end of the grouping window `at` falls in: windows of `groupSeconds` counted from the epoch. */
export function groupWindowEnd(at: Date, groupSeconds: number): Date {
  const size = groupSeconds * 1000;
  return new Date((Math.floor(at.getTime() / size) + 1) * size);
}

/**
 * When a message to `channel` of an event at `at` may go: at once; at the end of its grouping
 * window (changes only); or, when it falls in quiet hours and is below their `minSeverity`
 * (health events count as `high`, a recovery as `info`), when they end. `held` says quiet hours
 * held it.
 */
export function channelDueAt(
  channel: Pick<ChannelRecord, "groupSeconds" | "quietHours">,
  event: ChannelEvent,
  severity: Severity,
  at: Date,
): { dueAt: Date; held: boolean; grouped: boolean } {
  let dueAt = at;
  let grouped = false;
  if (event === "diff.detected" && channel.groupSeconds > 0) {
    dueAt = groupWindowEnd(at, channel.groupSeconds);
    grouped = true;
  }
  const quiet = channel.quietHours;
  if (quiet !== null && (quiet.minSeverity === undefined || severityRank(severity) < severityRank(quiet.minSeverity))) {
    const end = quietHoursEnd(quiet, at);
    if (end !== null && end.getTime() > dueAt.getTime()) return { dueAt: end, held: true, grouped };
  }
  return { dueAt, held: false, grouped };
}

/** The severity routing and quiet hours give a health event. */
export function healthEventSeverity(event: ChannelEvent): Severity {
  return event === "monitor.failing" ? "high" : "info";
}
