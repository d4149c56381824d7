import type { Scope } from "@driftwatch/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_SCOPES, apiMonitor, createHarness, expectProblem, json, seedCheck, type Harness, type SeededCheck } from "./harness.js";

let h: Harness;
let monitorId: string;
let webhookId: string;
let tokenId: string;
let seeded: SeededCheck;

interface RouteCase {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  url: () => string;
  scope: Scope;
  payload?: () => unknown;
}

/** Every authenticated route of the API with the scope it needs. Mutating cases are harmless (no-op bodies, unknown ids). */
const ROUTES: RouteCase[] = [
  { method: "POST", url: () => "/api/monitors", scope: "monitors:write", payload: () => apiMonitor },
  { method: "GET", url: () => "/api/monitors", scope: "monitors:read" },
  { method: "GET", url: () => `/api/monitors/${monitorId}`, scope: "monitors:read" },
  { method: "PATCH", url: () => `/api/monitors/${monitorId}`, scope: "monitors:write", payload: () => ({}) },
  { method: "DELETE", url: () => "/api/monitors/mon_01HZX3K4ABCDEFGHJKMNPQRSTV", scope: "monitors:write" },
  { method: "POST", url: () => `/api/monitors/${monitorId}/check`, scope: "monitors:write" },
  { method: "GET", url: () => `/api/monitors/${monitorId}/diffs`, scope: "monitors:read" },
  { method: "GET", url: () => `/api/monitors/${monitorId}/diffs/${seeded.diffId}`, scope: "monitors:read" },
  { method: "GET", url: () => `/api/monitors/${monitorId}/snapshots`, scope: "monitors:read" },
  { method: "GET", url: () => `/api/monitors/${monitorId}/snapshots/${seeded.snapshotId}`, scope: "monitors:read" },
  { method: "GET", url: () => `/api/monitors/${monitorId}/settings`, scope: "monitors:read" },
  { method: "PATCH", url: () => `/api/monitors/${monitorId}/settings`, scope: "monitors:write", payload: () => ({}) },
  { method: "POST", url: () => "/api/webhooks", scope: "webhooks:write", payload: () => ({ url: "https://hooks.example.com/x" }) },
  { method: "GET", url: () => "/api/webhooks", scope: "webhooks:read" },
  { method: "GET", url: () => `/api/webhooks/${webhookId}`, scope: "webhooks:read" },
  { method: "PATCH", url: () => `/api/webhooks/${webhookId}`, scope: "webhooks:write", payload: () => ({}) },
  { method: "DELETE", url: () => "/api/webhooks/whk_01HZX3K4ABCDEFGHJKMNPQRSTV", scope: "webhooks:write" },
  { method: "POST", url: () => `/api/webhooks/${webhookId}/rotate-secret`, scope: "webhooks:write" },
  { method: "GET", url: () => `/api/webhooks/${webhookId}/deliveries`, scope: "webhooks:read" },
  { method: "POST", url: () => `/api/webhooks/${webhookId}/deliveries/${seeded.deliveryIds[0]}/retry`, scope: "webhooks:write" },
  { method: "POST", url: () => "/api/webhooks/worker/run", scope: "webhooks:write", payload: () => ({}) },
  { method: "POST", url: () => "/api/tokens", scope: "admin", payload: () => ({ name: "ci", scopes: ["monitors:read"] }) },
  { method: "GET", url: () => "/api/tokens", scope: "admin" },
  { method: "GET", url: () => `/api/tokens/${tokenId}`, scope: "admin" },
  { method: "DELETE", url: () => "/api/tokens/tok_01HZX3K4ABCDEFGHJKMNPQRSTV", scope: "admin" },
];

