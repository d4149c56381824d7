// npm run bench (engine): pg-boss and graphile-worker side by side in one run, on one PostgreSQL
// server, each in its own fresh database, for issue 14 point 1 (which job engine the PostgreSQL
// work queue is built on). Measures enqueue throughput (10,000 jobs with a run-at time, in batches
// and one by one), claim + complete throughput with 1, 2 and 4 consumers, the latency from a job's
// run-at to its pick-up at low load, the database CPU time per job (utime + stime of the
// database's backend processes, from /proc) and how long a job held by a consumer that was killed
// with SIGKILL takes to be offered again. Prints one table; docs/scaling.md keeps the figures.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import PgBoss from "pg-boss";
import { Logger, makeWorkerUtils, run, type Runner, type WorkerUtils } from "graphile-worker";
import { createPostgresDatabase, POSTGRES_ADMIN_URL, postgresSkipReason, type TestPostgresDatabase } from "../../../tooling/test-postgres.js";

const ENQUEUED = 10_000; // jobs per enqueue row
const ENQUEUE_BATCH = 500; // jobs per insert call in the batched row
const ENQUEUE_CALLERS = 4; // callers enqueueing one job per call at once in the one-by-one row (API processes, say)
const CONSUMERS = [1, 2, 4];
const CONSUMED_PER_ROW = 6_000; // jobs each claim row completes (3 rows take 18,000 of the 20,000 enqueued)
const FETCH_BATCH = 50; // pg-boss fetch(batchSize); graphile-worker localQueue.size in the batched rows
const GW_CONCURRENCY = 4; // jobs one graphile-worker runner works on at once
const LATENCY_JOBS = 25; // jobs per latency row
const CRASH_WAIT_MS = 15_000; // how long we wait for an abandoned graphile-worker job with its stock settings
const PGBOSS_EXPIRE_S = 10; // pg-boss expireInSeconds in the crash row: longer than one check may take
const PGBOSS_MAINTENANCE_S = 1; // pg-boss maintenanceIntervalSeconds in the crash row (its minimum)

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const reportModule = path.resolve(here, "../../../tooling/bench-report.mjs");
const { machineLine, median } = (await import(reportModule)) as { machineLine(): string; median(values: number[]): number };
const silent = new Logger(() => () => undefined);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const skip = await postgresSkipReason();
if (skip !== null) {
  console.error(skip);
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// Database CPU: utime + stime of every backend process connected to one database, from /proc.

const CLOCK_TICKS_PER_S = 100; // USER_HZ on Linux x86_64 and arm64
const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
await admin.connect();

function cpuTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields from the 3rd (state) on
    return Number(fields[11]) + Number(fields[12]); // utime (14th) + stime (15th)
  } catch {
    return null; // the backend exited
  }
}

async function backendTicks(database: string, exclude: Set<number>): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1", [database]);
  const ticks = new Map<number, number>();
  for (const { pid } of rows) {
    if (exclude.has(pid)) continue;
    const value = cpuTicks(pid);
    if (value !== null) ticks.set(pid, value);
  }
  return ticks;
}

/** Runs `work` and returns its wall time and the database's backend CPU time (backends that exit meanwhile are not counted). */
async function measured<T>(database: string, work: () => Promise<T>, exclude = new Set<number>()): Promise<{ result: T; wallMs: number; cpuMs: number }> {
  const before = await backendTicks(database, exclude);
  const started = performance.now();
  const result = await work();
  const wallMs = performance.now() - started;
  const after = await backendTicks(database, exclude);
  let ticks = 0;
  for (const [pid, value] of after) ticks += value - (before.get(pid) ?? 0);
  return { result, wallMs, cpuMs: (ticks * 1000) / CLOCK_TICKS_PER_S };
}

// ---------------------------------------------------------------------------------------------
// One adapter per engine: the same operations, each written the way the engine is meant to be used.

interface Claimed {
  /** Wall-clock time (ms since the epoch) of each pick-up, by job id. */
  pickedAt: Map<string, number>;
  stop(): Promise<void>;
}

