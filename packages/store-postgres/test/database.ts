import { randomBytes } from "node:crypto";
import pg from "pg";
import { dropDatabase } from "../../../tooling/test-postgres.js";

/** Admin connection used to create and drop one database per test file. */
export const ADMIN_URL = process.env.DRIFTWATCH_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * Null when the server answers; otherwise why the tests skip. Under `CI=true` a missing server
 * is a failure: this throws instead.
 */
export async function postgresSkipReason(): Promise<string | null> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return null;
  } catch (error) {
    const reason = `PostgreSQL is not reachable at ${ADMIN_URL} (${(error as Error).message}); set DRIFTWATCH_TEST_POSTGRES_URL`;
    if (process.env.CI === "true") throw new Error(`${reason}. CI must provide PostgreSQL.`, { cause: error });
    return reason;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  /** Drops the database, closing whatever connections are still open on it. */
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** `CREATE DATABASE dw_<random>` on the admin server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `dw_${randomBytes(6).toString("hex")}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => dropDatabase(name),
  };
}

/** A schema name unique to one test. */
export function freshSchema(): string {
  return `t_${randomBytes(5).toString("hex")}`;
}
