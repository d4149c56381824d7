import { performance } from "node:perf_hooks";
import type { Database, Statement } from "better-sqlite3";
import { StoreError } from "@driftwatch/core";
import type { SqlDriver, SqlExecutor } from "@driftwatch/store-sql";

/** Longest synchronous lock wait inside SQLite (busy_timeout); longer waits are asynchronous retries. */
export const LOCK_SPIN_MS = 20;

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** Prepared statements a connection keeps at most (see `SqliteDriver`). */
export const MAX_CACHED_STATEMENTS = 500;

/**
 * The better-sqlite3 driver of the SQL store. Statements are prepared once and cached. A
 * transaction is `BEGIN IMMEDIATE`: the write lock is taken up front, so reads inside it are never
 * stale. The connection is one, so while a transaction's work runs, other calls of this store wait
 * for it (they would otherwise run inside it). When another connection holds the lock (SQLite
 * waited `LOCK_SPIN_MS` for it), the call is tried again after an asynchronous back-off until
 * `busyTimeoutMs` has passed: the event loop is never held by a lock wait longer than one spin.
 */
export class SqliteDriver implements SqlDriver {
  readonly #db: Database;
  readonly #ownsDatabase: boolean;
  readonly #busyTimeoutMs: number;
  readonly #statements = new Map<string, Statement>();
  #closed = false;
  /** Calls waiting for the running transaction to end. */
  #waiting: (() => void)[] | null = null;
  /** Statements run straight on the connection, for the work inside a transaction. */
  readonly #tx: SqlExecutor = {
    all: <R>(sql: string, params: readonly unknown[]) => Promise.resolve(this.#rows<R>(sql, params)),
    run: (sql: string, params: readonly unknown[]) => Promise.resolve(this.#changes(sql, params)),
  };

  constructor(db: Database, ownsDatabase: boolean, busyTimeoutMs: number) {
    this.#db = db;
    this.#ownsDatabase = ownsDatabase;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  /**
   * A cached prepared statement. The cache holds at most `MAX_CACHED_STATEMENTS` (a store runs
   * about a hundred different statements; statements whose text varies, such as a PATCH of some
   * columns, could otherwise add one each for the life of the connection): past it the oldest
   * prepared is dropped (better-sqlite3 finalizes it when it is collected).
   */
  #sql(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      if (this.#statements.size >= MAX_CACHED_STATEMENTS) this.#statements.delete(this.#statements.keys().next().value!);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Statements in the cache now (for tests). */
  get cachedStatements(): number {
    return this.#statements.size;
  }

  #rows<R>(sql: string, params: readonly unknown[]): R[] {
    const statement = this.#sql(sql);
    if (statement.reader) return statement.all(...params) as R[];
    statement.run(...params);
    return [];
  }

  #changes(sql: string, params: readonly unknown[]): number {
    return this.#sql(sql).run(...params).changes;
  }

  all<R>(sql: string, params: readonly unknown[]): Promise<R[]> {
    return this.#call(() => this.#rows<R>(sql, params));
  }

  run(sql: string, params: readonly unknown[]): Promise<number> {
    return this.#call(() => this.#changes(sql, params));
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    while (this.#waiting !== null) await new Promise<void>((resolve) => this.#waiting!.push(resolve));
    this.#checkOpen();
    this.#waiting = [];
    try {
      return await this.#retryWhileBusy(async () => {
        this.#sql("BEGIN IMMEDIATE").run();
        try {
          const result = await work(this.#tx);
          this.#sql("COMMIT").run();
          return result;
        } catch (error) {
          if (this.#db.inTransaction) this.#sql("ROLLBACK").run();
          throw error;
        }
      });
    } finally {
      const waiting = this.#waiting;
      this.#waiting = null;
      for (const resume of waiting) resume();
    }
  }

  /** One statement outside a transaction: after the running transaction, retried while the database is locked. */
  #call<T>(work: () => T): Promise<T> {
    if (this.#waiting !== null) return new Promise<void>((resolve) => this.#waiting!.push(resolve)).then(() => this.#call(work));
    try {
      this.#checkOpen();
      return Promise.resolve(work());
    } catch (error) {
      if (isBusy(error) && this.#busyTimeoutMs > LOCK_SPIN_MS) return this.#retryWhileBusy(() => Promise.resolve(work()), error);
      return Promise.reject(error);
    }
  }

  async #retryWhileBusy<T>(work: () => Promise<T>, first?: unknown): Promise<T> {
    const deadline = performance.now() + this.#busyTimeoutMs - LOCK_SPIN_MS;
    let last = first;
    if (first === undefined) {
      try {
        return await work();
      } catch (error) {
        if (!isBusy(error) || this.#busyTimeoutMs <= LOCK_SPIN_MS) throw error;
        last = error;
      }
    }
    for (let delay = 2; performance.now() < deadline; delay = Math.min(delay * 2, 100)) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(delay, deadline - performance.now()))));
      this.#checkOpen();
      try {
        return await work();
      } catch (error) {
        if (!isBusy(error)) throw error;
        last = error;
      }
    }
    throw last;
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreError("store_closed", "The store is closed.");
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#statements.clear();
    if (this.#ownsDatabase) this.#db.close();
    return Promise.resolve();
  }
}
