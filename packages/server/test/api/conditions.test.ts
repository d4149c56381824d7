import { newId } from "@driftwatch/core";
import { SettingsSchema, TrackedValueReadingSchema, pageSchema } from "@driftwatch/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiMonitor, createHarness, expectProblem, json, seedCheck, websiteMonitor, type Harness } from "./harness.js";

let h: Harness;
let apiId: string;
let pageId: string;
beforeAll(async () => {
  h = await createHarness();
  apiId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id;
  pageId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: websiteMonitor })).id;
});
afterAll(async () => {
  await h?.close();
});

const settingsUrl = (id: string): string => `/api/monitors/${id}/settings`;
const patch = (id: string, payload: unknown) => h.request(h.a.admin, { method: "PATCH", url: settingsUrl(id), payload: payload as Record<string, unknown> });

describe("settings: track and alert", () => {
  it("stores and returns track and alert; other patches keep them; alert null removes the conditions", async () => {
    const track = [
      { name: "status", path: "$.status" },
      { name: "errorRate", path: "$.metrics.errorRate", extract: "number" },
    ];
    const alert = { when: "any", conditions: [{ value: "status", op: "ne", to: "operational", forChecks: 3 }, { value: "errorRate", op: "gt", to: 2 }] };
    const res = await patch(apiId, { track, alert });
    expect(res.statusCode).toBe(200);
    const settings = SettingsSchema.parse(json(res));
    expect(settings.track).toEqual(track);
    expect(settings.alert).toEqual(alert);
    expect(json(await h.request(h.a.admin, { method: "GET", url: settingsUrl(apiId) }))).toMatchObject({ track, alert });
    expect(json(await patch(apiId, { snapshotRetention: 50 }))).toMatchObject({ track, alert, snapshotRetention: 50 });
    // `when` defaults to all
    expect(json(await patch(apiId, { alert: { conditions: [{ value: "errorRate", op: "gte", to: 5 }] } })).alert).toEqual({ when: "all", conditions: [{ value: "errorRate", op: "gte", to: 5 }] });
    expect(json(await patch(apiId, { alert: null }))).toMatchObject({ track, alert: null });
  });

  it("a website monitor tracks the product's price and availability without selectors", async () => {
    const res = await patch(pageId, {
      track: [{ name: "price", extract: "price" }, { name: "stock", extract: "availability" }],
      alert: { conditions: [{ value: "stock", op: "changed_to", to: "in_stock" }, { value: "price", op: "lt", to: 200 }] },
    });
    expect(res.statusCode).toBe(200);
    expect(json(res).alert.conditions).toHaveLength(2);
  });

  it("a condition whose operand does not fit is 422 invalid_conditions naming alert.conditions[1].to", async () => {
    await patch(apiId, { track: [{ name: "price", path: "$.price", extract: "price" }], alert: null });
    const problem = expectProblem(await patch(apiId, { alert: { conditions: [{ value: "price", op: "lt", to: 200 }, { value: "price", op: "eq", to: "cheap" }] } }), 422, "invalid_conditions");
    expect(problem.errors).toEqual([{ path: "alert.conditions[1].to", message: "price is a price; compare it with a number" }]);
    expect((await h.store.getSettings(h.a.orgId, apiId))!.alert).toBeNull();
  });

  it("a condition on a value that is not tracked is 422 invalid_conditions naming its value", async () => {
    const problem = expectProblem(await patch(apiId, { alert: { conditions: [{ value: "cost", op: "lt", to: 1 }] } }), 422, "invalid_conditions");
    expect(problem.errors).toHaveLength(1);
    expect(problem.errors[0].path).toBe("alert.conditions[0].value");
    expect(problem.errors[0].message).toContain('"cost" is not a tracked value');
  });

  it("dropping a tracked value the stored conditions read is 422 invalid_conditions, and nothing changes", async () => {
    expect((await patch(apiId, { track: [{ name: "price", path: "$.price", extract: "price" }], alert: { conditions: [{ value: "price", op: "lt", to: 10 }] } })).statusCode).toBe(200);
    const problem = expectProblem(await patch(apiId, { track: [] }), 422, "invalid_conditions");
    expect(problem.errors[0].path).toBe("alert.conditions[0].value");
    expect((await h.store.getSettings(h.a.orgId, apiId))!.track).toHaveLength(1);
  });

  it("an unknown operator or a malformed condition is 422 invalid_conditions naming the field", async () => {
    const problem = expectProblem(await patch(apiId, { alert: { conditions: [{ value: "price", op: "below", to: 1 }] } }), 422, "invalid_conditions");
    expect(problem.errors.map((e: { path: string }) => e.path)).toEqual(["alert.conditions[0].op"]);
    const extra = expectProblem(await patch(apiId, { alert: { conditions: [{ value: "price", op: "lt", to: 1, eval: "1" }] } }), 422, "invalid_conditions");
    expect(extra.errors.map((e: { path: string }) => e.path)).toEqual(["alert.conditions[0].eval"]);
    const pattern = expectProblem(await patch(apiId, { track: [{ name: "s", path: "$.s", extract: "text" }], alert: { conditions: [{ value: "s", op: "matches", to: "(a)\\1" }] } }), 422, "invalid_conditions");
    expect(pattern.errors[0].path).toBe("alert.conditions[0].to");
  });

  it("a bad track is 422 invalid_track naming the place", async () => {
    const wrongKind = expectProblem(await patch(apiId, { track: [{ name: "price", selector: ".price" }] }), 422, "invalid_track");
    expect(wrongKind.errors.map((e: { path: string }) => e.path)).toEqual(["track[0].selector", "track[0].path"]);
    const badPath = expectProblem(await patch(apiId, { track: [{ name: "a", path: "$.ok" }, { name: "b", path: "$[?(" }] }), 422, "invalid_track");
    expect(badPath.errors.map((e: { path: string }) => e.path)).toEqual(["track[1].path"]);
    const reserved = expectProblem(await patch(pageId, { track: [{ name: "text", selector: "h1" }] }), 422, "invalid_track");
    expect(reserved.errors.map((e: { path: string }) => e.path)).toEqual(["track[0].name"]);
    const noSelector = expectProblem(await patch(pageId, { track: [{ name: "title", extract: "text" }] }), 422, "invalid_track");
    expect(noSelector.errors.map((e: { path: string }) => e.path)).toEqual(["track[0].selector"]);
  });

  it("PATCH of an unknown monitor's track is 404", async () => {
    expectProblem(await patch(`mon_${"0".repeat(26)}`, { track: [] }), 404, "not_found");
  });
});

