import pg from "pg";
import PgBoss from "pg-boss";
import type { ClaimedDelivery, ClaimedMonitor, DeliveryAttempt, DeliveryRecord, ReleasedLeases, Store } from "@driftwatch/core";
import {
  createHeartbeat,
  DEFAULT_LEASE_MS,
  defaultOwner,
  leaseRenewalMs,
  type JobCounts,
  type JobStateCounts,
  type WorkKind,
  type WorkQueue,
  type WorkQueueContext,
} from "@driftwatch/engine";
import { createPostgresDialect } from "@driftwatch/store-postgres";
import { RowCodec, type Row } from "@driftwatch/store-sql";
import {
  enqueueStatement,
  fetchStatement,
  CHECK_DEAD_LETTER,
  CHECK_QUEUE,
  claimStatement,
  DELIVERY_DEAD_LETTER,
  DELIVERY_QUEUE,
  handBackStatement,
  INSTALL_VERSION,
  installedVersionStatement,
  installStatements,
  jobTablesStatement,
  PGBOSS_SCHEMA_VERSION,
  queueSql,
  reconcileStatements,
  renewStatement,
  rowsStatement,
  touchJobsStatement,
  type QueueSql,
} from "./sql.js";

export interface PostgresJobsOptions {
  /** The database of the driftwatch store (`postgres://...`). */
  connectionString: string;
  /** The schema of the driftwatch tables (default `public`). */
  schema?: string;
  /** The schema pg-boss keeps its jobs in (default `pgboss`, or `<schema>_pgboss` beside a schema other than `public`). */
  jobSchema?: string;
  /**
   * How long a claim holds without a heartbeat (default 20 s): a job's expiry in pg-boss and the
   * row's lease. Takeover after a crash comes within about one lease plus the maintenance interval.
   */
  leaseMs?: number;
  /** How often pg-boss looks for expired jobs (default a tenth of the lease, at least 1 s: 2 s). */
  maintenanceIntervalSeconds?: number;
  /** How often the repair sweep runs (default 60 s; 0 turns it off). */
  repairIntervalMs?: number;
  /**
   * How often the queues' job tables are looked at for dead rows (default 2 s; 0 turns this off).
   * A table with enough of them is vacuumed (see `createJobVacuum`).
   */
  vacuumIntervalMs?: number;
  /** Pool size of each of the two pools (driftwatch's claims and heartbeats, pg-boss's). Default 2: claims run one at a time per engine part. */
  max?: number;
  /** Errors of pg-boss's background work and of the repair sweep (the next run tries again). */
  onError?: (error: unknown) => void;
}

/** What the in-place upgrade (and every repair sweep) enqueued: work that had no job yet. */
export interface Reconciled {
  monitors: number;
  deliveries: number;
}


/** pg-boss started on the database, with driftwatch's queues and triggers installed. */
export interface PostgresJobs {
  readonly boss: PgBoss;
  /** What the start-up enqueued for work that had no job (the upgrade from the lease queue, or a repair). */
  readonly installed: Reconciled;
  /**
   * A work queue for one engine (one per process) on `store` (the PostgreSQL store of the same
   * database): pass `(context) => jobs.workQueue(store, context)` as `createEngine({ queue })`.
   */
  workQueue(store: Store, context?: Partial<WorkQueueContext>): WorkQueue;
  /** Enqueues a job for every due monitor and pending delivery that has none (run at start and every `repairIntervalMs`). */
  reconcile(): Promise<Reconciled>;
  /** Jobs per queue (checks, deliveries): due and waiting, scheduled for later, and running. Pass it to the engine's `metrics.useJobCounts`. */
  depth(): Promise<JobCounts>;
  /** Stops pg-boss and the pools. Call after the engines using it stopped. */
  close(): Promise<void>;
}

const INSTALL_LOCK = 0x64770b55; // "dw" + queue: one installer at a time