interface EngineUnderTest {
  name: "pg-boss" | "graphile-worker";
  database: TestPostgresDatabase;
  /** Backends of the bench's own bookkeeping, left out of the database CPU figures. */
  bookkeepingPids: Set<number>;
  enqueueBatched(count: number, runAt: Date): Promise<void>;
  /** Enqueues `count` jobs, one per call, from ENQUEUE_CALLERS callers at once. */
  enqueueOneByOne(count: number, runAt: Date): Promise<void>;
  /**
   * Claims and completes `count` jobs of the `bench` queue with `consumers` consumers; resolves
   * once all are completed in the database, with a function that stops the consumers (called after
   * the CPU sample, so the backends they close are still counted).
   */
  consume(count: number, consumers: number, variant: string): Promise<() => Promise<void>>;
  /** One consumer of `queue` at low load, for the latency rows; `tuned` shortens its polling interval. */
  listen(queue: string, tuned: boolean): Promise<Claimed>;
  /** Enqueues one job on `queue` due at `runAt`, returns its id. */
  enqueueLatency(queue: string, runAt: Date): Promise<string>;
  close(): Promise<void>;
}

/** Calls `enqueue(n)` for n = 0 … count - 1 from ENQUEUE_CALLERS callers, each waiting for its previous call. */
async function callers(count: number, enqueue: (n: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: ENQUEUE_CALLERS }, async () => {
      while (next < count) await enqueue(next++);
    }),
  );
}

async function createPgBossEngine(): Promise<EngineUnderTest> {
  const database = await createPostgresDatabase("dw_bench_pgboss");
  const options = { connectionString: database.url, supervise: false, schedule: false } as const;
  const producer = new PgBoss({ ...options, max: 4 });
  producer.on("error", (error) => console.error("pg-boss:", error.message));
  await producer.start();
  for (const queue of ["bench", "latency", "crash"]) await producer.createQueue(queue);
  const consumers: PgBoss[] = [];
  async function consumer(): Promise<PgBoss> {
    const boss = new PgBoss({ ...options, max: 2, migrate: false });
    boss.on("error", (error) => console.error("pg-boss:", error.message));
    await boss.start();
    consumers.push(boss);
    return boss;
  }
  return {
    name: "pg-boss",
    database,
    bookkeepingPids: new Set(),
    async enqueueBatched(count, runAt) {
      for (let i = 0; i < count; i += ENQUEUE_BATCH) {
        await producer.insert(Array.from({ length: Math.min(ENQUEUE_BATCH, count - i) }, (_, j) => ({ name: "bench", data: { n: i + j }, startAfter: runAt })));
      }
    },
    async enqueueOneByOne(count, runAt) {
      await callers(count, async (n) => void (await producer.send("bench", { n }, { startAfter: runAt })));
    },
    async consume(count, n) {
      const bosses = [];
      while (bosses.length < n) bosses.push(consumers[bosses.length] ?? (await consumer()));
      let done = 0;
      // a scheduler that claims batches: fetch(batchSize), work, complete(ids) in one call
      await Promise.all(
        bosses.map(async (boss) => {
          while (done < count) {
            const jobs = await boss.fetch("bench", { batchSize: Math.min(FETCH_BATCH, count - done) });
            if (jobs.length === 0) throw new Error("pg-boss: the bench queue ran dry before the row's jobs were consumed");
            await boss.complete(
              "bench",
              jobs.map((job) => job.id),
            );
            done += jobs.length;
          }
        }),
      );
      return async () => undefined; // the consumers stay for the next rows
    },
    async listen(queue, tuned) {
      await producer.createQueue(queue);
      const boss = await consumer();
      const pickedAt = new Map<string, number>();
      // pg-boss 10's work() fetches once per polling interval even after a full batch, so a batch
      // size of 1 caps a worker at one job per interval: take batches, as the scheduler would
      const id = await boss.work(queue, { batchSize: FETCH_BATCH, ...(tuned ? { pollingIntervalSeconds: 0.5 } : {}) }, async (jobs) => {
        for (const job of jobs) pickedAt.set(job.id, Date.now());
      });
      return { pickedAt, stop: () => boss.offWork({ id }) };
    },
    async enqueueLatency(queue, runAt) {
      const id = await producer.send(queue, {}, { startAfter: runAt });
      if (id === null) throw new Error("pg-boss refused the latency job");
      return id;
    },
    async close() {
      for (const boss of consumers) await boss.stop({ graceful: false });
      await producer.stop({ graceful: false });
    },
  };
}

