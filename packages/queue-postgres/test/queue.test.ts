import type { Store } from "@driftwatch/core";
import { createEngine, type Engine, type WorkQueue } from "@driftwatch/engine";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { createPostgresStore } from "@driftwatch/store-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CHECK_QUEUE, startPostgresJobs, type PostgresJobs } from "../src/index.js";
import { createPostgresDatabase, postgresSkipReason, type TestPostgresDatabase } from "../../../tooling/test-postgres.js";
import { createMonitor, createWebhook, startReceiver, startTarget, type Receiver, type Target } from "../../engine/test/fixtures.js";

const skip = await postgresSkipReason();
if (skip !== null) console.warn(`skipping the pg-boss queue suite: ${skip}`);

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe.skipIf(skip !== null)("the work queue on pg-boss", () => {
  let database: TestPostgresDatabase;
  let store: Store;
  let sql: pg.Pool;
  let target: Target;
  let receiver: Receiver;
  let orgId: string;
  const jobs: PostgresJobs[] = [];
  const engines: Engine[] = [];

  beforeAll(async () => {
    database = await createPostgresDatabase("dw_queue");
    store = await createPostgresStore({ connectionString: database.url, max: 4 });
    sql = new pg.Pool({ connectionString: database.url, max: 2 });
    // Its clients' errors while the database is dropped at the end are expected.
    sql.on("error", () => undefined);
    target = await startTarget();
    receiver = await startReceiver();
    orgId = (await store.createOrganization({ slug: "queue" })).id;
  });
  afterAll(async () => {
    for (const engine of engines) await engine.close().catch(() => undefined);
    for (const j of jobs) await j.close().catch(() => undefined);
    await store?.close();
    await sql?.end();
    await target?.close();
    await receiver?.close();
    await database?.drop();
  });

  async function start(leaseMs = 2000): Promise<PostgresJobs> {
    const started = await startPostgresJobs({ connectionString: database.url, leaseMs, maintenanceIntervalSeconds: 1, repairIntervalMs: 0, max: 3 });
    jobs.push(started);
    return started;
  }

  function engine(j: PostgresJobs, owner: string, engineStore: Store = store): Engine {
    const created = createEngine({
      store: engineStore,
      fetchers: { http: createHttpFetcher({ allowPrivateNetworks: true }) },
      logger: silent,
      owner,
      queue: (context) => j.workQueue(engineStore, context),
      schedulerPollMs: 50,
      deliveryPollMs: 50,
      checkConcurrency: 8,
      perHostConcurrency: 8,
    });
    engines.push(created);
    return created;
  }

  /** Claims through `queue` until every one of `ids` was claimed (other due monitors may come first); returns every id claimed. */
  async function claimUntil(queue: WorkQueue, ids: string[], { limit = 10, timeout = 10_000, interval = 100 } = {}): Promise<string[]> {
    let claimed: string[] = [];
    await vi.waitFor(
      async () => {
        claimed = [...claimed, ...(await queue.claimMonitors({ now: new Date().toISOString(), limit })).map((m) => m.id)];
        expect(claimed).toEqual(expect.arrayContaining(ids));
      },
      { timeout, interval },
    );
    return claimed;
  }

  async function waitingJobs(key: string): Promise<{ due: string; state: string }[]> {
    const { rows } = await sql.query<{ due: string; state: string }>(
      `SELECT data->>'due' AS due, state::text AS state FROM pgboss.job WHERE name = $1 AND singleton_key = $2 AND state < 'completed'`,
      [CHECK_QUEUE, key],
    );
    return rows;
  }

  it("upgrades a lease-queue database in place: every due monitor gets one job, a leased one waits for its lease, each is checked once", async () => {
    target.setJson({ v: 1 });
    const due = new Date(Date.now() - 1000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await createMonitor(store, orgId, { url: `${target.url}/m${String(i)}`, nextCheckAt: due, intervalSeconds: 3600 })).id);
    // A process of the old lease queue holds five of them when the upgrade happens, then dies.
    // The lease ends 3 s after the `now` the claim was made with (not after the claim returned: under
    // load the claim itself can take longer than the 50 ms of slack below).
    const heldFrom = Date.now();
    const held = await store.claimDueMonitors({ now: new Date(heldFrom).toISOString(), limit: 5, leaseMs: 3000, owner: "old-process" });
    expect(held).toHaveLength(5);
    const heldUntil = heldFrom + 3000;

    const j = await start();
    expect(j.installed.monitors).toBe(30);
    for (const id of ids) expect(await waitingJobs(id)).toHaveLength(1);
    // Running the upgrade again (another process starting) enqueues nothing twice.
    expect(await j.reconcile()).toEqual({ monitors: 0, deliveries: 0 });

    const a = engine(j, "engine-a");
    const b = engine(await start(), "engine-b");
    a.start();
    b.start();
    await vi.waitFor(
      async () => {
        for (const id of ids) expect((await store.getMonitor(orgId, id))?.lastCheckedAt).not.toBeNull();
      },
      { timeout: 20_000, interval: 100 },
    );
    // Once: one snapshot per monitor, and the old process's five only after its lease ended.
    for (const id of ids) expect((await store.listSnapshots(orgId, id, { limit: 10 })).data).toHaveLength(1);
    const heldChecked = await Promise.all(held.map((m) => store.getMonitor(orgId, m.id)));
    for (const m of heldChecked) expect(Date.parse(m!.lastCheckedAt!)).toBeGreaterThanOrEqual(heldUntil - 50);
    // Every checked monitor has exactly one waiting job, at its next check time.
    for (const id of ids) {
      const monitor = await store.getMonitor(orgId, id);
      const waiting = await waitingJobs(id);
      expect(waiting).toHaveLength(1);
      expect(Date.parse(waiting[0]!.due)).toBe(Date.parse(monitor!.nextCheckAt!));
    }
    await a.stop();
    await b.stop();
  });

  it("enqueues on every write that makes a monitor due, keeping one waiting job per monitor", async () => {
    await start();
    const monitor = await createMonitor(store, orgId, { url: `${target.url}/writes`, state: "paused", nextCheckAt: null });
    expect(await waitingJobs(monitor.id)).toHaveLength(0);
    const at = new Date(Date.now() + 3_600_000).toISOString();
    await store.updateMonitor(orgId, monitor.id, { state: "active", nextCheckAt: at });
    expect((await waitingJobs(monitor.id)).map((job) => Date.parse(job.due))).toEqual([Date.parse(at)]);
    const sooner = new Date(Date.now() + 60_000).toISOString();
    await store.updateMonitor(orgId, monitor.id, { nextCheckAt: sooner });
    expect((await waitingJobs(monitor.id)).map((job) => Date.parse(job.due))).toEqual([Date.parse(sooner)]);
    await store.deleteMonitor(orgId, monitor.id);
  });

  it("delivers each event once with its event id as webhook-id", async () => {
    const j = await start();
    const webhook = await createWebhook(store, orgId, { url: receiver.url });
    const ids: string[] = [];
    target.setJson({ v: 1 });
    const due = new Date(Date.now() - 1000).toISOString();
    for (let i = 0; i < 5; i++) ids.push((await createMonitor(store, orgId, { url: `${target.url}/d${String(i)}`, nextCheckAt: due, intervalSeconds: 2 })).id);
    const e = engine(j, "engine-d");
    e.start();
    // First checks make baselines; the next ones see v: 2 and record a diff each, delivered once.
    await vi.waitFor(
      async () => {
        for (const id of ids) expect((await store.getMonitor(orgId, id))?.lastCheckedAt).not.toBeNull();
      },
      { timeout: 20_000, interval: 100 },
    );
    target.setJson({ v: 2 });
    await vi.waitFor(
      async () => {
        const page = (await store.listDeliveries(orgId, webhook.id, { limit: 100 })).data;
        expect(page.filter((d) => ids.includes(d.monitorId) && d.state === "succeeded").length).toBeGreaterThanOrEqual(5);
      },
      { timeout: 20_000, interval: 100 },
    );
    await e.stop();
    const deliveries = (await store.listDeliveries(orgId, webhook.id, { limit: 100 })).data.filter((d) => ids.includes(d.monitorId));
    const received = receiver.received.map((r) => r.headers["webhook-id"]);
    for (const d of deliveries.filter((x) => x.state === "succeeded")) expect(received.filter((id) => id === d.eventId)).toHaveLength(1);
    await store.updateWebhook(orgId, webhook.id, { enabled: false });
  });

  it("does not let one organization's backlog hold back another's due work", async () => {
    const j = await start();
    // Only these two organizations have due work: the earlier tests' monitors are paused.
    for (const m of (await store.listMonitors(orgId, { limit: 100 })).data) await store.updateMonitor(orgId, m.id, { state: "paused", nextCheckAt: null });
    // Pausing leaves a monitor's waiting job in place (the first claim to fetch it completes it). The
    // earlier test's monitors checked every 2 s have such jobs, due a moment later, at the first
    // levels: on a loaded machine they are due by the claim below and take its first slots, and
    // whether the third small job still fits came down to a tie on random job ids. Gone now.
    await sql.query(`DELETE FROM pgboss.job WHERE name = $1 AND state < 'active' AND data->>'org' = $2`, [CHECK_QUEUE, orgId]);
    const due = new Date(Date.now() - 1000).toISOString();
    const big = (await store.createOrganization({ slug: "backlog" })).id;
    const small = (await store.createOrganization({ slug: "small" })).id;
    // 200 monitors of one organization come due at once (a bulk import), then 3 of another.
    for (let i = 0; i < 200; i++) await createMonitor(store, big, { url: `${target.url}/big${String(i)}`, nextCheckAt: due, intervalSeconds: 3600 });
    const mine = new Set<string>();
    for (let i = 0; i < 3; i++) mine.add((await createMonitor(store, small, { url: `${target.url}/small${String(i)}`, nextCheckAt: due, intervalSeconds: 3600 })).id);
    const queue = j.workQueue(store, { owner: "fair" });
    // The first claim of 10 already holds the second organization's three.
    const claimed = await queue.claimMonitors({ now: new Date().toISOString(), limit: 10 });
    expect(claimed.filter((m) => mine.has(m.id))).toHaveLength(3);
    await queue.releaseAll();
    queue.close();
    for (const m of (await store.listMonitors(big, { limit: 200 })).data) await store.updateMonitor(big, m.id, { state: "paused", nextCheckAt: null });
    for (const id of mine) await store.updateMonitor(small, id, { state: "paused", nextCheckAt: null });
  });

  it("takes over a dead worker's claim after its lease, and a stopped worker's claims at once", async () => {
    const j = await start(2000);
    target.setJson({ v: 3 });
    const monitor = await createMonitor(store, orgId, { url: `${target.url}/crash`, nextCheckAt: new Date(Date.now() - 1000).toISOString(), intervalSeconds: 3600 });
    // A worker claims and dies (no heartbeat, no release).
    const dead = j.workQueue(store, { owner: "dead-worker" });
    const claimed = await dead.claimMonitors({ now: new Date().toISOString(), limit: 10 });
    expect(claimed.map((m) => m.id)).toContain(monitor.id);
    dead.close();
    const diedAt = Date.now();
    const takeovers: string[] = [];
    const live = j.workQueue(store, { owner: "live-worker", metrics: { observeTakeover: (kind) => takeovers.push(kind), observeLeaseLost: () => undefined } });
    await claimUntil(live, [monitor.id], { timeout: 15_000, interval: 200 });
    // Not before its lease (2 s) ended; counted as a takeover.
    expect(Date.now() - diedAt).toBeGreaterThanOrEqual(1500);
    expect(takeovers).toContain("monitor");
    // A graceful stop hands the claim back: another worker claims it at once.
    // (Other tests' monitors may be held too: claims are across organizations.)
    expect((await live.releaseAll()).monitors).toBeGreaterThanOrEqual(1);
    // Handed back, not left to expire: the next claim of it is no takeover (an expired lease would be
    // one), so the deadline can be generous for a loaded machine without letting an expiry pass for a release.
    const next = j.workQueue(store, { owner: "next-worker" });
    const reclaimed = await vi.waitFor(
      async () => {
        const found = (await next.claimMonitors({ now: new Date().toISOString(), limit: 10 })).find((m) => m.id === monitor.id);
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(reclaimed.takenOverFrom).toBeNull();
    await next.completeMonitor(monitor.id, null);
    live.close();
    next.close();
  });
  it("keeps renewing its claims while another transaction holds some of their rows, without waiting for it", async () => {
    // A grouped record locks its monitors and then their jobs in its plan's order; a heartbeat
    // that waited for those locks could deadlock with it (PostgreSQL breaks that after a second).
    const j = await start(2000);
    const org = (await store.createOrganization({ slug: "heartbeat" })).id;
    const due = new Date(Date.now() - 1000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createMonitor(store, org, { url: `${target.url}/beat${String(i)}`, nextCheckAt: due, intervalSeconds: 3600 })).id);
    const queue = j.workQueue(store, { owner: "beating" });
    const claimed = await claimUntil(queue, ids);
    const leases = async (): Promise<Map<string, number>> => {
      const { rows } = await sql.query<{ id: string; until: Date }>("SELECT id, lease_expires_at AS until FROM monitors WHERE id = ANY($1)", [ids]);
      return new Map(rows.map((row) => [row.id, row.until.getTime()]));
    };
    const jobStarts = async (): Promise<Map<string, number>> => {
      const { rows } = await sql.query<{ key: string; at: Date }>(
        `SELECT singleton_key AS key, started_on AS at FROM pgboss.job WHERE name = $1 AND singleton_key = ANY($2) AND state = 'active'`,
        [CHECK_QUEUE, ids],
      );
      return new Map(rows.map((row) => [row.key, row.at.getTime()]));
    };
    const before = await leases();
    const startedBefore = await jobStarts();
    expect(startedBefore.size).toBe(3);
    const locker = await sql.connect();
    try {
      await locker.query("BEGIN");
      // The first monitor's row and the second one's job stay locked for longer than the lease.
      await locker.query("SELECT 1 FROM monitors WHERE id = $1 FOR UPDATE", [ids[0]]);
      await locker.query("SELECT 1 FROM pgboss.job WHERE name = $1 AND singleton_key = $2 AND state = 'active' FOR UPDATE", [CHECK_QUEUE, ids[1]]);
      await vi.waitFor(
        async () => {
          const now = await leases();
          const started = await jobStarts();
          for (const id of [ids[1]!, ids[2]!]) expect(now.get(id)).toBeGreaterThan(before.get(id)!);
          for (const id of [ids[0]!, ids[2]!]) expect(started.get(id)).toBeGreaterThan(startedBefore.get(id)!);
        },
        { timeout: 5_000, interval: 100 },
      );
      expect(queue.held.monitor).toBe(new Set(claimed).size);
    } finally {
      await locker.query("ROLLBACK");
      locker.release();
    }
    await queue.releaseAll();
    queue.close();
    for (const id of ids) await store.updateMonitor(org, id, { state: "paused", nextCheckAt: null });
  });

  it("counts its jobs by queue and state for the metrics", async () => {
    const j = await start();
    const before = await j.depth();
    const org = (await store.createOrganization({ slug: "depth" })).id;
    const later = await createMonitor(store, org, { url: `${target.url}/later`, nextCheckAt: new Date(Date.now() + 3_600_000).toISOString() });
    const now = await createMonitor(store, org, { url: `${target.url}/now`, nextCheckAt: new Date(Date.now() - 1000).toISOString() });
    const after = await j.depth();
    expect(after.checks.scheduled - before.checks.scheduled).toBe(1);
    expect(after.checks.due - before.checks.due).toBe(1);
    const queue = j.workQueue(store, { owner: "depth" });
    await claimUntil(queue, [now.id], { limit: 50 });
    expect((await j.depth()).checks.running).toBeGreaterThanOrEqual(1);
    await queue.releaseAll();
    queue.close();
    for (const m of [later, now]) await store.updateMonitor(org, m.id, { state: "paused", nextCheckAt: null });
  });
});