describe("GET /api/monitors/{id}/values", () => {
  it("pages a tracked value's readings, newest first, with the snapshot each was read from", async () => {
    const seeded = await seedCheck(h.store, h.a.orgId, apiId, { at: new Date("2026-05-01T10:00:00.000Z") });
    for (let i = 0; i < 3; i++) {
      const at = new Date(Date.UTC(2026, 4, 1, 10, i + 1)).toISOString();
      await h.store.recordCheck(h.a.orgId, {
        monitorId: apiId,
        monitor: { lastCheckedAt: at },
        snapshot: null,
        diff: null,
        event: null,
        tracked: {
          at,
          snapshotId: seeded.snapshotId,
          readings: [{ name: "price", value: i === 1 ? null : { amount: 100 - i, currency: "EUR" }, reason: i === 1 ? "$.price selects nothing in this document" : null }],
        },
      });
    }
    const url = `/api/monitors/${apiId}/values?name=price&limit=2`;
    const first = await h.request(h.a.admin, { method: "GET", url });
    expect(first.statusCode).toBe(200);
    const page = pageSchema(TrackedValueReadingSchema).parse(json(first));
    expect(page.data).toEqual([
      { at: "2026-05-01T10:03:00.000Z", value: { amount: 98, currency: "EUR" }, snapshotId: seeded.snapshotId },
      { at: "2026-05-01T10:02:00.000Z", value: null, snapshotId: seeded.snapshotId, reason: "$.price selects nothing in this document" },
    ]);
    expect(page.nextCursor).not.toBeNull();
    const rest = json(await h.request(h.a.admin, { method: "GET", url: `${url}&cursor=${encodeURIComponent(page.nextCursor!)}` }));
    expect(rest).toEqual({ data: [{ at: "2026-05-01T10:01:00.000Z", value: { amount: 100, currency: "EUR" }, snapshotId: seeded.snapshotId }], nextCursor: null });
    expect(json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${apiId}/values?name=other` }))).toEqual({ data: [], nextCursor: null });
  });

  it("needs a name; an unknown or foreign monitor is 404", async () => {
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${apiId}/values` }), 400, "invalid_request");
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${apiId}/values?name=not%20a%20name` }), 400, "invalid_request");
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${newId("monitor")}/values?name=price` }), 404, "not_found");
    expectProblem(await h.request(h.b.admin, { method: "GET", url: `/api/monitors/${apiId}/values?name=price` }), 404, "not_found");
  });
});

