import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiMonitor, createHarness, expectProblem, json, websiteMonitor, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const contract = { document: "https://api.example.com/openapi.yaml", operation: "getPrices", status: 200 };

describe("openapi monitors and contracts", () => {
  it("creates an openapi monitor; an api monitor's contract is stored, returned, replaced and removed", async () => {
    const spec = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { type: "openapi", url: "https://api.example.com/openapi.yaml" } }));
    expect(spec).toMatchObject({ type: "openapi", contract: null });

    const created = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, contract } });
    expect(created.statusCode).toBe(201);
    const monitor = json(created);
    expect(monitor.contract).toEqual(contract);
    // the document's URL met the SSRF guard
    expect(h.guard.calls).toContain(contract.document);
    expect(json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitor.id}` })).contract).toEqual(contract);

    const byMonitor = { document: { monitorId: spec.id }, operation: { method: "GET", path: "/prices" } };
    const patched = await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitor.id}`, payload: { contract: byMonitor } });
    expect(patched.statusCode).toBe(200);
    expect(json(patched).contract).toEqual(byMonitor);
    const removed = await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitor.id}`, payload: { contract: null } });
    expect(json(removed).contract).toBeNull();
  });

  it("refuses a contract on a website or openapi monitor, one naming a monitor that is not an openapi monitor, and a malformed one", async () => {
    expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...websiteMonitor, contract } }), 422, "validation_failed");
    expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { type: "openapi", url: "https://api.example.com/o.json", contract } }), 422, "validation_failed");
    const plain = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor }));
    const notSpec = expectProblem(
      await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, contract: { document: { monitorId: plain.id }, operation: "x" } } }),
      422,
      "validation_failed",
    );
    expect(JSON.stringify(notSpec.errors)).toMatch(/not an openapi monitor/);
    expectProblem(
      await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, contract: { document: { monitorId: "mon_nope" }, operation: "x" } } }),
      422,
      "validation_failed",
    );
    // another organization's openapi monitor is not found
    const theirs = json(await h.request(h.b.admin, { method: "POST", url: "/api/monitors", payload: { type: "openapi", url: "https://api.example.com/openapi.yaml" } }));
    expectProblem(
      await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, contract: { document: { monitorId: theirs.id }, operation: "x" } } }),
      422,
      "validation_failed",
    );
    for (const bad of [
      { document: "ftp://x/openapi.yaml", operation: "x" },
      { document: "https://x/openapi.yaml", operation: { method: "GET", path: "no-slash" } },
      { document: "https://x/openapi.yaml", operation: "x", status: "2xx" },
      { document: "https://x/openapi.yaml", operation: "x", extra: true },
    ]) {
      expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, contract: bad } }), 422, "validation_failed");
    }
  });

  it("refuses a contract document the SSRF guard refuses", async () => {
    const res = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, contract: { document: "http://10.0.0.1/openapi.yaml", operation: "x" } } });
    const problem = expectProblem(res, 422, "unsafe_url");
    expect(JSON.stringify(problem.errors)).toMatch(/contract\.document/);
  });
});
