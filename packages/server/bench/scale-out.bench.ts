// npm run bench (server): scale-out. 10,000 API monitors at a 10 s interval on ONE PostgreSQL
// database, checked by 1, 2 and 4 engine processes (real child processes, scale-out-child.ts, each
// a full engine on createPostgresStore, its queue chosen by DRIFTWATCH_QUEUE), and the same load on
// SQLite in one process, in the same run. The target is a small JSON document per monitor on 16
// loopback hosts (4 addresses x 4 ports), so per-host politeness is not what bounds a process.
// Per configuration, over a steady window after a warm-up: checks/s, p50/p99 scheduling lag (a
// check's start minus its due time, recorded by the children), the database's CPU time per check
// (PostgreSQL: utime + stime of the database's backend processes from /proc; SQLite runs inside the
// engine process, so its share is in the engine column) and the engine processes' own CPU per
// check. Then the capacity of one process (every monitor due at once) and one PostgreSQL process
// at 80 % of its capacity, for the p99 lag there.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import type http from "node:http";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { Store } from "@driftwatch/core";
import { apiMonitor } from "@driftwatch/store-testkit";
import Database from "better-sqlite3";
import pg from "pg";
import { createPostgresDatabase, postgresSkipReason } from "../../../tooling/test-postgres.js";
import { openStore } from "../src/config/store-url.js";
import type { ChildWindow } from "./scale-out-child.js";
import { listenLoopback, loadAverage, tempDir, writeBenchSection } from "./support.js";

const MONITORS = 10_000;
const INTERVAL_SECONDS = 10;
const DEMAND = MONITORS / INTERVAL_SECONDS;
const CHECK_CONCURRENCY = 16;
const PER_HOST_CONCURRENCY = 4;
const POSTGRES_POOL = 8;
const ADDRESSES = ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"];
const PORTS_PER_ADDRESS = 4;
/** Steady runs: one and a half intervals of warm-up, then two intervals measured. */
const STEADY = { warmupMs: 15_000, windowMs: 20_000 };
/** Capacity runs: every monitor due at once; a short warm-up, then a window while the backlog lasts. The lag goal is measured at `share` of it. */
const CAPACITY = { warmupMs: 3_000, windowMs: 8_000, share: 0.8 };
const FAR_FUTURE = Date.parse("2100-01-01T00:00:00Z");
/** Monitors whose due time one statement of the bench sets. */
const SCHEDULE_BATCH = 500;
/** The PostgreSQL engines' work queue (the SQLite one always uses the store's leases). */
const QUEUE = process.env.DRIFTWATCH_QUEUE ?? "leases";
const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "scale-out-child.ts");

const skip = await postgresSkipReason();
if (skip !== null) {
  console.log(`skipped: ${skip}`);
  process.exit(0);
}

/** A database the engines run on: its monitors' due times set by hand, and its own CPU. */
interface BenchDatabase {
  url: string;
  /** The work queue its engines use (DRIFTWATCH_QUEUE of the children). */
  queue: string;
  /** Sets every monitor's due time (`due(i)` in ms, null: not due this run) and clears its lease. */
  schedule(due: (index: number) => number | null): Promise<void>;
  /** CPU ticks (utime + stime) of each backend process of the database; null when it runs inside the engine. */
  backendTicks(): Promise<Map<number, number> | null>;
  close(): Promise<void>;
}

/** The monitors of the run, spread over the target hosts: ids in creation order. */
async function createMonitors(store: Store, urls: string[], parallel: number): Promise<string[]> {
  const org = await store.createOrganization({ slug: "scale" });
  const ids: string[] = [];
  const far = new Date(FAR_FUTURE).toISOString();
  for (let start = 0; start < MONITORS; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, MONITORS - start) }, (_, k) => start + k);
    const created = await Promise.all(
      batch.map((i) =>
        store.createMonitor(
          org.id,
          apiMonitor({ name: `scale ${String(i)}`, url: `${urls[i % urls.length]!}/items/${String(i)}.json`, headers: {}, intervalSeconds: INTERVAL_SECONDS, nextCheckAt: far }),
        ),
      ),
    );
    ids.push(...created.map((m) => m.id));
  }
  return ids;
}

function dueTimes(ids: string[], due: (index: number) => number | null): string[] {
  return ids.map((_, i) => new Date(due(i) ?? FAR_FUTURE).toISOString());
}

