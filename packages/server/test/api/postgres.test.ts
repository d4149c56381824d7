import { createPostgresStore } from "@driftwatch/store-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDatabase, postgresSkipReason, type TestPostgresDatabase } from "../../../../tooling/test-postgres.js";
import { apiMonitor, createHarness, expectProblem, json, seedCheck, websiteMonitor, type Harness } from "./harness.js";

/** The API on a real PostgreSQL store (its own database, dropped afterwards). */
const skip = await postgresSkipReason();
if (skip !== null) console.warn(`skipping the API suite on PostgreSQL: ${skip}`);

describe.skipIf(skip !== null)("the API on PostgreSQL", () => {
  let database: TestPostgresDatabase | undefined;
  let h: Harness;

  beforeAll(async () => {
    const { url } = (database = await createPostgresDatabase("dw_api"));
    h = await createHarness({
      config: { rateLimitReads: 5, rateLimitWrites: 1000 },
      store: async () => {
        const store = await createPostgresStore({ connectionString: url, max: 4 });
        return { store, close: () => store.close() };
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await database?.drop();
  });

  it("creates monitors with browserOptions (seed 4.2), masks credentials, isolates tenants", async () => {
    const web = await h.request(h.a.admin, {
      method: "POST",
      url: "/api/monitors",
      payload: { ...websiteMonitor, headers: { Cookie: "s=1" }, browserOptions: { waitStrategy: "domcontentloaded", timeoutMs: 5000 } },
    });
    expect(web.statusCode).toBe(201);
    expect(json(web)).toMatchObject({ headers: { Cookie: "***" }, browserOptionsJson: { waitStrategy: "domcontentloaded", timeoutMs: 5000 } });
    const id = json(web).id as string;
    const patched = json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}`, payload: { browserOptions: { waitStrategy: "commit" } } }));
    expect(patched.browserOptionsJson).toEqual({ waitStrategy: "commit", timeoutMs: 30000 });
    expectProblem(await h.request(h.b.admin, { method: "GET", url: `/api/monitors/${id}` }), 404, "not_found");
    expectProblem(await h.request(h.b.admin, { method: "DELETE", url: `/api/monitors/${id}` }), 404, "not_found");
    expect(await h.store.getMonitor(h.a.orgId, id)).not.toBeNull();
  });

  it("settings follow seed 4.1", async () => {
    const id = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id as string;
    const url = `/api/monitors/${id}/settings`;
    const rules = { rules: [{ path: "$..updatedAt", action: "ignore" }], notify: { minSeverity: "high" } };
    expect(json(await h.request(h.a.admin, { method: "PATCH", url, payload: { policyRules: rules } })).policyRulesJson).toEqual(rules);
    expect(json(await h.request(h.a.admin, { method: "PATCH", url, payload: { snapshotRetention: 3 } })).policyRulesJson).toEqual(rules);
    const replaced = { rules: [{ path: "$.price", severity: "critical" }] };
    expect(json(await h.request(h.a.admin, { method: "PATCH", url, payload: { policyRules: replaced } })).policyRulesJson).toEqual(replaced);
    expect(json(await h.request(h.a.admin, { method: "PATCH", url, payload: { policyRules: { rules: [] } } })).policyRulesJson).toEqual({ rules: [] });
    const bad = expectProblem(
      await h.request(h.a.admin, { method: "PATCH", url, payload: { policyRules: { rules: [{ path: "$.a" }] } } }),
      422,
      "invalid_policy_rules",
    );
    expect(bad.errors[0].path).toBe("policyRules.rules[0].action");
    expect((await h.store.getSettings(h.a.orgId, id))!.policyRulesJson).toEqual({ rules: [] });
  });

  it("learns a noise profile from the stored snapshots and keeps autoApplySuggestions", async () => {
    const id = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id as string;
    for (let i = 0; i < 4; i++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, i));
      await seedCheck(h.store, h.a.orgId, id, { at, body: JSON.stringify({ generated_at: at.toISOString(), status: "ok" }) });
    }
    const noise = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/noise` }));
    // a new monitor learns by default (its organization's learnNoiseByDefault)
    expect(noise).toMatchObject({ monitorId: id, samples: 4, appliedAutomatically: true, policy: { volatile: [{ path: "$.generated_at" }] } });
    const off = json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { autoApplySuggestions: false, rejectedSuggestions: [{ kind: "volatile", path: "$.generated_at" }] } }));
    expect(off).toMatchObject({ autoApplySuggestions: false, rejectedSuggestions: [{ kind: "volatile", path: "$.generated_at" }] });
    expect(json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/noise` })).appliedAutomatically).toBe(false);
    const on = json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { autoApplySuggestions: true } }));
    expect(on).toMatchObject({ autoApplySuggestions: true, policyRulesJson: { rules: [] } });
    expect(json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/noise` })).appliedAutomatically).toBe(true);
    expectProblem(await h.request(h.b.admin, { method: "GET", url: `/api/monitors/${id}/noise` }), 404, "not_found");
  });

  it("honours Idempotency-Key", async () => {
    const send = (payload: object) => h.request(h.a.admin, { method: "POST", url: "/api/monitors", headers: { "idempotency-key": "pg-key" }, payload });
    const first = await send(apiMonitor);
    const again = await send(apiMonitor);
    expect(json(again)).toEqual(json(first));
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expectProblem(await send({ ...apiMonitor, name: "x" }), 409, "idempotency_key_reused");
  });

  it("shares rate-limit counters between two apps through the store", async () => {
    h.clock.now = new Date("2026-04-01T08:00:10.000Z");
    const other = await h.buildAnother();
    const headers = { authorization: `Bearer ${h.a.admin}` };
    for (let i = 0; i < 3; i++) expect((await h.request(h.a.admin, { method: "GET", url: "/api/tokens" })).statusCode).toBe(200);
    expect((await other.inject({ method: "GET", url: "/api/tokens", headers })).headers.ratelimit).toBe('"reads";r=1;t=50');
    expect((await other.inject({ method: "GET", url: "/api/tokens", headers })).statusCode).toBe(200);
    const limited = await h.request(h.a.admin, { method: "GET", url: "/api/tokens" });
    expectProblem(limited, 429, "rate_limited");
    expect(limited.headers["retry-after"]).toBe("50");
    h.clock.now = new Date();
  });

  it("pages diffs and refuses a bad cursor", async () => {
    const id = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id as string;
    const seeded = [];
    for (let i = 0; i < 3; i++) seeded.push(await seedCheck(h.store, h.a.orgId, id, { at: new Date(Date.UTC(2026, 1, 1 + i)) }));
    const page = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/diffs?limit=2` }));
    expect(page.data.map((d: { id: string }) => d.id)).toEqual([seeded[2]!.diffId, seeded[1]!.diffId]);
    const rest = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/diffs?limit=2&cursor=${page.nextCursor}` }));
    expect(rest).toEqual({ data: [expect.objectContaining({ id: seeded[0]!.diffId })], nextCursor: null });
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/diffs?cursor=bogus` }), 400, "invalid_request");
  });
});