describe("POST /api/monitors/{id}/alert/preview", () => {
  it("replays conditions over the recorded values: which past checks would have alerted, newest first", async () => {
    const monitorId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, name: "preview" } })).id;
    const track = [
      { name: "price", path: "$.price", extract: "price" },
      { name: "stock", path: "$.stock", extract: "availability" },
    ];
    expect((await patch(monitorId, { track, alert: { conditions: [{ value: "price", op: "lt", to: 200 }] } })).statusCode).toBe(200);
    const seeded = await seedCheck(h.store, h.a.orgId, monitorId, { at: new Date("2026-06-01T00:00:00.000Z") });
    const history: [number | null, string][] = [
      [219, "out_of_stock"],
      [189, "out_of_stock"],
      [189, "in_stock"],
      [249, "in_stock"],
      [179, "in_stock"],
      [null, "in_stock"],
      [175, "in_stock"],
    ];
    for (const [i, [amount, stock]] of history.entries()) {
      const at = new Date(Date.UTC(2026, 5, 1, 1, i)).toISOString();
      await h.store.recordCheck(h.a.orgId, {
        monitorId,
        monitor: { lastCheckedAt: at },
        snapshot: null,
        diff: null,
        event: null,
        tracked: {
          at,
          snapshotId: seeded.snapshotId,
          readings: [amount === null ? { name: "price", value: null, reason: "no price" } : { name: "price", value: { amount, currency: "EUR" } }, { name: "stock", value: stock }],
        },
      });
    }
    const reader = (await h.a.token(["monitors:read"], "reader")).secret;
    const preview = (payload: unknown) => h.request(reader, { method: "POST", url: `/api/monitors/${monitorId}/alert/preview`, payload: payload as Record<string, unknown> });
    // the stored conditions: price below 200
    const stored = json(await preview({}));
    expect(stored.checks.map((c: { at: string }) => c.at)[0]).toBe("2026-06-01T01:06:00.000Z");
    expect(stored.checks.map((c: { alerted: boolean }) => c.alerted).reverse()).toEqual([false, true, false, false, true, false, true]);
    expect(stored.alerts).toBe(3);
    expect(stored.checks[1].results).toEqual([{ index: 0, matched: false, reason: "price is missing on this check" }]);
    // back in stock under 200, tried without storing it
    const tried = json(await preview({ alert: { conditions: [{ value: "stock", op: "eq", to: "in_stock" }, { value: "price", op: "lt", to: 200 }] }, limit: 5 }));
    expect(tried.checks).toHaveLength(5);
    expect(tried.checks.map((c: { alerted: boolean }) => c.alerted).reverse()).toEqual([true, false, true, false, true]);
    expect((await h.store.getSettings(h.a.orgId, monitorId))!.alert).toEqual({ when: "all", conditions: [{ value: "price", op: "lt", to: 200 }] });
    // conditions that do not fit are refused as on the settings
    const bad = expectProblem(await preview({ alert: { conditions: [{ value: "cost", op: "lt", to: 1 }] } }), 422, "invalid_conditions");
    expect(bad.errors[0].path).toBe("alert.conditions[0].value");
    expect((await patch(monitorId, { alert: null })).statusCode).toBe(200);
    expectProblem(await preview({}), 422, "invalid_conditions");
    expectProblem(await h.request(h.b.admin, { method: "POST", url: `/api/monitors/${monitorId}/alert/preview`, payload: {} }), 404, "not_found");
  });
});
