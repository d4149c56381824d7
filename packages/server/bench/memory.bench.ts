// npm run bench (server): the memory of the real `driftwatch serve` (the built dist/cli.js, SQLite in a
// temp folder, the default settings but the write rate limit, raised so the bench can create its
// monitors through the API), its resident set size (RSS, /proc/<pid>/status) sampled every second:
//   1. idle: listening, no monitor yet;
//   2. 10,000 API monitors at a 10 s interval (a demand of 1,000 checks/s), created through
//      POST /api/monitors, against a local target in a process of its own (its memory is not
//      counted) that answers the same 1 KB JSON document on 50 ports of 127.0.0.1 (50 hosts for the
//      per-host concurrency limit, as 10,000 monitors of real users would spread over many hosts);
//      steady (median of the samples after a warm-up) and peak (the highest sample, and the
//      kernel's high-water mark VmHWM, which also sees what happens between two samples), and the
//      check rate: requests the target answered per second, against the demand.
// Options (environment): DW_MEM_MONITORS (10000), DW_MEM_IDLE_S (20), DW_MEM_WARMUP_S (30),
// DW_MEM_STEADY_S (60), DW_MEM_CLI (another build's dist/cli.js), DW_MEM_NO_WRITE=1 (print only),
// DW_MEM_NODE_OPTIONS (extra node flags for the server, e.g. --heapsnapshot-signal=SIGUSR2),
// DW_MEM_WARMUP_SAMPLES (the server's --warmup-samples; default: the server's default, 2),
// DW_MEM_HEAP (the server's DRIFTWATCH_HEAP: `node` measures node's own heap settings; default: the
// server's default, `lean`, which the binary sets itself, see src/cli/heap.ts).
// With the default warm-up, the scheduled first check of each of the 10,000 monitors created at once
// answers with its first content and its warm-up goes on in the background (8 warm-up requests per
// host per second, at most 1,000 warm-ups at once, the rest learning from their scheduled checks):
// the checks run at the rate of DW_MEM_WARMUP_SAMPLES=0 (before the warm-up was detached, each first
// check held its check slot and its host's slot for about 2 s: 12 checks/s). DW_MEM_WARMUP_SAMPLES=0
// measures monitors that never warm up (the result says so).
import { type ChildProcess, fork, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadAverage, median, tempDir, writeBenchSection } from "./support.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const MONITORS = Number(process.env.DW_MEM_MONITORS ?? 10_000);
const INTERVAL_S = 10;
const IDLE_S = Number(process.env.DW_MEM_IDLE_S ?? 20);
const WARMUP_S = Number(process.env.DW_MEM_WARMUP_S ?? 30);
const STEADY_S = Number(process.env.DW_MEM_STEADY_S ?? 60);
const PORTS = 50;
const WARMUP_SAMPLES = process.env.DW_MEM_WARMUP_SAMPLES;
const HEAP = process.env.DW_MEM_HEAP;
const TOKEN = `dw_${Buffer.alloc(32, 7).toString("base64url")}`;
const cli = path.resolve(process.env.DW_MEM_CLI ?? path.join(here, "..", "dist", "cli.js"));
const targets = { idle: 90, steady: 150, peak: 200 };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The target: its own process, 50 listeners on 127.0.0.1, one unchanging 1 KB JSON document; counts requests. */
const TARGET_SOURCE = `
const http = require("node:http");
const body = JSON.stringify({ status: "ok", version: 7, items: Array.from({ length: 12 }, (_, i) => ({ id: i, name: "item " + i, price: 10 + i, tags: ["a", "b"] })) });
let hits = 0;
const ports = [];
let pending = ${PORTS};
for (let i = 0; i < ${PORTS}; i++) {
  const server = http.createServer((req, res) => { hits++; res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }); res.end(body); });
  server.keepAliveTimeout = 30000;
  server.listen(0, "127.0.0.1", () => { ports.push(server.address().port); if (--pending === 0) process.send({ ports }); });
}
process.on("message", (m) => { if (m === "hits") process.send({ hits }); });
`;