async function createGraphileWorkerEngine(): Promise<EngineUnderTest> {
  const database = await createPostgresDatabase("dw_bench_graphile");
  const utils: WorkerUtils = await makeWorkerUtils({ connectionString: database.url, maxPoolSize: 4, logger: silent });
  await utils.migrate();
  const counter = new pg.Client({ connectionString: database.url });
  await counter.connect();
  const counterPid = (await counter.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
  const remaining = async (task: string): Promise<number> =>
    Number(
      (
        await counter.query<{ count: string }>(
          "SELECT count(*) FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = $1",
          [task],
        )
      ).rows[0]!.count,
    );
  return {
    name: "graphile-worker",
    database,
    bookkeepingPids: new Set([counterPid]),
    async enqueueBatched(count, runAt) {
      for (let i = 0; i < count; i += ENQUEUE_BATCH) {
        await utils.addJobs(Array.from({ length: Math.min(ENQUEUE_BATCH, count - i) }, (_, j) => ({ identifier: "bench", payload: { n: i + j }, runAt })));
      }
    },
    async enqueueOneByOne(count, runAt) {
      await callers(count, async (n) => void (await utils.addJob("bench", { n }, { runAt })));
    },
    async consume(count, n, variant) {
      const target = (await remaining("bench")) - count;
      let handled = 0;
      let reached!: () => void;
      const allHandled = new Promise<void>((resolve) => (reached = resolve));
      const runners: Runner[] = [];
      for (let i = 0; i < n; i++) {
        runners.push(
          await run({
            connectionString: database.url,
            concurrency: GW_CONCURRENCY,
            maxPoolSize: GW_CONCURRENCY + 2,
            noHandleSignals: true,
            logger: silent,
            // the batched variant locks FETCH_BATCH jobs per query, like pg-boss's fetch(batchSize)
            preset: variant === "batched" ? { worker: { localQueue: { size: FETCH_BATCH } } } : {},
            taskList: {
              bench: async () => {
                if (++handled === count) reached();
              },
            },
          }),
        );
      }
      await allHandled;
      // completions are written after the handler returns: wait until the database shows them
      while ((await remaining("bench")) > target) await sleep(10);
      return async () => {
        for (const runner of runners) await runner.stop();
      };
    },
    async listen(queue, tuned) {
      const pickedAt = new Map<string, number>();
      const runner = await run({
        connectionString: database.url,
        concurrency: 1,
        noHandleSignals: true,
        logger: silent,
        ...(tuned ? { pollInterval: 500 } : {}),
        taskList: {
          [queue]: async (_payload, helpers) => {
            pickedAt.set(helpers.job.id, Date.now());
          },
        },
      });
      return { pickedAt, stop: () => runner.stop() };
    },
    async enqueueLatency(queue, runAt) {
      return (await utils.addJob(queue, {}, { runAt })).id;
    },
    async close() {
      await counter.end();
      await utils.release();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The rows

interface Row {
  what: string;
  figures: Partial<Record<EngineUnderTest["name"], string>>;
}
const rows: Row[] = [];
const started = Date.now();
const put = (what: string, engine: EngineUnderTest["name"], figure: string): void => {
  let row = rows.find((r) => r.what === what);
  if (row === undefined) rows.push((row = { what, figures: {} }));
  row.figures[engine] = figure;
  console.error(`${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s  ${engine}: ${what}: ${figure}`);
};
const throughput = (jobs: number, m: { wallMs: number; cpuMs: number }): string =>
  `${Math.round((jobs * 1000) / m.wallMs).toLocaleString("en")} jobs/s, ${((m.cpuMs * 1000) / jobs).toFixed(0)} µs DB CPU/job`;
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

const engines = [await createPgBossEngine(), await createGraphileWorkerEngine()];
/** Runs one row for every engine, alternating which goes first so drift in machine load hits both alike. */
let turn = 0;
async function eachEngine(work: (engine: EngineUnderTest) => Promise<void>): Promise<void> {
  const order = turn++ % 2 === 0 ? engines : [...engines].reverse();
  for (const engine of order) await work(engine);
}

try {
  await eachEngine(async (engine) => {
    const m = await measured(engine.database.name, () => engine.enqueueBatched(ENQUEUED, new Date()), engine.bookkeepingPids);
    put(`enqueue ${ENQUEUED.toLocaleString("en")} with run-at, batches of ${ENQUEUE_BATCH}`, engine.name, throughput(ENQUEUED, m));
  });
  await eachEngine(async (engine) => {
    const m = await measured(engine.database.name, () => engine.enqueueOneByOne(ENQUEUED, new Date()), engine.bookkeepingPids);
    put(`enqueue ${ENQUEUED.toLocaleString("en")} with run-at, one per call, ${ENQUEUE_CALLERS} callers at once`, engine.name, throughput(ENQUEUED, m));
  });

  for (const n of CONSUMERS) {
    await eachEngine(async (engine) => {
      const variant = engine.name === "graphile-worker" ? "batched" : "fetch";
      const m = await measured(engine.database.name, () => engine.consume(CONSUMED_PER_ROW, n, variant), engine.bookkeepingPids);
      await m.result();
      put(`claim + complete, ${n} consumer${n > 1 ? "s" : ""}`, engine.name, throughput(CONSUMED_PER_ROW, m));
    });
  }
  // graphile-worker's stock runner (one job per fetch query), with 2 consumers, for comparison
  {
    const gw = engines.find((e) => e.name === "graphile-worker")!;
    await gw.enqueueBatched(CONSUMED_PER_ROW, new Date());
    const m = await measured(gw.database.name, () => gw.consume(CONSUMED_PER_ROW, 2, "stock"), gw.bookkeepingPids);
    await m.result();
    put("claim + complete, 2 consumers, graphile-worker without localQueue", "graphile-worker", throughput(CONSUMED_PER_ROW, m));
    put("claim + complete, 2 consumers, graphile-worker without localQueue", "pg-boss", "–");
  }

  for (const tuned of [false, true]) {
    for (const ahead of [0, 1000]) {
      await eachEngine(async (engine) => {
        const queue = `latency_${tuned ? "tuned" : "default"}_${ahead}`; // one queue per row: no backlog carried over
        const claimed = await engine.listen(queue, tuned);
        const due = new Map<string, number>();
        for (let i = 0; i < LATENCY_JOBS; i++) {
          const runAt = Date.now() + ahead;
          due.set(await engine.enqueueLatency(queue, new Date(runAt)), runAt);
          await sleep(120 + Math.random() * 120); // a random phase against the poll loop
        }
        const deadline = Date.now() + 10_000;
        while (claimed.pickedAt.size < due.size && Date.now() < deadline) await sleep(50);
        await claimed.stop();
        const lags = [...due].flatMap(([id, runAt]) => {
          const at = claimed.pickedAt.get(id);
          return at === undefined ? [] : [Math.max(0, at - runAt)];
        });
        const missing = due.size - lags.length;
        if (lags.length === 0) throw new Error(`${engine.name}: none of ${due.size} latency jobs was picked up in 10 s`);
        const polling = engine.name === "pg-boss" ? (tuned ? "pollingIntervalSeconds 0.5" : "default polling 2 s") : tuned ? "pollInterval 500 ms + LISTEN/NOTIFY" : "default pollInterval 2 s + LISTEN/NOTIFY";
        const label = `run-at → pick-up, ${ahead === 0 ? "due at once" : "due in 1 s"}, ${tuned ? "tuned" : "default"} polling`;
        put(
          label,
          engine.name,
          `p50 ${median(lags).toFixed(0)} ms, p99 ${percentile(lags, 99).toFixed(0)} ms (${polling})${missing > 0 ? `, ${missing} not picked up in 10 s` : ""}`,
        );
      });
    }
  }

  await eachEngine(async (engine) => {
    if (engine.name === "pg-boss") await crashPgBoss(engine);
    else await crashGraphileWorker(engine);
  });
} finally {
  for (const engine of engines) {
    await engine.close().catch((error: unknown) => console.error(`closing ${engine.name}:`, error));
    await engine.database.drop();
  }
  await admin.end();
}

// ---------------------------------------------------------------------------------------------
// Crash recovery: a child process claims one job and is killed with SIGKILL.

/** Spawns job-engines-child.ts, waits for the job it claimed, kills it with SIGKILL and returns what it claimed and when it died. */
async function claimAndVanish(engine: EngineUnderTest): Promise<{ jobId: string; workerId?: string; killedAt: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "job-engines-child.ts"), engine.name, engine.database.url], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const claimed = await new Promise<{ jobId: string; workerId?: string }>((resolve, reject) => {
    let buffered = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split("\n")[0];
      if (buffered.includes("\n") && line !== undefined) resolve(JSON.parse(line) as { jobId: string; workerId?: string });
    });
    child.once("exit", (code) => reject(new Error(`the ${engine.name} child exited (${code}) before it claimed a job`)));
    setTimeout(() => reject(new Error(`the ${engine.name} child claimed nothing in 20 s`)), 20_000).unref();
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  const killedAt = Date.now();
  await exited;
  return { ...claimed, killedAt };
}

async function waitForPickUp(pickedAt: Map<string, number>, jobId: string, limitMs: number): Promise<number | null> {
  const deadline = Date.now() + limitMs;
  while (!pickedAt.has(jobId) && Date.now() < deadline) await sleep(20);
  return pickedAt.get(jobId) ?? null;
}

async function crashPgBoss(engine: EngineUnderTest): Promise<void> {
  const boss = new PgBoss({ connectionString: engine.database.url, max: 2, migrate: false, schedule: false, maintenanceIntervalSeconds: PGBOSS_MAINTENANCE_S });
  boss.on("error", (error) => console.error("pg-boss:", error.message));
  await boss.start();
  try {
    const jobId = await boss.send("crash", {}, { expireInSeconds: PGBOSS_EXPIRE_S, retryLimit: 3, retryDelay: 0 });
    const claimed = await claimAndVanish(engine);
    if (claimed.jobId !== jobId) throw new Error("the pg-boss child claimed another job than the one sent");
    const pickedAt = new Map<string, number>();
    await boss.work("crash", { pollingIntervalSeconds: 0.5 }, async (jobs) => {
      for (const job of jobs) pickedAt.set(job.id, Date.now());
    });
    const at = await waitForPickUp(pickedAt, jobId, PGBOSS_EXPIRE_S * 1000 + 15_000);
    put(
      "abandoned job offered again after SIGKILL",
      "pg-boss",
      at === null
        ? `not within ${PGBOSS_EXPIRE_S + 15} s`
        : `${((at - claimed.killedAt) / 1000).toFixed(1)} s (expireInSeconds ${PGBOSS_EXPIRE_S}, maintenanceIntervalSeconds ${PGBOSS_MAINTENANCE_S}, polling 0.5 s; the job comes back as a retry)`,
    );
  } finally {
    await boss.stop({ graceful: false });
  }
}

/** The lock timeout written in the installed graphile-worker's SQL (the query that resets stale locks). */
function graphileLockTimeout(): string {
  const file = require.resolve("graphile-worker/dist/sql/resetLockedAt.js");
  const found = /locked_at < \$\{now\} - interval '([^']+)'/.exec(readFileSync(file, "utf8"));
  if (found === null) throw new Error(`no lock timeout found in ${file}; the bench needs updating for this graphile-worker version`);
  return found[1]!;
}

