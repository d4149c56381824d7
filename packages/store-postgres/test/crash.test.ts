import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, it } from "vitest";
import { runCrashScenario, type StoredChecks } from "@driftwatch/store-testkit";
import { createPostgresStore } from "../src/index.js";
import { createTestDatabase, freshSchema, postgresSkipReason, type TestDatabase } from "./database.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const skipReason = await postgresSkipReason();

/** The checks in one schema (foreign keys hold by construction in PostgreSQL). */
async function readBack(url: string, schema: string): Promise<StoredChecks> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const q = async <R extends pg.QueryResultRow>(sql: string): Promise<R[]> => (await client.query<R>(sql)).rows;
    const diffs = await q<StoredChecks["diffs"][number]>(
      `SELECT id, snapshot_id AS "snapshotId", previous_snapshot_id AS "previousSnapshotId" FROM "${schema}".diffs`
    );
    const snapshotIds = (await q<{ id: string }>(`SELECT id FROM "${schema}".snapshots`)).map((r) => r.id);
    const deliveries = await q<{ diff_id: string; n: number }>(`SELECT diff_id, COUNT(*)::int AS n FROM "${schema}".deliveries GROUP BY diff_id`);
    return { diffs, snapshotIds, deliveriesPerDiff: new Map(deliveries.map((r) => [r.diff_id, r.n])) };
  } finally {
    await client.end();
  }
}

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
    // three rounds: each kills both writers mid-run (mid-transaction, most likely), the next continues
    await runCrashScenario({
      open: () => createPostgresStore({ connectionString: database.url, schema }),
      recorder: (seed) => ({
        script: path.join(here, "crash-child.ts"),
        args: [database.url, schema, seed.orgId, seed.monitorId],
        cwd: here,
        nodeArgs: ["--conditions=@driftwatch/source", "--import", "tsx"],
      }),
      readBack: () => readBack(database.url, schema),
    });
  }, 120_000);
});
