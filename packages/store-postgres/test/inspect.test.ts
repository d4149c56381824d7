import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POSTGRES_SCHEMA_VERSION, createPostgresStore, inspectPostgresDatabase } from "../src/index.js";
import { createTestDatabase, postgresSkipReason, type TestDatabase } from "./database.js";

const skipReason = await postgresSkipReason();

describe.skipIf(skipReason !== null)(`inspectPostgresDatabase${skipReason === null ? "" : ` (skipped: ${skipReason})`}`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("tells an empty database from a migrated one, and reads the clock", async () => {
    const empty = await inspectPostgresDatabase(db.url);
    expect(empty).toMatchObject({
      schema: "public",
      hasSchema: false,
      schemaVersion: null,
    });
    // same machine, same clock: within the query's round trip and a little scheduling noise
    expect(Math.abs(empty.clockSkewMs)).toBeLessThan(empty.roundTripMs / 2 + 1000);

    const store = await createPostgresStore({
      connectionString: db.url,
      schema: "dw_inspect",
    });
    await store.close();
    expect(await inspectPostgresDatabase(db.url)).toMatchObject({
      hasSchema: false,
    });
    expect(await inspectPostgresDatabase(db.url, { schema: "dw_inspect" })).toMatchObject({
      schema: "dw_inspect",
      hasSchema: true,
      schemaVersion: POSTGRES_SCHEMA_VERSION,
    });
    const url = new URL(db.url);
    url.searchParams.set("schema", "dw_inspect");
    expect(await inspectPostgresDatabase(url.toString())).toMatchObject({
      hasSchema: true,
      schemaVersion: POSTGRES_SCHEMA_VERSION,
    });
  });

  it("throws store_unavailable when it cannot connect", async () => {
    const error = await inspectPostgresDatabase("postgres://postgres:secret@127.0.0.1:1/x", { timeoutMs: 2000 }).then(
      () => null,
      (e: unknown) => e
    );
    expect(error).toMatchObject({
      name: "OpenStoreError",
      code: "store_unavailable",
    });
  });
});