/**
 * Starts pg-boss on the driftwatch database and installs the job queue: pg-boss's schema (its own
 * migrations), the driftwatch queues, and the triggers that enqueue a job whenever a monitor or a
 * delivery becomes due. The first start on a database that ran the lease queue is the upgrade:
 * every due monitor and pending delivery gets its job, those held by a lease wait for it to end.
 * Safe to run from many processes at once (an advisory lock orders them).
 */
export async function startPostgresJobs(options: PostgresJobsOptions): Promise<PostgresJobs> {
  const schema = options.schema ?? "public";
  const jobSchema = options.jobSchema ?? (schema === "public" ? "pgboss" : `${schema}_pgboss`);
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const expireInSeconds = Math.max(1, Math.ceil(leaseMs / 1000));
  const maintenanceIntervalSeconds = options.maintenanceIntervalSeconds ?? Math.max(1, Math.round(leaseMs / 10_000));
  const reportError = options.onError ?? ((): void => undefined);
  // Errors of background work go to the caller's handler; one that throws is not an unhandled rejection.
  const onError = (error: unknown): void => {
    try {
      reportError(error);
    } catch {
      // the handler's own failure has nowhere to go
    }
  };
  const max = options.max ?? 2;
  const sql = queueSql(schema, jobSchema);
  const pool = new pg.Pool({ connectionString: options.connectionString, max, application_name: "driftwatch-queue" });
  pool.on("error", onError);
  const boss = new PgBoss({
    connectionString: options.connectionString,
    schema: jobSchema,
    max,
    application_name: "driftwatch-pgboss",
    supervise: true,
    maintenanceIntervalSeconds,
    schedule: false,
    migrate: true,
    // A finished check's or attempt's job is deleted by the trigger that ends it; the few jobs
    // pg-boss completes (found with nothing to do) move to its archive after a minute and leave it
    // after 15 minutes, jobs that ended failed after a day.
    archiveCompletedAfterSeconds: 60,
    archiveFailedAfterSeconds: 86_400,
    deleteAfterSeconds: 900,
  });
  boss.on("error", onError);

  let installed: Reconciled;
  try {
    const client = await pool.connect();
    try {
      await client.query("SELECT pg_advisory_lock($1)", [INSTALL_LOCK]);
      try {
        await boss.start();
        const { rows } = await client.query<{ version: string }>(`SELECT version FROM ${sql.b}.version`);
        if (Number(rows[0]?.version) !== PGBOSS_SCHEMA_VERSION) {
          throw new Error(
            `pg-boss schema version ${String(rows[0]?.version)} in ${jobSchema}; this driftwatch release works with version ${String(PGBOSS_SCHEMA_VERSION)} (pg-boss 10).`,
          );
        }
        const queue = { policy: "standard" as const, retryDelay: 0, retentionMinutes: 60 * 24 * 14 };
        for (const name of [CHECK_DEAD_LETTER, DELIVERY_DEAD_LETTER]) if ((await boss.getQueue(name)) === null) await boss.createQueue(name, { ...queue, name });
        // A job that expired this many times in a row (its worker died each time) goes to the dead
        // letter queue; the repair sweep enqueues its monitor or delivery again later.
        const work = { ...queue, retryLimit: 20, expireInSeconds };
        for (const [name, deadLetter] of [
          [CHECK_QUEUE, CHECK_DEAD_LETTER],
          [DELIVERY_QUEUE, DELIVERY_DEAD_LETTER],
        ] as const) {
          if ((await boss.getQueue(name)) === null) await boss.createQueue(name, { ...work, name, deadLetter });
          else await boss.updateQueue(name, { ...work, name, deadLetter });
        }
        const { rows: version } = await client.query<{ version: string | null }>(installedVersionStatement(sql));
        if (version[0]?.version !== INSTALL_VERSION) {
          await client.query("BEGIN");
          for (const statement of installStatements(sql)) await client.query(statement);
          await client.query("COMMIT");
        }
        installed = await reconcileWith(client, sql);
      } finally {
        await client.query("SELECT pg_advisory_unlock($1)", [INSTALL_LOCK]).catch(() => undefined);
      }
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
      throw error;
    }
    client.release();
  } catch (error) {
    await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw error;
  }

  const repairIntervalMs = options.repairIntervalMs ?? 60_000;
  const repairTimer =
    repairIntervalMs > 0
      ? setInterval(() => {
          reconcile().catch(onError);
        }, repairIntervalMs)
      : null;
  repairTimer?.unref();

  const vacuumIntervalMs = options.vacuumIntervalMs ?? 2_000;
  const vacuum = createJobVacuum(pool, sql, onError);
  const vacuumTimer = vacuumIntervalMs > 0 ? setInterval(() => void vacuum.run(), vacuumIntervalMs) : null;
  vacuumTimer?.unref();

  async function reconcile(): Promise<Reconciled> {
    const client = await pool.connect();
    try {
      // One sweep at a time across processes; a process that finds one running skips its turn.
      const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [INSTALL_LOCK]);
      if (rows[0]?.locked !== true) return { monitors: 0, deliveries: 0 };
      try {
        return await reconcileWith(client, sql);
      } finally {
        await client.query("SELECT pg_advisory_unlock($1)", [INSTALL_LOCK]);
      }
    } finally {
      client.release();
    }
  }

  return {
    boss,
    installed,
    reconcile,
    workQueue: (store, context = {}) =>
      createPgBossWorkQueue({ ...context, boss, pool, sql, store, leaseMs, schema, owner: context.owner ?? defaultOwner("engine") }),
    async depth() {
      const { rows } = await pool.query<{ name: string; due: number; scheduled: number; running: number }>(
        `SELECT name, count(*) FILTER (WHERE state < 'active' AND start_after <= now())::int AS due,
           count(*) FILTER (WHERE state < 'active' AND start_after > now())::int AS scheduled,
           count(*) FILTER (WHERE state = 'active')::int AS running
         FROM ${sql.b}.job WHERE name IN ($1, $2) AND state <= 'active' GROUP BY name`,
        [CHECK_QUEUE, DELIVERY_QUEUE],
      );
      const of = (name: string): JobStateCounts => {
        const row = rows.find((r) => r.name === name);
        return { due: row?.due ?? 0, scheduled: row?.scheduled ?? 0, running: row?.running ?? 0 };
      };
      return { checks: of(CHECK_QUEUE), deliveries: of(DELIVERY_QUEUE) };
    },
    async close() {
      if (repairTimer !== null) clearInterval(repairTimer);
      if (vacuumTimer !== null) clearInterval(vacuumTimer);
      await vacuum.settled();
      await boss.stop({ graceful: false, wait: true, close: true });
      await pool.end();
    },
  };
}

