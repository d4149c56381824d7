// The job tables' vacuum: every check updates its job twice, and the fetch and the fairness count
// read past the dead index entries those updates leave until a vacuum removes them.
import type { Store } from "@driftwatch/core";
import { createPostgresStore } from "@driftwatch/store-postgres";
import pg from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CHECK_QUEUE, startPostgresJobs, type PostgresJobs } from "../src/index.js";
import { createPostgresDatabase, postgresSkipReason, type TestPostgresDatabase } from "../../../tooling/test-postgres.js";
import { createMonitor } from "../../engine/test/fixtures.js";

const skip = await postgresSkipReason();
if (skip !== null) console.warn(`skipping the job table vacuum suite: ${skip}`);

describe.skipIf(skip !== null)("the job tables' vacuum", () => {
  let database: TestPostgresDatabase;
  let store: Store;
  let sql: pg.Pool;
  let jobs: PostgresJobs;
  let orgId: string;
  const ids: string[] = [];

  beforeAll(async () => {
    database = await createPostgresDatabase("dw_vacuum");
    store = await createPostgresStore({ connectionString: database.url, max: 2 });
    sql = new pg.Pool({ connectionString: database.url, max: 3 });
    sql.on("error", () => undefined);
    // The only process here: each 200 ms it looks at the job tables.
    jobs = await startPostgresJobs({ connectionString: database.url, repairIntervalMs: 0, vacuumIntervalMs: 200, max: 2 });
    orgId = (await store.createOrganization({ slug: "vacuum" })).id;
    const later = new Date(Date.now() + 3_600_000).toISOString();
    for (let i = 0; i < 20; i++) ids.push((await createMonitor(store, orgId, { url: `http://127.0.0.1:9/m${String(i)}`, nextCheckAt: later })).id);
  });
  afterAll(async () => {
    await jobs?.close();
    await store?.close();
    await sql?.end();
    await database?.drop();
  });

  /** Manual vacuums of the checks queue's job table so far (autovacuum counts apart). */
  async function vacuums(): Promise<number> {
    const { rows } = await sql.query<{ n: string }>(
      `SELECT st.vacuum_count AS n FROM pgboss.queue q JOIN pg_stat_user_tables st ON st.schemaname = 'pgboss' AND st.relname = q.partition_name WHERE q.name = $1`,
      [CHECK_QUEUE],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Re-arms every monitor's job `rounds` times (each new due time updates its job in place, leaving a dead row). */
  async function churn(rounds: number, from: number): Promise<void> {
    for (let round = from; round < from + rounds; round++) {
      await sql.query("UPDATE monitors SET next_check_at = now() + $2 * interval '1 minute' WHERE id = ANY($1)", [ids, 60 + round]);
    }
  }

  it("vacuums the job table once its updates leave enough dead rows", async () => {
    const before = await vacuums();
    await churn(80, 0);
    await vi.waitFor(async () => expect(await vacuums()).toBeGreaterThan(before), { timeout: 20_000, interval: 250 });
  });

  it("does not vacuum again and again while an old transaction keeps the dead rows", async () => {
    const old = await sql.connect();
    try {
      // A transaction whose snapshot still sees the rows the updates below leave dead.
      await old.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
      await old.query("SELECT count(*) FROM monitors");
      const before = await vacuums();
      await churn(80, 100);
      await vi.waitFor(async () => expect(await vacuums()).toBeGreaterThan(before), { timeout: 20_000, interval: 250 });
      const once = await vacuums();
      // Ten looks later the dead rows are still there, and still not removable: no vacuum ran for nothing.
      await sleep(2000);
      expect(await vacuums()).toBe(once);
      await old.query("COMMIT");
      // Once that many rows more are dead, it vacuums again (and now removes them all).
      await churn(80, 200);
      await vi.waitFor(async () => expect(await vacuums()).toBeGreaterThan(once), { timeout: 20_000, interval: 250 });
    } finally {
      await old.query("ROLLBACK").catch(() => undefined);
      old.release();
    }
  });
});
