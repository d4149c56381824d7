import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  crashCheckRecorders,
  expectEveryCheckWhole,
  expectStoreWorksAfterCrash,
  seedOrganization,
  startCheckRecorder,
} from "@driftwatch/store-testkit";
import { createPostgresStore } from "../src/index.js";
import { createTestDatabase, freshSchema, postgresSkipReason, type TestDatabase } from "./database.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const childScript = path.join(here, "crash-child.ts");
const skipReason = await postgresSkipReason();

describe.skipIf(skipReason !== null)(`crash safety${skipReason === null ? "" : ` (skipped: ${skipReason})`}`, () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("keeps every check whole when recording processes are killed with SIGKILL, and keeps working", async () => {
    const schema = freshSchema();
    const setup = await createPostgresStore({ connectionString: database.url, schema });
    const first = await seedOrganization(setup, "first");
    const second = await seedOrganization(setup, "second");
    await setup.close();

    // three rounds: each kills both writers mid-run (mid-transaction, most likely), the next continues
    const printed = await crashCheckRecorders(() =>
      [first, second].map((seed) =>
        startCheckRecorder({
          script: childScript,
          args: [database.url, schema, seed.orgId, seed.monitorId],
          cwd: here,
          nodeArgs: ["--conditions=@driftwatch/source", "--import", "tsx"],
        })
      )
    );

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const q = async <R extends pg.QueryResultRow>(sql: string): Promise<R[]> => (await client.query<R>(sql)).rows;
    const diffs = await q<{ id: string; snapshotId: string; previousSnapshotId: string | null }>(
      `SELECT id, snapshot_id AS "snapshotId", previous_snapshot_id AS "previousSnapshotId" FROM "${schema}".diffs`
    );
    const snapshotIds = (await q<{ id: string }>(`SELECT id FROM "${schema}".snapshots`)).map((r) => r.id);
    const deliveries = await q<{ diff_id: string; n: number }>(`SELECT diff_id, COUNT(*)::int AS n FROM "${schema}".deliveries GROUP BY diff_id`);
    await client.end();
    expectEveryCheckWhole(printed, { diffs, snapshotIds, deliveriesPerDiff: new Map(deliveries.map((r) => [r.diff_id, r.n])) }, 2);

    const store = await createPostgresStore({ connectionString: database.url, schema });
    try {
      await expectStoreWorksAfterCrash(store, [first, second], diffs.length);
    } finally {
      await store.close();
    }
  }, 120_000);
});
