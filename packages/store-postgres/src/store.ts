import pg from "pg";
import type { Pool } from "pg";
import { StoreError, defineStore, isDriftwatchError, type Store, type StoreHooks } from "@driftwatch/core";
import type { SqlDatabase, SqlDialect } from "@driftwatch/store-sql";
import { PostgresAdapter } from "./record-check.js";
import { createPostgresDialect, postgresError } from "./dialect.js";
import { PostgresDriver, connect } from "./driver.js";
import { migratePostgres, POSTGRES_SCHEMA_VERSION } from "./migrations.js";

export interface PostgresStoreOptions {
  /** `postgres://user:pass@host:5432/db`: the store creates (and on close ends) its own pool. */
  connectionString?: string;
  /** A `pg.Pool` you own: the store uses it but never ends it. */
  pool?: Pool;
  /** Schema holding the tables, created when missing (default `public`). */
  schema?: string;
  /** Test instrumentation (see `StoreHooks`). */
  hooks?: StoreHooks;
  /** Size of the pool the store creates (default 10). */
  max?: number;
  /** How long to wait for a connection of the pool the store creates (default 10000 ms). */
  connectionTimeoutMillis?: number;
  /** Clock for `createdAt` fields (default `() => new Date()`). */
  now?: () => Date;
}

/** The pool, the schema migrated, that a store or a copy runs on. */
async function openPool(options: PostgresStoreOptions): Promise<{ driver: PostgresDriver; dialect: SqlDialect }> {
  const { pool: userPool, connectionString } = options;
  if ((userPool === undefined) === (connectionString === undefined)) {
    throw new StoreError("store_unavailable", "Pass exactly one of `connectionString` or `pool` to createPostgresStore.");
  }
  const schema = options.schema ?? "public";
  if (schema.length === 0) throw new StoreError("store_unavailable", "The `schema` option must not be empty.");
  const ownsPool = userPool === undefined;
  const pool =
    userPool ??
    new pg.Pool({
      connectionString,
      max: options.max ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
      application_name: "driftwatch",
    });
  // An idle client of our own pool losing its connection must not crash the process; the next
  // query reports the failure as `store_unavailable`.
  if (ownsPool) pool.on("error", () => undefined);
  try {
    const client = await connect(pool);
    let broken = false;
    try {
      await migratePostgres(client, schema);
    } catch (error) {
      broken = !isDriftwatchError(error);
      throw isDriftwatchError(error) ? error : postgresError(error);
    } finally {
      client.release(broken);
    }
  } catch (error) {
    if (ownsPool) await pool.end().catch(() => undefined);
    throw error;
  }
  return { driver: new PostgresDriver(pool, ownsPool), dialect: createPostgresDialect(schema) };
}

/**
 * Connects to PostgreSQL, applies the migrations (under an advisory lock) and returns a
 * driftwatch `Store`. Pass `connectionString` or your own `pool`.
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const { driver, dialect } = await openPool(options);
  const adapter = new PostgresAdapter({
    driver,
    dialect,
    schemaVersion: POSTGRES_SCHEMA_VERSION,
    hooks: options.hooks,
    now: options.now,
  });
  return defineStore(adapter, { mapError: (error) => dialect.mapError(error) });
}

/**
 * Connects to PostgreSQL and migrates the schema, as plain SQL for `copySqlDatabase`
 * (`driftwatch store copy`), not as a `Store`.
 */
export async function openPostgresDatabase(
  options: Pick<PostgresStoreOptions, "connectionString" | "pool" | "schema" | "max" | "connectionTimeoutMillis">,
): Promise<SqlDatabase> {
  const { driver, dialect } = await openPool(options);
  return { driver, dialect, close: () => driver.close() };
}

/** The name `openStore` looks for in every adapter package. */
export const createStore = createPostgresStore;
