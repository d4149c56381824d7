import { createHash } from "node:crypto";
import type { Pool, PoolClient, QueryResult, QueryResultRow } from "pg";
import { StoreError } from "@driftwatch/core";
import type { SqlDriver, SqlExecutor } from "@driftwatch/store-sql";
import { postgresError } from "./dialect.js";

type Db = Pool | PoolClient;

/**
 * Named (prepared) statements: the store's statements are a fixed set of texts run again and
 * again, so each connection parses and plans each one once instead of every time. Bounded: texts
 * with many parameters (the variable-length `IN` lists of batches) and texts beyond the first
 * `MAX_PREPARED` stay unnamed, so no connection accumulates statements without end.
 */
const MAX_PREPARED = 256;
const MAX_PREPARED_PARAMS = 24;
const preparedNames = new Map<string, string>();
/** Texts whose prepared plan the server refused after a schema change (another process migrated): run unnamed from then on. */
const unprepared = new Set<string>();

function statementName(text: string, values: readonly unknown[]): string | undefined {
  if (values.length === 0 || values.length > MAX_PREPARED_PARAMS || unprepared.has(text)) return undefined;
  let name = preparedNames.get(text);
  if (name === undefined) {
    if (preparedNames.size >= MAX_PREPARED) return undefined;
    name = `dw_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    preparedNames.set(text, name);
  }
  return name;
}

/**
 * SQLSTATEs of a server that ended the connection itself (`pg_terminate_backend`, an
 * administrator's or a crash's shutdown of the backend). The server rolls back whatever the
 * statement had begun, so a statement outside a transaction may run again on another connection.
 */
const TERMINATED = new Set(["57P01", "57P02"]);
/** How often a statement on the pool runs again after its connection was terminated: each try discards one dead connection (10: the pool's default size). */
const TERMINATED_RETRIES = 10;

async function query<R extends QueryResultRow>(
  db: Db,
  text: string,
  values: readonly unknown[],
  retries = 0
): Promise<QueryResult<R>> {
  const name = statementName(text, values);
  try {
    return await db.query<R>(name === undefined ? { text, values: values as unknown[] } : { name, text, values: values as unknown[] });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // "cached plan must not change result type": the table changed under a prepared statement.
    if (name !== undefined && code === "0A000") {
      unprepared.add(text);
      return query(db, text, values, retries);
    }
    // An idle connection of the pool the server has terminated, whose notice had not arrived yet
    // when the pool lent it out: the pool discards it on this error, so try another. Never inside
    // a transaction (`retries` is -1 there): its earlier statements went with the connection.
    if (retries >= 0 && retries < TERMINATED_RETRIES && typeof code === "string" && TERMINATED.has(code)) {
      return query(db, text, values, retries + 1);
    }
    throw postgresError(error);
  }
}

/** A connection of the pool; failing to get one is `store_unavailable`. */
export async function connect(pool: Pool): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw postgresError(error);
  }
}

/** Statements on the pool may run again on another connection after a terminated one; on a transaction's client never. */
function executor(db: Db, inTransaction: boolean): SqlExecutor {
  const retries = inTransaction ? -1 : 0;
  return {
    all: async <R>(sql: string, params: readonly unknown[]) => (await query<R & QueryResultRow>(db, sql, params, retries)).rows as R[],
    run: async (sql: string, params: readonly unknown[]) => (await query(db, sql, params, retries)).rowCount ?? 0,
  };
}

/**
 * The node-postgres driver of the SQL store: statements outside a transaction run on the pool;
 * a transaction runs between `BEGIN` and `COMMIT` on one client of it, and any error (a throwing
 * hook too) rolls it back. Statement failures become `StoreError`s where they happen, so an
 * error of the caller's own code passes through a transaction as it is.
 */
export class PostgresDriver implements SqlDriver {
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #onPool: SqlExecutor;
  #closed = false;

  constructor(pool: Pool, ownsPool: boolean) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.#onPool = executor(pool, false);
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreError("store_closed", "The store is closed.");
  }

  all<R>(sql: string, params: readonly unknown[]): Promise<R[]> {
    this.#checkOpen();
    return this.#onPool.all<R>(sql, params);
  }

  run(sql: string, params: readonly unknown[]): Promise<number> {
    this.#checkOpen();
    return this.#onPool.run(sql, params);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    this.#checkOpen();
    const client = await connect(this.#pool);
    let broken = false;
    try {
      await query(client, "BEGIN", [], -1);
      const result = await work(executor(client, true));
      await query(client, "COMMIT", [], -1);
      return result;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch {
        // the connection is gone; the server rolls the transaction back when it notices
        broken = true;
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.#pool.end();
  }
}
