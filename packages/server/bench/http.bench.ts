// npm run bench (server): GET /api/monitors/{id}/diffs/{diffId} of the reference server on SQLite
// (auth, rate limiting, store read, presentation) against a bare Fastify route returning the same
// JSON bytes, both at 50 connections with autocannon, side by side in one run. The budget: at
// least 0.5 x the bare route's requests/s, p99 under 20 ms.
//
// The server runs as `driftwatch serve` runs it by default on SQLite: scheduler and delivery
// worker on, the request log at DRIFTWATCH_LOG_LEVEL (default info) written synchronously to a
// file (as a deployment redirecting stdout would), metrics, auth, rate limiting. Only the read
// limit is raised, through the documented setting (DRIFTWATCH_RATE_LIMIT_READS), so the bench's
// ~10^5 requests a minute are not answered 429. Rounds alternate which server goes first; the
// figures are medians over the rounds.
import fs from "node:fs";
import os from "node:os";
import Fastify from "fastify";
import { createDriftwatchServer } from "../src/service.js";
import { cannon, median, serveOneDiff, startDiffTarget, tempDir, writeBenchSection, type CannonResult } from "./support.js";

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.DRIFTWATCH_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.DRIFTWATCH_BENCH_ROUNDS ?? 5);
const WARMUP_S = 3;
const RATIO_BUDGET = 0.5;
const P99_BUDGET_MS = 20;

const target = await startDiffTarget();
const temp = tempDir("dw-server-bench-");
const logLevel = process.env.DRIFTWATCH_LOG_LEVEL ?? "info";
const served = await serveOneDiff(createDriftwatchServer, temp.dir, target, logLevel);
const { base, diffPath, servedText, logFile } = served;
const diffJson = JSON.parse(servedText) as unknown;
const bytes = Buffer.byteLength(servedText);

// The peer: bare Fastify, no logger, the same route shape returning the same object (serialised
// per request by Fastify, as a route returning an object is).
const bare = Fastify({ logger: false });
bare.get("/api/monitors/:id/diffs/:diffId", async () => diffJson);
const bareBase = await bare.listen({ port: 0, host: "127.0.0.1" });
const bareText = await (await fetch(bareBase + diffPath)).text();
if (bareText !== servedText) throw new Error("the bare route does not answer the same bytes as the server");

type Result = CannonResult;
const run = (url: string, headers: Record<string, string>, seconds: number): Promise<Result> => cannon(url, headers, seconds, CONNECTIONS);

const dwHeaders = served.headers;
const loadBefore = os.loadavg()[0]!.toFixed(2);
await run(base + diffPath, dwHeaders, WARMUP_S); // warm up both
await run(bareBase + diffPath, {}, WARMUP_S);
const dwRuns: Result[] = [];
const bareRuns: Result[] = [];
const ratios: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // alternate which goes first, so a drift in machine load does not favour one side
  const runDw = async (): Promise<Result> => run(base + diffPath, dwHeaders, DURATION_S);
  const runBare = async (): Promise<Result> => run(bareBase + diffPath, {}, DURATION_S);
  let bareRun: Result;
  let dwRun: Result;
  if (round % 2 === 0) {
    bareRun = await runBare();
    dwRun = await runDw();
  } else {
    dwRun = await runDw();
    bareRun = await runBare();
  }
  bareRuns.push(bareRun);
  dwRuns.push(dwRun);
  ratios.push(dwRun.rps / bareRun.rps);
}
const loadAfter = os.loadavg()[0]!.toFixed(2);
const summary = (runs: Result[]) => ({
  rps: median(runs.map((r) => r.rps)),
  p50: median(runs.map((r) => r.p50)),
  p99: median(runs.map((r) => r.p99)),
  cpuUs: median(runs.map((r) => r.cpuUs)),
});
const dw = summary(dwRuns);
const peer = summary(bareRuns);
const ratio = median(ratios);
for (const r of [...dwRuns, ...bareRuns]) if (r.errors > 0 || r.non2xx > 0) throw new Error(`failed requests in a run: ${JSON.stringify(r)}`);
const logLines = fs.readFileSync(logFile, "utf8").split("\n").length - 1;

await bare.close();
await served.close();
await target.close();
temp.remove();

const ok = (pass: boolean): string => (pass ? "yes" : "**no**");
const fmt = (values: number[]): string => values.map((v) => v.toFixed(2)).join(", ");
const markdown = `## Reference server: one diff over HTTP (\`@driftwatch/server\`)

\`GET /api/monitors/{id}/diffs/{diffId}\` (${bytes} bytes of JSON) on SQLite, with the server as
\`driftwatch serve\` runs it by default: bearer-token auth, per-organization rate limiting, metrics,
scheduler and delivery worker on, and the request log at \`${logLevel}\` written synchronously to a file
(${logLines} lines in this run). Only the read limit is raised (\`DRIFTWATCH_RATE_LIMIT_READS\`), so
the bench's requests are not answered 429. The peer is a bare Fastify route returning the same
JSON (the same bytes, checked). autocannon in its own process, ${CONNECTIONS} connections, ${ROUNDS}
rounds of ${DURATION_S} s per server after a ${WARMUP_S} s warm-up, alternating which goes first;
medians over the rounds. Load average (1 min) before: ${loadBefore}, after: ${loadAfter}.

| | requests/s | p50 | p99 | CPU per request |
|---|---:|---:|---:|---:|
| driftwatch server | ${Math.round(dw.rps)} | ${dw.p50} ms | ${dw.p99} ms | ${Math.round(dw.cpuUs)} µs |
| bare Fastify route | ${Math.round(peer.rps)} | ${peer.p50} ms | ${peer.p99} ms | ${Math.round(peer.cpuUs)} µs |

| budget | measured | met |
|---|---:|---|
| requests/s at least ${RATIO_BUDGET} x the bare route (median of the rounds' ratios) | ${ratio.toFixed(2)} x | ${ok(ratio >= RATIO_BUDGET)} |
| p99 under ${P99_BUDGET_MS} ms (median) | ${dw.p99} ms | ${ok(dw.p99 < P99_BUDGET_MS)} |

Ratio per round: ${fmt(ratios)}. CPU per request is the bench process's CPU time (where both
servers run, one loaded at a time) over the requests answered: ${(dw.cpuUs / peer.cpuUs).toFixed(2)} x the bare
route's here. It depends less on the machine's other load than requests/s does, but not
nothing (shared caches and cores). At 50 connections on a shared 2-core machine, p99 is mostly
queueing: with both servers and the load generator on the same cores, it measures the machine as
much as the server; compare runs only at a similar load average.`;
writeBenchSection("server", markdown);
console.log(markdown);