beforeAll(async () => {
  h = await createHarness();
  monitorId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id;
  webhookId = json(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://hooks.example.com/in" } })).id;
  tokenId = (await h.a.token(["monitors:read"], "reader")).id;
  seeded = await seedCheck(h.store, h.a.orgId, monitorId);
  expect(seeded.deliveryIds).toHaveLength(1);
});
afterAll(async () => {
  await h?.close();
});

function call(route: RouteCase, secret: string | null) {
  const payload = route.payload?.();
  return h.request(secret, { method: route.method, url: route.url(), ...(payload === undefined ? {} : { payload: payload as object }) });
}

describe("authentication", () => {
  it.each(ROUTES.map((r) => [`${r.method} ${r.url.toString().replace(/^\(\) => /, "")}`, r] as const))("%s needs a token", async (_name, route) => {
    const res = await call(route, null);
    expectProblem(res, 401, "unauthenticated");
    expect(res.headers["www-authenticate"]).toContain("Bearer");
  });

  it("refuses malformed, unknown and revoked tokens with 401 invalid_token", async () => {
    const url = "/api/monitors";
    for (const header of ["Bearer", "Bearer nope", "Basic dXNlcjpwYXNz", "Bearer dw_short", `Bearer dw_${"A".repeat(43)}`, "Token dw_x"]) {
      expectProblem(await h.app.inject({ method: "GET", url, headers: { authorization: header } }), 401, "invalid_token");
    }
    const doomed = await h.a.token(["monitors:read"], "doomed");
    expect((await h.request(doomed.secret, { method: "GET", url })).statusCode).toBe(200);
    const revoke = await h.request(h.a.admin, { method: "DELETE", url: `/api/tokens/${doomed.id}` });
    expect(revoke.statusCode).toBe(204);
    expectProblem(await h.request(doomed.secret, { method: "GET", url }), 401, "invalid_token");
    const shown = json(await h.request(h.a.admin, { method: "GET", url: `/api/tokens/${doomed.id}` }));
    expect(shown.revokedAt).toEqual(expect.any(String));
  });

  it("keeps lastUsedAt", async () => {
    const t = await h.a.token(["monitors:read"], "tracked");
    expect((await h.store.getToken(h.a.orgId, t.id))!.lastUsedAt).toBeNull();
    h.clock.now = new Date("2026-06-01T10:00:00.000Z");
    await h.request(t.secret, { method: "GET", url: "/api/monitors" });
    expect((await h.store.getToken(h.a.orgId, t.id))!.lastUsedAt).toBe("2026-06-01T10:00:00.000Z");
    // within a minute it is not rewritten; after a minute it is
    h.clock.now = new Date("2026-06-01T10:00:30.000Z");
    await h.request(t.secret, { method: "GET", url: "/api/monitors" });
    expect((await h.store.getToken(h.a.orgId, t.id))!.lastUsedAt).toBe("2026-06-01T10:00:00.000Z");
    h.clock.now = new Date("2026-06-01T10:05:00.000Z");
    await h.request(t.secret, { method: "GET", url: "/api/monitors" });
    expect((await h.store.getToken(h.a.orgId, t.id))!.lastUsedAt).toBe("2026-06-01T10:05:00.000Z");
    h.clock.now = new Date();
  });
});

describe("scopes", () => {
  const tokens = new Map<Scope, string>();
  beforeAll(async () => {
    for (const scope of ALL_SCOPES) tokens.set(scope, (await h.a.token([scope])).secret);
  });

  it.each(ROUTES.map((r) => [`${r.method} ${r.url.toString().replace(/^\(\) => /, "")}`, r] as const))("%s is allowed exactly to its scope and admin", async (_name, route) => {
    h.checks.next.push(new Error("not under test"));
    for (const scope of ALL_SCOPES) {
      const res = await call(route, tokens.get(scope)!);
      const allowed = scope === route.scope || scope === "admin";
      if (allowed) {
        expect([401, 403], `${scope} on ${route.method} ${route.url()}: ${res.body}`).not.toContain(res.statusCode);
      } else {
        const problem = expectProblem(res, 403, "insufficient_scope");
        expect(problem.detail).toContain(route.scope);
      }
    }
    h.checks.next.length = 0;
  });
});

describe("tenancy", () => {
  it("another organization's resources answer 404, never leaking existence", async () => {
    const reads = ROUTES.filter((r) => r.method === "GET" && /\/(mon|whk|tok)_/.test(r.url()));
    expect(reads.length).toBeGreaterThanOrEqual(8);
    for (const route of reads) expectProblem(await call(route, h.b.admin), 404, "not_found");
    const before = JSON.stringify(await h.store.getMonitor(h.a.orgId, monitorId));
    expectProblem(await h.request(h.b.admin, { method: "PATCH", url: `/api/monitors/${monitorId}`, payload: { name: "stolen" } }), 404, "not_found");
    expectProblem(await h.request(h.b.admin, { method: "PATCH", url: `/api/monitors/${monitorId}/settings`, payload: { policyRules: { rules: [] } } }), 404, "not_found");
    expectProblem(await h.request(h.b.admin, { method: "DELETE", url: `/api/monitors/${monitorId}` }), 404, "not_found");
    expectProblem(await h.request(h.b.admin, { method: "POST", url: `/api/monitors/${monitorId}/check` }), 404, "not_found");
    expectProblem(await h.request(h.b.admin, { method: "DELETE", url: `/api/webhooks/${webhookId}` }), 404, "not_found");
    expectProblem(await h.request(h.b.admin, { method: "POST", url: `/api/webhooks/${webhookId}/rotate-secret` }), 404, "not_found");
    expectProblem(await h.request(h.b.admin, { method: "POST", url: `/api/webhooks/${webhookId}/deliveries/${seeded.deliveryIds[0]}/retry` }), 404, "not_found");
    expectProblem(await h.request(h.b.admin, { method: "POST", url: "/api/webhooks/worker/run", payload: { webhookId } }), 404, "not_found");
    expectProblem(await h.request(h.b.admin, { method: "DELETE", url: `/api/tokens/${tokenId}` }), 404, "not_found");
    expect(JSON.stringify(await h.store.getMonitor(h.a.orgId, monitorId))).toBe(before);
    expect((await h.store.getToken(h.a.orgId, tokenId))!.revokedAt).toBeNull();
    expect(await h.store.getWebhook(h.a.orgId, webhookId)).not.toBeNull();
  });

  it("lists only the caller's organization", async () => {
    await h.request(h.b.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, name: "globex" } });
    const a = json(await h.request(h.a.admin, { method: "GET", url: "/api/monitors?limit=100" }));
    const b = json(await h.request(h.b.admin, { method: "GET", url: "/api/monitors?limit=100" }));
    expect(b.data.map((m: { name: string }) => m.name)).toEqual(["globex"]);
    expect(a.data.some((m: { name: string }) => m.name === "globex")).toBe(false);
    const bTokens = json(await h.request(h.b.admin, { method: "GET", url: "/api/tokens" }));
    expect(bTokens.data.map((t: { name: string }) => t.name)).toEqual(["admin"]);
    expect(JSON.stringify(bTokens)).not.toContain("tokenHash");
    const bHooks = json(await h.request(h.b.admin, { method: "GET", url: "/api/webhooks" }));
    expect(bHooks.data).toEqual([]);
    // a monitor of another organization cannot be named in a webhook filter
    const foreign = expectProblem(
      await h.request(h.b.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://hooks.example.com/b", monitorIds: [monitorId] } }),
      422,
      "validation_failed",
    );
    expect(foreign.errors).toEqual([{ path: "monitorIds[0]", message: expect.any(String) }]);
  });
});