/** Dead rows a job table gathers before it is vacuumed: this many, plus a tenth of its live rows. */
const VACUUM_MIN_DEAD = 1_000;
const VACUUM_LOCK = 0x64770b56; // one vacuum of the job tables at a time across processes

/**
 * Vacuums the queues' job tables once they hold enough dead rows. Every check updates its job
 * twice (fetched, then re-armed for the next check), and each update leaves a dead row version and
 * dead entries in the job indexes. The fetch and the fairness count read those indexes from the
 * oldest due time up, so they step over every dead entry left since the last vacuum. Autovacuum
 * looks at a database at most once a minute by default (`autovacuum_naptime`), and at 1,000 checks/s
 * that is 120,000 dead entries. One run at a time across processes (an advisory lock; a process
 * that finds one running skips its turn), with `SKIP_LOCKED` (never waits for a lock) and without
 * truncation (which would lock the table for a moment). A role that does not own the tables (pg-boss
 * created them as another role) cannot vacuum them: reported once, then left to autovacuum.
 */
function createJobVacuum(pool: pg.Pool, sql: QueueSql, onError: (error: unknown) => void): { run(): Promise<void>; settled(): Promise<void> } {
  let running: Promise<void> | null = null;
  let refused = false;
  /**
   * Each table's dead rows that its last vacuum could not remove (an old transaction still sees
   * them): the next vacuum waits until that many plus the threshold are dead, instead of running
   * every interval for nothing while such a transaction lasts.
   */
  const left = new Map<string, number>();
  async function once(): Promise<void> {
    const client = await pool.connect();
    let failed: Error | undefined;
    try {
      const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [VACUUM_LOCK]);
      if (rows[0]?.locked !== true) return;
      try {
        const { rows: tables } = await client.query<{ rel: string; dead: number; live: number; owned: boolean }>(jobTablesStatement(sql));
        for (const table of tables) {
          // Fewer dead rows than the last vacuum left: another vacuum (autovacuum) removed them.
          if (table.dead < (left.get(table.rel) ?? 0)) left.set(table.rel, table.dead);
          if (table.dead - (left.get(table.rel) ?? 0) < VACUUM_MIN_DEAD + table.live / 10) continue;
          if (!table.owned) {
            if (!refused) onError(new Error(`driftwatch cannot vacuum ${table.rel}: this role does not own it; its dead rows wait for autovacuum.`));
            refused = true;
            continue;
          }
          await client.query(`VACUUM (SKIP_LOCKED, INDEX_CLEANUP ON, TRUNCATE OFF) ${table.rel}`);
          const { rows: after } = await client.query<{ dead: number }>(
            "SELECT COALESCE(n_dead_tup, 0)::int AS dead FROM pg_stat_user_tables WHERE relid = $1::regclass",
            [table.rel],
          );
          left.set(table.rel, after[0]?.dead ?? 0);
        }
      } finally {
        await client.query("SELECT pg_advisory_unlock($1)", [VACUUM_LOCK]);
      }
    } catch (error) {
      // A client whose statement failed may hold the session lock still: it leaves the pool.
      failed = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      client.release(failed);
    }
  }
  return {
    run() {
      running ??= once()
        .catch(onError)
        .finally(() => (running = null));
      return running;
    },
    settled: () => running ?? Promise.resolve(),
  };
}

