// "Nothing a target or a tenant sends may block the event loop" (issue 30): an OpenAPI document
// too big to read inline, an `openapi` monitor's or a contract's, is read, diffed and checked
// against in the compare pool's worker threads. The main thread's reads are counted through a
// wrapper of @driftwatch/openapi: the worker threads load the package on their own, unwrapped.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { MonitorRecord } from "@driftwatch/core";
import type * as OpenApi from "@driftwatch/openapi";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createCheckService, createComparePool, OPENAPI_INLINE_YAML_BYTES } from "../src/index.js";
import { InlineBudget, openApiContentsInline } from "../src/openapi/offload.js";
import { encodeBundle } from "../src/openapi/bundle.js";
import { createMonitor, manualClock, openTempStore } from "./fixtures.js";

/** OpenAPI texts the main thread parsed (each document a `loadOpenApi` read, each `parseOpenApi`). */
const mainThread = vi.hoisted(() => ({ documents: 0, bytes: 0 }));

vi.mock("@driftwatch/openapi", async (importOriginal) => {
  const real = await importOriginal<typeof OpenApi>();
  return {
    ...real,
    parseOpenApi: (input: string | OpenApi.JsonObject, options?: OpenApi.ParseOptions) => {
      if (typeof input === "string") {
        mainThread.documents += 1 + Object.keys(options?.documents ?? {}).length;
        mainThread.bytes += input.length + Object.values(options?.documents ?? {}).reduce((sum, text) => sum + text.length, 0);
      }
      return real.parseOpenApi(input, options);
    },
    loadOpenApi: (url: string | URL, options: OpenApi.LoadOptions = {}) =>
      real.loadOpenApi(url, {
        ...options,
        // a text the loader hands back is parsed here, on this thread
        ...(options.loader === undefined
          ? {}
          : {
              loader: async (target: URL, maxBytes: number) => {
                const text = await options.loader!(target, maxBytes);
                mainThread.documents += 1;
                mainThread.bytes += text.length;
                return text;
              },
            }),
      }),
  };
});

/**
 * The costliest kind of YAML within the limits: compact flow maps, about 5 YAML nodes per 9
 * bytes (the limit of a million nodes is about 1.7 MB of them, 6-7 s to read on a 2-core machine).
 * `items` of them under an extension of a document whose `GET /pets/{id}` answers a Pet.
 */
function worstCaseYaml(items: number, version = "1"): string {
  const lines = [
    "openapi: 3.0.3",
    `info: { title: Pets, version: "${version}" }`,
    "paths:",
    "  /pets/{id}:",
    "    get:",
    "      operationId: getPet",
    "      responses:",
    '        "200":',
    "          description: a pet",
    "          content:",
    "            application/json:",
    "              schema: { $ref: '#/components/schemas/Pet' }",
  ];
  if (version === "1") lines.push("  /pets:", "    get:", "      operationId: listPets", "      responses:", '        "200": { description: pets }');
  lines.push("components:", "  schemas:", "    Pet:", "      type: object", "      required: [id, name]", "      properties:", "        id: { type: string }", "        name: { type: string }", "x-data:");
  for (let i = 0; i < items; i++) lines.push("- {a: 1}");
  return `${lines.join("\n")}\n`;
}

const SMALL = worstCaseYaml(10);
// about 200,000 YAML nodes: a second or more to read, far above the inline size
const BIG = worstCaseYaml(40_000);
const BIG_V2 = worstCaseYaml(40_000, "2");