async function postgresDatabase(urls: string[]): Promise<BenchDatabase> {
  const database = await createPostgresDatabase("dw_bench_scale");
  const store = await openStore(database.url, { adapterOptions: { max: 16 } });
  const ids = await createMonitors(store, urls, 16);
  await store.close();
  const sql = new pg.Pool({ connectionString: database.url, max: 1 });
  return {
    url: database.url,
    queue: QUEUE,
    async schedule(due) {
      // In due order and in batches, each its own transaction, so the engines see the first due
      // monitors while the rest are written (a queue that enqueues by trigger makes writes slow).
      const times = dueTimes(ids, due);
      const order = ids.map((_, i) => i).sort((a, b) => times[a]!.localeCompare(times[b]!));
      for (let start = 0; start < order.length; start += SCHEDULE_BATCH) {
        const batch = order.slice(start, start + SCHEDULE_BATCH);
        await sql.query(
          `UPDATE monitors m SET next_check_at = v.due, lease_owner = NULL, lease_expires_at = NULL
           FROM unnest($1::text[], $2::timestamptz[]) AS v(id, due) WHERE m.id = v.id`,
          [batch.map((i) => ids[i]), batch.map((i) => times[i])],
        );
      }
    },
    async backendTicks() {
      const { rows } = await sql.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [database.name]);
      const ticks = new Map<number, number>();
      for (const { pid } of rows) {
        const used = processTicks(pid);
        if (used !== null) ticks.set(pid, used);
      }
      return ticks;
    },
    async close() {
      await sql.end();
      await database.drop();
    },
  };
}

async function sqliteDatabase(urls: string[]): Promise<BenchDatabase> {
  const temp = tempDir("dw-bench-scale-");
  const filename = path.join(temp.dir, "scale.db");
  const url = `sqlite:${filename}`;
  const store = await openStore(url);
  const ids = await createMonitors(store, urls, 1);
  await store.close();
  const db = new Database(filename);
  db.pragma("busy_timeout = 10000");
  const update = db.prepare("UPDATE monitors SET next_check_at = ?, lease_owner = NULL, lease_expires_at = NULL WHERE id = ?");
  return {
    url,
    queue: "leases",
    async schedule(due) {
      const times = dueTimes(ids, due);
      db.transaction(() => ids.forEach((id, i) => update.run(times[i], id)))();
    },
    async backendTicks() {
      return null;
    },
    async close() {
      db.close();
      temp.remove();
    },
  };
}

/** utime + stime of a process in clock ticks (null when it is gone). */
function processTicks(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${String(pid)}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU µs the backends used between two readings (a backend that ended in between counts to its last reading). */
function backendCpuUs(before: Map<number, number>, after: Map<number, number>): number {
  let ticks = 0;
  for (const pid of new Set([...before.keys(), ...after.keys()])) ticks += (after.get(pid) ?? before.get(pid)!) - (before.get(pid) ?? 0);
  return (ticks / TICKS_PER_SECOND) * 1e6;
}

interface EngineProcess {
  process: ChildProcess;
  output(): string;
  exited: Promise<void>;
  mark(): Promise<ChildWindow>;
}

let started = 0;
async function spawnEngine(url: string, queue: string): Promise<EngineProcess> {
  const owner = `bench-${String(++started)}`;
  const proc = spawn(
    process.execPath,
    ["--conditions=@driftwatch/source", "--import", "tsx", child, url, owner, String(CHECK_CONCURRENCY), String(PER_HOST_CONCURRENCY), String(POSTGRES_POOL)],
    { stdio: ["ignore", "pipe", "pipe", "ipc"], env: { ...process.env, DRIFTWATCH_QUEUE: queue } },
  );
  let log = "";
  proc.stdout!.on("data", (d: Buffer) => (log += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const engine: EngineProcess = {
    process: proc,
    output: () => log,
    exited,
    mark: () =>
      new Promise<ChildWindow>((resolve, reject) => {
        proc.once("message", (message) => resolve(message as ChildWindow));
        if (!proc.send("mark")) reject(new Error(`${owner} cannot be asked for its figures:\n${log}`));
      }),
  };
  const deadline = Date.now() + 60_000;
  while (!log.includes("ready")) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`${owner} did not start:\n${log}`);
    }
    await sleep(50);
  }
  return engine;
}

