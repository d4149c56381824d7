// The event loop while the server reads a worst-case YAML OpenAPI document (issue 30): a server
// as `driftwatch serve` runs it on SQLite checks an `openapi` monitor of the document, then an
// `api` monitor whose contract is that document, while /healthz is asked again and again (one
// request at a time). Prints the /healthz answers during each check and the slowest of them.
//
// The slowest /healthz and the event loop's longest delay also show the machine's load (a busy
// 2-core machine delays a thread that is not blocked): the first line measures them idle.
//
//   node --conditions=@driftwatch/source --import tsx bench/openapi-event-loop.ts [items] [path of src/service.ts]
//
// `items`: lines `- {a: 1}` of the document (default 190,000, about 950,000 YAML nodes: the most
// the default `maxYamlNodes` lets through). The second argument measures another checkout.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { pino } from "pino";
import { listenLoopback, tempDir } from "./support.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const items = Number(process.argv[2] ?? 190_000);
const servicePath = process.argv[3] ?? path.join(here, "../src/service.ts");
const { createDriftwatchServer } = (await import(pathToFileURL(servicePath).href)) as typeof import("../src/service.js");

function worstCaseYaml(count: number, version: string): string {
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
    "components:",
    "  schemas:",
    "    Pet: { type: object, required: [id, name], properties: { id: { type: string }, name: { type: string } } }",
    "x-data:",
  ];
  for (let i = 0; i < count; i++) lines.push("- {a: 1}");
  return `${lines.join("\n")}\n`;
}

const documents: Record<string, string> = { "/spec.yaml": worstCaseYaml(items, "1"), "/pets/1.json": JSON.stringify({ id: 1 }) };
const docs = await listenLoopback((req, res) => {
  const text = documents[req.url ?? "/"];
  if (text === undefined) res.writeHead(404).end();
  else res.writeHead(200, { "content-type": req.url!.endsWith(".json") ? "application/json" : "application/yaml" }).end(text);
});
const dir = tempDir("dw-openapi-loop-");
const token = "dw_" + randomBytes(32).toString("base64url");
const server = await createDriftwatchServer({
  databaseUrl: `sqlite:${path.join(dir.dir, "bench.db")}`,
  host: "127.0.0.1",
  port: 0,
  allowPrivateNetworks: true,
  adminToken: token,
  rateLimitReads: 1_000_000_000,
  logger: pino({ level: "silent" }),
});
await server.bootstrap();
const base = await server.listen();
const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
const post = async (url: string, body?: unknown): Promise<any> => {
  const res = await fetch(base + url, { method: "POST", headers, body: JSON.stringify(body ?? {}) });
  return res.json();
};

/** /healthz one request after the other while `work` runs: how many answered, and the slowest. */
async function whileProbing(name: string, work: () => Promise<string>): Promise<void> {
  const latencies: number[] = [];
  let running = true;
  const probe = (async () => {
    while (running) {
      const started = performance.now();
      await (await fetch(`${base}/healthz`)).text();
      latencies.push(performance.now() - started);
    }
  })();
  // the server's own event loop (this process): its longest delay
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const outcome = await work();
  const took = performance.now() - started;
  delay.disable();
  running = false;
  await probe;
  const max = Math.max(...latencies);
  console.log(
    `${name}: ${outcome}, ${took.toFixed(0)} ms; /healthz answered ${String(latencies.length)} times, slowest ${max.toFixed(0)} ms; event loop delay max ${(delay.max / 1e6).toFixed(0)} ms`,
  );
}

console.log(`document: ${String(documents["/spec.yaml"]!.length)} bytes of YAML (${String(items)} items); ${servicePath}`);
try {
  await whileProbing("nothing (the machine's noise)", async () => {
    await new Promise((resolve) => setTimeout(resolve, 3000));
    return "idle";
  });
  const spec = await post("/api/monitors", { type: "openapi", url: `${docs.url}/spec.yaml`, intervalSeconds: 3600 });
  await whileProbing("openapi monitor, first check", async () => {
    const checked = await post(`/api/monitors/${spec.id}/check`);
    return checked.snapshot ? "new snapshot" : `${String(checked.code ?? checked.reason ?? "")} ${String(checked.detail ?? "")}`.slice(0, 160);
  });
  documents["/spec.yaml"] = worstCaseYaml(items, "2");
  await whileProbing("openapi monitor, second version", async () => {
    const checked = await post(`/api/monitors/${spec.id}/check`);
    if (checked.diff) return `diff ${String(checked.diff.classification)}`;
    return checked.snapshot ? "new snapshot (no API change)" : `${String(checked.code ?? "")} ${String(checked.detail ?? "")}`.slice(0, 160);
  });
  const api = await post("/api/monitors", { type: "api", url: `${docs.url}/pets/1.json`, intervalSeconds: 3600, contract: { document: `${docs.url}/spec.yaml`, operation: "getPet" } });
  await whileProbing("api monitor with the document as contract", async () => {
    const checked = await post(`/api/monitors/${api.id}/check`);
    return checked.diff ? `diff ${String(checked.diff.classification)}, ${String(checked.diff.changes.length)} changes` : `${String(checked.code ?? "")} ${String(checked.detail ?? "")}`.slice(0, 160);
  });
} finally {
  await server.close();
  await docs.close();
  dir.remove();
}