async function startDocs(): Promise<{ url: string; set(path: string, text: string): void; close(): Promise<void> }> {
  const texts = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const text = texts.get(req.url ?? "/");
    if (text === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": req.url?.endsWith(".json") === true ? "application/json" : "application/yaml" }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    set: (path, text) => void texts.set(path, text),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("which OpenAPI documents are read inline", () => {
  it("16 KiB in all, JSON or YAML, and never more than the worker threshold", () => {
    const threshold = 256 * 1024;
    expect(openApiContentsInline([SMALL, SMALL], threshold)).toBe(true);
    expect(openApiContentsInline([SMALL, null], threshold)).toBe(true);
    const yaml = worstCaseYaml(1700);
    expect(yaml.length).toBeLessThan(OPENAPI_INLINE_YAML_BYTES);
    expect(openApiContentsInline([yaml], threshold)).toBe(true);
    expect(openApiContentsInline([yaml, yaml], threshold)).toBe(false); // a version and the previous one
    // JSON is no exception: a diff of two big JSON documents takes seconds
    const json = JSON.stringify({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths: {}, "x-data": Array.from({ length: 3000 }, () => ({ a: 1 })) });
    expect(json.length).toBeGreaterThan(OPENAPI_INLINE_YAML_BYTES);
    expect(openApiContentsInline([json], threshold)).toBe(false);
    // a bundle counts whole
    expect(openApiContentsInline([encodeBundle({ root: "https://x/a.yaml", documents: { "https://x/a.yaml": yaml, "https://x/b.yaml": yaml } })], threshold)).toBe(false);
    expect(openApiContentsInline([SMALL], 100)).toBe(false);
    const budget = new InlineBudget(threshold);
    expect(budget.add(yaml)).toBe(true);
    expect(budget.add(SMALL)).toBe(false); // the documents together
    expect(budget.inline).toBe(false);
  });
});

