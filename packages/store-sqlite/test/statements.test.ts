import { afterEach, describe, expect, it } from "vitest";
import { createSqlStore, type SqlDatabase } from "@driftwatch/store-sql";
import { apiMonitor } from "@driftwatch/store-testkit";
import { SQLITE_SCHEMA_VERSION, openSqliteDatabase } from "../src/index.js";
import { MAX_CACHED_STATEMENTS, type SqliteDriver } from "../src/driver.js";

const opened: SqlDatabase[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
});

async function open(): Promise<SqlDatabase & { driver: SqliteDriver }> {
  const db = (await openSqliteDatabase({ filename: ":memory:" })) as SqlDatabase & { driver: SqliteDriver };
  opened.push(db);
  return db;
}

describe("the prepared statement cache", () => {
  it("keeps at most MAX_CACHED_STATEMENTS, and statements still run after theirs was dropped", async () => {
    const { driver } = await open();
    for (let i = 0; i < MAX_CACHED_STATEMENTS + 100; i++) expect(await driver.all<{ n: number }>(`SELECT ${String(i)} AS n`, [])).toEqual([{ n: i }]);
    expect(driver.cachedStatements).toBe(MAX_CACHED_STATEMENTS);
    expect(await driver.all<{ n: number }>("SELECT 0 AS n", [])).toEqual([{ n: 0 }]);
  });

  it("holds a few statements for id lists of every length (claims and lease renewals), not one per length", async () => {
    const db = await open();
    const store = createSqlStore({ driver: db.driver, dialect: db.dialect, schemaVersion: SQLITE_SCHEMA_VERSION });
    const { id: orgId } = await store.ensureOrganization("acme");
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await store.createMonitor(orgId, apiMonitor({ name: `m${String(i)}` }))).id);
    const now = new Date(Date.now() + 3_600_000).toISOString();
    const claimed = await store.claimDueMonitors({ now, limit: 40, owner: "w1", leaseMs: 60_000 });
    expect(claimed).toHaveLength(40);
    const before = db.driver.cachedStatements;
    for (let n = 1; n <= 40; n++) {
      const renewed = await store.renewLeases({ owner: "w1", now, leaseMs: 60_000, monitorIds: ids.slice(0, n), deliveryIds: [] });
      // a padded list (its last id repeated) renews each monitor once
      expect(renewed.monitorIds.sort()).toEqual(ids.slice(0, n).sort());
    }
    // lengths 1 to 40 run as lists of 1, 2, 4, 8, 16, 32 and 64
    expect(db.driver.cachedStatements - before).toBeLessThanOrEqual(7);
  });
});