async function reconcileWith(client: pg.PoolClient, sql: QueueSql): Promise<Reconciled> {
  const statements = reconcileStatements(sql);
  const monitors = await client.query(statements.monitors);
  const deliveries = await client.query(statements.deliveries);
  return { monitors: monitors.rowCount ?? 0, deliveries: deliveries.rowCount ?? 0 };
}

interface PgBossQueueOptions extends Partial<WorkQueueContext> {
  boss: PgBoss;
  pool: pg.Pool;
  sql: QueueSql;
  store: Store;
  schema: string;
  owner: string;
  leaseMs: number;
}

interface FetchedJob {
  id: string;
  data: { id: string; org: string; due: string };
}

/**
 * The engine's work queue on pg-boss. A claim fetches due jobs from pg-boss's job table (`FOR UPDATE
 * SKIP LOCKED`, by priority then due time, see `fetchStatement`), then leases their rows in one statement, only where the row is still due
 * at the job's time: a job whose monitor was rescheduled, paused or deleted meanwhile is completed
 * without work, and one whose row another worker still holds waits (handed back to pg-boss) until
 * that lease ends. The row's lease is what makes a check or an attempt run once: two jobs of one
 * monitor (an upgrade racing a trigger, a job that expired while its worker was only slow) can
 * never both lease it. The heartbeat renews the rows' leases and the jobs' start times, so neither
 * pg-boss's expiry nor another claim takes work that is running; a worker that dies stops renewing,
 * pg-boss's maintenance moves its jobs to retry once they expire, and the next claim takes them
 * over (the row's expired lease names the dead worker: a takeover).
 */
