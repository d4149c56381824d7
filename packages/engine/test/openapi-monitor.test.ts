import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Fetcher } from "@driftwatch/core";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckService } from "../src/index.js";
import { pointerToJsonPath } from "../src/openapi/compare-openapi.js";
import { createMonitor, manualClock, openTempStore } from "./fixtures.js";

/** A local server answering each path with the text set for it (404 otherwise). */
async function startDocs(): Promise<{ url: string; set(path: string, text: string | null): void; hits: string[]; close(): Promise<void> }> {
  const texts = new Map<string, string>();
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? "/");
    const text = texts.get(req.url ?? "/");
    if (text === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": req.url?.endsWith(".json") === true ? "application/json" : "application/yaml" }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    hits,
    set(path, text) {
      if (text === null) texts.delete(path);
      else texts.set(path, text);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const v1 = `openapi: 3.0.3
info: { title: Pets, version: "1" }
paths:
  /pets/{id}:
    get:
      operationId: getPet
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
      responses:
        "200":
          description: a pet
          content:
            application/json:
              schema: { $ref: "schemas/pet.yaml#/Pet" }
  /pets:
    get:
      operationId: listPets
      responses:
        "200": { description: pets }
`;
const petV1 = `Pet:
  type: object
  required: [id, name]
  properties:
    id: { type: string }
    name: { type: string }
    tag: { type: string }
`;

describe("openapi monitors (SQLite, a local document server)", () => {
  const clock = manualClock();
  const docs = { server: undefined as Awaited<ReturnType<typeof startDocs>> | undefined };
  let opened: Awaited<ReturnType<typeof openTempStore>>;
  const fetcher = createHttpFetcher({ allowPrivateNetworks: true });
  beforeAll(async () => {
    opened = await openTempStore(clock.now);
    docs.server = await startDocs();
  });
  afterAll(async () => {
    await fetcher.close();
    await docs.server?.close();
    await opened.cleanup();
  });
  const server = () => docs.server!;

  it("diffs versions of a document with API rules: a removed operation is breaking, a removed optional response property potentially breaking, an added parameter neither", async () => {
    server().set("/v1/openapi.yaml", v1);
    server().set("/v1/schemas/pet.yaml", petV1);
    const monitor = await createMonitor(opened.store, opened.orgId, { type: "openapi", url: `${server().url}/v1/openapi.yaml` });
    const checks = createCheckService({ store: opened.store, httpFetcher: fetcher, now: clock.now });
    try {
      const first = await checks.runCheck(monitor, { requestId: "req_1" });
      expect(first.result).toBe("new_snapshot");
      // the external $ref was read through the fetcher: the snapshot keeps both documents
      expect(server().hits).toContain("/v1/schemas/pet.yaml");
      const stored = await opened.store.getSnapshot(opened.orgId, monitor.id, first.snapshot!.id);
      expect(JSON.parse(stored!.body!)).toMatchObject({ root: `${server().url}/v1/openapi.yaml`, documents: { [`${server().url}/v1/schemas/pet.yaml`]: petV1 } });

      // the next version: `tag` gone from the response (in the referenced document only), /pets removed, a new optional query parameter
      clock.advance(60_000);
      server().set("/v1/schemas/pet.yaml", petV1.replace("    tag: { type: string }\n", ""));
      server().set(
        "/v1/openapi.yaml",
        v1
          .replace(/ {2}\/pets:\n {4}get:\n {6}operationId: listPets\n {6}responses:\n {8}"200": \{ description: pets \}\n/, "")
          .replace("        - { name: id, in: path, required: true, schema: { type: string } }\n", "        - { name: id, in: path, required: true, schema: { type: string } }\n        - { name: fields, in: query, schema: { type: string } }\n"),
      );
      const second = await checks.runCheck(first.monitor, { requestId: "req_2" });
      expect(second.result).toBe("changed");
      const diff = second.diff!;
      if (diff.classification !== "api_change") throw new Error(`expected an api_change diff, got ${diff.classification}`);
      const rules = diff.changes.map((change) => [change.rule, change.level, change.operation, change.category]);
      expect(rules).toEqual(
        expect.arrayContaining([
          ["api-path-removed-without-deprecation", "breaking", "GET /pets", "api"],
          ["response-optional-property-removed", "potentially-breaking", "GET /pets/{id}", "api"],
          ["new-optional-request-parameter", "non-breaking", "GET /pets/{id}", "api"],
        ]),
      );
      // breaking first, severities from the rules' levels
      expect(diff.changes[0]!.level).toBe("breaking");
      expect(diff.changes.at(-1)!.level).toBe("non-breaking");
      for (const change of diff.changes) {
        expect(change.severity).toBe(change.level === "breaking" ? (change.severity === "critical" ? "critical" : "high") : change.level === "potentially-breaking" ? "medium" : "info");
      }
      expect(diff.topSeverity).not.toBe("info");
      expect(diff.schemaChanges).toBe(diff.changes.filter((change) => change.level !== "non-breaking").length);
      expect(diff.valueChanges).toBe(diff.changes.filter((change) => change.level === "non-breaking").length);

      // descriptions only: a new snapshot, no diff
      clock.advance(60_000);
      server().set("/v1/schemas/pet.yaml", petV1.replace("    tag: { type: string }\n", "").replace("type: object", "type: object\n  description: A pet"));
      const third = await checks.runCheck(second.monitor, { requestId: "req_3" });
      expect(third.result).toBe("new_snapshot");
      expect(third.diff).toBeNull();
    } finally {
      await checks.close();
    }
  });

  it("a document that cannot be read is a failed check with the reason: not YAML, Swagger 2.0, a $ref to another origin, a missing $ref target", async () => {
    const checks = createCheckService({ store: opened.store, httpFetcher: fetcher, now: clock.now });
    try {
      const cases: Array<[string, string, RegExp]> = [
        ["/bad/broken.yaml", "openapi: 3.0.3\npaths: [unclosed\n", /invalid_document/],
        ["/bad/swagger.json", JSON.stringify({ swagger: "2.0", info: { title: "t", version: "1" }, paths: {} }), /swagger_2_unsupported.*Swagger 2\.0/],
        [
          "/bad/foreign.yaml",
          'openapi: 3.1.0\ninfo: { title: t, version: "1" }\npaths:\n  /a:\n    get:\n      responses:\n        "200": { $ref: "https://example.com/r.yaml#/R" }\n',
          /external_ref_refused.*only documents of the same origin/,
        ],
        ["/bad/missing.yaml", 'openapi: 3.1.0\ninfo: { title: t, version: "1" }\npaths:\n  /a:\n    get:\n      responses:\n        "200": { $ref: "nowhere.yaml#/R" }\n', /load_failed.*HTTP 404/],
      ];
      for (const [path, text, reason] of cases) {
        server().set(path, text);
        const monitor = await createMonitor(opened.store, opened.orgId, { type: "openapi", url: `${server().url}${path}` });
        const outcome = await checks.runCheck(monitor, { requestId: "req_bad" });
        expect(outcome.result, path).toBe("failed");
        expect(outcome.error?.code, path).toBe("invalid_body");
        expect(outcome.monitor.lastError, path).toMatch(/The OpenAPI document cannot be read/);
        expect(outcome.monitor.lastError, path).toMatch(reason);
        expect(outcome.monitor.consecutiveFailures, path).toBe(1);
      }
    } finally {
      await checks.close();
    }
  });

  it("documents that $refs point to are read through the fetcher and its SSRF guard", async () => {
    const guarded = createHttpFetcher({ allowPrivateNetworks: false });
    const root = `${server().url}/v1/openapi.yaml`;
    // the root document comes through (as a public host's would); its $ref, to a loopback address, meets the guard
    const split: Fetcher = { fetch: (request) => (request.url === root ? fetcher.fetch(request) : guarded.fetch(request)), close: async () => {} };
    const checks = createCheckService({ store: opened.store, httpFetcher: split, now: clock.now });
    try {
      const monitor = await createMonitor(opened.store, opened.orgId, { type: "openapi", url: root });
      const outcome = await checks.runCheck(monitor, { requestId: "req_guard" });
      expect(outcome.result).toBe("failed");
      expect(outcome.monitor.lastError).toMatch(/load_failed: cannot read http:\/\/127\.0\.0\.1:\d+\/v1\/schemas\/pet\.yaml/);
    } finally {
      await checks.close();
      await guarded.close();
    }
  });

  it("an api monitor with a contract: violations are contract changes, reported by the first check that has them", async () => {
    server().set("/c/openapi.yaml", v1);
    server().set("/c/schemas/pet.yaml", petV1);
    server().set("/api/pets/1.json", JSON.stringify({ id: "1", name: "Rex", tag: "dog" }));
    const spec = await createMonitor(opened.store, opened.orgId, { type: "openapi", url: `${server().url}/c/openapi.yaml` });
    const checks = createCheckService({ store: opened.store, httpFetcher: fetcher, now: clock.now });
    try {
      // the contract names the openapi monitor: its newest snapshot is the document
      expect((await checks.runCheck(spec, { requestId: "req_spec" })).result).toBe("new_snapshot");
      const api = await createMonitor(opened.store, opened.orgId, { url: `${server().url}/api/pets/1.json`, contract: { document: { monitorId: spec.id }, operation: "getPet" } });
      const conforming = await checks.runCheck(api, { requestId: "req_ok" });
      expect(conforming.result).toBe("new_snapshot");
      expect(conforming.diff).toBeNull();

      // `name` dropped and `id` a number: two high violations, and the JSON diff's own changes after them
      clock.advance(60_000);
      server().set("/api/pets/1.json", JSON.stringify({ id: 1, tag: "dog" }));
      const broken = await checks.runCheck(conforming.monitor, { requestId: "req_broken" });
      expect(broken.result).toBe("changed");
      const contract = broken.diff!.changes.filter((change) => change.category === "contract");
      expect(contract.map((change) => [change.path, change.keyword, change.severity, change.operation])).toEqual([
        ["$.name", "required", "high", "GET /pets/{id}"],
        ["$.id", "type", "high", "GET /pets/{id}"],
      ]);
      expect(contract[1]!.schemaPath).toBe(`${server().url}/c/schemas/pet.yaml#/Pet/properties/id/type`);
      expect(broken.diff!.changes.some((change) => change.category === "schema")).toBe(true);
      // the JSON diff rates the type change of `id` critical itself
      expect(broken.diff!.topSeverity).toBe("critical");

      // still broken, another value changed: the violations were reported already
      clock.advance(60_000);
      server().set("/api/pets/1.json", JSON.stringify({ id: 1, tag: "cat" }));
      const again = await checks.runCheck(broken.monitor, { requestId: "req_again" });
      expect(again.diff?.changes.filter((change) => change.category === "contract") ?? []).toEqual([]);

      // a contract naming an operation the document does not have: a failed check that says so
      const wrong = await createMonitor(opened.store, opened.orgId, { url: `${server().url}/api/pets/1.json`, contract: { document: `${server().url}/c/openapi.yaml`, operation: "nope" } });
      const failed = await checks.runCheck(wrong, { requestId: "req_wrong" });
      expect(failed.result).toBe("failed");
      expect(failed.monitor.lastError).toBe('contract_failed: The contract cannot be applied: the document has no operation operationId "nope"');

      // by URL, a first response that violates it: a contract_violation diff without a previous snapshot
      const first = await createMonitor(opened.store, opened.orgId, { url: `${server().url}/api/pets/1.json`, contract: { document: `${server().url}/c/openapi.yaml`, operation: { method: "GET", path: "/pets/{id}" } } });
      const firstCheck = await checks.runCheck(first, { requestId: "req_first" });
      expect(firstCheck.result).toBe("changed");
      expect(firstCheck.diff).toMatchObject({ classification: "contract_violation", previousSnapshotId: null, topSeverity: "high" });
    } finally {
      await checks.close();
    }
  });

  it("JSON pointers of changes become JSONPath", () => {
    expect(pointerToJsonPath("/paths/~1pets~1{id}/get/responses/200")).toBe("$.paths['/pets/{id}'].get.responses[200]");
    expect(pointerToJsonPath("")).toBe("$");
    expect(pointerToJsonPath("/components/schemas/Pet's")).toBe("$.components.schemas['Pet\\'s']");
  });
});

describe("openapi comparison in a worker thread", () => {
  it("compares two versions in the compare pool's worker thread (dist build), and refuses an unreadable one there", async () => {
    const { createComparePool } = await import("../src/workers/compare-pool.js");
    const pool = createComparePool({ workerThresholdBytes: 0 });
    try {
      const previous = 'openapi: 3.1.0\ninfo: { title: t, version: "1" }\npaths:\n  /a:\n    get:\n      responses: { "200": { description: ok } }\n  /b:\n    get:\n      responses: { "200": { description: ok } }\n';
      const body = 'openapi: 3.1.0\ninfo: { title: t, version: "2" }\npaths:\n  /a:\n    get:\n      responses: { "200": { description: ok } }\n';
      const result = await pool.compare({ type: "openapi", url: "https://x/openapi.yaml", body, previousBody: previous, policy: { rules: [] }, selector: null });
      if (!result.ok || result.diff === null) throw new Error(`expected a diff: ${JSON.stringify(result)}`);
      expect(result.diff.classification).toBe("api_change");
      expect(result.diff.changes.map((change) => change.rule)).toEqual(["api-path-removed-without-deprecation"]);
      const broken = await pool.compare({ type: "openapi", url: "https://x/openapi.yaml", body: '{"swagger":"2.0"}', previousBody: previous, policy: { rules: [] }, selector: null });
      expect(broken).toMatchObject({ ok: false, code: "invalid_body" });
    } finally {
      await pool.close();
    }
  });
});

describe("webhook events of API changes", () => {
  it("carry each change's rule, level, operation and keyword", async () => {
    const { buildPendingDiffDetectedEvent } = await import("@driftwatch/core");
    const event = buildPendingDiffDetectedEvent(
      {
        id: "dif_1",
        monitorId: "mon_1",
        snapshotId: "snp_1",
        classification: "api_change",
        schemaChanges: 1,
        valueChanges: 0,
        changes: [
          { path: "$.paths['/pets'].get", category: "api", op: "remove", severity: "critical", rule: "api-path-removed-without-deprecation", level: "breaking", operation: "GET /pets" },
          { path: "$.name", category: "contract", op: "remove", severity: "high", keyword: "required", operation: "GET /pets/{id}" },
          { path: "$.price", category: "value", op: "replace", severity: "info" },
        ],
      },
      { occurredAt: new Date("2026-01-01T00:00:00Z") },
    );
    expect(event.data.changes).toEqual([
      { path: "$.paths['/pets'].get", category: "api", op: "remove", severity: "critical", rule: "api-path-removed-without-deprecation", level: "breaking", operation: "GET /pets" },
      { path: "$.name", category: "contract", op: "remove", severity: "high", keyword: "required", operation: "GET /pets/{id}" },
      { path: "$.price", category: "value", op: "replace", severity: "info" },
    ]);
    expect(event.data).toMatchObject({ classification: "api_change", schemaChanges: 1, valueChanges: 0 });
  });
});
