import { describe, expect, it } from "vitest";
import { buildMessage, groupDiffNotifications, groupNotifications, sendAll, type DiffNotification } from "./index.js";

function diff(id: string, monitor: { id: string; name: string }, severity: "info" | "high", classification: "value_change" | "schema_change", paths: string[]): DiffNotification {
  return {
    event: "diff.detected",
    id,
    occurredAt: `2026-01-13T12:0${id.length % 10}:00.000Z`,
    monitor,
    diff: { id, classification, topSeverity: severity, changes: paths.map((path) => ({ path, op: "replace", severity, before: 1, after: 2 })), totalChanges: paths.length },
  };
}

describe("grouped messages", () => {
  const orders = { id: "mon_orders", name: "Orders API" };
  const prices = { id: "mon_prices", name: "Prices" };
  const stock = { id: "mon_stock", name: "Stock" };

  it("says how many changes on how many monitors, with the top severity and each change under its monitor", () => {
    const grouped = groupDiffNotifications([
      diff("dif_1", orders, "info", "value_change", ["$.a", "$.b"]),
      diff("dif_22", prices, "high", "schema_change", ["$.price"]),
      diff("dif_333", stock, "info", "value_change", ["$.n"]),
      diff("dif_4444", orders, "info", "value_change", ["$.c"]),
    ]);
    expect(grouped.monitor.name).toBe("5 changes on 3 monitors");
    // each monitor of the group, once
    expect(grouped.monitors).toEqual([orders, prices, stock]);
    expect(grouped.diff).toMatchObject({ topSeverity: "high", classification: "schema_change", totalChanges: 5 });
    expect(grouped.diff.changes.map((c) => c.path)).toEqual(["Orders API: $.a", "Orders API: $.b", "Prices: $.price", "Stock: $.n", "Orders API: $.c"]);
    expect(buildMessage(grouped).title).toBe("[HIGH] 5 changes on 3 monitors: schema change");
    // the same group is the same message (services that dedupe see one id)
    expect(groupDiffNotifications([diff("dif_1", orders, "info", "value_change", ["$.a"]), diff("dif_22", prices, "high", "schema_change", ["$.p"])]).id).toBe(
      groupDiffNotifications([diff("dif_1", orders, "info", "value_change", ["$.x"]), diff("dif_22", prices, "high", "schema_change", ["$.y"])]).id,
    );
    // one monitor keeps its name
    const one = groupDiffNotifications([diff("dif_1", orders, "info", "value_change", ["$.a"]), diff("dif_22", orders, "info", "value_change", ["$.b"])]);
    expect(one.monitor).toEqual(orders);
    expect(one.monitors).toBeUndefined();
  });

  it("keeps the reasons of the alerts it groups, each under its monitor", () => {
    const alerted = (id: string, monitor: { id: string; name: string }, reason: string, alertOnly: boolean): DiffNotification => {
      const base = diff(id, monitor, "info", "value_change", alertOnly ? [] : ["$.price"]);
      return { ...base, diff: { ...base.diff, ...(alertOnly ? { alertOnly: true, topSeverity: "medium" as const } : {}), alert: { matched: true, results: [{ index: 0, matched: true, reason }] } } };
    };
    const grouped = groupDiffNotifications([alerted("dif_1", stock, 'status is "degraded"', true), alerted("dif_22", prices, "price is 179 EUR, below 200", false), diff("dif_333", orders, "info", "value_change", ["$.a"])]);
    expect(buildMessage(grouped).summary).toBe('2 changes (2 info); conditions met: Stock: status is "degraded"; Prices: price is 179 EUR, below 200');
    // alert-only diffs alone are an alert
    const only = groupDiffNotifications([alerted("dif_1", stock, "a holds", true), alerted("dif_22", stock, "b holds", true)]);
    expect(buildMessage(only)).toMatchObject({ title: "[MEDIUM] Stock: alert", summary: "conditions met: a holds; b holds" });
  });

  it("validates payloads, keeps health events apart and sends in turn until one is not delivered", async () => {
    const health = { event: "monitor.failing", id: "h1", occurredAt: "2026-01-13T12:00:00.000Z", monitor: orders, consecutiveFailures: 3 };
    const list = groupNotifications([diff("dif_1", orders, "info", "value_change", ["$.a"]), health, diff("dif_22", prices, "info", "value_change", ["$.b"])]);
    expect(list.map((n) => n.event)).toEqual(["diff.detected", "monitor.failing"]);
    expect(() => groupNotifications([{ event: "nope" }])).toThrow(/invalid/);
    const sent: string[] = [];
    const result = await sendAll(list, async (n) => {
      sent.push(n.event);
      return { outcome: "retry", afterSeconds: 5, reason: "HTTP 429" };
    });
    expect(sent).toEqual(["diff.detected"]);
    expect(result).toMatchObject({ outcome: "retry", afterSeconds: 5 });
  });
});
