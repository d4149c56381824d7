import { describe, expect, it } from "vitest";
import { channelDueAt, channelReceives, groupWindowEnd, quietHoursEnd, type QuietHours } from "../../src/index.js";

const channel = { paused: false, events: ["diff.detected" as const, "monitor.failing" as const], tags: [] as string[], minSeverity: "medium" as const };

describe("channelReceives", () => {
  it("routes by event type, tags (all monitors when none), the channel's and the policy's minimum severity", () => {
    expect(channelReceives(channel, { event: "diff.detected", monitorTags: [], severity: "medium" })).toBe(true);
    expect(channelReceives(channel, { event: "diff.detected", monitorTags: [], severity: "low" })).toBe(false);
    expect(channelReceives(channel, { event: "diff.detected", monitorTags: [], severity: "high", policyMinSeverity: "critical" })).toBe(false);
    expect(channelReceives(channel, { event: "diff.detected", monitorTags: [], severity: "critical", policyMinSeverity: "critical" })).toBe(true);
    expect(channelReceives(channel, { event: "monitor.recovered", monitorTags: [] })).toBe(false);
    // a health event has no severity gate
    expect(channelReceives(channel, { event: "monitor.failing", monitorTags: [] })).toBe(true);
    const tagged = { ...channel, tags: ["payments", "prod"] };
    expect(channelReceives(tagged, { event: "diff.detected", monitorTags: ["prod"], severity: "high" })).toBe(true);
    expect(channelReceives(tagged, { event: "diff.detected", monitorTags: ["staging"], severity: "high" })).toBe(false);
    expect(channelReceives(tagged, { event: "diff.detected", monitorTags: [], severity: "high" })).toBe(false);
    expect(channelReceives({ ...channel, paused: true }, { event: "diff.detected", monitorTags: [], severity: "critical" })).toBe(false);
  });
});

describe("quiet hours", () => {
  const night: QuietHours = { timeZone: "Europe/Berlin", windows: [{ start: "22:00", end: "07:00" }] };

  it("finds the end of a window past midnight in the channel's time zone", () => {
    // 23:30 in Berlin (CET, UTC+1) on a Tuesday in January: quiet until 07:00 local = 06:00 UTC
    expect(quietHoursEnd(night, new Date("2026-01-13T22:30:00Z"))?.toISOString()).toBe("2026-01-14T06:00:00.000Z");
    // 03:00 local: the window began the evening before
    expect(quietHoursEnd(night, new Date("2026-01-14T02:00:00Z"))?.toISOString()).toBe("2026-01-14T06:00:00.000Z");
    // 12:00 local: outside
    expect(quietHoursEnd(night, new Date("2026-01-14T11:00:00Z"))).toBeNull();
    // 07:00 sharp: the window has ended
    expect(quietHoursEnd(night, new Date("2026-01-14T06:00:00Z"))).toBeNull();
  });

  it("keeps local times across a daylight-saving change and honours days", () => {
    // Night of 28 to 29 March 2026: Berlin goes from UTC+1 to UTC+2 at 02:00; 07:00 CEST = 05:00 UTC
    expect(quietHoursEnd(night, new Date("2026-03-28T22:00:00Z"))?.toISOString()).toBe("2026-03-29T05:00:00.000Z");
    const weekend: QuietHours = { timeZone: "America/New_York", windows: [{ days: ["sat", "sun"], start: "00:00", end: "24:00" }] };
    // Saturday 10:00 in New York (EST, UTC-5): quiet through Sunday, until Monday 00:00 local = 05:00 UTC
    expect(quietHoursEnd(weekend, new Date("2026-01-17T15:00:00Z"))?.toISOString()).toBe("2026-01-19T05:00:00.000Z");
    // Friday: not quiet
    expect(quietHoursEnd(weekend, new Date("2026-01-16T15:00:00Z"))).toBeNull();
    // a window on Monday only, crossing midnight, holds into Tuesday morning but not Monday morning
    const monday: QuietHours = { timeZone: "UTC", windows: [{ days: ["mon"], start: "23:00", end: "01:00" }] };
    expect(quietHoursEnd(monday, new Date("2026-01-13T00:30:00Z"))?.toISOString()).toBe("2026-01-13T01:00:00.000Z"); // Tue 00:30
    expect(quietHoursEnd(monday, new Date("2026-01-12T00:30:00Z"))).toBeNull(); // Mon 00:30
  });

  it("holds messages below the quiet severity until the end, grouping to the window's end", () => {
    const quiet = { ...night, minSeverity: "high" as const };
    const at = new Date("2026-01-13T22:30:00Z");
    expect(channelDueAt({ groupSeconds: 0, quietHours: quiet }, "diff.detected", "medium", at)).toEqual({ dueAt: new Date("2026-01-14T06:00:00Z"), held: true, grouped: false });
    expect(channelDueAt({ groupSeconds: 0, quietHours: quiet }, "diff.detected", "high", at)).toEqual({ dueAt: at, held: false, grouped: false });
    expect(channelDueAt({ groupSeconds: 300, quietHours: null }, "diff.detected", "high", new Date("2026-01-13T22:31:10Z"))).toEqual({
      dueAt: new Date("2026-01-13T22:35:00Z"),
      held: false,
      grouped: true,
    });
    expect(groupWindowEnd(new Date("2026-01-13T22:35:00Z"), 300).toISOString()).toBe("2026-01-13T22:40:00.000Z");
    // health events are never grouped; a failing monitor (high) passes quiet hours of minSeverity high
    expect(channelDueAt({ groupSeconds: 300, quietHours: quiet }, "monitor.failing", "high", at)).toEqual({ dueAt: at, held: false, grouped: false });
  });
});
