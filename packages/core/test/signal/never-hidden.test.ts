// What the learner must never learn away or under-rate, found on real payloads it had not seen
// (the seventh round's fresh histories: Shopify orders, npm search, Kubernetes objects, exchange
// tickers). Each case learns from a history with suggestPolicy and diffs the next fetch with what
// was learned, as the service does.
import type { PolicyRules } from "@driftwatch/schema";
import { describe, expect, it } from "vitest";
import { diffJson, suggestPolicy } from "../../src/index.js";

function learnThenDiff(fetches: unknown[]): { policy: PolicyRules; next: ReturnType<typeof diffJson> | null } {
  const history = fetches.slice(0, -1);
  const { policy } = suggestPolicy(history, { kind: "json" });
  return { policy, next: diffJson(history[history.length - 1], fetches[fetches.length - 1], { policy }) };
}

const base = Date.parse("2026-11-20T08:00:00Z");
const iso = (minutes: number): string => new Date(base + minutes * 60_000).toISOString();

describe("the learner never hides or under-rates these", () => {
  it("a decimal string beside a moving time that changed once (a tax) is kept, and its next change is rated medium", () => {
    // updated_at moves on every fetch; total_tax changed once while learning
    const fetches = Array.from({ length: 9 }, (_, i) => ({
      id: 450789469,
      updated_at: iso(i * 5),
      total_tax: i < 3 ? "11.94" : i < 8 ? "11.95" : "11.96",
      note: "Deliver to the side door",
    }));
    const { next } = learnThenDiff(fetches);
    const change = next?.changes.find((c) => c.path === "$.total_tax");
    expect(change, JSON.stringify(next?.changes)).toBeDefined();
    expect(change!.severity).not.toBe("info");
    expect(["medium", "high", "critical"]).toContain(change!.severity);
  });

  it("a bare `total` (an invoice's, money) that never moved is not taken for a count: a change is reported as a price", () => {
    const fetches = Array.from({ length: 5 }, (_, i) => ({ id: "in_1", total: i < 4 ? 2000 : 2500, currency: "usd", updated: 1_763_625_600 + i * 300 }));
    const { policy, next } = learnThenDiff(fetches);
    expect(policy.volatile?.some((v) => v.path === "$.total") ?? false).toBe(false);
    const change = next?.changes.find((c) => c.path === "$.total");
    expect(change?.severity).toBe("medium");
  });

  it("a Prometheus-style `…_total` counter and a `total_count` are still counts that may go up", () => {
    const fetches = Array.from({ length: 5 }, (_, i) => ({ checks_total: 52084, total_count: 31, name: "api", ...(i === 4 ? { checks_total: 52096, total_count: 32 } : {}) }));
    const { next } = learnThenDiff(fetches);
    expect(next).toBeNull();
  });

  it("an enum-like name with a version suffix (`RollingUpdate_v2`) is not a token: a change is rated medium, also after it changed once", () => {
    const values = ["RollingUpdate", "RollingUpdate", "RollingUpdate", "RollingUpdate_v2", "RollingUpdate_v2", "RollingUpdate_v2", "RollingUpdate_v2", "legacy_RollingUpdate_v2"];
    const fetches = values.map((type, i) => ({ metadata: { name: "web", resourceVersion: String(1000 + i) }, spec: { replicas: 3, updateStrategy: { type } } }));
    const { next } = learnThenDiff(fetches);
    const change = next?.changes.find((c) => c.path === "$.spec.updateStrategy.type");
    expect(change?.severity).toBe("medium");
  });

  it("a host's address that changes is rated medium, stable or after it changed once", () => {
    const stable = learnThenDiff(Array.from({ length: 5 }, (_, i) => ({ spec: { clusterIP: i < 4 ? "10.47.248.116" : "10.48.248.116", type: "ClusterIP" } })));
    expect(stable.next?.changes.find((c) => c.path === "$.spec.clusterIP")?.severity).toBe("medium");
    const again = learnThenDiff(["10.47.248.116", "10.47.248.116", "10.48.248.116", "10.48.248.116", "10.48.248.116", "fd00::4"].map((ip) => ({ spec: { clusterIP: ip } })));
    expect(again.next?.changes.find((c) => c.path === "$.spec.clusterIP")?.severity).toBe("medium");
  });
});

