import { describe, expect, it } from "vitest";
import {
  API_ERROR_STATUS,
  BrowserOptionsSchema,
  InviteCreateSchema,
  MonitorCreateSchema,
  NoiseProfileSchema,
  PolicyRulesSchema,
  ROLE_ORDER,
  ROLE_SCOPES,
  RoleSchema,
  SettingsUpdateSchema,
  SignInRequestSchema,
  compareSeverity,
  isId,
  maxSeverity,
} from "./index.js";

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