async function crashGraphileWorker(engine: EngineUnderTest): Promise<void> {
  const timeout = graphileLockTimeout();
  const utils = await makeWorkerUtils({ connectionString: engine.database.url, logger: silent });
  const pickedAt = new Map<string, number>();
  let runner: Runner | undefined;
  const startRunner = async (): Promise<Runner> =>
    await run({
      connectionString: engine.database.url,
      concurrency: 1,
      pollInterval: 500,
      // the stale-lock sweep as often as it can be set, so only the fixed timeout holds the job
      minResetLockedInterval: 1000,
      maxResetLockedInterval: 1500,
      noHandleSignals: true,
      logger: silent,
      taskList: { crash: async (_payload, helpers) => void pickedAt.set(helpers.job.id, Date.now()) },
    });
  try {
    // 1. stock behaviour: the lock of a vanished worker only expires after the fixed timeout
    await utils.addJob("crash", {});
    const first = await claimAndVanish(engine);
    runner = await startRunner();
    const stock = await waitForPickUp(pickedAt, first.jobId, CRASH_WAIT_MS);
    put(
      "abandoned job offered again after SIGKILL",
      "graphile-worker",
      stock === null
        ? `not within ${CRASH_WAIT_MS / 1000} s: the lock timeout is fixed at '${timeout}' in its SQL (resetLockedAt); with the lock aged past it, the sweep freed the job ${await agedLock(utils, first.jobId, pickedAt)}`
        : `${((stock - first.killedAt) / 1000).toFixed(1)} s`,
    );
    // 2. what a liveness check of our own would do: forceUnlockWorkers([the dead worker's id])
    await runner.stop(); // first, or it would take the new job before the child does
    runner = undefined;
    await utils.addJob("crash", {});
    const second = await claimAndVanish(engine);
    runner = await startRunner();
    if (second.workerId === undefined || second.workerId === "") throw new Error("the graphile-worker child did not name its worker id");
    const unlockedAt = Date.now();
    await utils.forceUnlockWorkers([second.workerId]);
    const forced = await waitForPickUp(pickedAt, second.jobId, 10_000);
    put(
      "abandoned job, forceUnlockWorkers([dead worker]) from a liveness check",
      "graphile-worker",
      forced === null ? "not within 10 s" : `${forced - unlockedAt} ms after the call (plus however long the liveness check takes to notice the death)`,
    );
    put("abandoned job, forceUnlockWorkers([dead worker]) from a liveness check", "pg-boss", "– (expiry per job instead)");
  } finally {
    await runner?.stop();
    await utils.release();
  }
}

