import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isDriftwatchError, type Store } from "@driftwatch/core";
import { LOCK_SPIN_MS, SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION, createSqliteStore, createStore, migrateSqlite } from "../src/index.js";
import { CHANNEL_TABLE_NAMES, PEOPLE_TABLE_NAMES, TABLE_NAMES, TRACKED_TABLE_NAMES, createSqlStore } from "@driftwatch/store-sql";
import { FIRST_VERSION_SETTINGS, apiMonitor, changedCheck, expectFirstVersionSettingsMigrated, expectVersion2UpgradeKeepsData, seedOrganization } from "@driftwatch/store-testkit";
import { sqliteDialect } from "../src/dialect.js";
import { SqliteDriver } from "../src/driver.js";

let dir: string;
const opened: Store[] = [];

async function open(options: Parameters<typeof createSqliteStore>[0]): Promise<Store> {
  const store = await createSqliteStore(options);
  opened.push(store);
  return store;
}

async function expectStoreError(promise: Promise<unknown>, code: string): Promise<void> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e
  );
  expect(isDriftwatchError(error), `expected a StoreError ${code}, got ${String(error)}`).toBe(true);
  expect((error as { code: string }).code).toBe(code);
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-sqlite-"));
});
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("opening a file", () => {
  it("creates the file and its missing folders, in WAL mode with foreign keys on", async () => {
    const file = path.join(dir, "nested", "deeper", "driftwatch.db");
    const store = await open({ filename: file });
    await store.ping();
    expect(fs.existsSync(file)).toBe(true);
    await store.close();

    const db = new BetterSqlite3(file, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    const versions = db.prepare("SELECT version, name FROM driftwatch_migrations ORDER BY version").all();
    expect(versions).toEqual([
      { version: 1, name: "initial" },
      { version: 2, name: "settings_auto_apply_suggestions" },
      { version: 3, name: "people" },
      { version: 4, name: "monitor_tags" },
        { version: 5, name: "token_created_by" },
        { version: 6, name: "learning_defaults" },
        { version: 7, name: "notification_channels" },
        { version: 8, name: "screenshots_secrets" },
        { version: 9, name: "tracked_values" },
        { version: 10, name: "monitor_contract" },
        { version: 11, name: "monitor_learning_since" },
        { version: 12, name: "last_failure_claim_index" },
        { version: 13, name: "settings_learning" },
    ]);
    expect(SQLITE_SCHEMA_VERSION).toBe(13);
    db.close();
  });

  it("waits for another connection's write lock asynchronously: timers keep firing, the write succeeds once it is released", async () => {
    const file = path.join(dir, "locked.db");
    const store = await open({ filename: file, busyTimeoutMs: 60_000 });
    const holder = new BetterSqlite3(file);
    holder.exec("BEGIN IMMEDIATE");
    let settled = false;
    const write = store.ensureOrganization("waits").finally(() => {
      settled = true;
    });
    let ticks = 0;
    while (ticks < 5) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      ticks++;
      expect(settled).toBe(false);
    }
    holder.exec("COMMIT");
    holder.close();
    expect((await write).slug).toBe("waits");
    // and one that cannot get the lock within busyTimeoutMs fails with store_unavailable
    const short = await open({ filename: file, busyTimeoutMs: 100 });
    const again = new BetterSqlite3(file);
    again.exec("BEGIN IMMEDIATE");
    const error = await short.ensureOrganization("gives-up").catch((caught: unknown) => caught);
    again.exec("ROLLBACK");
    again.close();
    expect((error as { code?: string }).code).toBe("store_unavailable");
  });

  it("sets synchronous NORMAL by default and FULL on request, with foreign keys on", async () => {
    const db = new BetterSqlite3(path.join(dir, "a.db"));
    await open({ database: db });
    expect(db.pragma("synchronous", { simple: true })).toBe(1);
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    // SQLite waits for a lock synchronously at most LOCK_SPIN_MS; the rest of busyTimeoutMs is asynchronous retries
    expect(db.pragma("busy_timeout", { simple: true })).toBe(LOCK_SPIN_MS);
    const other = new BetterSqlite3(path.join(dir, "b.db"));
    await open({ database: other, synchronous: "full", busyTimeoutMs: 250 });
    expect(other.pragma("synchronous", { simple: true })).toBe(2);
    expect(other.pragma("busy_timeout", { simple: true })).toBe(LOCK_SPIN_MS);
    db.close();
    other.close();
  });

  it("keeps data across reopen and applies migrations only once", async () => {
    const file = path.join(dir, "keep.db");
    const first = await open({ filename: file });
    const { orgId, monitorId } = await seedOrganization(first);
    await first.recordCheck(orgId, changedCheck(monitorId, { sequence: 1 }));
    await first.close();

    const second = await open({ filename: file });
    expect((await second.getMonitor(orgId, monitorId))?.lastStatus).toBe(200);
    expect((await second.listDiffs(orgId, monitorId, { limit: 10 })).data).toHaveLength(1);
    const db = new BetterSqlite3(file, { readonly: true });
    expect(db.prepare("SELECT COUNT(*) AS n FROM driftwatch_migrations").get()).toEqual({ n: SQLITE_MIGRATIONS.length });
    db.close();
  });

  it("upgrades a version 1 file: existing settings keep their rules and read autoApplySuggestions false", async () => {
    const file = path.join(dir, "v1.db");
    const old = new BetterSqlite3(file);
    expect(migrateSqlite(old, SQLITE_MIGRATIONS.filter((m) => m.version === 1))).toEqual([1]);
    const at = "2026-01-01T00:00:00.000Z";
    old.prepare("INSERT INTO organizations (id, slug, name, created_at) VALUES ('org_1', 'old', 'old', ?)").run(at);
    old
      .prepare(
        `INSERT INTO monitors (id, org_id, type, name, url, method, headers, interval_seconds, state, created_at, updated_at)
         VALUES ('mon_1', 'org_1', 'api', 'm', 'https://example.com/', 'GET', '{}', 60, 'active', ?, ?)`
      )
      .run(at, at);
    old.prepare("INSERT INTO settings (monitor_id, org_id, policy_rules, snapshot_retention, updated_at) VALUES ('mon_1', 'org_1', ?, ?, ?)").run(
      JSON.stringify(FIRST_VERSION_SETTINGS.policyRules),
      FIRST_VERSION_SETTINGS.snapshotRetention,
      at
    );
    old.close();

    const store = await open({ filename: file });
    await expectFirstVersionSettingsMigrated(store, at);
    // the monitor written before the tags column has none
    expect(await store.getMonitor("org_1", "mon_1")).toMatchObject({ id: "mon_1", tags: [] });
    const db = new BetterSqlite3(file, { readonly: true });
    expect(db.prepare("SELECT version FROM driftwatch_migrations ORDER BY version").all()).toEqual(SQLITE_MIGRATIONS.map((m) => ({ version: m.version })));
    db.close();
  });

  it("upgrades a version 2 file with data in every table: every row is kept, and people work on its organization", async () => {
    const file = path.join(dir, "v2.db");
    const tables = TABLE_NAMES.filter((table) => !([...PEOPLE_TABLE_NAMES, ...CHANNEL_TABLE_NAMES, ...TRACKED_TABLE_NAMES, "screenshots", "failure_screenshots", "secrets"] as readonly string[]).includes(table));
    const old = new BetterSqlite3(file);
    old.pragma("foreign_keys = ON");
    expect(migrateSqlite(old, SQLITE_MIGRATIONS.filter((m) => m.version <= 2))).toEqual([1, 2]);
    await expectVersion2UpgradeKeepsData({
      tables,
      openVersion2: async () => createSqlStore({ driver: new SqliteDriver(old, true, 5000), dialect: sqliteDialect, schemaVersion: 2 }),
      countRows: async () => {
        const db = new BetterSqlite3(file, { readonly: true });
        try {
          return tables.map((table) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n);
        } finally {
          db.close();
        }
      },
      openMigrated: () => open({ filename: file }),
    });
    const db = new BetterSqlite3(file, { readonly: true });
    expect(db.prepare("SELECT version FROM driftwatch_migrations ORDER BY version").all()).toEqual(SQLITE_MIGRATIONS.map((m) => ({ version: m.version })));
    db.close();
  });

  it("refuses a database from a newer build with schema_too_new and leaves it untouched", async () => {
    const file = path.join(dir, "newer.db");
    const store = await open({ filename: file });
    const org = await store.createOrganization({ slug: "kept" });
    await store.close();

    const db = new BetterSqlite3(file);
    db.prepare("INSERT INTO driftwatch_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
      99,
      "from the future",
      "2030-01-01T00:00:00.000Z"
    );
    db.close();
    const before = fs.readFileSync(file);

    await expectStoreError(createSqliteStore({ filename: file }), "schema_too_new");

    const after = new BetterSqlite3(file, { readonly: true });
    expect(after.prepare("SELECT MAX(version) AS v FROM driftwatch_migrations").get()).toEqual({ v: 99 });
    expect(after.prepare("SELECT id, slug FROM organizations").all()).toEqual([{ id: org.id, slug: "kept" }]);
    after.close();
    // nothing was written: the main file is byte for byte the same (the WAL was checkpointed at close)
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it("refuses `filename` and `database` together", async () => {
    const db = new BetterSqlite3(":memory:");
    await expectStoreError(createSqliteStore({ filename: path.join(dir, "x.db"), database: db }), "store_unavailable");
    db.close();
  });

  it("reports a path it cannot open as store_unavailable", async () => {
    const blocker = path.join(dir, "a-file");
    fs.writeFileSync(blocker, "not a folder");
    await expectStoreError(createSqliteStore({ filename: path.join(blocker, "x.db") }), "store_unavailable");
  });

  it("exports createStore as the same factory for openStore", () => {
    expect(createStore).toBe(createSqliteStore);
  });
});

describe("a database the caller owns", () => {
  it("is left open by close(), while the store refuses further calls", async () => {
    const db = new BetterSqlite3(path.join(dir, "owned.db"));
    const store = await open({ database: db });
    await store.ensureOrganization("mine");
    await store.close();
    expect(db.open).toBe(true);
    expect(db.prepare("SELECT slug FROM organizations").all()).toEqual([{ slug: "mine" }]);
    await expectStoreError(store.ping(), "store_closed");
    await expectStoreError(store.countOrganizations(), "store_closed");
    db.close();
  });
});

describe("writes", () => {
  it("stores the check, its diff and one delivery per matching webhook in one call", async () => {
    const store = await open({ filename: path.join(dir, "check.db") });
    const { orgId, monitorId, webhookIds } = await seedOrganization(store);
    const check = changedCheck(monitorId, { sequence: 1 });
    const result = await store.recordCheck(orgId, check);
    expect(result.snapshot).toMatchObject({ id: check.snapshot!.id, monitorId, orgId, etag: '"v1"', browserRender: false });
    expect(result.diff).toMatchObject({ id: check.diff!.id, snapshotId: check.snapshot!.id, monitorId, topSeverity: "medium" });
    expect(result.deliveries.map((d) => d.webhookId).sort()).toEqual([...webhookIds].sort());
    expect(JSON.parse(result.deliveries[0]!.payload)).toEqual(check.event);
    expect(await store.countPendingDeliveries(orgId)).toBe(2);
    expect(await store.getDiff(orgId, monitorId, check.diff!.id)).toEqual(result.diff);
  });

  it("rolls the whole check back when a stage hook throws, at every stage", async () => {
    for (const failAt of ["monitor", "snapshot", "diff", "deliveries", "retention"] as const) {
      const store = await open({
        filename: path.join(dir, `hook-${failAt}.db`),
        hooks: {
          onRecordCheckStage(stage) {
            if (stage === failAt) throw new Error(`injected at ${stage}`);
          },
        },
      });
      const { orgId, monitorId } = await seedOrganization(store);
      const before = await store.getMonitor(orgId, monitorId);
      await expect(store.recordCheck(orgId, changedCheck(monitorId, { sequence: 1 }))).rejects.toThrow(`injected at ${failAt}`);
      expect(await store.getMonitor(orgId, monitorId)).toEqual(before);
      expect(await store.getLatestSnapshot(orgId, monitorId)).toBeNull();
      expect((await store.listDiffs(orgId, monitorId, { limit: 5 })).data).toEqual([]);
      expect(await store.countPendingDeliveries()).toBe(0);
    }
  });

  it("keeps the newest `retention` snapshots and only the diffs of kept ones", async () => {
    const store = await open({ filename: path.join(dir, "retention.db") });
    const { orgId, monitorId } = await seedOrganization(store);
    let previous: string | null = null;
    const snapshotIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const check = changedCheck(monitorId, { previousSnapshotId: previous, sequence: i });
      await store.recordCheck(orgId, { ...check, retention: 2 });
      previous = check.snapshot!.id;
      snapshotIds.push(previous);
    }
    const kept = await store.listSnapshots(orgId, monitorId, { limit: 10 });
    expect(kept.data.map((s) => s.id)).toEqual(snapshotIds.slice(3).reverse());
    expect(kept.data[0]!.body).toBeUndefined();
    expect((await store.listDiffs(orgId, monitorId, { limit: 10 })).data.map((d) => d.snapshotId)).toEqual(snapshotIds.slice(3).reverse());
  });

  it("maps a duplicate slug to conflict and an unknown organization to not_found", async () => {
    const store = await open({ filename: path.join(dir, "errors.db") });
    await store.createOrganization({ slug: "dup" });
    await expectStoreError(store.createOrganization({ slug: "dup" }), "conflict");
    await expectStoreError(store.createMonitor("org_01J00000000000000000000000", apiMonitor()), "not_found");
    expect(await store.countOrganizations()).toBe(1);
  });

  it("returns times as ISO strings with milliseconds whatever precision the caller sent", async () => {
    const store = await open({ filename: path.join(dir, "times.db") });
    const { orgId, monitorId } = await seedOrganization(store);
    const updated = await store.updateMonitor(orgId, monitorId, {
      nextCheckAt: "2026-03-04T05:06:07Z",
      updatedAt: "2026-03-04T06:06:07.5+01:00",
    });
    expect(updated?.nextCheckAt).toBe("2026-03-04T05:06:07.000Z");
    expect(updated?.updatedAt).toBe("2026-03-04T05:06:07.500Z");
  });

  it("counts rate-limit hits per fixed window", async () => {
    const store = await open({ filename: path.join(dir, "rate.db") });
    expect(store.capabilities).toEqual({ rateLimits: true, durable: true });
    const hit = store.hitRateLimit!.bind(store);
    expect(await hit("org:a", 60_000, 120_000)).toEqual({ count: 1, resetAt: 180_000 });
    expect(await hit("org:a", 60_000, 179_999)).toEqual({ count: 2, resetAt: 180_000 });
    expect(await hit("org:b", 60_000, 179_999)).toEqual({ count: 1, resetAt: 180_000 });
    expect(await hit("org:a", 60_000, 180_000)).toEqual({ count: 1, resetAt: 240_000 });
  });
});

describe("two connections on one file", () => {
  it("never hand the same monitor or delivery to both claimers", async () => {
    const file = path.join(dir, "shared.db");
    const a = await open({ filename: file });
    const b = await open({ filename: file });
    const org = await a.ensureOrganization("shared");
    for (let i = 0; i < 30; i++) await a.createMonitor(org.id, apiMonitor({ name: `m${i}` }));
    const now = new Date().toISOString();
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).claimDueMonitors({ now, limit: 5, leaseMs: 60_000, owner: `w${i}` }))
    );
    const ids = claims.flat().map((m) => m.id);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    // a held lease blocks; an expired one is free again
    expect(await b.claimDueMonitors({ now, limit: 50, leaseMs: 60_000, owner: "late" })).toEqual([]);
    const later = new Date(Date.parse(now) + 60_001).toISOString();
    expect(await b.claimDueMonitors({ now: later, limit: 50, leaseMs: 60_000, owner: "late" })).toHaveLength(30);
  });
});