async function stopEngines(engines: EngineProcess[]): Promise<void> {
  for (const engine of engines) engine.process.kill("SIGTERM");
  const killer = setTimeout(() => engines.forEach((e) => e.process.kill("SIGKILL")), 15_000);
  await Promise.all(engines.map((e) => e.exited));
  clearTimeout(killer);
}

/** Nearest-rank percentile of some figures. */
function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface RunResult {
  label: string;
  store: "PostgreSQL" | "SQLite";
  processes: number;
  monitors: number;
  /** Every monitor was due at once (a capacity run), not once per interval. */
  allDue: boolean;
  checksPerSecond: number;
  failed: number;
  p50: number;
  p99: number;
  /** Database CPU µs per check (null: SQLite, inside the engine process). */
  dbCpuUs: number | null;
  /** CPU µs per check of the engine processes together. */
  engineCpuUs: number;
  load: string;
  /** How long writing the monitors' due times took before the warm-up (a queue that enqueues by trigger makes it slow). */
  prepareSeconds: number;
}

const loads: number[] = [];

/** One configuration: `processes` engines on `db`; `prepare` sets the due times once they run. */
interface RunSetup {
  label: string;
  store: RunResult["store"];
  db: BenchDatabase;
  processes: number;
  monitors: number;
  allDue: boolean;
  prepare(): Promise<void>;
  warmupMs: number;
  windowMs: number;
}

