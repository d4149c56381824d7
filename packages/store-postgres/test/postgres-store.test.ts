import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreError, type RecordCheckStage, type Store } from "@driftwatch/core";
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION, createPostgresStore, createStore, migratePostgres } from "../src/index.js";
import { createTestDatabase, freshSchema, postgresSkipReason, type TestDatabase } from "./database.js";
import { CHANNEL_TABLE_NAMES, PEOPLE_TABLE_NAMES, TABLE_NAMES, TRACKED_TABLE_NAMES, createSqlStore } from "@driftwatch/store-sql";
import { FIRST_VERSION_SETTINGS, apiMonitor, changedCheck, expectFirstVersionSettingsMigrated, expectVersion2UpgradeKeepsData, seedOrganization } from "@driftwatch/store-testkit";
import { createPostgresDialect } from "../src/dialect.js";
import { PostgresDriver } from "../src/driver.js";

const skipReason = await postgresSkipReason();

describe.skipIf(skipReason !== null)(`@driftwatch/store-postgres${skipReason === null ? "" : ` (skipped: ${skipReason})`}`, () => {
  let database: TestDatabase;
  let admin: pg.Pool;
  const stores: Store[] = [];

  /** A store on its own schema of this file's database, closed after the file. */
  async function open(options: { schema?: string; hooks?: Parameters<typeof createPostgresStore>[0]["hooks"] } = {}): Promise<Store> {
    const store = await createPostgresStore({
      connectionString: database.url,
      schema: options.schema ?? freshSchema(),
      hooks: options.hooks,
      max: 3,
    });
    stores.push(store);
    return store;
  }

  async function count(schema: string, table: string): Promise<number> {
    const { rows } = await admin.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM "${schema}".${table}`);
    return rows[0]!.n;
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    admin = new pg.Pool({ connectionString: database.url, max: 2 });
    // pool.end() resolves before its sockets close; the DROP DATABASE ... WITH (FORCE) of the
    // teardown may then terminate one, which must not surface as an unhandled error.
    admin.on("error", () => undefined);
  });

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await admin?.end();
    await database?.drop();
  });

  describe("migrations", () => {
    it("creates the schema and its tables at open and records the version once", async () => {
      const schema = freshSchema();
      await open({ schema });
      const { rows } = await admin.query<{ version: number; name: string }>(`SELECT version, name FROM "${schema}".driftwatch_migrations ORDER BY version`);
      expect(rows).toEqual([
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
      expect(POSTGRES_SCHEMA_VERSION).toBe(13);
      await open({ schema }); // reopening applies nothing
      expect(await count(schema, "driftwatch_migrations")).toBe(POSTGRES_MIGRATIONS.length);
    });

    it("upgrades a version 1 schema: existing settings keep their rules and read autoApplySuggestions false", async () => {
      const schema = freshSchema();
      const client = await admin.connect();
      const at = "2026-01-01T00:00:00.000Z";
      try {
        expect(await migratePostgres(client, schema, POSTGRES_MIGRATIONS.filter((m) => m.version === 1))).toEqual([1]);
        await client.query(`INSERT INTO "${schema}".organizations (id, slug, name, created_at) VALUES ('org_1', 'old', 'old', $1)`, [at]);
        await client.query(
          `INSERT INTO "${schema}".monitors (id, org_id, type, name, url, method, headers, interval_seconds, state, created_at, updated_at)
           VALUES ('mon_1', 'org_1', 'api', 'm', 'https://example.com/', 'GET', '{}', 60, 'active', $1, $1)`,
          [at]
        );
        await client.query(`INSERT INTO "${schema}".settings (monitor_id, org_id, policy_rules, snapshot_retention, updated_at) VALUES ('mon_1', 'org_1', $1, $2, $3)`, [
          JSON.stringify(FIRST_VERSION_SETTINGS.policyRules),
          FIRST_VERSION_SETTINGS.snapshotRetention,
          at,
        ]);
      } finally {
        client.release();
      }
      const store = await open({ schema });
      await expectFirstVersionSettingsMigrated(store, at);
      // the monitor written before the tags column has none
      expect(await store.getMonitor("org_1", "mon_1")).toMatchObject({ id: "mon_1", tags: [] });
      expect(await count(schema, "driftwatch_migrations")).toBe(POSTGRES_MIGRATIONS.length);
    });

    it("upgrades a version 2 schema with data in every table: every row is kept, and people work on its organization", async () => {
      const schema = freshSchema();
      const tables = TABLE_NAMES.filter((table) => !([...PEOPLE_TABLE_NAMES, ...CHANNEL_TABLE_NAMES, ...TRACKED_TABLE_NAMES, "screenshots", "failure_screenshots", "secrets"] as readonly string[]).includes(table));
      const client = await admin.connect();
      try {
        expect(await migratePostgres(client, schema, POSTGRES_MIGRATIONS.filter((m) => m.version <= 2))).toEqual([1, 2]);
      } finally {
        client.release();
      }
      await expectVersion2UpgradeKeepsData({
        tables,
        openVersion2: async () => createSqlStore({ driver: new PostgresDriver(admin, false), dialect: createPostgresDialect(schema), schemaVersion: 2 }),
        countRows: () => Promise.all(tables.map((table) => count(schema, table))),
        openMigrated: () => open({ schema }),
      });
      expect(await count(schema, "driftwatch_migrations")).toBe(POSTGRES_MIGRATIONS.length);
    });

    it("lets several stores race to migrate one fresh database (advisory lock)", async () => {
      const fresh = await createTestDatabase();
      try {
        const racing = await Promise.all(Array.from({ length: 4 }, () => createPostgresStore({ connectionString: fresh.url, max: 2 })));
        const orgs = await Promise.all(racing.map((store, index) => store.createOrganization({ slug: `org-${index}` })));
        expect(await racing[0]!.countOrganizations()).toBe(4);
        expect(new Set(orgs.map((org) => org.id)).size).toBe(4);
        await Promise.all(racing.map((store) => store.close()));
        const check = new pg.Client({ connectionString: fresh.url });
        await check.connect();
        const { rows } = await check.query<{ version: number }>("SELECT version FROM public.driftwatch_migrations ORDER BY version");
        await check.end();
        expect(rows).toEqual(POSTGRES_MIGRATIONS.map((m) => ({ version: m.version })));
      } finally {
        await fresh.drop();
      }
    });

    it("refuses a schema written by a newer build with schema_too_new and leaves its data alone", async () => {
      const schema = freshSchema();
      const store = await open({ schema });
      await store.createOrganization({ slug: "kept" });
      await admin.query(`INSERT INTO "${schema}".driftwatch_migrations (version, name) VALUES (${POSTGRES_SCHEMA_VERSION + 1}, 'future')`);
      const error = await createPostgresStore({ connectionString: database.url, schema }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe("schema_too_new");
      expect(await count(schema, "organizations")).toBe(1);
      expect(await count(schema, "driftwatch_migrations")).toBe(POSTGRES_MIGRATIONS.length + 1);
    });

    it("stores JSON as jsonb, times as timestamptz, and returns ISO strings with milliseconds", async () => {
      const schema = freshSchema();
      const store = await open({ schema });
      const { orgId, monitorId } = await seedOrganization(store);
      await store.updateMonitor(orgId, monitorId, { nextCheckAt: "2026-03-04T05:06:07+02:00" });
      const monitor = await store.getMonitor(orgId, monitorId);
      expect(monitor?.nextCheckAt).toBe("2026-03-04T03:06:07.000Z");
      expect(monitor?.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const { rows } = await admin.query<{ column_name: string; data_type: string }>(
        `SELECT column_name, data_type FROM information_schema.columns
         WHERE table_schema = $1 AND table_name = 'monitors' AND column_name IN ('headers', 'next_check_at') ORDER BY column_name`,
        [schema]
      );
      expect(rows).toEqual([
        { column_name: "headers", data_type: "jsonb" },
        { column_name: "next_check_at", data_type: "timestamp with time zone" },
      ]);
    });
  });

  describe("connections", () => {
    it("uses a pool the caller passes and leaves it open on close", async () => {
      const pool = new pg.Pool({ connectionString: database.url, max: 2 });
      pool.on("error", () => undefined);
      try {
        const store = await createPostgresStore({ pool, schema: freshSchema() });
        await store.createOrganization({ slug: "pooled" });
        await store.close();
        const { rows } = await pool.query<{ one: number }>("SELECT 1 AS one");
        expect(rows[0]?.one).toBe(1);
        await expect(store.countOrganizations()).rejects.toMatchObject({ code: "store_closed" });
      } finally {
        await pool.end();
      }
    });

    it("keeps two schemas of one database apart", async () => {
      const first = await open();
      const second = await open();
      await first.createOrganization({ slug: "only-in-first" });
      expect(await first.countOrganizations()).toBe(1);
      expect(await second.countOrganizations()).toBe(0);
    });

    it("reports an unreachable server as store_unavailable with the cause", async () => {
      const error = await createPostgresStore({
        connectionString: "postgres://postgres@127.0.0.1:1/none",
        connectionTimeoutMillis: 2000,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe("store_unavailable");
      expect((error as StoreError).cause).toBeDefined();
    });

    it("recovers when the server drops an idle connection of its pool", async () => {
      const store = await open();
      // Several rounds, each asking at once after the termination: whether the server's notice has
      // reached the pool before the next statement is a race, which the store must win either way.
      for (let round = 0; round < 8; round += 1) {
        await Promise.all([store.ping(), store.ping(), store.ping()]);
        const { rows } = await admin.query<{ n: number }>(
          "SELECT COUNT(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'driftwatch' AND state = 'idle'",
          [database.name]
        );
        expect(rows[0]!.n).toBeGreaterThan(0);
        await expect(store.ping()).resolves.toBeUndefined();
        expect(await store.countOrganizations()).toBe(0);
      }
    });

    it("begins a transaction on another connection when the one it got was terminated while idle", async () => {
      const store = await open();
      for (let round = 0; round < 8; round += 1) {
        await Promise.all([store.ping(), store.ping(), store.ping()]);
        await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'driftwatch' AND state = 'idle'",
          [database.name]
        );
        // ensureOrganization writes in one transaction on PostgreSQL
        await expect(store.ensureOrganization(`after-terminate-${round}`)).resolves.toMatchObject({ slug: `after-terminate-${round}` });
      }
      expect(await store.countOrganizations()).toBe(8);
    });

    it("opens an existing schema as a role that may not create schemas", async () => {
      const schema = freshSchema();
      await open({ schema });
      const role = `dw_role_${schema}`;
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      try {
        await admin.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}`);
        await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
        const url = new URL(database.url);
        url.username = role;
        const store = await createPostgresStore({ connectionString: url.toString(), schema });
        await store.createOrganization({ slug: "limited" });
        expect(await store.countOrganizations()).toBe(1);
        await store.close();
      } finally {
        await admin.query(`DROP OWNED BY ${role}`);
        await admin.query(`DROP ROLE ${role}`);
      }
    });

    it("rejects ambiguous options", async () => {
      await expect(createPostgresStore({})).rejects.toMatchObject({ code: "store_unavailable" });
    });

    it("exports createStore for openStore", () => {
      expect(createStore).toBe(createPostgresStore);
    });

    it("leaves pg's global type parsers alone", async () => {
      const before = pg.types.getTypeParser(1184);
      await open();
      expect(pg.types.getTypeParser(1184)).toBe(before);
    });
  });

  describe("recordCheck", () => {
    it("records snapshot, diff and one delivery per matching webhook", async () => {
      const store = await open();
      const { orgId, monitorId, webhookIds } = await seedOrganization(store);
      const check = changedCheck(monitorId, { sequence: 1 });
      const result = await store.recordCheck(orgId, check);
      expect(result.snapshot?.id).toBe(check.snapshot!.id);
      expect(result.diff?.id).toBe(check.diff!.id);
      expect(result.deliveries.map((delivery) => delivery.webhookId).sort()).toEqual([...webhookIds].sort());
      expect(result.deliveries[0]?.payload).toBe(JSON.stringify(check.event));
      expect(result.monitor.lastStatus).toBe(200);
      const diff = await store.getDiff(orgId, monitorId, check.diff!.id);
      expect(diff).toEqual(result.diff);
      expect(await store.countPendingDeliveries(orgId)).toBe(2);
    });

    const stages: RecordCheckStage[] = ["monitor", "snapshot", "diff", "deliveries", "retention"];
    for (const failAt of stages) {
      it(`rolls everything back when the ${failAt} stage fails`, async () => {
        const schema = freshSchema();
        let armed = false;
        const store = await open({
          schema,
          hooks: {
            onRecordCheckStage(stage) {
              if (armed && stage === failAt) throw new Error(`injected at ${stage}`);
            },
          },
        });
        const { orgId, monitorId } = await seedOrganization(store);
        armed = true;
        await expect(store.recordCheck(orgId, changedCheck(monitorId, { sequence: 1 }))).rejects.toThrowError(new Error(`injected at ${failAt}`));
        for (const table of ["snapshots", "diffs", "deliveries"]) expect(await count(schema, table)).toBe(0);
        expect((await store.getMonitor(orgId, monitorId))?.lastCheckedAt).toBeNull();
        armed = false;
        await store.recordCheck(orgId, changedCheck(monitorId, { sequence: 2 }));
        expect(await count(schema, "deliveries")).toBe(2);
      });
    }

    it("ping (readiness) fails once the schema is incomplete, not only when the connection is gone", async () => {
      const schema = freshSchema();
      const store = await open({ schema });
      await store.ping();
      await admin.query(`DROP TABLE "${schema}".delivery_attempts`);
      const error = await store.ping().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe("store_unavailable");
    });

    it("records a check whose body and error text hold U+0000 and lone surrogates (text cannot hold them as they are)", async () => {
      const schema = freshSchema();
      const store = await open({ schema });
      const { orgId, monitorId } = await seedOrganization(store);
      const body = "nul \u0000 byte, lone \ud800 surrogate";
      const check = changedCheck(monitorId, { sequence: 1, body });
      check.monitor.lastError = "error \u0000 \udfff";
      await store.recordCheck(orgId, check);
      expect(await count(schema, "snapshots")).toBe(1);
      expect((await store.getSnapshot(orgId, monitorId, check.snapshot!.id))?.body).toBe(body);
      expect((await store.getMonitor(orgId, monitorId))?.lastError).toBe("error \u0000 \udfff");
      // stored as escaped text (no U+0000 reaches PostgreSQL)
      const { rows } = await admin.query<{ body: string }>(`SELECT body FROM "${schema}".snapshots`);
      expect(rows[0]!.body).not.toContain("\u0000");
      expect(rows[0]!.body.startsWith("\u0001dw:")).toBe(true);
    });

    it("keeps only the newest `retention` snapshots and the diffs of kept ones", async () => {
      const store = await open();
      const { orgId, monitorId } = await seedOrganization(store);
      await store.updateSettings(orgId, monitorId, { snapshotRetention: 2, updatedAt: new Date().toISOString() });
      let previous: string | null = null;
      const snapshots: string[] = [];
      for (let sequence = 0; sequence < 4; sequence++) {
        const check = changedCheck(monitorId, { previousSnapshotId: previous, sequence });
        await store.recordCheck(orgId, check);
        previous = check.snapshot!.id;
        snapshots.push(previous);
      }
      const page = await store.listSnapshots(orgId, monitorId, { limit: 10 });
      expect(page.data.map((snapshot) => snapshot.id)).toEqual(snapshots.slice(2).reverse());
      expect((await store.listDiffs(orgId, monitorId, { limit: 10 })).data.map((d) => d.snapshotId)).toEqual(snapshots.slice(2).reverse());
    });

    it("raises not_found for a monitor of another organization and writes nothing", async () => {
      const schema = freshSchema();
      const store = await open({ schema });
      const { monitorId } = await seedOrganization(store, "owner");
      const other = await store.ensureOrganization("other");
      await expect(store.recordCheck(other.id, changedCheck(monitorId, { sequence: 1 }))).rejects.toMatchObject({ code: "not_found" });
      expect(await count(schema, "snapshots")).toBe(0);
    });
  });

  describe("claims", () => {
    it("never hands one monitor to two pools claiming at once", async () => {
      const schema = freshSchema();
      const first = await open({ schema });
      const second = await open({ schema });
      const org = await first.ensureOrganization("claims");
      for (let index = 0; index < 40; index++) await first.createMonitor(org.id, apiMonitor({ name: `m${index}` }));
      const now = new Date().toISOString();
      const rounds = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          (index % 2 === 0 ? first : second).claimDueMonitors({ now, limit: 7, leaseMs: 60_000, owner: `worker-${index}` })
        )
      );
      const ids = rounds.flat().map((monitor) => monitor.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(40);
      expect(await first.claimDueMonitors({ now, limit: 10, leaseMs: 60_000, owner: "late" })).toEqual([]);
    });

    it("hands a monitor out again after its lease expires, and release needs the owner", async () => {
      const store = await open();
      const org = await store.ensureOrganization("lease");
      const monitor = await store.createMonitor(org.id, apiMonitor());
      const start = Date.now();
      const [claimed] = await store.claimDueMonitors({ now: new Date(start).toISOString(), limit: 1, leaseMs: 1000, owner: "a" });
      expect(claimed?.id).toBe(monitor.id);
      expect(await store.claimDueMonitors({ now: new Date(start + 500).toISOString(), limit: 1, leaseMs: 1000, owner: "b" })).toEqual([]);
      const [again] = await store.claimDueMonitors({ now: new Date(start + 1000).toISOString(), limit: 1, leaseMs: 1000, owner: "b" });
      expect(again?.id).toBe(monitor.id);
      expect(await store.releaseMonitor(monitor.id, "a", null)).toBe(false);
      expect(await store.releaseMonitor(monitor.id, "b", new Date(start + 60_000).toISOString())).toBe(true);
      expect((await store.getMonitor(org.id, monitor.id))?.nextCheckAt).toBe(new Date(start + 60_000).toISOString());
    });
  });
});
