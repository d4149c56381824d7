// What the server's benches share: the report writer of docs/benchmarks.md, loopback servers, a
// temp folder, the monitor and webhook they create, the side-by-side rounds of the engine benches,
// and for the HTTP benches a server as `driftwatch serve` runs it holding one diff, and autocannon.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { NewMonitor } from "@driftwatch/core";
import { apiMonitor } from "@driftwatch/store-testkit";
import { pino } from "pino";
import { Agent } from "undici";
import type { createDriftwatchServer } from "../src/service.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const report = (await import(path.resolve(here, "../../../tooling/bench-report.mjs"))) as {
  writeBenchSection(name: string, markdown: string): void;
  median(values: number[]): number;
};
/** Rewrites a bench's section of docs/benchmarks.md (the machine line is added). */
export const writeBenchSection = report.writeBenchSection;
/** The median of some figures (the mean of the middle two for an even count). */
export const median = report.median;

/** An HTTP server on a loopback address (127.0.0.1 unless told; a free port) and its base URL. */
export async function listenLoopback(handler: http.RequestListener, address = "127.0.0.1"): Promise<{ server: http.Server; url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  return {
    server,
    url: `http://${address}:${String((server.address() as AddressInfo).port)}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A fresh folder under the system's temp folder, removed by `remove`. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** An API monitor of the benches: GET, hourly, no headers (store-testkit's `apiMonitor` with these fields). */
export function benchMonitor(input: Pick<NewMonitor, "name" | "url" | "state" | "nextCheckAt">): NewMonitor {
  return apiMonitor({ headers: {}, intervalSeconds: 3600, ...input });
}

/**
 * Rounds of the engine and of its peer, one after the other (a warm-up round of each first), so
 * both see the same machine load: the median figure of each side.
 */
export async function sideBySide<T>(engineRound: () => Promise<T>, peerRound: () => Promise<number>, figure: (result: T) => number, rounds = 3): Promise<{ engine: number; peer: number; last: T }> {
  await engineRound();
  await peerRound();
  const engine: number[] = [];
  const peer: number[] = [];
  let last!: T;
  for (let round = 0; round < rounds; round++) {
    last = await engineRound();
    engine.push(figure(last));
    peer.push(await peerRound());
  }
  return { engine: median(engine), peer: median(peer), last };
}

/**
 * A peer's round: `count` operations, `concurrency` at a time, through a fresh undici Agent
 * (closed after); operations per second.
 */
export async function peerRate(count: number, concurrency: number, operation: (i: number, agent: Agent) => Promise<void>): Promise<number> {
  const agent = new Agent();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await operation(i, agent);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return count / seconds;
}

/** The one-minute load average, two decimals. */
export const loadAverage = (): string => os.loadavg()[0]!.toFixed(2);

/** One autocannon run's figures. */
export interface CannonResult {
  rps: number;
  p99: number;
  p50: number;
  errors: number;
  non2xx: number;
  /** CPU time of this process (where the servers run; only the one under load is busy) per request, in µs. */
  cpuUs: number;
}

/** This process's CPU time (user and system), in µs. */
export async function ownCpuTime(): Promise<number> {
  const { user, system } = process.cpuUsage();
  return user + system;
}

const autocannonCli = path.join(path.dirname(createRequire(import.meta.url).resolve("autocannon/package.json")), "autocannon.js");

/**
 * GETs `url` with autocannon in its own process (so the load generator shares no event loop with a
 * server). `cpuTime` reads the CPU time (µs) of the process serving `url`: by default this one.
 */
export async function cannon(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
  cpuTime: () => Promise<number> = ownCpuTime,
): Promise<CannonResult> {
  const args = [autocannonCli, "-c", String(connections), "-d", String(seconds), "-j", "--renderStatusCodes"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}=${v}`);
  args.push(url);
  const cpuBefore = await cpuTime();
  const { stdout: out } = await promisify(execFile)(process.execPath, args, { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
  const cpu = (await cpuTime()) - cpuBefore;
  const json = JSON.parse(out.slice(out.indexOf("{"))) as {
    requests: { average: number; total: number };
    latency: { p99: number; p50: number };
    errors: number;
    non2xx: number;
  };
  const cpuUs = cpu / Math.max(1, json.requests.total);
  return { rps: json.requests.average, p99: json.latency.p99, p50: json.latency.p50, errors: json.errors, non2xx: json.non2xx, cpuUs };
}

/** A JSON target with two versions (`change()` switches to the second), so a monitor of it gets one real diff. */
export async function startDiffTarget(): Promise<{ url: string; change(): void; close(): Promise<void> }> {
  let body = JSON.stringify({ price: 10, currency: "EUR", items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}`, stock: i })) });
  const target = await listenLoopback((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(body));
  return {
    url: `${target.url}/data.json`,
    change() {
      body = JSON.stringify({ price: "10", items: Array.from({ length: 21 }, (_, i) => ({ id: i - 1, name: `item ${i}`, stock: i * 2 })) });
    },
    close: target.close,
  };
}

/** A running server holding one monitor with one diff, and how to GET that diff. */
export interface DiffServer {
  base: string;
  diffPath: string;
  headers: Record<string, string>;
  /** The diff's JSON as the server answers it. */
  servedText: string;
  logFile: string;
  close(): Promise<void>;
}

/**
 * A server as `driftwatch serve` runs it by default on SQLite (scheduler and delivery worker on,
 * metrics, auth, rate limiting, pino at DRIFTWATCH_LOG_LEVEL written synchronously to a file),
 * with only the read limit raised, holding one diff of a monitor of `target`. `create` is
 * `createDriftwatchServer` of the build under test; the target is switched to its second version.
 */
export async function serveOneDiff(create: typeof createDriftwatchServer, dir: string, target: { url: string; change(): void }, logLevel: string): Promise<DiffServer> {
  const token = "dw_" + randomBytes(32).toString("base64url");
  const logFile = path.join(dir, "server.log");
  const server = await create({
    databaseUrl: `sqlite:${path.join(dir, "bench.db")}`,
    host: "127.0.0.1",
    port: 0,
    allowPrivateNetworks: true,
    adminToken: token,
    rateLimitReads: 1_000_000_000,
    logger: pino({ level: logLevel }, pino.destination({ dest: logFile, sync: true })),
  });
  await server.bootstrap();
  const base = await server.listen();
  const headers = { authorization: `Bearer ${token}` };
  const post = async (url: string, body?: unknown): Promise<any> => {
    const res = await fetch(base + url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
    if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const monitor = await post("/api/monitors", { type: "api", url: target.url, intervalSeconds: 3600 });
  await post(`/api/monitors/${monitor.id}/check`);
  target.change();
  const checked = await post(`/api/monitors/${monitor.id}/check`);
  if (checked.diff === null) throw new Error("the second check found no diff");
  const diffPath = `/api/monitors/${monitor.id}/diffs/${checked.diff.id}`;
  const served = await fetch(base + diffPath, { headers });
  if (served.status !== 200) throw new Error(`GET diff: ${served.status}`);
  return { base, diffPath, headers, servedText: await served.text(), logFile, close: () => server.close() };
}

/** The section of an engine bench: the setting, the engine and its peer side by side, the target. */
export function engineSection(report: {
  title: string;
  setting: string;
  unit: string;
  engine: { label: string; perSecond: number };
  peer: { label: string; perSecond: number };
  target: number;
  loadBefore: string;
}): string {
  const { engine, peer, unit, target } = report;
  const verdict = engine.perSecond >= target ? "meets" : "MISSES";
  return `## ${report.title}

${report.setting}

| | ${unit}/s |
|---|---|
| ${engine.label} | ${engine.perSecond.toFixed(0)} |
| ${peer.label} | ${peer.perSecond.toFixed(0)} |
| ratio (engine / peer) | ${(engine.perSecond / peer.perSecond).toFixed(2)} |

Target (the server's performance budget): at least ${String(target)} ${unit}/s: **${verdict}** (${engine.perSecond.toFixed(0)}/s).
Load average during the run: ${report.loadBefore} before, ${loadAverage()} after (other work on the machine lowers both columns).`;
}
