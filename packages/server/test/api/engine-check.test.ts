import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpFetcher, assertSafeUrl } from "@driftwatch/fetcher-http";
import type { Fetcher } from "@driftwatch/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckService, createMetrics } from "../../src/index.js";
import { createHarness, expectProblem, json, type Harness } from "./harness.js";

/** The check endpoint on the real engine (check pipeline, HTTP fetcher, metrics) against a local target. */
let h: Harness;
let target: Server;
let base: string;
let fetcher: Fetcher;
const state = { status: 200, body: JSON.stringify({ price: 10, currency: "EUR" }), type: "application/json" };

beforeAll(async () => {
  target = createServer((_req, res) => {
    res.writeHead(state.status, { "content-type": state.type });
    res.end(state.body);
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  fetcher = createHttpFetcher({ allowPrivateNetworks: true, timeoutMs: 5000 });
  h = await createHarness({
    checks: (store, now) => createCheckService({ store, httpFetcher: fetcher, now }),
    urlGuard: { assertSafeUrl: (url) => assertSafeUrl(url, { allowPrivateNetworks: true }) },
    metrics: (store) => createMetrics({ store }),
  });
});
afterAll(async () => {
  await h?.close();
  await fetcher?.close();
  await new Promise<void>((resolve) => target?.close(() => resolve()));
});

describe("POST /api/monitors/{id}/check on the real check pipeline", () => {
  it("records a snapshot, then a diff, visible through the API", async () => {
    const monitor = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { url: `${base}/prices` } }));
    const first = await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitor.id}/check` });
    expect(first.statusCode).toBe(200);
    expect(json(first).diff).toBeNull();
    expect(json(first).snapshot).toMatchObject({ monitorId: monitor.id, status: 200, browserRender: false });

    state.body = JSON.stringify({ price: "10", currency: "EUR", stock: 3 });
    const second = json(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitor.id}/check` }));
    expect(second.diff).toMatchObject({ monitorId: monitor.id, classification: "schema_change", topSeverity: "critical", snapshotId: second.snapshot.id });
    const paths = second.diff.changes.map((c: { path: string }) => c.path).sort();
    expect(paths).toEqual(["$.price", "$.stock"]);

    const listed = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitor.id}/diffs` }));
    expect(listed.data.map((d: { id: string }) => d.id)).toEqual([second.diff.id]);
    const one = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitor.id}/diffs/${second.diff.id}` }));
    expect(one).toEqual(second.diff);
    const snap = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitor.id}/snapshots/${second.snapshot.id}` }));
    expect(JSON.parse(snap.body)).toEqual({ price: "10", currency: "EUR", stock: 3 });
  });

  it("a target answering 500 is 502 unavailable with reason bad_status, recorded on the monitor", async () => {
    const monitor = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { url: `${base}/broken` } }));
    state.status = 500;
    try {
      const problem = expectProblem(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitor.id}/check` }), 502, "unavailable");
      expect(problem.reason).toBe("bad_status");
      const after = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitor.id}` }));
      expect(after.consecutiveFailures).toBe(1);
      expect(after.lastError).toContain("500");
    } finally {
      state.status = 200;
    }
  });

  it("an unreachable target is 502 with reason connection_failed", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const monitor = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { url: `http://127.0.0.1:${port}/gone` } }));
    const problem = expectProblem(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitor.id}/check` }), 502, "unavailable");
    expect(problem.reason).toBe("connection_failed");
  });

  it("/metrics serves the engine's Prometheus text, including HTTP requests observed by the app", async () => {
    const res = await h.request(null, { method: "GET", url: "/metrics" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/plain");
    expect(res.body).toContain("driftwatch_checks_total");
    expect(res.body).toMatch(/route="\/api\/monitors\/:id\/check"/);
    // scale-out: scheduling lag, per-org work, takeovers
    expect(res.body).toContain("# TYPE driftwatch_check_lag_seconds histogram");
    expect(res.body).toContain("# TYPE driftwatch_host_lag_seconds gauge");
    expect(res.body).toContain("# TYPE driftwatch_org_work_total counter");
    expect(res.body).toContain('driftwatch_lease_takeovers_total{kind="monitor"} 0');
    expect(res.body).toContain('driftwatch_leases_lost_total{kind="delivery"} 0');
  });
});