function rssMb(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${String(pid)}/status`, "utf8");
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
}

/** CPU time (user + system) the process used so far, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${String(pid)}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function freePort(): Promise<number> {
  const net = await import("node:net");
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once("message", (m) => resolve(m as T));
    child.send(message);
  });
}

const temp = tempDir("dw-bench-memory-");
const targetFile = path.join(temp.dir, "target.cjs");
fs.writeFileSync(targetFile, TARGET_SOURCE);
let exited = false;
let server: ChildProcess;
const target = fork(targetFile, [], { execArgv: [], stdio: ["ignore", "ignore", "inherit", "ipc"] });
process.on("exit", () => {
  target.kill("SIGKILL");
  if (!exited) server.kill("SIGKILL");
});
const { ports } = await new Promise<{ ports: number[] }>((resolve) => target.once("message", (m) => resolve(m as { ports: number[] })));

const port = await freePort();
const base = `http://127.0.0.1:${String(port)}`;
const extraFlags = (process.env.DW_MEM_NODE_OPTIONS ?? "").split(" ").filter(Boolean);
server = spawn(process.execPath, [...extraFlags, cli, "serve"], {
  cwd: temp.dir,
  env: {
    PATH: process.env.PATH,
    HOME: temp.dir,
    DRIFTWATCH_DATABASE_URL: `sqlite:${path.join(temp.dir, "driftwatch.db")}`,
    DRIFTWATCH_PORT: String(port),
    DRIFTWATCH_HOST: "127.0.0.1",
    DRIFTWATCH_ADMIN_TOKEN: TOKEN,
    DRIFTWATCH_ALLOW_PRIVATE_NETWORKS: "true",
    DRIFTWATCH_RATE_LIMIT_WRITES: "1000000",
    DRIFTWATCH_LOG_FORMAT: "json",
    DRIFTWATCH_LOG_LEVEL: "warn",
    ...(WARMUP_SAMPLES !== undefined ? { DRIFTWATCH_WARMUP_SAMPLES: WARMUP_SAMPLES } : {}),
    ...(HEAP !== undefined ? { DRIFTWATCH_HEAP: HEAP } : {}),
  },
  stdio: ["ignore", "ignore", "inherit"],
});
const pid = server.pid!;
server.on("exit", (code, signal) => {
  exited = true;
  if (!stopping) {
    console.error(`driftwatch serve exited early (${String(code ?? signal)})`);
    process.exit(1);
  }
});
let stopping = false;

for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/readyz`)).ok) break;
  } catch {
    // not listening yet
  }
  if (i > 600) throw new Error("driftwatch serve did not become ready in 60 s");
  await sleep(100);
}

const samples: { t: number; phase: string; rss: number }[] = [];
let phase = "idle";
const started = Date.now();
const sampler = setInterval(() => {
  if (exited) return;
  samples.push({ t: (Date.now() - started) / 1000, phase, rss: rssMb(pid).rss });
}, 1000);

await sleep(IDLE_S * 1000);
const idleSamples = samples.filter((s) => s.phase === "idle").map((s) => s.rss);
const idleHwm = rssMb(pid).hwm;

// 10,000 monitors through the API, 16 requests at a time.
phase = "create";
const createStart = Date.now();
let next = 0;
async function creator(): Promise<void> {
  while (next < MONITORS) {
    const i = next++;
    const res = await fetch(`${base}/api/monitors`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `bench ${String(i)}`, url: `http://127.0.0.1:${String(ports[i % PORTS])}/status.json`, intervalSeconds: INTERVAL_S }),
    });
    if (res.status !== 201) throw new Error(`POST /api/monitors answered ${String(res.status)}: ${await res.text()}`);
    await res.arrayBuffer();
  }
}
await Promise.all(Array.from({ length: 16 }, creator));
const createSeconds = (Date.now() - createStart) / 1000;

