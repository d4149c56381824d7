import { describe, expect, it } from "vitest";
import {
  API_ERROR_STATUS,
  BrowserOptionsSchema,
  InviteCreateSchema,
  MonitorCreateSchema,
  MonitorListQuerySchema,
  MonitorUpdateSchema,
  NoiseProfileSchema,
  PolicyRulesSchema,
  ROLE_ORDER,
  ROLE_SCOPES,
  RoleSchema,
  SettingsUpdateSchema,
  SignInRequestSchema,
  WebsiteDiffSchema,
  compareSeverity,
  isId,
  maxSeverity,
  normalizeTags,
} from "./index.js";

describe("schemas", () => {
  it("applies browserOptions defaults and refuses unknown keys", () => {
    expect(BrowserOptionsSchema.parse({})).toEqual({ waitStrategy: "networkidle", timeoutMs: 30000 });
    const bad = BrowserOptionsSchema.safeParse({ waitStrategy: "never", timeoutMs: 5, colour: "red" });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join(".") || (i as { keys?: string[] }).keys?.join(","));
    expect(paths).toEqual(expect.arrayContaining(["waitStrategy", "timeoutMs", "colour"]));
  });
  it("validates screenshots and browser steps", () => {
    expect(BrowserOptionsSchema.parse({ screenshot: "fullPage" }).screenshot).toBe("fullPage");
    expect(BrowserOptionsSchema.safeParse({ screenshot: "selector" }).success).toBe(false);
    expect(BrowserOptionsSchema.safeParse({ screenshot: "selector", waitForSelector: "#main" }).success).toBe(true);
    expect(BrowserOptionsSchema.safeParse({ screenshot: "webp" }).success).toBe(false);
    const ok = BrowserOptionsSchema.safeParse({
      steps: [
        { action: "goto", url: "https://example.com/login" },
        { action: "fill", selector: "#pw", secret: "shop.password" },
        { action: "select", selector: "#plan", value: "pro" },
        { action: "press", key: "Enter" },
        { action: "waitForTimeout", ms: 500 },
        { action: "acceptCookies", timeoutMs: 3000 },
        { action: "scroll" },
      ],
    });
    expect(ok.success).toBe(true);
    const bad = (step: unknown): string[] => {
      const result = BrowserOptionsSchema.safeParse({ steps: [step] });
      return result.success ? [] : result.error.issues.map((i) => i.path.join("."));
    };
    expect(bad({ action: "goto", url: "file:///etc/passwd" })).toEqual(["steps.0.url"]);
    expect(bad({ action: "goto" })).toEqual(["steps.0.url"]);
    expect(bad({ action: "click" })).toEqual(["steps.0.selector"]);
    expect(bad({ action: "fill", selector: "#a" })).toEqual(["steps.0.value"]);
    expect(bad({ action: "click", selector: "#a", secret: "x" })).toEqual(["steps.0.secret"]);
    expect(bad({ action: "fill", selector: "#a", secret: "no spaces" })).toEqual(["steps.0.secret"]);
    expect(bad({ action: "hover", selector: "#a" })).toEqual(["steps.0.action"]);
    expect(bad({ action: "waitForTimeout", ms: 60_000 })).toEqual(["steps.0.ms"]);
    expect(bad({ action: "click", selector: "#a", script: "alert(1)" }).length).toBe(1);
    expect(BrowserOptionsSchema.safeParse({ steps: Array.from({ length: 50 }, () => ({ action: "scroll", timeoutMs: 2000 })) }).success).toBe(true);
    expect(BrowserOptionsSchema.safeParse({ steps: Array.from({ length: 51 }, () => ({ action: "scroll" })) }).success).toBe(false);
    // 13 steps of 10 s (the default timeout) exceed the 120 s bound on all steps together.
    expect(BrowserOptionsSchema.safeParse({ steps: Array.from({ length: 13 }, () => ({ action: "scroll" })) }).success).toBe(false);
  });
  it("validates policyRules.visual and visual website diffs", () => {
    expect(PolicyRulesSchema.parse({ visual: { minChangedPercent: 0.5, severity: "high", mask: [".ad"] } }).visual).toEqual({
      minChangedPercent: 0.5,
      severity: "high",
      mask: [".ad"],
    });
    expect(PolicyRulesSchema.safeParse({ visual: { minChangedPercent: 101 } }).success).toBe(false);
    expect(PolicyRulesSchema.safeParse({ visual: { mask: [""] } }).success).toBe(false);
    const diff = {
      id: "diff_1",
      monitorId: "mon_1",
      snapshotId: "snap_2",
      previousSnapshotId: "snap_1",
      diffFingerprint: `sha256:${"0".repeat(64)}`,
      topSeverity: "medium",
      changes: [{ path: "visual", category: "visual", op: "replace", severity: "medium" }],
      requestId: "req_1",
      status: 200,
      latencyMs: 10,
      createdAt: "2026-01-02T03:04:05.678Z",
      classification: "content_change",
      summary: { additions: 0, removals: 0, modifications: 0 },
      changedTargets: [],
      browserRender: true,
      waitStrategy: "load",
      selector: null,
      visual: { changedPercent: 3.2, regions: [{ x: 0, y: 10, width: 100, height: 40 }] },
    };
    expect(WebsiteDiffSchema.parse(diff).visual?.regions).toEqual([{ x: 0, y: 10, width: 100, height: 40 }]);
  });
  it("parses a monitor create body with defaults", () => {
    const m = MonitorCreateSchema.parse({ url: "https://example.com/api" });
    expect(m).toMatchObject({ type: "api", method: "GET", intervalSeconds: 300, headers: {}, state: "active" });
    expect(MonitorCreateSchema.safeParse({ url: "ftp://x" }).success).toBe(false);
    expect(MonitorCreateSchema.safeParse({ url: "https://x", extra: 1 }).success).toBe(false);
  });
  it("normalises monitor tags: trimmed, lower-cased, deduplicated, at most 20", () => {
    expect(MonitorCreateSchema.parse({ url: "https://example.com/api" }).tags).toEqual([]);
    expect(MonitorCreateSchema.parse({ url: "https://x.test", tags: [" Prod ", "team:payments", "prod", "v1.2_a-b"] }).tags).toEqual([
      "prod",
      "team:payments",
      "v1.2_a-b",
    ]);
    expect(MonitorUpdateSchema.parse({ tags: [] }).tags).toEqual([]);
    expect(MonitorUpdateSchema.parse({}).tags).toBeUndefined();
    for (const bad of [[""], ["   "], ["a b"], ["café"], ["x".repeat(65)], [1], "prod"]) {
      expect(MonitorCreateSchema.safeParse({ url: "https://x.test", tags: bad }).success, JSON.stringify(bad)).toBe(false);
    }
    const twenty = Array.from({ length: 20 }, (_, i) => `t${i}`);
    expect(MonitorCreateSchema.parse({ url: "https://x.test", tags: [...twenty, "T0"] }).tags).toEqual(twenty);
    expect(MonitorCreateSchema.safeParse({ url: "https://x.test", tags: [...twenty, "t20"] }).success).toBe(false);
    expect(MonitorListQuerySchema.parse({ tag: " Prod" })).toEqual({ limit: 20, tag: "prod" });
    expect(MonitorListQuerySchema.safeParse({ tag: "a/b" }).success).toBe(false);
    expect(normalizeTags(["B", "a", "b"])).toEqual(["b", "a"]);
    expect(normalizeTags(["no spaces"])).toBeNull();
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

describe("people", () => {
  it("maps every role onto scopes, admin and owner holding admin", () => {
    expect(ROLE_SCOPES.viewer).toEqual(["monitors:read", "webhooks:read"]);
    expect(ROLE_SCOPES.member).not.toContain("admin");
    expect(ROLE_SCOPES.member).toContain("webhooks:write");
    expect(ROLE_SCOPES.admin).toEqual(["admin"]);
    expect(ROLE_SCOPES.owner).toEqual(["admin"]);
    for (const role of RoleSchema.options) expect(ROLE_ORDER).toContain(role);
  });

  it("answers the people error codes with their statuses", () => {
    expect(API_ERROR_STATUS.invalid_credentials).toBe(401);
    expect(API_ERROR_STATUS.csrf_failed).toBe(403);
    expect(API_ERROR_STATUS.last_owner).toBe(409);
    expect(API_ERROR_STATUS.setup_closed).toBe(409);
    expect(API_ERROR_STATUS.invite_invalid).toBe(410);
    expect(API_ERROR_STATUS.weak_password).toBe(422);
  });

  it("trims invite emails, refuses malformed ones and unknown fields", () => {
    expect(InviteCreateSchema.parse({ email: "  Ada@Example.com ", role: "viewer" }).email).toBe("Ada@Example.com");
    expect(InviteCreateSchema.safeParse({ email: "not-an-email", role: "viewer" }).success).toBe(false);
    expect(InviteCreateSchema.safeParse({ email: "a@b.co", role: "root" }).success).toBe(false);
    expect(SignInRequestSchema.safeParse({ email: "a@b.co", password: "x", remember: true }).success).toBe(false);
  });
});