function createPgBossWorkQueue(options: PgBossQueueOptions): WorkQueue {
  const { boss, pool, sql, store, owner, leaseMs, metrics } = options;
  const now = options.now ?? ((): Date => new Date());
  const renewEveryMs = leaseRenewalMs(leaseMs);
  const codec = new RowCodec(createPostgresDialect(options.schema));
  const queues: Record<WorkKind, string> = { monitor: CHECK_QUEUE, delivery: DELIVERY_QUEUE };
  /** Held claims: the row id, the claim number (so a late renewal answer never drops a newer claim), and the job (null for a claim made without one). */
  const held: Record<WorkKind, Map<string, { claim: number; job: string | null }>> = { monitor: new Map(), delivery: new Map() };
  let claims = 0;
  const heartbeat = createHeartbeat(renewEveryMs, () => held.monitor.size > 0 || held.delivery.size > 0, renew);

  async function renew(): Promise<void> {
    const until = new Date(now().getTime() + leaseMs).toISOString();
    for (const kind of ["monitor", "delivery"] as const) {
      const asked = new Map(held[kind]);
      if (asked.size === 0) continue;
      try {
        const table = kind === "monitor" ? "monitors" : "deliveries";
        const { rows } = await pool.query<{ id: string }>(renewStatement(sql, table), [until, owner, [...asked.keys()]]);
        const jobs = [...asked.values()].map((h) => h.job).filter((job): job is string => job !== null);
        if (jobs.length > 0) await pool.query(touchJobsStatement(sql), [queues[kind], jobs]);
        const kept = new Set(rows.map((row) => row.id));
        for (const [id, claim] of asked) {
          if (kept.has(id) || held[kind].get(id)?.claim !== claim.claim) continue;
          held[kind].delete(id);
          metrics?.observeLeaseLost(kind);
        }
      } catch (error) {
        options.onError?.(error);
      }
    }
  }

  async function handBack(kind: WorkKind, jobs: [id: string, at: string][]): Promise<void> {
    if (jobs.length === 0) return;
    await pool.query(handBackStatement(sql), [queues[kind], jobs.map(([id]) => id), jobs.map(([, at]) => at)]);
  }

  /** Fetches due jobs and leases their rows; jobs that bring no work are completed, or handed back when a live lease blocks them. */
  async function claim(kind: WorkKind, nowIso: string, limit: number): Promise<{ rows: Row[]; jobs: Map<string, string> }> {
    const { rows: jobs } = await pool.query<FetchedJob>(fetchStatement(sql), [queues[kind], limit, nowIso]);
    if (jobs.length === 0) return { rows: [], jobs: new Map() };
    // One job per row: a second job of the same row (briefly possible, see above) is dealt with as a blocked one.
    const byRow = new Map<string, FetchedJob>();
    const extra: FetchedJob[] = [];
    for (const job of jobs) {
      if (byRow.has(job.data.id)) extra.push(job);
      else byRow.set(job.data.id, job);
    }
    const ids = [...byRow.keys()];
    const dues = ids.map((id) => byRow.get(id)!.data.due);
    const until = new Date(Date.parse(nowIso) + leaseMs).toISOString();
    const { rows } = await pool.query<Row>(claimStatement(sql, kind), [ids, dues, nowIso, owner, until]);
    const taken = new Map<string, string>();
    for (const row of rows) taken.set(row.id as string, byRow.get(row.id as string)!.id);
    const left = [...[...byRow.values()].filter((job) => !taken.has(job.data.id)), ...extra];
    if (left.length > 0) await settle(kind, left, Date.parse(nowIso));
    return { rows, jobs: taken };
  }

  /**
   * Jobs a claim could not take. A row another worker holds: its job waits for that lease to end
   * (the worker releases it, or dies and the job takes over). A row due at another time than its
   * job's (rescheduled while a lease held it, so no trigger fired): it gets a job for its time.
   * A row gone, paused or delivered: nothing left to do.
   */
  async function settle(kind: WorkKind, left: FetchedJob[], at: number): Promise<void> {
    const { rows } = await pool.query<{ id: string; org_id: string; due: Date | null; lease_expires_at: Date | null; live: boolean }>(rowsStatement(sql, kind), [
      left.map((job) => job.data.id),
    ]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const wait: [string, string][] = [];
    const again = new Map<string, { org: string; due: string }>();
    const done: string[] = [];
    for (const job of left) {
      const row = byId.get(job.data.id);
      if (row === undefined || !row.live || row.due === null) done.push(job.id);
      else if (row.lease_expires_at !== null && row.lease_expires_at.getTime() > at) wait.push([job.id, row.lease_expires_at.toISOString()]);
      else if (row.due.getTime() !== Date.parse(job.data.due)) (again.set(row.id, { org: row.org_id, due: row.due.toISOString() }), done.push(job.id));
      // Due at the job's time and free, yet not claimed: taken between the two statements; look again soon.
      else wait.push([job.id, new Date(at + 1000).toISOString()]);
    }
    await handBack(kind, wait);
    if (again.size > 0) {
      const ids = [...again.keys()];
      await pool.query(enqueueStatement(sql), [queues[kind], ids, ids.map((id) => again.get(id)!.org), ids.map((id) => again.get(id)!.due)]);
    }
    if (done.length > 0) await boss.complete(queues[kind], done);
  }

  function track<T extends { id: string; takenOverFrom: string | null }>(kind: WorkKind, claimed: T[], jobs: Map<string, string>): T[] {
    for (const item of claimed) {
      held[kind].set(item.id, { claim: ++claims, job: jobs.get(item.id) ?? null });
      if (item.takenOverFrom !== null && item.takenOverFrom !== owner) metrics?.observeTakeover(kind);
    }
    heartbeat.kick();
    return claimed;
  }

  /**
   * A claim is over. Its job was ended by the trigger in the same transaction as the row's release
   * (recorded, rescheduled, handed back); a claim whose lease was lost leaves the job alone (pg-boss
   * retries a job under the same id, so after an expiry it may be the job another worker runs now).
   */
  function finish(kind: WorkKind, id: string): void {
    held[kind].delete(id);
  }

  return {
    owner,
    get held() {
      return { monitor: held.monitor.size, delivery: held.delivery.size };
    },
    async claimMonitors(input) {
      const { rows, jobs } = await claim("monitor", input.now, Math.max(0, Math.floor(input.limit)));
      const claimed: ClaimedMonitor[] = rows
        .map((row) => ({ ...codec.monitor(row), takenOverFrom: row.taken_over_from as string | null }))
        .sort((a, b) => (a.nextCheckAt! < b.nextCheckAt! ? -1 : a.nextCheckAt! > b.nextCheckAt! ? 1 : a.id < b.id ? -1 : 1));
      return track("monitor", claimed, jobs);
    },
    async completeMonitor(id, nextCheckAt) {
      // The release commits the next check time; the trigger enqueues its job in that transaction.
      const released = await store.releaseMonitor(id, owner, nextCheckAt);
      finish("monitor", id);
      return released;
    },
    monitorReleasedByRecord(id) {
      // The record's write released the row; the trigger re-armed the job in that transaction.
      finish("monitor", id);
    },
    async claimDeliveries(input) {
      const limit = Math.max(0, Math.floor(input.limit));
      // A flush (forced, or of one organization or webhook) takes the rows directly: their jobs,
      // still waiting, are completed without work when they come due (the row is no longer due then).
      if (input.force === true || input.orgId !== undefined || input.webhookId !== undefined) {
        return track("delivery", await store.claimDueDeliveries({ ...input, limit, owner, leaseMs }), new Map());
      }
      const { rows, jobs } = await claim("delivery", input.now, limit);
      const claimed: ClaimedDelivery[] = rows
        .map((row) => ({ ...codec.delivery(row), takenOverFrom: row.taken_over_from as string | null }))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      return track("delivery", claimed, jobs);
    },
    async completeDelivery(id: string, attempt: DeliveryAttempt): Promise<DeliveryRecord | null> {
      const recorded = await store.recordDeliveryAttempt(id, owner, attempt);
      finish("delivery", id);
      return recorded;
    },
    holds: (kind, id) => held[kind].has(id),
    drop(kind, id) {
      // The job stays running in pg-boss without a heartbeat: it expires and is retried elsewhere.
      held[kind].delete(id);
    },
    async releaseAll(): Promise<ReleasedLeases> {
      held.monitor.clear();
      held.delivery.clear();
      await heartbeat.settled();
      // Released rows are due again at once: the trigger ends each one's job and enqueues a new one.
      return store.releaseLeases(owner);
    },
    close() {
      heartbeat.stop();
    },
  };
}
