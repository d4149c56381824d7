import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, json, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

/** Every route of the API (src/routes), as OpenAPI paths. */
const EXPECTED: Record<string, string[]> = {
  "/api/monitors": ["post", "get"],
  "/api/monitors/{id}": ["get", "patch", "delete"],
  "/api/monitors/{id}/check": ["post"],
  "/api/monitors/{id}/diffs": ["get"],
  "/api/monitors/{id}/diffs/{diffId}": ["get"],
  "/api/monitors/{id}/snapshots": ["get"],
  "/api/monitors/{id}/snapshots/{snapshotId}": ["get"],
  "/api/monitors/{id}/settings": ["get", "patch"],
  "/api/webhooks": ["post", "get"],
  "/api/webhooks/{id}": ["get", "patch", "delete"],
  "/api/webhooks/{id}/rotate-secret": ["post"],
  "/api/webhooks/{id}/deliveries": ["get"],
  "/api/webhooks/{id}/deliveries/{deliveryId}/retry": ["post"],
  "/api/webhooks/worker/run": ["post"],
  "/api/channels": ["post", "get"],
  "/api/channels/{id}": ["get", "patch", "delete"],
  "/api/channels/{id}/test": ["post"],
  "/api/channels/{id}/deliveries": ["get"],
  "/api/channels/{id}/deliveries/{deliveryId}": ["get"],
  "/api/channels/{id}/deliveries/{deliveryId}/retry": ["post"],
  "/api/monitors/{id}/channels": ["get"],
  "/api/monitors/{id}/noise": ["get"],
  "/api/tokens": ["post", "get"],
  "/api/tokens/{id}": ["get", "delete"],
  "/healthz": ["get"],
  "/readyz": ["get"],
  "/metrics": ["get"],
};

describe("GET /api/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document covering every route, served without auth", async () => {
    const res = await h.request(null, { method: "GET", url: "/api/openapi.json" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-request-id"]).toMatch(/^req_/);
    const doc = json(res);
    expect(doc.openapi).toBe("3.1.0");
    // validate() dereferences in place: give it a copy
    await expect(SwaggerParser.validate(structuredClone(doc) as unknown as Parameters<typeof SwaggerParser.validate>[0])).resolves.toBeTruthy();
    for (const [path, methods] of Object.entries(EXPECTED)) {
      expect(doc.paths[path], path).toBeDefined();
      for (const method of methods) expect(doc.paths[path][method], `${method} ${path}`).toBeDefined();
    }
  });

  it("documents request bodies from the zod schemas (unknown fields refused, browserOptions shape)", async () => {
    const doc = json(await h.request(null, { method: "GET", url: "/api/openapi.json" }));
    const create = doc.paths["/api/monitors"].post;
    const body = create.requestBody.content["application/json"].schema;
    expect(body.additionalProperties).toBe(false);
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(["url", "type", "browserOptions", "headers", "tags"]));
    expect(body.properties.tags).toMatchObject({ type: "array", items: { type: "string", maxLength: 64 } });
    expect(doc.components.schemas.Monitor.required).toContain("tags");
    expect(doc.paths["/api/monitors"].get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["limit", "cursor", "tag"]));
    expect(JSON.stringify(body.properties.browserOptions)).toContain("#/components/schemas/BrowserOptionsInput");
    expect(JSON.stringify(doc.components.schemas.BrowserOptionsInput)).toContain("networkidle");
    expect(doc.components.schemas.BrowserOptionsInput.additionalProperties).toBe(false);
    for (const name of ["Monitor", "ApiDiff", "WebsiteDiff", "Snapshot", "Webhook", "Delivery", "Token", "Settings", "Problem"]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    expect(create.responses["201"]).toBeDefined();
    for (const path of ["/api/monitors", "/api/webhooks", "/api/channels", "/api/tokens"]) {
      const created = doc.paths[path].post.responses["201"];
      expect(created.headers?.Location, path).toMatchObject({ schema: { type: "string" } });
      expect(created.content["application/json"].schema, path).toBeDefined();
    }
    expect(create.responses["422"].content["application/problem+json"].schema).toEqual({ $ref: "#/components/schemas/Problem" });
    expect(doc.components.schemas.Problem.properties.code).toBeDefined();
    expect(create.responses["422"].description).toContain("invalid_browser_options");
    expect(create.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.cookieAuth).toMatchObject({ type: "apiKey", in: "cookie", name: "dw_session" });
    const settings = doc.paths["/api/monitors/{id}/settings"].patch.requestBody.content["application/json"].schema;
    expect(Object.keys(settings.properties)).toContain("policyRules");
    expect(Object.keys(settings.properties)).toContain("autoApplySuggestions");
    const noise = doc.paths["/api/monitors/{id}/noise"].get;
    expect(noise.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/NoiseProfile" });
    expect(doc.components.schemas.NoiseProfile.required).toEqual(
      expect.arrayContaining(["monitorId", "samples", "minSamples", "policy", "evidence", "appliedAutomatically"]),
    );
    expect(noise.responses["404"]).toBeDefined();
  });

  it("lists the problems a channel's test answers: 404, 422 invalid_template (a stored template the service refuses), 503", async () => {
    const doc = json(await h.request(null, { method: "GET", url: "/api/openapi.json" }));
    const test = doc.paths["/api/channels/{id}/test"].post;
    for (const status of ["404", "422", "503"]) {
      expect(test.responses[status]?.content["application/problem+json"].schema, status).toEqual({ $ref: "#/components/schemas/Problem" });
    }
    expect(test.responses["422"].description).toContain("invalid_template");
  });
});

describe("system routes", () => {
  it("/healthz and /readyz answer without auth, with request ids", async () => {
    for (const url of ["/healthz", "/readyz"]) {
      const res = await h.request(null, { method: "GET", url });
      expect(res.statusCode).toBe(200);
      expect(json(res)).toEqual({ status: "ok" });
      expect(res.headers["x-request-id"]).toMatch(/^req_/);
      expect(res.headers.ratelimit).toBeUndefined();
    }
  });

  it("/metrics without a metrics registry serves an empty Prometheus text", async () => {
    const res = await h.request(null, { method: "GET", url: "/metrics" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/plain");
    expect(res.body).toBe("");
  });

  it("observes every finished request when the registry wants them", async () => {
    const seen: Array<[string, string, number]> = [];
    const observed = await createHarness({
      metrics: () => ({ contentType: "text/plain; version=0.0.4", render: async () => "# none\n", observeRequest: (route, method, status) => void seen.push([route, method, status]) }),
    });
    try {
      await observed.request(observed.a.admin, { method: "GET", url: "/api/monitors/mon_01HZX3K4ABCDEFGHJKMNPQRSTV" });
      await observed.request(null, { method: "GET", url: "/nowhere" });
      expect(seen).toEqual([
        ["/api/monitors/:id", "GET", 404],
        ["unmatched", "GET", 404],
      ]);
      expect((await observed.request(null, { method: "GET", url: "/metrics" })).body).toBe("# none\n");
    } finally {
      await observed.close();
    }
  });
});
