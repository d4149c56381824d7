// npm run bench (server): GET /api/monitors/{id}/diffs/{diffId} of the reference server on SQLite
// (auth, rate limiting, store read, presentation) against a bare Fastify route returning the same
// JSON, both at 50 connections with autocannon, side by side in one run. SPEC section 7: at least
// 0.5 x the bare route's requests/s, p99 under 20 ms.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Fastify from "fastify";
import { pino } from "pino";
import { createDriftwatchServer } from "../src/service.js";

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.DRIFTWATCH_BENCH_SECONDS ?? 8);
const ROUNDS = 2;
const RATIO_BUDGET = 0.5;
const P99_BUDGET_MS = 20;

const here = path.dirname(fileURLToPath(import.meta.url));
const reportModule = path.resolve(here, "../../../tooling/bench-report.mjs");
const { writeBenchSection } = (await import(reportModule)) as { writeBenchSection(name: string, markdown: string): void };
const require = (await import("node:module")).createRequire(import.meta.url);
const autocannonCli = path.join(path.dirname(require.resolve("autocannon/package.json")), "autocannon.js");

// A JSON target with two versions, so the monitor gets one real diff.
let targetBody = JSON.stringify({ price: 10, currency: "EUR", items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}`, stock: i })) });
const target = http.createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(targetBody));
await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/data.json`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-server-bench-"));
const token = "dw_" + randomBytes(32).toString("base64url");
const server = await createDriftwatchServer({
  databaseUrl: `sqlite:${path.join(dir, "bench.db")}`,
  host: "127.0.0.1",
  port: 0,
  allowPrivateNetworks: true,
  adminToken: token,
  rateLimitReads: 1_000_000_000,
  rateLimitWrites: 1_000_000_000,
  background: false,
  logger: pino({ level: "warn" }),
});
await server.bootstrap();
const base = await server.listen();
const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
const post = async (url: string, body?: unknown): Promise<any> => {
  const res = await fetch(base + url, { method: "POST", headers: auth, body: JSON.stringify(body ?? {}) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json();
};
const monitor = await post("/api/monitors", { type: "api", url: targetUrl, intervalSeconds: 3600 });
await post(`/api/monitors/${monitor.id}/check`);
targetBody = JSON.stringify({ price: "10", items: Array.from({ length: 21 }, (_, i) => ({ id: i - 1, name: `item ${i}`, stock: i * 2 })) });
const checked = await post(`/api/monitors/${monitor.id}/check`);
const diffPath = `/api/monitors/${monitor.id}/diffs/${checked.diff.id}`;
const served = await fetch(base + diffPath, { headers: auth });
if (served.status !== 200) throw new Error(`GET diff: ${served.status}`);
const diffJson = (await served.json()) as unknown;
const bytes = JSON.stringify(diffJson).length;

// The peer: bare Fastify, no logger, the same route shape returning the same object.
const bare = Fastify({ logger: false });
bare.get("/api/monitors/:id/diffs/:diffId", async () => diffJson);
const bareBase = await bare.listen({ port: 0, host: "127.0.0.1" });

interface Result {
  rps: number;
  p99: number;
  p50: number;
  errors: number;
  non2xx: number;
}

async function cannon(url: string, headers: Record<string, string>, seconds: number): Promise<Result> {
  const args = [autocannonCli, "-c", String(CONNECTIONS), "-d", String(seconds), "-j", "--renderStatusCodes"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}=${v}`);
  args.push(url);
  // A separate process, so the load generator does not share an event loop with either server.
  const { stdout: out } = await promisify(execFile)(process.execPath, args, { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
  const json = JSON.parse(out.slice(out.indexOf("{"))) as {
    requests: { average: number };
    latency: { p99: number; p50: number };
    errors: number;
    non2xx: number;
  };
  return { rps: json.requests.average, p99: json.latency.p99, p50: json.latency.p50, errors: json.errors, non2xx: json.non2xx };
}

const dwHeaders = { authorization: `Bearer ${token}` };
const loadBefore = os.loadavg()[0]!.toFixed(2);
await cannon(base + diffPath, dwHeaders, 2); // warm up both
await cannon(bareBase + diffPath, {}, 2);
const dwRuns: Result[] = [];
const bareRuns: Result[] = [];
for (let round = 0; round < ROUNDS; round++) {
  bareRuns.push(await cannon(bareBase + diffPath, {}, DURATION_S));
  dwRuns.push(await cannon(base + diffPath, dwHeaders, DURATION_S));
}
const best = (runs: Result[]): Result => runs.reduce((a, b) => (b.rps > a.rps ? b : a));
const dw = best(dwRuns);
const peer = best(bareRuns);
const ratio = dw.rps / peer.rps;
for (const r of [...dwRuns, ...bareRuns]) if (r.errors > 0 || r.non2xx > 0) throw new Error(`failed requests in a run: ${JSON.stringify(r)}`);

await bare.close();
await server.close();
await new Promise<void>((r) => target.close(() => r()));
fs.rmSync(dir, { recursive: true, force: true });

const ok = (pass: boolean): string => (pass ? "yes" : "**no**");
const markdown = `## Reference server: one diff over HTTP (\`@driftwatch/server\`)

\`GET /api/monitors/{id}/diffs/{diffId}\` (${bytes} bytes of JSON) on SQLite, with bearer-token auth,
per-organization rate limiting and the request log at \`warn\`, against a bare Fastify route
returning the same object. autocannon in its own process, ${CONNECTIONS} connections, best of ${ROUNDS}
runs of ${DURATION_S} s each, alternating. Load average before: ${loadBefore}.

| | requests/s | p50 | p99 |
|---|---:|---:|---:|
| driftwatch server | ${Math.round(dw.rps)} | ${dw.p50} ms | ${dw.p99} ms |
| bare Fastify route | ${Math.round(peer.rps)} | ${peer.p50} ms | ${peer.p99} ms |

| budget (SPEC section 7) | measured | met |
|---|---:|---|
| requests/s at least ${RATIO_BUDGET} x the bare route | ${ratio.toFixed(2)} x | ${ok(ratio >= RATIO_BUDGET)} |
| p99 under ${P99_BUDGET_MS} ms | ${dw.p99} ms | ${ok(dw.p99 < P99_BUDGET_MS)} |

At 50 connections on a shared 2-core machine, p99 is mostly queueing: with both servers and the
load generator on the same cores, it measures the machine as much as the server.`;
writeBenchSection("server", markdown);
console.log(markdown);