/** Ages one job's lock past the fixed timeout by hand and reports how long the runner's sweep took to offer it again. */
async function agedLock(utils: WorkerUtils, jobId: string, pickedAt: Map<string, number>): Promise<string> {
  const timeout = graphileLockTimeout();
  const agedAt = Date.now();
  await utils.withPgClient((client) =>
    client.query(`UPDATE graphile_worker._private_jobs SET locked_at = now() - interval '${timeout}' - interval '1 second' WHERE id = $1`, [jobId]),
  );
  const at = await waitForPickUp(pickedAt, jobId, 10_000);
  return at === null ? "not within 10 s" : `${((at - agedAt) / 1000).toFixed(1)} s later`;
}

// ---------------------------------------------------------------------------------------------

const table = [
  `| measured in one run | pg-boss ${require("pg-boss/package.json").version as string} | graphile-worker ${require("graphile-worker/package.json").version as string} |`,
  "|---|---|---|",
  ...rows.map((row) => `| ${row.what} | ${row.figures["pg-boss"] ?? ""} | ${row.figures["graphile-worker"] ?? ""} |`),
].join("\n");
const { rows: version } = await (async () => {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await client.query<{ server_version: string }>("SHOW server_version");
  } finally {
    await client.end();
  }
})();
console.log(`\n${table}\n`);
console.log(`${machineLine()} PostgreSQL ${version[0]!.server_version}. Load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(2)).join(" / ")} at the end; the run took ${((Date.now() - started) / 1000).toFixed(0)} s.`);
console.log(
  `Claim rows: pg-boss consumers loop fetch(batchSize ${FETCH_BATCH}) + complete(ids); graphile-worker consumers are run() runners with concurrency ${GW_CONCURRENCY} and localQueue.size ${FETCH_BATCH} (0.17 has no get_job/complete_job SQL functions any more; its runner locks jobs with one UPDATE … RETURNING and deletes them on completion). Handlers do no work, so the rows measure the queue alone.`,
);
