// Several processes opening one fresh database at the same moment: the advisory lock makes them
// migrate one after the other, so every process starts and the migration is recorded once.
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { runNodeScript } from "@driftwatch/store-testkit";
import { POSTGRES_MIGRATIONS } from "../src/index.js";
import { createTestDatabase, postgresSkipReason, type TestDatabase } from "./database.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const skipReason = await postgresSkipReason();
let database: TestDatabase | undefined;
afterAll(async () => {
  await database?.drop();
});

/** Runs migrate-child.ts to completion; it prints nothing but `done`. */
async function runChild(url: string, slug: string): Promise<void> {
  const printed = await runNodeScript({ script: path.join(here, "migrate-child.ts"), args: [url, slug], cwd: here, nodeArgs: ["--conditions=@driftwatch/source", "--import", "tsx"] });
  expect(printed).toEqual([]);
}

describe.skipIf(skipReason !== null)(`several processes on one database${skipReason === null ? "" : ` (skipped: ${skipReason})`}`, () => {
  it("migrate a fresh database once when four processes open it at the same time", async () => {
    database = await createTestDatabase();
    await Promise.all(["a", "b", "c", "d"].map((slug) => runChild(database!.url, slug)));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const migrations = await client.query<{ version: number }>("SELECT version FROM public.driftwatch_migrations ORDER BY version");
      expect(migrations.rows).toEqual(POSTGRES_MIGRATIONS.map((m) => ({ version: m.version })));
      const orgs = await client.query<{ slug: string }>("SELECT slug FROM public.organizations ORDER BY slug");
      expect(orgs.rows.map((r) => r.slug)).toEqual(["a", "b", "c", "d"]);
    } finally {
      await client.end();
    }
  }, 90_000);
});
