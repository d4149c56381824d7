import { describe, expect, it } from "vitest";
import { BrowserOptionsSchema, MonitorCreateSchema, PolicyRulesSchema, compareSeverity, isId, maxSeverity } from "./index.js";

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
  it("defaults policy rules", () => {
    expect(PolicyRulesSchema.parse({})).toEqual({ rules: [] });
  });
});
