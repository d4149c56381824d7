// GET /api/monitors/{id}/noise and the autoApplySuggestions setting, on the real SQLite store.
import { NoiseProfileSchema, SettingsSchema } from "@driftwatch/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNoiseLearner } from "../../src/index.js";
import { apiMonitor, createHarness, expectProblem, json, seedCheck, type Harness } from "./harness.js";

let h: Harness;
let monitorId: string;
const noiseUrl = (id = monitorId) => `/api/monitors/${id}/noise`;
const settingsUrl = () => `/api/monitors/${monitorId}/settings`;

/** A body as a noisy API sends it: a new timestamp and request id every time, a stable status and price. */
function noisyBody(i: number): string {
  return JSON.stringify({
    generated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    request_id: `6f1c2d3e-4b5a-4c6d-8e9f-${String(100000000000 + i * 7919)}`,
    status: "ok",
    price: 12.5,
  });
}

async function seedSnapshots(count: number, from = 0): Promise<void> {
  for (let i = from; i < from + count; i++) {
    await seedCheck(h.store, h.a.orgId, monitorId, { body: noisyBody(i), at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) });
  }
}

beforeAll(async () => {
  h = await createHarness();
  monitorId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id;
});
afterAll(async () => {
  await h?.close();
});

describe("GET /api/monitors/{id}/noise", () => {
  it("answers 200 with an empty policy and the sample count while there are too few snapshots", async () => {
    const empty = await h.request(h.a.admin, { method: "GET", url: noiseUrl() });
    expect(empty.statusCode).toBe(200);
    expect(NoiseProfileSchema.parse(json(empty))).toEqual({ monitorId, samples: 0, minSamples: 2, policy: { rules: [] }, evidence: [], appliedAutomatically: true });
    await seedSnapshots(1);
    // one snapshot: what stays put (the stable status and price rated medium, the clock-named
    // timestamp noise while it moves forward), nothing that needs a change to be seen
    const one = NoiseProfileSchema.parse(json(await h.request(h.a.admin, { method: "GET", url: noiseUrl() })));
    expect(one).toMatchObject({ samples: 1, minSamples: 2 });
    expect(one.policy.volatile ?? []).toEqual([{ path: "$.generated_at", forward: true }]);
    expect(one.policy.rules).toEqual(expect.arrayContaining([expect.objectContaining({ path: "$.status", severity: "medium" })]));
    await seedSnapshots(1, 1);
  });

  it("suggests volatile fields with evidence once enough snapshots exist, and keeps meaningful ones", async () => {
    await seedSnapshots(3, 2);
    const res = await h.request(h.a.admin, { method: "GET", url: noiseUrl() });
    expect(res.statusCode).toBe(200);
    const profile = NoiseProfileSchema.parse(json(res));
    expect(profile.samples).toBe(5);
    const volatile = (profile.policy.volatile ?? []).map((v) => v.path);
    expect(volatile).toEqual(expect.arrayContaining(["$.generated_at", "$.request_id"]));
    expect(volatile).not.toContain("$.status");
    expect(volatile).not.toContain("$.price");
    const generated = profile.evidence.find((e) => e.kind === "volatile" && e.path === "$.generated_at");
    expect(generated).toMatchObject({ changed: 4, pairs: 4 });
    expect(generated?.reason).toEqual(expect.any(String));
    // the suggestion is a policy the settings endpoint accepts as it is
    const applied = await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}/settings`, payload: { policyRules: profile.policy } });
    expect(applied.statusCode).toBe(200);
    await h.request(h.a.admin, { method: "PATCH", url: settingsUrl(), payload: { policyRules: { rules: [] } } });
  });

  it("learns from the newest 10 snapshots only", async () => {
    await seedSnapshots(8, 5);
    const profile = json(await h.request(h.a.admin, { method: "GET", url: noiseUrl() }));
    expect(profile.samples).toBe(10);
    expect(profile.evidence.find((e: { path?: string }) => e.path === "$.generated_at")).toMatchObject({ changed: 9, pairs: 9 });
  });

  it("bounds the samples by count and by bytes (the newest first)", async () => {
    const monitor = (await h.store.getMonitor(h.a.orgId, monitorId))!;
    const size = Buffer.byteLength(noisyBody(0));
    expect((await createNoiseLearner(h.store, { maxSamples: 4 }).profile(monitor)).samples).toBe(4);
    const tight = await createNoiseLearner(h.store, { maxBytes: Math.floor(size * 2.5) }).profile(monitor);
    expect(tight.samples).toBe(2);
    expect((tight.policy.volatile ?? []).map((v) => v.path)).toEqual(expect.arrayContaining(["$.generated_at", "$.request_id"]));
    expect((await createNoiseLearner(h.store, { maxBytes: size * 3 }).profile(monitor)).samples).toBe(3);
  });

  it("requires monitors:read, hides other organizations' monitors and answers problems for unknown ones", async () => {
    const writer = await h.a.token(["webhooks:read"], "no-monitors");
    expectProblem(await h.request(writer.secret, { method: "GET", url: noiseUrl() }), 403, "insufficient_scope");
    expectProblem(await h.request(null, { method: "GET", url: noiseUrl() }), 401, "unauthenticated");
    const reader = await h.a.token(["monitors:read"], "reader");
    expect((await h.request(reader.secret, { method: "GET", url: noiseUrl() })).statusCode).toBe(200);
    expectProblem(await h.request(h.b.admin, { method: "GET", url: noiseUrl() }), 404, "not_found");
    expectProblem(await h.request(h.a.admin, { method: "GET", url: noiseUrl("mon_00000000000000000000000000") }), 404, "not_found");
    expectProblem(await h.request(h.a.admin, { method: "GET", url: noiseUrl("nope") }), 404, "not_found");
  });
});

describe("the autoApplySuggestions setting", () => {
  it("is on for a new monitor, turned off and on by PATCH without touching the rules, and reported by /noise", async () => {
    const before = SettingsSchema.parse(json(await h.request(h.a.admin, { method: "GET", url: settingsUrl() })));
    expect(before.autoApplySuggestions).toBe(true);
    const turnedOff = json(await h.request(h.a.admin, { method: "PATCH", url: settingsUrl(), payload: { autoApplySuggestions: false } }));
    expect(turnedOff).toMatchObject({ autoApplySuggestions: false, policyRulesJson: { rules: [] } });
    expect(json(await h.request(h.a.admin, { method: "GET", url: noiseUrl() })).appliedAutomatically).toBe(false);
    const rules = { rules: [{ path: "$.price", severity: "critical" }] };
    await h.request(h.a.admin, { method: "PATCH", url: settingsUrl(), payload: { policyRules: rules } });
    const on = json(await h.request(h.a.admin, { method: "PATCH", url: settingsUrl(), payload: { autoApplySuggestions: true } }));
    expect(on).toMatchObject({ autoApplySuggestions: true, policyRulesJson: rules });
    expect(json(await h.request(h.a.admin, { method: "GET", url: settingsUrl() })).autoApplySuggestions).toBe(true);
    expect(json(await h.request(h.a.admin, { method: "GET", url: noiseUrl() })).appliedAutomatically).toBe(true);
    // seed 4.1 unchanged: replacing the rules keeps the switch, and the switch keeps the rules
    const replaced = json(await h.request(h.a.admin, { method: "PATCH", url: settingsUrl(), payload: { policyRules: { rules: [] } } }));
    expect(replaced).toMatchObject({ autoApplySuggestions: true, policyRulesJson: { rules: [] } });
    const off = json(await h.request(h.a.admin, { method: "PATCH", url: settingsUrl(), payload: { autoApplySuggestions: false } }));
    expect(off).toMatchObject({ autoApplySuggestions: false, policyRulesJson: { rules: [] } });
  });

  it("refuses a non-boolean with 422 validation_failed naming the field, and other organizations get 404", async () => {
    const bad = expectProblem(await h.request(h.a.admin, { method: "PATCH", url: settingsUrl(), payload: { autoApplySuggestions: "yes" } }), 422, "validation_failed");
    expect(bad.errors).toEqual([expect.objectContaining({ path: "autoApplySuggestions" })]);
    expectProblem(await h.request(h.b.admin, { method: "PATCH", url: settingsUrl(), payload: { autoApplySuggestions: true } }), 404, "not_found");
    expect((await h.store.getSettings(h.a.orgId, monitorId))?.autoApplySuggestions).toBe(false);
  });

  it("the profile goes with the monitor", async () => {
    expect((await h.request(h.a.admin, { method: "DELETE", url: `/api/monitors/${monitorId}` })).statusCode).toBe(204);
    expectProblem(await h.request(h.a.admin, { method: "GET", url: noiseUrl() }), 404, "not_found");
  });
});
