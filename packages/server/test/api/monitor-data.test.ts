import { FetchError, type CheckResult } from "@driftwatch/core";
import { DiffSchema, SettingsSchema, SnapshotSchema } from "@driftwatch/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiMonitor, createHarness, expectProblem, json, seedCheck, websiteMonitor, type Harness } from "./harness.js";

let h: Harness;
let monitorId: string;
beforeAll(async () => {
  h = await createHarness();
  monitorId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id;
});
afterAll(async () => {
  await h?.close();
});

const settingsUrl = () => `/api/monitors/${monitorId}/settings`;

describe("settings (policy rules, retention, auto-applied suggestions)", () => {
  it("reads defaults for a monitor never configured", async () => {
    const res = await h.request(h.a.admin, { method: "GET", url: settingsUrl() });
    expect(res.statusCode).toBe(200);
    const settings = SettingsSchema.parse(json(res));
    // a monitor created through the API learns its target's noise: its organization's learnNoiseByDefault (true)
    expect(settings).toEqual({ monitorId, policyRulesJson: { rules: [] }, snapshotRetention: 100, autoApplySuggestions: true, rejectedSuggestions: [], track: [], alert: null, learning: null, updatedAt: null });
  });

  it("PATCH with policyRules replaces the entire stored rule set", async () => {
    const first = {
      rules: [
        { path: "$..updatedAt", action: "ignore" },
        { path: "$.price", severity: "critical" },
      ],
      arrayKeys: { "$.items": "sku" },
      notify: { minSeverity: "medium" },
    };
    const set = await h.request(h.a.admin, { method: "PATCH", url: settingsUrl(), payload: { policyRules: first } });
    expect(set.statusCode).toBe(200);
    expect(json(set).policyRulesJson).toEqual(first);
    const second = { rules: [{ path: "$.items[*]", op: "remove", severity: "high" }] };
    const replaced = json(await h.request(h.a.admin, { method: "PATCH", url: settingsUrl(), payload: { policyRules: second } }));
    // nothing of the first set survives: not its rules, not its arrayKeys or notify
    expect(replaced.policyRulesJson).toEqual(second);
    expect(json(await h.request(h.a.admin, { method: "GET", url: settingsUrl() })).policyRulesJson).toEqual(second);
    expect((await h.store.getSettings(h.a.orgId, monitorId))!.policyRulesJson).toEqual(second);
  });

  it("PATCH without policyRules leaves the stored rules unchanged", async () => {
    const before = json(await h.request(h.a.admin, { method: "GET", url: settingsUrl() }));
    const res = json(await h.request(h.a.admin, { method: "PATCH", url: settingsUrl(), payload: { snapshotRetention: 7 } }));
    expect(res.policyRulesJson).toEqual(before.policyRulesJson);
    expect(res.snapshotRetention).toBe(7);
    const empty = json(await h.request(h.a.admin, { method: "PATCH", url: settingsUrl(), payload: {} }));
    expect(empty.policyRulesJson).toEqual(before.policyRulesJson);
    expect(empty.snapshotRetention).toBe(7);
  });

  it("PATCH with rules: [] clears every stored rule", async () => {
    const res = json(await h.request(h.a.admin, { method: "PATCH", url: settingsUrl(), payload: { policyRules: { rules: [] } } }));
    expect(res.policyRulesJson).toEqual({ rules: [] });
    expect((await h.store.getSettings(h.a.orgId, monitorId))!.policyRulesJson.rules).toEqual([]);
    expect(res.updatedAt).toEqual(expect.any(String));
  });

  it("settings of an unknown monitor are 404", async () => {
    expectProblem(await h.request(h.a.admin, { method: "GET", url: "/api/monitors/mon_01HZX3K4ABCDEFGHJKMNPQRSTV/settings" }), 404, "not_found");
  });
});