phase = "warmup";
await sleep(WARMUP_S * 1000);
phase = "steady";
const hits0 = (await ask<{ hits: number }>(target, "hits")).hits;
const cpu0 = cpuMs(pid);
const t0 = Date.now();
await sleep(STEADY_S * 1000);
const hits1 = (await ask<{ hits: number }>(target, "hits")).hits;
const steadyMs = Date.now() - t0;
const cpuUsed = cpuMs(pid) - cpu0;
const checksPerSecond = (hits1 - hits0) / (steadyMs / 1000);
const cpuPerCheck = cpuUsed / Math.max(1, hits1 - hits0);
const coreShare = cpuUsed / steadyMs;
const finalHwm = rssMb(pid).hwm;
clearInterval(sampler);

const steadySamples = samples.filter((s) => s.phase === "steady").map((s) => s.rss);
const busySamples = samples.filter((s) => s.phase !== "idle").map((s) => s.rss);
const idle = median(idleSamples);
const steady = median(steadySamples);
const peak = Math.max(...busySamples);

stopping = true;
server.kill("SIGTERM");
await new Promise((resolve) => (exited ? resolve(undefined) : server.once("exit", resolve)));
target.kill("SIGTERM");
if (process.env.DW_MEM_KEEP === undefined) temp.remove();

const mb = (n: number): string => n.toFixed(0);
const mark = (value: number, limit: number): string => (value < limit ? `under ${String(limit)} MB` : `**over ${String(limit)} MB**`);
const demand = MONITORS / INTERVAL_S;
const markdown = `## @driftwatch/server: memory of \`driftwatch serve\`

\`bench/memory.bench.ts\`: the built \`driftwatch serve\` (its own process, SQLite in a temp folder, the default settings but \`DRIFTWATCH_RATE_LIMIT_WRITES\`, raised to create the monitors through the API), RSS read from \`/proc/<pid>/status\` every second. The target answering the checks is another process (an unchanging 1 KB JSON document on ${String(PORTS)} ports of 127.0.0.1), so its memory is not counted.

| phase | RSS | target |
|---|---:|---|
| idle (median of ${String(idleSamples.length)} samples, no monitor) | ${mb(idle)} MB | ${mark(idle, targets.idle)} (high-water mark ${mb(idleHwm)} MB) |
| ${MONITORS.toLocaleString("en-US")} API monitors at ${String(INTERVAL_S)} s, steady (median of ${String(steadySamples.length)} samples after ${String(WARMUP_S)} s of warm-up) | ${mb(steady)} MB | ${mark(steady, targets.steady)} |
| the same, peak (highest sample from the first POST on) | ${mb(peak)} MB | ${mark(peak, targets.peak)} (high-water mark ${mb(finalHwm)} MB) |

Check rate over the ${String(STEADY_S)} s of steady state: **${checksPerSecond.toFixed(0)} checks/s** against a demand of ${demand.toFixed(0)}/s (${((checksPerSecond / demand) * 100).toFixed(0)} %), using ${(coreShare * 100).toFixed(0)} % of a core: ${cpuPerCheck.toFixed(2)} ms of CPU per check (unchanged documents). Creating the ${MONITORS.toLocaleString("en-US")} monitors took ${createSeconds.toFixed(1)} s.${
  WARMUP_SAMPLES !== undefined ? ` Run with \`DRIFTWATCH_WARMUP_SAMPLES=${WARMUP_SAMPLES}\` (the steady state of monitors past their warm-up; see the bench's header).` : ""
}${HEAP !== undefined ? ` Run with \`DRIFTWATCH_HEAP=${HEAP}\`.` : ""}

Load average (1 min) at the end of the run: ${loadAverage()} on 2 cores.`;

console.log(markdown);
console.log(`\nsamples (s, phase, MB): ${samples.map((s) => `${s.t.toFixed(0)}:${s.phase[0]!}:${s.rss.toFixed(0)}`).join(" ")}`);
if (process.env.DW_MEM_NO_WRITE === undefined) writeBenchSection("server-memory", markdown);
