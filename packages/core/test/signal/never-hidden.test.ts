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
