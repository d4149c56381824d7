import { describe, expect, it } from "vitest";
import { classifyAnswer, combineResults, retryAfterHeader } from "./answer.js";
import { buildMessage, parseNotification, type DiffNotification } from "./notification.js";
import { oneLine, previewValue, truncate } from "./text.js";

const base: DiffNotification = {
  event: "diff.detected",
  id: "evt_1",
  occurredAt: "2026-11-28T06:00:00.000Z",
  monitor: { id: "mon 1", name: "Shop\r\nBcc: x" },
  diff: {
    id: "dif/1",
    classification: "value_change",
    topSeverity: "medium",
    changes: Array.from({ length: 15 }, (_, i) => ({ path: `$.a${i}`, op: "replace", severity: i === 12 ? ("medium" as const) : ("info" as const), before: i, after: i + 1 })),
  },
};

describe("the message model", () => {
  it("lists the most severe changes first, counts the rest, links the diff", () => {
    const model = buildMessage(base, { publicUrl: "https://dw.example.com/base/", maxChanges: 3 });
    expect(model.title).toBe("[MEDIUM] Shop Bcc: x: value change");
    expect(model.changes.map((c) => c.path)).toEqual(["$.a12", "$.a0", "$.a1"]);
    expect(model.more).toBe(12);
    expect(model.summary).toBe("15 changes (1 medium, 14 info)");
    expect(model.link).toBe("https://dw.example.com/base/monitors/mon%201/diffs/dif%2F1");
  });

  it("counts changes that were not sent (totalChanges)", () => {
    const model = buildMessage({ ...base, diff: { ...base.diff, totalChanges: 40 } }, { maxChanges: 10 });
    expect(model.more).toBe(30);
    expect(model.link).toBeUndefined();
  });

  it("says which alert conditions held: an alert-only diff (no change) is titled an alert and its summary gives the reasons", () => {
    const alertOnly = parseNotification({
      ...base,
      diff: {
        ...base.diff,
        changes: [],
        alertOnly: true,
        alert: {
          matched: true,
          results: [
            { index: 0, matched: true, reason: 'status is "degraded", not equal to "operational"; held 3 consecutive checks (3 needed)' },
            { index: 1, matched: false, reason: "price is missing" },
          ],
        },
      },
    });
    const model = buildMessage(alertOnly);
    expect(model.title).toBe("[MEDIUM] Shop Bcc: x: alert");
    expect(model.summary).toBe('conditions met: status is "degraded", not equal to "operational"; held 3 consecutive checks (3 needed)');
    expect(model.changes).toEqual([]);
    // a diff with changes that matched keeps its counts and adds the reasons
    const matched = buildMessage({ ...base, diff: { ...base.diff, alert: { matched: true, results: [{ index: 0, matched: true, reason: "price is 179 EUR,\r\nbelow 200" }] } } });
    expect(matched.title).toBe("[MEDIUM] Shop Bcc: x: value change");
    expect(matched.summary).toBe("15 changes (1 medium, 14 info); conditions met: price is 179 EUR, below 200");
  });

  it("rejects a malformed notification with the paths at fault", () => {
    expect(() => parseNotification({ ...base, diff: { ...base.diff, topSeverity: "urgent" } })).toThrow(expect.objectContaining({ code: "invalid_notification", details: [expect.objectContaining({ path: "diff.topSeverity" })] }));
  });
});

describe("text helpers", () => {
  it("never splits a surrogate pair and keeps one line", () => {
    expect(truncate("ab👍cd", 4)).toBe("ab…");
    expect(oneLine("a\r\nb\u2028c\u0000d\u202e")).toBe("a b cd");
    expect(previewValue("x".repeat(100_000), 10)).toBe('"xxxxxxxx…');
  });
});

describe("reading answers", () => {
  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterHeader("120")).toBe(120);
    expect(retryAfterHeader("Sat, 28 Nov 2026 06:01:00 GMT", new Date("2026-11-28T06:00:00Z"))).toBe(60);
    expect(retryAfterHeader("soon")).toBeUndefined();
  });

  it("retries 5xx and 408, fails other 4xx, delivers 2xx", () => {
    expect(classifyAnswer({ status: 502, headers: {}, body: "" })).toMatchObject({ outcome: "retry", afterSeconds: undefined });
    expect(classifyAnswer({ status: 408, headers: {}, body: "" })).toMatchObject({ outcome: "retry" });
    expect(classifyAnswer({ status: 403, headers: {}, body: '{"message":"nope"}' })).toEqual({ outcome: "failed", status: 403, reason: "HTTP 403: nope" });
    expect(classifyAnswer({ status: 410, headers: {}, body: "" })).toMatchObject({ outcome: "gone" });
    expect(classifyAnswer({ status: 204, headers: {}, body: "" })).toEqual({ outcome: "delivered", status: 204 });
  });

  it("combines several targets' answers: the longest retry wins over failures", () => {
    expect(
      combineResults([
        { outcome: "delivered" },
        { outcome: "gone", reason: "a" },
        { outcome: "retry", afterSeconds: 3, reason: "b" },
        { outcome: "retry", afterSeconds: 9, reason: "c" },
        { outcome: "failed", reason: "d" },
      ]),
    ).toEqual({ outcome: "retry", afterSeconds: 9, reason: "c" });
    expect(combineResults([{ outcome: "delivered", status: 200 }])).toEqual({ outcome: "delivered", status: 200 });
  });
});
