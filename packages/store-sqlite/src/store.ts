import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import type { Database } from "better-sqlite3";
import { StoreError, defineStore, isDriftwatchError, type Store, type StoreHooks } from "@driftwatch/core";
import type { SqlDatabase } from "@driftwatch/store-sql";
import { sqliteDialect } from "./dialect.js";
import { DiffJsonCache, SqliteAdapter } from "./diff-json-cache.js";
import { LOCK_SPIN_MS, SqliteDriver } from "./driver.js";
import { migrateSqlite, SQLITE_SCHEMA_VERSION } from "./migrations.js";

export { DIFF_JSON_CACHE_TTL_MS } from "./diff-json-cache.js";
export { LOCK_SPIN_MS } from "./driver.js";

export interface SqliteStoreOptions {
  /** Path of the database file; the file and its folder are created when missing. `:memory:` works too (one connection only). */
  filename?: string;
  /** A better-sqlite3 connection you own: the store sets its pragmas but never closes it. */
  database?: Database;
  /** Test instrumentation (see `StoreHooks`). */
  hooks?: StoreHooks;
  /**
   * How long a call waits for another connection's lock before failing with `store_unavailable`
   * (default 5000). better-sqlite3 waits for a lock synchronously, blocking the event loop, so
   * SQLite itself waits at most `LOCK_SPIN_MS` per try; the rest of the wait is asynchronous
   * retries with back-off, and the process keeps serving meanwhile.
   */
  busyTimeoutMs?: number;
  /**
   * `normal` (default): with WAL a process crash (even SIGKILL) never loses a committed check;
   * an OS crash or power cut may lose the last few commits but never corrupts the file.
   * `full`: fsync on every commit, durable against power loss too, at a cost in write throughput.
   */
  synchronous?: "normal" | "full";
  /** Clock for `createdAt` fields (default `() => new Date()`). */
  now?: () => Date;
}

/** The SQLite store: the `Store` port (kept as its own name for existing imports). */
export type SqliteStore = Store;

/** The connection, pragmas set and migrated, that a store or a copy runs on. */
function openConnection(options: SqliteStoreOptions): { driver: SqliteDriver; busyTimeoutMs: number } {
  const { database, filename } = options;
  if (database !== undefined && filename !== undefined) {
    throw new StoreError("store_unavailable", "Pass either `filename` or `database` to createSqliteStore, not both.");
  }
  let db: Database;
  const ownsDatabase = database === undefined;
  if (database !== undefined) {
    db = database;
  } else {
    const file = filename ?? ":memory:";
    try {
      if (file !== ":memory:" && file !== "") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      db = new BetterSqlite3(file);
    } catch (error) {
      throw new StoreError("store_unavailable", `Cannot open the SQLite database at ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
  try {
    // Opening (and migrating) may wait synchronously for the whole timeout: nothing is served yet.
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    if (!db.memory) db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
    db.pragma("foreign_keys = ON");
    migrateSqlite(db);
    // From here on a lock is waited for asynchronously (see SqliteDriver).
    db.pragma(`busy_timeout = ${Math.min(busyTimeoutMs, LOCK_SPIN_MS)}`);
  } catch (error) {
    if (ownsDatabase) db.close();
    throw isDriftwatchError(error) ? error : (sqliteDialect.mapError(error) ?? error);
  }
  return { driver: new SqliteDriver(db, ownsDatabase, busyTimeoutMs), busyTimeoutMs };
}

/** Opens (creating when missing) a SQLite database and returns a driftwatch `Store` on it. */
export async function createSqliteStore(options: SqliteStoreOptions = {}): Promise<SqliteStore> {
  const { driver } = openConnection(options);
  const now = options.now ?? (() => new Date());
  const adapter = new SqliteAdapter(
    { driver, dialect: sqliteDialect, schemaVersion: SQLITE_SCHEMA_VERSION, hooks: options.hooks, now },
    new DiffJsonCache(now),
  );
  return defineStore(adapter, { mapError: (error) => sqliteDialect.mapError(error) });
}

/**
 * Opens (creating and migrating when needed) a SQLite database as plain SQL for
 * `copySqlDatabase` (`driftwatch store copy`), not as a `Store`.
 */
export async function openSqliteDatabase(options: Pick<SqliteStoreOptions, "filename" | "database" | "busyTimeoutMs">): Promise<SqlDatabase> {
  const { driver } = openConnection(options);
  return { driver, dialect: sqliteDialect, close: () => driver.close() };
}

/** The name `openStore` looks for in every adapter package. */
export const createStore = createSqliteStore;
