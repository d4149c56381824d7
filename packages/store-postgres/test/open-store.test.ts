// openStore (from @driftwatch/core) for postgres:// and postgresql:// URLs against the real server:
// the adapter is loaded on demand, migrations run at open, a second open sees the same data.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDriftwatchError, openStore } from "@driftwatch/core";
import { createTestDatabase, postgresSkipReason, type TestDatabase } from "./database.js";

const skipReason = await postgresSkipReason();
let database: TestDatabase | undefined;

beforeAll(async () => {
  if (skipReason === null) database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe.skipIf(skipReason !== null)(`openStore with PostgreSQL${skipReason === null ? "" : ` (skipped: ${skipReason})`}`, () => {
  it("opens postgres:// and postgresql:// URLs on the same database", async () => {
    const url = database!.url;
    const first = await openStore(url, { adapterOptions: { max: 2 } });
    expect(first.capabilities).toEqual({ rateLimits: true, durable: true });
    const org = await first.ensureOrganization("acme");
    const second = await openStore(url.replace(/^postgres:/, "postgresql:"), { adapterOptions: { max: 2 } });
    expect(await second.getOrganizationBySlug("acme")).toEqual(org);
    await Promise.all([first.close(), second.close()]);
  });

  it("an unreachable server is store_unavailable", async () => {
    // port 1 on loopback: nothing listens there
    const error = await openStore("postgres://postgres@127.0.0.1:1/nothing", { adapterOptions: { connectionTimeoutMillis: 2000 } }).catch((e: unknown) => e);
    expect(isDriftwatchError(error) && error.code).toBe("store_unavailable");
  });
});