/** Runs a configuration: the engines start, `prepare` runs, the warm-up passes, the window is measured; the engines are stopped at the end. */
async function run(setup: RunSetup): Promise<RunResult> {
  const { label, db, processes, warmupMs, windowMs } = setup;
  const engines: EngineProcess[] = [];
  try {
    const spawned = await Promise.allSettled(Array.from({ length: processes }, () => spawnEngine(db.url, db.queue)));
    for (const one of spawned) if (one.status === "fulfilled") engines.push(one.value);
    const failed = spawned.find((one) => one.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    const preparing = performance.now();
    await setup.prepare();
    const prepareSeconds = (performance.now() - preparing) / 1000;
    await sleep(warmupMs);
    await Promise.all(engines.map((e) => e.mark()));
    const ticksBefore = await db.backendTicks();
    const startedAt = performance.now();
    const loadBefore = os.loadavg()[0]!;
    await sleep(windowMs);
    const windows = await Promise.all(engines.map((e) => e.mark()));
    const seconds = (performance.now() - startedAt) / 1000;
    const ticksAfter = await db.backendTicks();
    const loadAfter = os.loadavg()[0]!;
    loads.push(loadBefore, loadAfter);
    const checks = windows.reduce((sum, w) => sum + w.checks, 0);
    const lags = windows.flatMap((w) => w.lagSeconds);
    const result: RunResult = {
      label,
      store: setup.store,
      processes,
      monitors: setup.monitors,
      allDue: setup.allDue,
      checksPerSecond: checks / seconds,
      failed: windows.reduce((sum, w) => sum + w.failed, 0),
      p50: percentile(lags, 50),
      p99: percentile(lags, 99),
      dbCpuUs: ticksBefore === null || ticksAfter === null ? null : backendCpuUs(ticksBefore, ticksAfter) / Math.max(1, checks),
      engineCpuUs: windows.reduce((sum, w) => sum + w.cpuUs, 0) / Math.max(1, checks),
      load: `${loadBefore.toFixed(2)}-${loadAfter.toFixed(2)}`,
      prepareSeconds,
    };
    console.log(`${label}: ${result.checksPerSecond.toFixed(0)} checks/s, lag p50 ${result.p50.toFixed(2)} s p99 ${result.p99.toFixed(2)} s, ${String(result.failed)} failed (due times written in ${prepareSeconds.toFixed(1)} s)`);
    if (result.failed > 0) console.log(`  ${String(result.failed)} checks failed; last output:\n${engines.map((e) => e.output().slice(-1000)).join("\n")}`);
    return result;
  } finally {
    await stopEngines(engines);
    // Nothing is due when the next configuration's engines start.
    await db.schedule(() => null);
  }
}

/** Steady load: `monitors` of the monitors due once per interval, their first due times spread over one interval. */
function steady(label: string, kind: RunResult["store"], db: BenchDatabase, processes: number, monitors = MONITORS): Promise<RunResult> {
  const prepare = (): Promise<void> => {
    const at = Date.now();
    return db.schedule((i) => (i < monitors ? at + Math.floor((i * INTERVAL_SECONDS * 1000) / monitors) : null));
  };
  return run({ label, store: kind, db, processes, monitors, allDue: false, prepare, ...STEADY });
}

/** Capacity: every monitor due at once, measured while the backlog lasts. */
function capacity(label: string, kind: RunResult["store"], db: BenchDatabase): Promise<RunResult> {
  const prepare = (): Promise<void> => {
    const at = Date.now();
    return db.schedule(() => at);
  };
  return run({ label, store: kind, db, processes: 1, monitors: MONITORS, allDue: true, prepare, warmupMs: CAPACITY.warmupMs, windowMs: CAPACITY.windowMs });
}

// The target: a small JSON document per path, on 16 loopback hosts.
const servers: Awaited<ReturnType<typeof listenLoopback>>[] = [];
const handler: http.RequestListener = (req, res) => {
  const body = JSON.stringify({ path: req.url, status: "ok", items: [1, 2, 3], updatedAt: "2026-01-01T00:00:00Z" });
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
};
for (const address of ADDRESSES) {
  for (let p = 0; p < PORTS_PER_ADDRESS; p++) servers.push(await listenLoopback(handler, address));
}
const urls = servers.map((s) => s.url);

const cpuModel = /model name\s*:\s*(.*)/.exec(fs.readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? os.cpus()[0]?.model ?? "unknown CPU";
const cores = os.cpus().length;
const loadAtStart = loadAverage();
console.log(`creating ${String(MONITORS)} monitors on SQLite and on PostgreSQL (queue: ${QUEUE}) ...`);
const sqlite = await sqliteDatabase(urls);
const postgres = await postgresDatabase(urls);

const results: RunResult[] = [];
let sqliteCapacity: RunResult;
let postgresCapacity: RunResult;
let atShare: RunResult;
try {
  results.push(await steady("SQLite, 1 process", "SQLite", sqlite, 1));
  for (const processes of [1, 2, 4]) results.push(await steady(`PostgreSQL, ${String(processes)} process${processes === 1 ? "" : "es"}`, "PostgreSQL", postgres, processes));
  sqliteCapacity = await capacity("SQLite, 1 process, all due at once", "SQLite", sqlite);
  postgresCapacity = await capacity("PostgreSQL, 1 process, all due at once", "PostgreSQL", postgres);
  const monitorsAtShare = Math.min(MONITORS, Math.round(CAPACITY.share * postgresCapacity.checksPerSecond * INTERVAL_SECONDS));
  atShare = await steady(`PostgreSQL, 1 process, ${String(monitorsAtShare)} monitors (${String(CAPACITY.share * 100)} % of capacity)`, "PostgreSQL", postgres, 1, monitorsAtShare);
} finally {
  await sqlite.close();
  await postgres.close();
  await Promise.all(servers.map((s) => s.close()));
}

const sqliteOne = results[0]!;
const postgresOne = results[1]!;
const us = (value: number | null): string => (value === null ? "n/a (in the engine process)" : `${value.toFixed(0)} µs`);
/** Whether a configuration's engine processes share cores with each other: more of them than the cores PostgreSQL leaves (the target's share is small). */
const sharesCores = (r: RunResult): boolean => r.processes > 1 && r.processes + 1 > cores;
const row = (r: RunResult, one: RunResult | null): string => {
  const ratio = one === null ? null : r.checksPerSecond / one.checksPerSecond;
  const demand = r.allDue ? "all due" : (r.monitors / INTERVAL_SECONDS).toFixed(0);
  return `| ${r.label} | ${demand} | ${r.checksPerSecond.toFixed(0)} | ${ratio === null ? "-" : ratio.toFixed(2)} | ${ratio === null ? "-" : (ratio / r.processes).toFixed(2)} | ${r.p50.toFixed(2)} s | ${r.p99.toFixed(2)} s | ${us(r.dbCpuUs)} | ${r.engineCpuUs.toFixed(0)} µs | ${String(r.failed)} | ${sharesCores(r) ? "yes" : "no"} | ${r.prepareSeconds.toFixed(1)} s | ${r.load} |`;
};

const versusSqlite = postgresOne.checksPerSecond / sqliteOne.checksPerSecond;
const capacityVersusSqlite = postgresCapacity.checksPerSecond / sqliteCapacity.checksPerSecond;
const separate = results.filter((r) => r.store === "PostgreSQL" && r.processes > 1 && !sharesCores(r));
const perProcess = separate.map((r) => r.checksPerSecond / r.processes / postgresOne.checksPerSecond);
const verdict = (ok: boolean): string => (ok ? "PASS" : "MISS");
const goals = [
  `- PostgreSQL at or above 0.9x SQLite checks/s in one process (steady load): ${versusSqlite.toFixed(2)}x: **${verdict(versusSqlite >= 0.9)}**` +
    ` (at capacity, all due at once: ${postgresCapacity.checksPerSecond.toFixed(0)} vs ${sqliteCapacity.checksPerSecond.toFixed(0)} checks/s, ${capacityVersusSqlite.toFixed(2)}x).`,
  `- p99 scheduling lag under 2 s at ${String(CAPACITY.share * 100)} % of one PostgreSQL process's capacity (${postgresCapacity.checksPerSecond.toFixed(0)} checks/s measured, ${String(atShare.monitors)} monitors at ${String(INTERVAL_SECONDS)} s): ${atShare.p99.toFixed(2)} s: **${verdict(atShare.p99 < 2)}**.`,
  perProcess.length === 0
    ? `- Per-process throughput within 15 % of one process when processes do not share cores: **n/a**: this machine has ${String(cores)} cores, so the 2- and 4-process runs share cores with each other and with PostgreSQL and the target (their per-process figures are in the table).`
    : `- Per-process throughput within 15 % of one process (configurations whose engines do not share cores): ${perProcess.map((v) => v.toFixed(2)).join(", ")}: **${verdict(perProcess.every((v) => v >= 0.85))}**.`,
];

const markdown = `## Server engine: scale-out on one PostgreSQL database (work queue \`${QUEUE}\`)

${String(MONITORS)} API monitors at a ${String(INTERVAL_SECONDS)} s interval (a demand of ${DEMAND.toFixed(0)} checks/s) on one database, checked by
real engine processes (\`bench/scale-out-child.ts\`: scheduler, check service and delivery worker; work
queue on PostgreSQL \`${QUEUE}\` (\`DRIFTWATCH_QUEUE\`), on SQLite the store's leases; ${String(CHECK_CONCURRENCY)} checks in flight, ${String(PER_HOST_CONCURRENCY)} per host, a pool of ${String(POSTGRES_POOL)} PostgreSQL
connections each). The target is a small JSON document per monitor on ${String(urls.length)} loopback hosts (${String(ADDRESSES.length)} addresses x
${String(PORTS_PER_ADDRESS)} ports) served by the bench process; the content never changes, so checks after the first are
\`unchanged\`. Steady runs: due times spread over one interval, ${String(STEADY.warmupMs / 1000)} s warm-up, then ${String(STEADY.windowMs / 1000)} s measured.
Capacity: every monitor due at once, ${String(CAPACITY.warmupMs / 1000)} s warm-up, ${String(CAPACITY.windowMs / 1000)} s measured while the backlog lasts.
Lag: a scheduled check's start minus its due time, over every check started in the window (where a
configuration's capacity is below the demand, the backlog, and so the lag, grows through the window).
Database CPU: utime + stime (/proc) of the bench database's PostgreSQL backends over the window, per
check (the server's shared WAL writer and checkpointer, and other databases, are not counted); SQLite
runs in the engine process, so its share is in the engine column. Ratio: checks/s against the same
store's one process; per process: that ratio divided by the processes. "Due times written in": how long
the bench's own write of the monitors' due times took (in batches of ${String(SCHEDULE_BATCH)}, due order, engines running)
before the warm-up; a write slower than the interval makes the first due times late, which shows as lag.

| configuration | demand/s | checks/s | ratio to 1 process | per process | lag p50 | lag p99 | database CPU/check | engines' CPU/check | failed | engines share cores | due times written in | load avg (1 min) |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
${results.map((r) => row(r, r.store === "SQLite" ? sqliteOne : postgresOne)).join("\n")}
${row(sqliteCapacity, null)}
${row(postgresCapacity, null)}
${row(atShare, null)}

Goals (issue 14):
${goals.join("\n")}

Machine: ${cpuModel}, ${String(cores)} cores (/proc/cpuinfo), shared with other work; the engine processes, PostgreSQL and
the target share these cores in every configuration. Load average (1 min): ${loadAtStart} at the start, ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} during the windows, ${loadAverage()} at the end.`;

writeBenchSection(QUEUE === "leases" ? "server-scale-out" : `server-scale-out-${QUEUE}`, markdown);
console.log(markdown);
