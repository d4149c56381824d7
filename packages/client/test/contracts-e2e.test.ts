/**
 * API contracts end to end: `driftwatch serve` (built CLI, fresh SQLite file), a local server that
 * publishes two versions of an OpenAPI document (with a `$ref` to a second document) and a live
 * API whose answer breaks its contract. Through the client: an `openapi` monitor records the
 * breaking change between the versions, an `api` monitor with a contract reports the violations,
 * and the inferred schema is served.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Driftwatch, type Diff } from "../src/index.js";
import { startServer, type RunningServer } from "./support/server.js";

const V1 = `openapi: 3.0.3
info: { title: Pets, version: "1" }
paths:
  /pets/{id}:
    get:
      operationId: getPet
      parameters:
        - { name: id, in: path, required: true, schema: { type: integer } }
      responses:
        "200":
          description: a pet
          content:
            application/json:
              schema: { $ref: "schemas.yaml#/Pet" }
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: pets
          content:
            application/json:
              schema: { type: array, items: { $ref: "schemas.yaml#/Pet" } }
`;
const SCHEMAS = `Pet:
  type: object
  additionalProperties: false
  required: [id, name]
  properties:
    id: { type: integer }
    name: { type: string }
    tag: { type: string, nullable: true }
`;
// version 2: GET /pets removed (breaking), `tag` no longer in the response (potentially breaking)
const V2 = V1.slice(0, V1.indexOf("  /pets:\n"));
const SCHEMAS_V2 = SCHEMAS.replace("    tag: { type: string, nullable: true }\n", "");

let server: RunningServer;
let client: Driftwatch;
let site: http.Server;
let base: string;
const files = new Map<string, string>();

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const text = files.get(req.url ?? "/");
    if (text === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": req.url?.startsWith("/api/") === true ? "application/json" : "application/yaml" }).end(text);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${String((site.address() as AddressInfo).port)}`;
  files.set("/spec/openapi.yaml", V1);
  files.set("/spec/schemas.yaml", SCHEMAS);
  files.set("/api/pets/1", JSON.stringify({ id: 1, name: "Rex", tag: null }));
  server = await startServer();
  client = new Driftwatch({ baseUrl: server.baseUrl, token: server.adminToken, maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
});

describe("API contracts against the real server", () => {
  it("an openapi monitor records breaking changes; an api monitor with a contract reports violations", async () => {
    const spec = await client.monitors.create({ type: "openapi", name: "pets spec", url: `${base}/spec/openapi.yaml`, intervalSeconds: 3600 });
    expect(spec.type).toBe("openapi");
    const first = await client.monitors.check(spec.id);
    expect(first.diff).toBeNull();

    const api = await client.monitors.create({
      type: "api",
      name: "pet 1",
      url: `${base}/api/pets/1`,
      intervalSeconds: 3600,
      contract: { document: { monitorId: spec.id }, operation: "getPet" },
    });
    expect(api.contract).toEqual({ document: { monitorId: spec.id }, operation: "getPet" });
    const conforming = await client.monitors.check(api.id);
    expect(conforming.diff).toBeNull();

    // the provider publishes version 2
    files.set("/spec/openapi.yaml", V2);
    files.set("/spec/schemas.yaml", SCHEMAS_V2);
    const second = await client.monitors.check(spec.id);
    const apiDiff = second.diff as Diff & { classification: "api_change"; schemaChanges: number };
    expect(apiDiff.classification).toBe("api_change");
    const byRule = Object.fromEntries(apiDiff.changes.map((change) => [change.rule, change]));
    expect(byRule["api-path-removed-without-deprecation"]).toMatchObject({ category: "api", level: "breaking", severity: "critical", operation: "GET /pets" });
    expect(byRule["response-optional-property-removed"]).toMatchObject({ level: "potentially-breaking", severity: "medium", operation: "GET /pets/{id}" });
    expect(apiDiff.changes[0]!.level).toBe("breaking");
    expect(apiDiff.topSeverity).toBe("critical");
    // stored and listed like any diff
    const listed = await client.diffs.list(spec.id);
    expect(listed.data[0]!.id).toBe(apiDiff.id);

    // the live API still sends `tag`, which version 2 no longer allows, and drops `name`
    files.set("/api/pets/1", JSON.stringify({ id: "1", tag: "dog" }));
    const broken = await client.monitors.check(api.id);
    const contract = broken.diff!.changes.filter((change) => change.category === "contract");
    const byPath = Object.fromEntries(contract.map((change) => [change.path, change]));
    expect(byPath["$.name"]).toMatchObject({ keyword: "required", severity: "high", expected: "present", operation: "GET /pets/{id}" });
    expect(byPath["$.id"]).toMatchObject({ keyword: "type", severity: "high", expected: "integer", actual: "1" });
    expect(byPath["$.tag"]).toMatchObject({ keyword: "additionalProperties", severity: "medium", expected: false, actual: "dog" });
    expect(byPath["$.tag"]!.schemaPath).toBe(`${base}/spec/schemas.yaml#/Pet/additionalProperties`);
    // the schema excerpt is recorded with the violation: the Pet schema of version 2, as it is written
    const pet2 = { type: "object", additionalProperties: false, required: ["id", "name"], properties: { id: { type: "integer" }, name: { type: "string" } } };
    expect(byPath["$.tag"]!.schemaExcerpt).toEqual(pet2);
    expect(byPath["$.id"]!.schemaExcerpt).toEqual({ type: "integer" });

    // the same contract with the document given by URL: the excerpt is recorded the same way
    const byUrl = await client.monitors.create({
      type: "api",
      name: "pet 1 by url",
      url: `${base}/api/pets/1`,
      intervalSeconds: 3600,
      contract: { document: `${base}/spec/openapi.yaml`, operation: "getPet" },
    });
    const urlCheck = await client.monitors.check(byUrl.id);
    expect(urlCheck.diff!.classification).toBe("contract_violation");
    const urlByPath = Object.fromEntries(urlCheck.diff!.changes.map((change) => [change.path, change]));
    expect(urlByPath["$.tag"]).toMatchObject({ keyword: "additionalProperties", schemaPath: `${base}/spec/schemas.yaml#/Pet/additionalProperties`, schemaExcerpt: pet2 });
    expect(urlByPath["$.name"]).toMatchObject({ keyword: "required", schemaExcerpt: pet2 });
    // stored with the diff
    const stored = await client.diffs.get(byUrl.id, urlCheck.diff!.id);
    expect(stored.changes.find((change) => change.path === "$.tag")!.schemaExcerpt).toEqual(pet2);

    // the schema the server inferred from the two answers
    const inferred = await client.monitors.schema(api.id);
    expect(inferred.samples).toBe(2);
    expect(inferred.schema).toMatchObject({ type: "object", required: ["id", "tag"] });
    const document = await client.monitors.schemaDocument(api.id);
    expect(document).toMatchObject({ $schema: "https://json-schema.org/draft/2020-12/schema", title: "pet 1" });
  }, 60_000);

  it("a Swagger 2.0 document is a failed check with the reason", async () => {
    files.set("/spec/swagger.json", JSON.stringify({ swagger: "2.0", info: { title: "old", version: "1" }, paths: {} }));
    const old = await client.monitors.create({ type: "openapi", url: `${base}/spec/swagger.json`, intervalSeconds: 3600 });
    await expect(client.monitors.check(old.id)).rejects.toMatchObject({ status: 502 });
    const after = await client.monitors.get(old.id);
    expect(after.lastError).toMatch(/swagger_2_unsupported/);
  });
});
