// One PostgreSQL database per test file, for the tests of the engine and the server: created on
// the test server under a unique name and dropped (with FORCE, so pools a failed test left open do
// not block it) when the file is done.
import { randomBytes } from "node:crypto";
import pg from "pg";

export const POSTGRES_ADMIN_URL = process.env.DRIFTWATCH_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Null when PostgreSQL answers; the reason to skip otherwise. Under CI=true a missing server fails. */
export async function postgresSkipReason(): Promise<string | null> {
  try {
    await admin("SELECT 1");
    return null;
  } catch (error) {
    const reason = `PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL} (${(error as Error).message})`;
    if (process.env.CI === "true") throw new Error(`${reason}; CI must provide PostgreSQL`, { cause: error });
    return reason;
  }
}

export interface TestPostgresDatabase {
  name: string;
  /** Connection string for the new database. */
  url: string;
  drop(): Promise<void>;
}

/** Creates a uniquely named database (`<prefix>_<pid>_<random>`) and returns its URL and a drop function. */
export async function createPostgresDatabase(prefix: string): Promise<TestPostgresDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => dropDatabase(name) };
}

/**
 * Drops a test database. Sessions that are closing (a pool that just ended sent its Terminate)
 * get up to two seconds to go: FORCE would signal them, and a client that is ending but not yet
 * closed reports that FATAL (57P01) as an error event nobody listens to any more. Sessions still
 * there after that (a failed test's pool) are closed by FORCE.
 */
export async function dropDatabase(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    for (const until = Date.now() + 2000; Date.now() < until; ) {
      const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1", [name]);
      if (Number(rows[0]?.n ?? 0) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