// Readings on clocks of their own (smart meters, devices' signal strengths): learned from their
// behaviour, each with what must still be reported.
describe("readings learned by their behaviour", () => {
  // a reading that moves on some fetches only: [value at fetch 0..n]
  const walk = (values: number[], extra: (i: number) => Record<string, unknown> = () => ({})) => values.map((v, i) => ({ rssi: v, ...extra(i) }));

  it("a number that went up and down on three fetches by varying amounts is a reading: its next move is quiet, a jump beyond what it did is reported", () => {
    const values = [-66, -66, -58, -58, -69, -69, -61, -61];
    const quiet = learnThenDiff(walk([...values, -64]));
    expect(quiet.next).toBeNull();
    expect(quiet.policy.tolerance?.some((t) => t.path === "$.rssi")).toBe(true);
    const jump = learnThenDiff(walk([...values, -610]));
    expect(jump.next?.changes.map((c) => c.path)).toEqual(["$.rssi"]);
    // twice up and down is not enough: a setting changed and changed back
    const twice = learnThenDiff(walk([5, 5, 3, 3, 5, 5, 4]));
    expect(twice.next?.changes.map((c) => c.path)).toEqual(["$.rssi"]);
  });

  it("a running total (a meter's kWh) that only went up is quiet while it goes up; going down is reported; a reading that rose three times is not one", () => {
    // moves of 1 to 2 %: more than a float's jitter
    const kwh = [100.5, 101.7, 101.7, 103.2, 104.0, 104.0];
    const total = (last: number) => kwh.concat(last).map((v) => ({ energy_import_kwh: v, meter: "HWE-KWH3" }));
    expect(learnThenDiff(total(106.1)).next).toBeNull();
    expect(learnThenDiff(total(12.3)).next?.changes.map((c) => c.path)).toEqual(["$.energy_import_kwh"]);
    // an unnamed non-integer that rose on three fetches (a temperature on a sunny morning) and falls
    const temperature = [17.1, 17.3, 17.6, 17.9, 17.7].map((t) => ({ temperature: t, station: "EHAM" }));
    const fall = learnThenDiff(temperature);
    expect(fall.policy.volatile?.some((v) => v.path === "$.temperature" && v.forward === true) ?? false).toBe(false);
  });

  it("an uptime is a count that grows on its own, before it moved; a restart that resets it is reported", () => {
    const device = (uptime: number) => ({ name: "WLED", uptime, leds: { count: 30 } });
    expect(learnThenDiff([device(32), device(32), device(32), device(92)]).next).toBeNull();
    expect(learnThenDiff([device(32), device(32), device(32), device(5)]).next?.changes.map((c) => c.path)).toEqual(["$.uptime"]);
  });

  it("in an object most of whose numbers are readings, a number that moved rarely is one too (a tolerance); a larger move of it, a flag or money is reported", () => {
    // power, current and voltage move on most fetches; `battery_mv` moved once by 4 %
    const meter = (i: number, battery: number, extra: Record<string, unknown> = {}) => ({
      power_w: [159, 115, 131, 122, 140, 128, 150][i % 7],
      current_a: [0.77, 0.78, 0.75, 0.79, 0.74, 0.8, 0.76][i % 7],
      voltage_v: [229.1, 230.4, 228.7, 231.2, 229.9, 230.8, 228.1][i % 7],
      battery_mv: battery,
      phases: 3,
      tariff_price: 0.29,
      ...extra,
    });
    const history = [0, 1, 2, 3, 4, 5].map((i) => meter(i, i < 3 ? 4128 : 4300));
    const quiet = learnThenDiff([...history, meter(6, 4190)]);
    expect(quiet.next).toBeNull();
    // a move far beyond (a setting, not a reading) is reported; so are the number of phases and money
    const loud = learnThenDiff([...history, meter(6, 9000, { phases: 1, tariff_price: 0.35 })]);
    expect(loud.next?.changes.map((c) => c.path).sort()).toEqual(["$.battery_mv", "$.phases", "$.tariff_price"]);
  });
});

