import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiMonitor, createHarness, expectProblem, json, seedCheck, websiteMonitor, type Harness } from "./harness.js";

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
    expect(notSpec.errors).toEqual([{ path: "contract.document.monitorId", message: "is an api monitor, not an openapi monitor" }]);
    const site = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: websiteMonitor }));
    const notSpecSite = expectProblem(
      await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, contract: { document: { monitorId: site.id }, operation: "x" } } }),
      422,
      "validation_failed",
    );
    expect(notSpecSite.errors).toEqual([{ path: "contract.document.monitorId", message: "is a website monitor, not an openapi monitor" }]);
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

describe("GET /api/monitors/{id}/schema", () => {
  function body(i: number, extra: Record<string, unknown> = {}): string {
    return JSON.stringify({
      generated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      request_id: `6f1c2d3e-4b5a-4c6d-8e9f-${String(100000000000 + i * 7919)}`,
      status: "ok",
      price: 12.5,
      items: [{ sku: `a${String(i)}`, qty: i }],
      ...extra,
    });
  }

  it("infers types, required members and formats from the newest snapshots, and marks the learned volatile members", async () => {
    const id = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id as string;
    const empty = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/schema` }));
    expect(empty).toEqual({ monitorId: id, samples: 0, volatile: [], truncated: false, schema: { $schema: "https://json-schema.org/draft/2020-12/schema" } });
    for (let i = 0; i < 5; i++) {
      await seedCheck(h.store, h.a.orgId, id, { body: body(i, i === 4 ? { note: null } : {}), at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) });
    }
    const res = await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/schema` });
    expect(res.statusCode).toBe(200);
    const inferred = json(res);
    expect(inferred.samples).toBe(5);
    expect(inferred.volatile).toEqual(expect.arrayContaining(["$.generated_at", "$.request_id"]));
    const schema = inferred.schema;
    expect(schema.type).toBe("object");
    expect(schema.required).toEqual(["generated_at", "request_id", "status", "price", "items"]);
    expect(schema.properties.generated_at).toEqual({ type: "string", format: "date-time", "x-driftwatch-volatile": true });
    expect(schema.properties.request_id).toMatchObject({ type: "string", "x-driftwatch-volatile": true });
    expect(schema.properties.status).toEqual({ type: "string" });
    expect(schema.properties.price).toEqual({ type: "number" });
    expect(schema.properties.note).toEqual({ type: "null" });
    // the items' members change at every response too: learned volatile, under `[*]`
    expect(inferred.volatile).toEqual(expect.arrayContaining(["$.items[*].sku", "$.items[*].qty"]));
    expect(schema.properties.items).toEqual({
      type: "array",
      items: { type: "object", properties: { sku: { type: "string", "x-driftwatch-volatile": true }, qty: { type: "integer", "x-driftwatch-volatile": true } }, required: ["sku", "qty"] },
    });

    const download = await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/schema?download=true` });
    expect(download.statusCode).toBe(200);
    expect(download.headers["content-disposition"]).toBe(`attachment; filename="${id}.schema.json"`);
    expect(json(download)).toEqual({ ...schema, title: "Prices" });
  });

  it("is for api monitors only, and 404 for another organization's monitor", async () => {
    const site = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: websiteMonitor })).id as string;
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${site}/schema` }), 422, "validation_failed");
    const theirs = json(await h.request(h.b.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id as string;
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${theirs}/schema` }), 404, "not_found");
  });
});