describe("big OpenAPI documents are read in the compare pool's worker threads", () => {
  const clock = manualClock();
  let opened: Awaited<ReturnType<typeof openTempStore>>;
  let docs: Awaited<ReturnType<typeof startDocs>>;
  const fetcher = createHttpFetcher({ allowPrivateNetworks: true });
  beforeAll(async () => {
    opened = await openTempStore(clock.now);
    docs = await startDocs();
  });
  afterAll(async () => {
    await fetcher.close();
    await docs.close();
    await opened.cleanup();
  });
  beforeEach(() => {
    mainThread.documents = 0;
    mainThread.bytes = 0;
  });

  it("an openapi monitor: a small document is read on the main thread, a worst-case YAML one only in a worker, and its diff too", async () => {
    const pool = createComparePool({ workers: 1 });
    const checks = createCheckService({ store: opened.store, httpFetcher: fetcher, now: clock.now, compare: pool });
    try {
      docs.set("/small.yaml", SMALL);
      const small = await createMonitor(opened.store, opened.orgId, { type: "openapi", url: `${docs.url}/small.yaml` });
      expect((await checks.runCheck(small, { requestId: "req_small" })).result).toBe("new_snapshot");
      // the control: the counting sees reads on this thread
      expect(mainThread.documents).toBeGreaterThanOrEqual(2); // read once to bundle it, once to validate it
      expect(pool.offloaded).toBe(0);

      mainThread.documents = 0;
      mainThread.bytes = 0;
      docs.set("/big.yaml", BIG);
      const big = await createMonitor(opened.store, opened.orgId, { type: "openapi", url: `${docs.url}/big.yaml` });
      const first = await checks.runCheck(big, { requestId: "req_big" });
      expect(first.result).toBe("new_snapshot");
      expect(first.snapshot!.body).toBe(BIG);
      expect(mainThread).toEqual({ documents: 0, bytes: 0 });
      expect(pool.offloaded).toBe(2); // read (and bundled), then validated

      clock.advance(60_000);
      docs.set("/big.yaml", BIG_V2);
      const second = await checks.runCheck(first.monitor, { requestId: "req_big_2" });
      expect(second.result).toBe("changed");
      expect(second.diff).toMatchObject({ classification: "api_change" });
      expect(second.diff!.changes.map((change) => change.rule)).toContain("api-path-removed-without-deprecation");
      expect(mainThread).toEqual({ documents: 0, bytes: 0 });
      expect(pool.offloaded).toBe(4);
    } finally {
      await checks.close();
      await pool.close();
    }
  }, 300_000);

  it("a contract whose document is a worst-case YAML: read and checked against in a worker, the violations as inline", async () => {
    const pool = createComparePool({ workers: 1 });
    const checks = createCheckService({ store: opened.store, httpFetcher: fetcher, now: clock.now, compare: pool });
    try {
      docs.set("/contract/big.yaml", BIG);
      docs.set("/contract/small.yaml", SMALL);
      docs.set("/pets/1.json", JSON.stringify({ id: 1 }));
      const results: unknown[] = [];
      const checked: Record<string, MonitorRecord> = {};
      for (const name of ["small", "big"]) {
        mainThread.documents = 0;
        const api = await createMonitor(opened.store, opened.orgId, { url: `${docs.url}/pets/1.json`, contract: { document: `${docs.url}/contract/${name}.yaml`, operation: "getPet" } });
        const outcome = await checks.runCheck(api, { requestId: `req_${name}` });
        expect(outcome.result).toBe("changed");
        checked[name] = outcome.monitor;
        results.push(outcome.diff!.changes.map((change) => [change.path, change.keyword, change.schemaPath, change.schemaExcerpt]));
        if (name === "small") expect(mainThread.documents).toBe(1);
        else expect(mainThread.documents).toBe(0);
      }
      expect(results[1]).toEqual(results[0]);
      expect(results[0]).toEqual([
        ["$.name", "required", "/components/schemas/Pet/required", { type: "object", required: ["id", "name"], properties: { id: { type: "string" }, name: { type: "string" } } }],
        ["$.id", "type", "/components/schemas/Pet/properties/id/type", { type: "string" }],
      ]);
      const offloaded = pool.offloaded;
      expect(offloaded).toBe(2); // the document read, then the response checked

      // the next response of the big contract: only the violation it did not have, checked in the worker again
      clock.advance(60_000);
      docs.set("/pets/1.json", JSON.stringify({ id: 1, name: 2 }));
      const next = await checks.runCheck(checked.big!, { requestId: "req_big_next" });
      expect(next.diff!.changes.filter((change) => change.category === "contract").map((change) => [change.path, change.keyword])).toEqual([["$.name", "type"]]);
      expect(pool.offloaded).toBe(offloaded + 1); // the document was kept: only the check ran
      expect(mainThread.documents).toBe(0);

      // the contract names an openapi monitor whose stored document is big: read in the worker too
      docs.set("/spec/big.yaml", BIG);
      const spec = await createMonitor(opened.store, opened.orgId, { type: "openapi", url: `${docs.url}/spec/big.yaml` });
      expect((await checks.runCheck(spec, { requestId: "req_spec" })).result).toBe("new_snapshot");
      mainThread.documents = 0;
      const byMonitor = await createMonitor(opened.store, opened.orgId, { url: `${docs.url}/pets/1.json`, contract: { document: { monitorId: spec.id }, operation: "getPet" } });
      const viaSpec = await checks.runCheck(byMonitor, { requestId: "req_by_monitor" });
      // a first response: all its violations
      expect(viaSpec.diff!.changes.filter((change) => change.category === "contract").map((change) => [change.path, change.keyword])).toEqual([
        ["$.id", "type"],
        ["$.name", "type"],
      ]);
      expect(mainThread.documents).toBe(0);

      // a contract that cannot be applied says so, from the worker as inline
      const wrong = await createMonitor(opened.store, opened.orgId, { url: `${docs.url}/pets/1.json`, contract: { document: { monitorId: spec.id }, operation: "nope" } });
      const failed = await checks.runCheck(wrong, { requestId: "req_wrong" });
      expect(failed.monitor.lastError).toBe('contract_failed: The contract cannot be applied: the document has no operation operationId "nope"');
    } finally {
      await checks.close();
      await pool.close();
    }
  }, 300_000);

  it("reading in a worker has a time limit: past it the check fails with analysis_timeout, and the event loop was not held", async () => {
    const pool = createComparePool({ workers: 1, compareTimeoutMs: 50 });
    const checks = createCheckService({ store: opened.store, httpFetcher: fetcher, now: clock.now, compare: pool });
    try {
      docs.set("/slow.yaml", BIG);
      const monitor = await createMonitor(opened.store, opened.orgId, { type: "openapi", url: `${docs.url}/slow.yaml` });
      const failed = await checks.runCheck(monitor, { requestId: "req_slow" });
      expect(failed.result).toBe("failed");
      expect(failed.monitor.lastError).toBe("invalid_body: The OpenAPI document cannot be read: analysis_timeout: Reading the OpenAPI document took longer than 50 ms and was stopped");
      expect(mainThread.documents).toBe(0);
    } finally {
      await checks.close();
      await pool.close();
    }
  }, 300_000);
});
