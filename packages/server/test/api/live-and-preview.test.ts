import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Fetcher } from "@driftwatch/core";
import { DeliveryDetailSchema, SettingsPreviewSchema } from "@driftwatch/schema";
import { assertSafeUrl, createHttpFetcher } from "@driftwatch/fetcher-http";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckService } from "../../src/index.js";
import { createEventHub, observeStore } from "../../src/live/events.js";
import { MAX_STREAMS_PER_CALLER, MAX_STREAMS_PER_ORG } from "../../src/routes/events.js";
import { openEventStream, type EventStream } from "../sse.js";
import { createHarness, expectProblem, json, type Harness } from "./harness.js";

/** Live events (GET /api/events/stream) and the rules preview, on the real check pipeline and SQLite. */
let h: Harness;
let target: Server;
let base: string;
let fetcher: Fetcher;
let apiUrl: string;
let dir: string;
const state = { body: JSON.stringify({ price: 10, stock: 1, updatedAt: "2026-01-01" }) };

beforeAll(async () => {
  target = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(state.body);
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  fetcher = createHttpFetcher({ allowPrivateNetworks: true, timeoutMs: 5000 });
  dir = mkdtempSync(join(tmpdir(), "dw-live-"));
  const events = createEventHub();
  h = await createHarness({
    events,
    store: async () => {
      const store = await createSqliteStore({ filename: join(dir, "live.db") });
      return { store: observeStore(store, events), close: () => store.close() };
    },
    checks: (store, now) => createCheckService({ store, httpFetcher: fetcher, now }),
    urlGuard: { assertSafeUrl: (url) => assertSafeUrl(url, { allowPrivateNetworks: true }) },
  });
  await h.app.listen({ port: 0, host: "127.0.0.1" });
  apiUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await h?.close();
  await fetcher?.close();
  await new Promise<void>((resolve) => target?.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** Opens the stream of this test's server and reads its events as they come. */
function openStream(secret: string): Promise<EventStream> {
  return openEventStream(apiUrl, secret);
}

describe("GET /api/events/stream", () => {
  it("needs a token like the rest of the API", async () => {
    const res = await fetch(`${apiUrl}/api/events/stream`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe("unauthenticated");
    const bad = await fetch(`${apiUrl}/api/events/stream`, { headers: { authorization: "Bearer dw_nope" } });
    expect(bad.status).toBe(401);
  });

  it("pushes check results and diffs of the caller's organization only", async () => {
    const mine = await openStream(h.a.admin);
    const theirs = await openStream(h.b.admin);
    expect(mine.status).toBe(200);
    expect(mine.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(mine.headers.get("x-request-id")).toMatch(/^req_/);
    expect((await mine.next()).event).toBe("ready");
    expect((await theirs.next()).event).toBe("ready");

    const monitor = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { url: `${base}/p`, name: "Live" } }));
    await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitor.id}/check` });
    const first = await mine.next((e) => e.event === "check");
    expect(first.data.monitor.id).toBe(monitor.id);
    expect(first.data.diff).toBeNull();

    state.body = JSON.stringify({ price: 11, stock: 1, updatedAt: "2026-01-02" });
    await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitor.id}/check` });
    const second = await mine.next((e) => e.event === "check");
    expect(second.data.diff.monitorId).toBe(monitor.id);
    expect(second.data.diff.changes.map((c: { path: string }) => c.path).sort()).toEqual(["$.price", "$.updatedAt"]);

    const paused = await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitor.id}`, payload: { state: "paused" } });
    expect(paused.statusCode).toBe(200);
    const change = await mine.next((e) => e.event === "monitor");
    expect(change.data.monitor).toMatchObject({ id: monitor.id, state: "paused" });

    // the other organization's stream saw nothing of it: its next event is one of its own
    const own = json(await h.request(h.b.admin, { method: "POST", url: "/api/monitors", payload: { url: `${base}/b`, name: "Theirs" } }));
    await h.request(h.b.admin, { method: "PATCH", url: `/api/monitors/${own.id}`, payload: { state: "paused" } });
    const seen = await theirs.next();
    expect(seen.event).toBe("monitor");
    expect(seen.data.monitor.id).toBe(own.id);
    mine.close();
    theirs.close();
  });

  it(`refuses more than ${MAX_STREAMS_PER_ORG} open streams per organization with 429`, async () => {
    const open = [];
    // (one caller may hold MAX_STREAMS_PER_CALLER of them: several callers fill the organization's)
    const callers: string[] = [];
    for (let i = 0; i < Math.ceil(MAX_STREAMS_PER_ORG / MAX_STREAMS_PER_CALLER); i++) callers.push((await h.a.token(["monitors:read"])).secret);
    for (let i = 0; i < MAX_STREAMS_PER_ORG; i++) open.push(await openStream(callers[Math.floor(i / MAX_STREAMS_PER_CALLER)]!));
    await Promise.all(open.map((s) => s.next()));
    const refused = await fetch(`${apiUrl}/api/events/stream`, { headers: { authorization: `Bearer ${h.a.admin}` } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe("rate_limited");
    for (const s of open) s.close();
  });
});

describe("POST /api/monitors/{id}/settings/preview", () => {
  let monitorId: string;
  beforeAll(async () => {
    state.body = JSON.stringify({ price: 10, stock: 1, updatedAt: "2026-01-01" });
    monitorId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { url: `${base}/preview`, name: "Preview" } })).id;
    await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitorId}/check` });
    state.body = JSON.stringify({ price: 12, stock: 1, updatedAt: "2026-01-02" });
    await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitorId}/check` });
    state.body = JSON.stringify({ price: 12, stock: 1, updatedAt: "2026-01-03" });
    await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitorId}/check` });
  });
  const preview = (payload: Record<string, unknown>, secret = h.a.admin) => h.request(secret, { method: "POST", url: `/api/monitors/${monitorId}/settings/preview`, payload });

  it("lists what an ignore rule would hide and which checks it would silence", async () => {
    const res = await preview({ policyRules: { rules: [{ path: "$.updatedAt", action: "ignore" }] } });
    expect(res.statusCode).toBe(200);
    const body = SettingsPreviewSchema.parse(json(res));
    expect(body.diffs).toHaveLength(2);
    // newest first: the diff that changed only updatedAt would not have been recorded at all
    expect(body.diffs[0]).toMatchObject({ outcome: "compared", after: null });
    expect(body.diffs[0]!.hidden.map((c) => c.path)).toEqual(["$.updatedAt"]);
    expect(body.diffs[1]!.after).toMatchObject({ changes: 1 });
    expect(body.diffs[1]!.hidden.map((c) => c.path)).toEqual(["$.updatedAt"]);
    expect(body.totals).toMatchObject({ diffs: 2, hidden: 2, silenced: 1, shown: 0 });
    // nothing was stored
    expect(json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/settings` })).policyRulesJson).toEqual({ rules: [] });
  });

  it("lists severity changes and honours limit", async () => {
    const body = json(await preview({ policyRules: { rules: [{ path: "$.price", severity: "critical" }] }, limit: 1 }));
    expect(body.diffs).toHaveLength(1);
    const older = json(await preview({ policyRules: { rules: [{ path: "$.price", severity: "critical" }] } }));
    expect(older.diffs[1].severityChanged).toEqual([{ path: "$.price", op: "replace", from: "info", to: "critical" }]);
    expect(older.diffs[1].after.topSeverity).toBe("critical");
  });

  it("answers invalid rules, unknown monitors and other organizations with problems", async () => {
    expectProblem(await preview({ policyRules: { rules: [{ path: "$[?(", action: "ignore" }] } }), 422, "invalid_policy_rules");
    expectProblem(await preview({ policyRules: { rules: [] }, limit: 500 }), 422, "validation_failed");
    expectProblem(await preview({ policyRules: { rules: [] } }, h.b.admin), 404, "not_found");
    const reader = await h.a.token(["monitors:read"]);
    expect((await preview({ policyRules: { rules: [] } }, reader.secret)).statusCode).toBe(200);
  });

  it("is in the OpenAPI document, as is the event stream", async () => {
    const doc = json(await h.request(null, { method: "GET", url: "/api/openapi.json" }));
    expect(doc.paths["/api/monitors/{id}/settings/preview"].post).toBeDefined();
    expect(doc.paths["/api/events/stream"].get).toBeDefined();
  });
});

describe("GET /api/webhooks/{id}/deliveries/{deliveryId}", () => {
  it("answers the delivery with the payload it sends and its attempt log", async () => {
    const hook = json(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://hooks.example.com/in" } }));
    const monitor = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { url: `${base}/dlv`, name: "Deliveries" } }));
    state.body = JSON.stringify({ v: 1 });
    await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitor.id}/check` });
    state.body = JSON.stringify({ v: 2 });
    const checked = json(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitor.id}/check` }));
    const [delivery] = json(await h.request(h.a.admin, { method: "GET", url: `/api/webhooks/${hook.id}/deliveries` })).data;
    // one attempt as the delivery worker records it: claimed, then answered 503
    const [claimed] = await h.store.claimDueDeliveries({ now: new Date(Date.now() + 1000).toISOString(), limit: 10, leaseMs: 60_000, owner: "test", webhookId: hook.id });
    expect(claimed?.id).toBe(delivery.id);
    await h.store.recordDeliveryAttempt(delivery.id, "test", { at: new Date().toISOString(), state: "pending", nextAttemptAt: new Date(Date.now() + 5000).toISOString(), responseStatus: 503, error: "HTTP 503", durationMs: 12 });
    const res = await h.request(h.a.admin, { method: "GET", url: `/api/webhooks/${hook.id}/deliveries/${delivery.id}` });
    expect(res.statusCode).toBe(200);
    const body = DeliveryDetailSchema.parse(json(res));
    expect(body.id).toBe(delivery.id);
    expect(body.payload).toMatchObject({ schemaVersion: "v1", eventId: delivery.eventId, diffId: checked.diff.id });
    expect(body.attemptLog).toEqual([{ attempt: 1, at: expect.any(String), responseStatus: 503, error: "HTTP 503", durationMs: 12 }]);
    expect(body.lastResponseStatus).toBe(503);

    expectProblem(await h.request(h.b.admin, { method: "GET", url: `/api/webhooks/${hook.id}/deliveries/${delivery.id}` }), 404, "not_found");
    const reader = await h.a.token(["monitors:read"]);
    expectProblem(await h.request(reader.secret, { method: "GET", url: `/api/webhooks/${hook.id}/deliveries/${delivery.id}` }), 403, "insufficient_scope");
  });
});
