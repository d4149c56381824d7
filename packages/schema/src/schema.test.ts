import { describe, expect, it } from "vitest";
import { BrowserOptionsSchema, MonitorCreateSchema, NoiseProfileSchema, PolicyRulesSchema, SettingsUpdateSchema, compareSeverity, isId, maxSeverity } from "./index.js";

describe("schemas", () => {
  it("applies browserOptions defaults and refuses unknown keys", () => {
    expect(BrowserOptionsSchema.parse({})).toEqual({ waitStrategy: "networkidle", timeoutMs: 30000 });
    const bad = BrowserOptionsSchema.safeParse({ waitStrategy: "never", timeoutMs: 5, colour: "red" });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join(".") || (i as { keys?: string[] }).keys?.join(","));
    expect(paths).toEqual(expect.arrayContaining(["waitStrategy", "timeoutMs", "colour"]));
  });
  it("parses a monitor create body with defaults", () => {
    const m = MonitorCreateSchema.parse({ url: "https://example.com/api" });
    expect(m).toMatchObject({ type: "api", method: "GET", intervalSeconds: 300, headers: {}, state: "active" });
    expect(MonitorCreateSchema.safeParse({ url: "ftp://x" }).success).toBe(false);
    expect(MonitorCreateSchema.safeParse({ url: "https://x", extra: 1 }).success).toBe(false);
  });
  it("orders severities", () => {
    expect(compareSeverity("critical", "info")).toBeGreaterThan(0);
    expect(maxSeverity(["low", "high", "medium"])).toBe("high");
    expect(maxSeverity([])).toBeUndefined();
  });
  it("recognises ids", () => {
    expect(isId("monitor", "mon_01HZX3K4ABCDEFGH")).toBe(true);
    expect(isId("monitor", "dif_01HZX3K4ABCDEFGH")).toBe(false);
    expect(isId("monitor", "mon_../../etc")).toBe(false);
  });
  it("accepts autoApplySuggestions as a boolean only in a settings update", () => {
    expect(SettingsUpdateSchema.parse({ autoApplySuggestions: true })).toEqual({ autoApplySuggestions: true });
    expect(SettingsUpdateSchema.parse({})).toEqual({});
    expect(SettingsUpdateSchema.safeParse({ autoApplySuggestions: "yes" }).success).toBe(false);
  });
  it("describes a noise profile with its evidence", () => {
    const profile = {
      monitorId: "mon_1",
      samples: 4,
      minSamples: 3,
      policy: { rules: [], volatile: [{ path: "$.generated_at" }] },
      evidence: [{ kind: "volatile", rule: "volatile[0]", path: "$.generated_at", changed: 3, pairs: 3, shape: "iso8601", reason: "changed in 3 of 3 fetches, always an ISO 8601 timestamp" }],
      appliedAutomatically: false,
    };
    expect(NoiseProfileSchema.parse(profile)).toEqual(profile);
    expect(NoiseProfileSchema.safeParse({ ...profile, evidence: [{ kind: "guess", changed: 1, pairs: 1, reason: "" }] }).success).toBe(false);
  });
  it("defaults policy rules", () => {
    expect(PolicyRulesSchema.parse({})).toEqual({ rules: [] });
  });
});