describe("diffs and snapshots", () => {
  let web: string;
  const seeded: Array<{ snapshotId: string; diffId: string; severity: string; at: string }> = [];
  beforeAll(async () => {
    web = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: websiteMonitor })).id;
    const severities = ["info", "medium", "critical", "low"] as const;
    let previous: string | null = null;
    for (const [i, severity] of severities.entries()) {
      const at = new Date(Date.UTC(2026, 0, 1 + i, 12));
      const s = await seedCheck(h.store, h.a.orgId, monitorId, { severity, at, previousSnapshotId: previous, body: JSON.stringify({ n: i }) });
      previous = s.snapshotId;
      seeded.push({ ...s, severity, at: at.toISOString() });
    }
  });

  it("lists diffs newest first, paged", async () => {
    const all = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/diffs` }));
    expect(all.data.map((d: { id: string }) => d.id)).toEqual([...seeded].reverse().map((s) => s.diffId));
    for (const d of all.data) DiffSchema.parse(d);
    expect(all.data[0]).not.toHaveProperty("orgId");
    const page1 = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/diffs?limit=3` }));
    expect(page1.data).toHaveLength(3);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/diffs?limit=3&cursor=${page1.nextCursor}` }));
    expect(page2.data.map((d: { id: string }) => d.id)).toEqual([seeded[0]!.diffId]);
    expect(page2.nextCursor).toBeNull();
  });

  it("filters diffs by since, until, minSeverity and classification", async () => {
    const ids = async (query: string): Promise<string[]> =>
      json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/diffs?${query}` })).data.map((d: { id: string }) => d.id);
    expect(await ids("minSeverity=medium")).toEqual([seeded[2]!.diffId, seeded[1]!.diffId]);
    expect(await ids(`since=${seeded[1]!.at}&until=${seeded[2]!.at}`)).toEqual([seeded[2]!.diffId, seeded[1]!.diffId]);
    expect(await ids("classification=content_change")).toEqual([]);
    // every classification a diff can have is a filter (openapi monitors' api_change, contract violations)
    for (const classification of ["value_change", "visual_change", "api_change", "contract_violation"]) {
      expect(await ids(`classification=${classification}`), classification).toEqual([]);
    }
    expect(await ids("classification=schema_change&minSeverity=critical")).toEqual([seeded[2]!.diffId]);
  });

  it("reads one diff; a diff of another monitor is 404", async () => {
    const one = await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/diffs/${seeded[2]!.diffId}` });
    expect(one.statusCode).toBe(200);
    expect(json(one)).toMatchObject({
      id: seeded[2]!.diffId,
      monitorId,
      snapshotId: seeded[2]!.snapshotId,
      previousSnapshotId: seeded[1]!.snapshotId,
      classification: "schema_change",
      topSeverity: "critical",
      schemaChanges: 1,
      valueChanges: 0,
    });
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${web}/diffs/${seeded[2]!.diffId}` }), 404, "not_found");
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${web}/snapshots/${seeded[2]!.snapshotId}` }), 404, "not_found");
  });

  it("lists snapshots without bodies and reads one with its body", async () => {
    const list = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/snapshots?limit=10` }));
    expect(list.data.map((s: { id: string }) => s.id)).toEqual([...seeded].reverse().map((s) => s.snapshotId));
    for (const s of list.data) {
      expect(s).not.toHaveProperty("body");
      SnapshotSchema.parse(s);
    }
    const one = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/snapshots/${seeded[1]!.snapshotId}` }));
    expect(one.body).toBe(JSON.stringify({ n: 1 }));
    expect(one).toMatchObject({ id: seeded[1]!.snapshotId, monitorId, status: 200, contentType: "application/json", browserRender: false });
  });

  it("lists of an unknown monitor are 404, an empty monitor's lists are empty", async () => {
    expectProblem(await h.request(h.a.admin, { method: "GET", url: "/api/monitors/mon_01HZX3K4ABCDEFGHJKMNPQRSTV/diffs" }), 404, "not_found");
    expectProblem(await h.request(h.a.admin, { method: "GET", url: "/api/monitors/mon_01HZX3K4ABCDEFGHJKMNPQRSTV/snapshots" }), 404, "not_found");
    expect(json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${web}/diffs` }))).toEqual({ data: [], nextCursor: null });
    expect(json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${web}/snapshots` }))).toEqual({ data: [], nextCursor: null });
  });

  it("deleting a monitor deletes its snapshots, diffs and settings", async () => {
    const doomed = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id;
    const s = await seedCheck(h.store, h.a.orgId, doomed);
    await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${doomed}/settings`, payload: { policyRules: { rules: [{ path: "$.a", action: "ignore" }] } } });
    expect((await h.request(h.a.admin, { method: "DELETE", url: `/api/monitors/${doomed}` })).statusCode).toBe(204);
    expect(await h.store.getDiff(h.a.orgId, doomed, s.diffId)).toBeNull();
    expect(await h.store.getSnapshot(h.a.orgId, doomed, s.snapshotId)).toBeNull();
    expect(await h.store.getSettings(h.a.orgId, doomed)).toBeNull();
  });
});

describe("POST /api/monitors/{id}/check", () => {
  it("calls the check service with the org, monitor and request id and answers { snapshot, diff }", async () => {
    const seededCheck = await seedCheck(h.store, h.a.orgId, monitorId, { severity: "high" });
    const snapshot = (await h.store.getSnapshot(h.a.orgId, monitorId, seededCheck.snapshotId))!;
    const diff = (await h.store.getDiff(h.a.orgId, monitorId, seededCheck.diffId))!;
    h.checks.next.push({ snapshot, diff } as CheckResult);
    const res = await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitorId}/check` });
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body.snapshot).not.toHaveProperty("body");
    expect(body.snapshot).not.toHaveProperty("orgId");
    expect(body.snapshot.id).toBe(seededCheck.snapshotId);
    expect(body.diff.id).toBe(seededCheck.diffId);
    expect(body.diff).not.toHaveProperty("orgId");
    expect(h.checks.calls.at(-1)).toEqual({ orgId: h.a.orgId, monitorId, requestId: res.headers["x-request-id"] });

    h.checks.next.push({ snapshot, diff: null });
    expect(json(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitorId}/check`, payload: {} })).diff).toBeNull();
  });

  it("maps fetch failures: unsafe_url 422, target failures 502 with the fetch error code", async () => {
    h.checks.next.push(new FetchError("unsafe_url", "127.0.0.1 is a loopback address"));
    expectProblem(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitorId}/check` }), 422, "unsafe_url");
    for (const code of ["timeout", "dns_failure", "connection_failed", "too_large", "too_many_redirects", "browser_failed"] as const) {
      h.checks.next.push(new FetchError(code, `the target failed: ${code}`));
      const problem = expectProblem(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitorId}/check` }), 502, "unavailable");
      expect(problem.reason).toBe(code);
      expect(problem.detail).toContain(code);
    }
  });

  it("an unknown monitor is 404 and a body with fields is refused", async () => {
    expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/monitors/mon_01HZX3K4ABCDEFGHJKMNPQRSTV/check" }), 404, "not_found");
    expectProblem(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitorId}/check`, payload: { force: true } }), 422, "validation_failed");
  });
});
