// Checks recorded (and their bases read) at the same time share statements: the outcome of each
// call is what it would be on its own, and a batch that fails as a whole costs none of its calls.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreError, type MonitorRecord, type RecordCheckInput, type Store } from "@driftwatch/core";
import { apiMonitor, recordChanges } from "@driftwatch/store-testkit";
import { createPostgresStore } from "../src/index.js";
import { createTestDatabase, freshSchema, postgresSkipReason, type TestDatabase } from "./database.js";

const skipReason = await postgresSkipReason();

describe.skipIf(skipReason !== null)("checks recorded and read together share statements", () => {
  let database: TestDatabase;
  let admin: pg.Pool;
  const pools: pg.Pool[] = [];
  const stores: Store[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    admin = new pg.Pool({ connectionString: database.url, max: 2 });
    admin.on("error", () => undefined);
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await Promise.all(pools.map((pool) => pool.end()));
    await admin?.end();
    await database?.drop();
  });

  /** A store on a pool of our own whose statements are counted by their text. */
  async function open(): Promise<{ store: Store; schema: string; statements: string[] }> {
    const pool = new pg.Pool({ connectionString: database.url, max: 4 });
    pool.on("error", () => undefined);
    pools.push(pool);
    const statements: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { text: string };
      statements.push(typeof first === "string" ? first : first.text);
      return query(...args);
    };
    const schema = freshSchema();
    const store = await createPostgresStore({ pool, schema });
    stores.push(store);
    return { store, schema, statements };
  }

  const at = (seconds: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();
  const unchanged = (monitorId: string, next: string, extra: Partial<RecordCheckInput> = {}): RecordCheckInput => ({
    monitorId,
    monitor: { lastCheckedAt: at(1), lastStatus: 200, lastError: null, consecutiveFailures: 0, nextCheckAt: next, updatedAt: at(1) },
    snapshot: null,
    diff: null,
    event: null,
    ...extra,
  });

  it("records many checks at once as each would be alone: fields, claims ended, retention, a missing monitor, a monitor twice", async () => {
    const { store, schema, statements } = await open();
    const org = (await store.createOrganization({ slug: "batch" })).id;
    const monitors: MonitorRecord[] = [];
    for (let i = 0; i < 30; i++) monitors.push(await store.createMonitor(org, apiMonitor({ name: `m${String(i)}`, nextCheckAt: at(0) })));
    // Three snapshots each for the first five, pruned to one by the records below.
    for (const monitor of monitors.slice(0, 5)) await recordChanges(store, org, monitor.id, 3);
    const claimed = await store.claimDueMonitors({ now: at(0), limit: 100, leaseMs: 60_000, owner: "w1" });
    expect(claimed).toHaveLength(30);
    // A monitor another worker holds keeps that lease (the record ends only w1's).
    await admin.query(`UPDATE "${schema}".monitors SET lease_owner = 'w2' WHERE id = $1`, [monitors[29]!.id]);

    statements.length = 0;
    const calls = monitors.map((monitor, i) => store.recordCheck(org, unchanged(monitor.id, at(100 + i), { releaseLease: "w1", ...(i < 5 ? { retention: 1 } : {}) })));
    const missing = store.recordCheck(org, unchanged("mon_00000000000000000000000000", at(100), { releaseLease: "w1" }));
    // A second record of the first monitor, made at the same time: applied after the first.
    const again = store.recordCheck(org, unchanged(monitors[0]!.id, at(500), { releaseLease: "w1" }));
    const results = await Promise.all(calls);
    await expect(missing).rejects.toMatchObject({ code: "not_found" });
    expect((await again).monitor.nextCheckAt).toBe(at(500));

    results.forEach((result, i) => {
      expect(result.monitor.id).toBe(monitors[i]!.id);
      expect(result.snapshot).toBeNull();
      expect(result.monitor.lastStatus).toBe(200);
    });
    expect(results[7]!.monitor.nextCheckAt).toBe(at(107));
    // Fewer statements than records: they went out together.
    const batched = statements.filter((text) => text.includes("jsonb_populate_record"));
    expect(batched.length).toBeGreaterThan(0);
    expect(statements.filter((text) => /UPDATE/i.test(text)).length).toBeLessThan(calls.length);

    const { rows } = await admin.query<{ id: string; lease_owner: string | null; next_check_at: Date }>(
      `SELECT id, lease_owner, next_check_at FROM "${schema}".monitors WHERE org_id = $1`,
      [org],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const monitor of monitors.slice(0, 29)) expect(byId.get(monitor.id)!.lease_owner).toBeNull();
    expect(byId.get(monitors[29]!.id)!.lease_owner).toBe("w2");
    expect(byId.get(monitors[0]!.id)!.next_check_at.toISOString()).toBe(at(500));
    expect(byId.get(monitors[12]!.id)!.next_check_at.toISOString()).toBe(at(112));
    for (const monitor of monitors.slice(0, 5)) {
      expect((await store.listSnapshots(org, monitor.id, { limit: 10 })).data).toHaveLength(1);
    }
  });

  it("records failed checks together too: each monitor's structured lastFailure is stored as an object", async () => {
    const { store, statements } = await open();
    const org = (await store.createOrganization({ slug: "failures" })).id;
    const monitors: MonitorRecord[] = [];
    for (let i = 0; i < 12; i++) monitors.push(await store.createMonitor(org, apiMonitor({ name: `f${String(i)}`, nextCheckAt: at(0) })));
    statements.length = 0;
    const failed = (monitor: MonitorRecord, i: number): RecordCheckInput =>
      unchanged(monitor.id, at(200 + i), {
        monitor: {
          lastCheckedAt: at(2),
          lastStatus: 503,
          lastError: `busy ${String(i)}`,
          lastFailure: { reason: "http_status", message: `busy ${String(i)}`, step: i % 2 === 0 ? null : { index: i, action: "click", selector: `#b${String(i)}` } },
          consecutiveFailures: 1,
          nextCheckAt: at(200 + i),
          updatedAt: at(2),
        },
      });
    const results = await Promise.all(monitors.map((monitor, i) => store.recordCheck(org, failed(monitor, i))));
    expect(statements.filter((text) => text.includes("jsonb_populate_record")).length).toBeGreaterThan(0);
    expect(statements.filter((text) => /UPDATE/i.test(text)).length).toBeLessThan(monitors.length);
    for (const [i, monitor] of monitors.entries()) {
      const expected = { reason: "http_status", message: `busy ${String(i)}`, step: i % 2 === 0 ? null : { index: i, action: "click", selector: `#b${String(i)}` } };
      expect(results[i]!.monitor.lastFailure).toEqual(expected);
      expect((await store.getMonitor(org, monitor.id))!.lastFailure).toEqual(expected);
    }
  });

  it("a batch the server refuses as a whole is written call by call: only the bad call fails", async () => {
    const { store, statements } = await open();
    const org = (await store.createOrganization({ slug: "refused" })).id;
    const monitors: MonitorRecord[] = [];
    for (let i = 0; i < 12; i++) monitors.push(await store.createMonitor(org, apiMonitor({ name: `r${String(i)}` })));
    statements.length = 0;
    const outcomes = await Promise.allSettled(monitors.map((monitor, i) => store.recordCheck(org, unchanged(monitor.id, i === 4 ? "not a time" : at(200 + i)))));
    expect(outcomes[4]!.status).toBe("rejected");
    expect((outcomes[4] as PromiseRejectedResult).reason).toBeInstanceOf(StoreError);
    outcomes.forEach((outcome, i) => {
      if (i !== 4) expect(outcome.status === "fulfilled" && outcome.value.monitor.nextCheckAt).toBe(at(200 + i));
    });
    // The batch was tried (and refused) before the calls ran alone.
    expect(statements.some((text) => text.includes("jsonb_populate_record"))).toBe(true);
    expect((await store.getMonitor(org, monitors[4]!.id))!.nextCheckAt).not.toBe("not a time");
  });

  it("reads the bases of many checks in one statement, each as read alone", async () => {
    const { store, statements } = await open();
    const org = (await store.createOrganization({ slug: "basis" })).id;
    const monitors: MonitorRecord[] = [];
    for (let i = 0; i < 10; i++) monitors.push(await store.createMonitor(org, apiMonitor({ name: `b${String(i)}` })));
    await recordChanges(store, org, monitors[3]!.id, 2);
    await store.updateSettings(org, monitors[5]!.id, { snapshotRetention: 7, autoApplySuggestions: true, updatedAt: at(3) });
    const alone = [];
    for (const monitor of monitors) alone.push(await store.getCheckBasis!(org, monitor.id));
    statements.length = 0;
    const together = await Promise.all([...monitors.map((monitor) => store.getCheckBasis!(org, monitor.id)), store.getCheckBasis!(org, "mon_00000000000000000000000000")]);
    expect(together.slice(0, 10)).toEqual(alone);
    expect(together[10]).toBeNull();
    expect(together[3]!.latestSnapshot).not.toBeNull();
    expect(together[5]!.settings.snapshotRetention).toBe(7);
    expect(statements.length).toBeLessThan(together.length);
  });
  it("renews the leases it holds without waiting for a row another transaction has locked", async () => {
    // A grouped record locks its monitors (and, with the pg-boss queue, their jobs) in its plan's
    // order; a heartbeat that waited for such a lock could deadlock with it for a second.
    const { store, schema } = await open();
    const org = (await store.createOrganization({ slug: "renew" })).id;
    const due = at(0);
    const monitors: MonitorRecord[] = [];
    for (let i = 0; i < 3; i++) monitors.push(await store.createMonitor(org, apiMonitor({ name: `r${String(i)}`, nextCheckAt: due })));
    const claimed = await store.claimDueMonitors({ now: at(5), limit: 3, leaseMs: 10_000, owner: "w1" });
    expect(claimed).toHaveLength(3);
    const locker = await admin.connect();
    try {
      await locker.query("BEGIN");
      await locker.query(`SELECT 1 FROM "${schema}".monitors WHERE id = $1 FOR UPDATE`, [monitors[0]!.id]);
      const renewing = store.renewLeases({ owner: "w1", now: at(8), leaseMs: 10_000, monitorIds: monitors.map((m) => m.id), deliveryIds: [] });
      const outcome = await Promise.race([renewing, new Promise<"waited">((resolve) => setTimeout(() => resolve("waited"), 10_000))]);
      // Still held, all three (the locked one is renewed at the next beat); the others are extended now.
      expect(outcome !== "waited" && [...outcome.monitorIds].sort()).toEqual(monitors.map((m) => m.id).sort());
      const { rows } = await admin.query<{ id: string; lease_expires_at: Date }>(`SELECT id, lease_expires_at FROM "${schema}".monitors WHERE org_id = $1`, [org]);
      const until = new Map(rows.map((row) => [row.id, row.lease_expires_at.toISOString()]));
      expect(until.get(monitors[0]!.id)).toBe(at(15));
      expect(until.get(monitors[1]!.id)).toBe(at(18));
      expect(until.get(monitors[2]!.id)).toBe(at(18));
    } finally {
      await locker.query("ROLLBACK");
      locker.release();
    }
    // A lease another worker holds now is not renewed, nor reported held.
    await admin.query(`UPDATE "${schema}".monitors SET lease_owner = 'w2' WHERE id = $1`, [monitors[2]!.id]);
    const renewed = await store.renewLeases({ owner: "w1", now: at(9), leaseMs: 10_000, monitorIds: monitors.map((m) => m.id), deliveryIds: [] });
    expect([...renewed.monitorIds].sort()).toEqual([monitors[0]!.id, monitors[1]!.id].sort());
  });
});
