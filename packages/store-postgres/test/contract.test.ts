// The shared Store contract of @driftwatch/store-testkit against real PostgreSQL: one database for
// this file, one schema per test, and every `open()` a separate pg pool on that schema.
import pg from "pg";
import { afterAll, describe } from "vitest";
import type { Store } from "@driftwatch/core";
import { runStoreContract } from "@driftwatch/store-testkit";
import { createPostgresStore } from "../src/index.js";
import { createTestDatabase, freshSchema, postgresSkipReason, type TestDatabase } from "./database.js";

const skipReason = await postgresSkipReason();
let database: Promise<TestDatabase> | undefined;
let admin: pg.Pool | undefined;

afterAll(async () => {
  await admin?.end();
  if (database !== undefined) await (await database).drop();
});

describe.skipIf(skipReason !== null)(`contract${skipReason === null ? "" : ` (skipped: ${skipReason})`}`, () => {
  runStoreContract({
    name: "@driftwatch/store-postgres",
    async create() {
      database ??= createTestDatabase();
      const { url } = await database;
      if (admin === undefined) {
        admin = new pg.Pool({ connectionString: url, max: 2 });
        // the teardown's DROP DATABASE ... WITH (FORCE) may terminate a socket still closing after end()
        admin.on("error", () => undefined);
      }
      const schema = freshSchema();
      const opened: Store[] = [];
      return {
        async open(options) {
          const store = await createPostgresStore({ connectionString: url, schema, hooks: options?.hooks, max: 4 });
          opened.push(store);
          return store;
        },
        async destroy() {
          await Promise.all(opened.splice(0).map((store) => store.close()));
          await admin!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        },
      };
    },
    capabilities: { sharedDatabase: true, rateLimits: true },
  });
});
