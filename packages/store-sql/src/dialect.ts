import type { ClaimDeliveriesInput, StoreError } from "@driftwatch/core";

/**
 * How a column's values are compared and written across databases. A SQLite column only says
 * `text` or `int` where PostgreSQL says `time`, `bool` or `json`: the more specific kind of the
 * two sides wins (see `mergeColumnKinds`).
 */
export type CopyColumnKind = "text" | "int" | "float" | "time" | "bool" | "json";

export interface CopyColumn {
  name: string;
  kind: CopyColumnKind;
  /** Position in the primary key (1-based), 0 when not part of it. */
  pk: number;
}

/** The tables of people (users, memberships, sessions, invites, the audit log), added by migration 3. */
export const PEOPLE_TABLE_NAMES = ["users", "memberships", "sessions", "invites", "audit_log"] as const;

/** The tables of notification channels and their outbox, added by migration 7. */
export const CHANNEL_TABLE_NAMES = ["channels", "channel_deliveries", "channel_delivery_attempts"] as const;
/** The tables of tracked values and alert state, added by migration 9. */
export const TRACKED_TABLE_NAMES = ["tracked_values", "alert_states"] as const;

/** The tables of the schema both SQL adapters migrate to. */
export const TABLE_NAMES = [
  "organizations",
  "tokens",
  "monitors",
  "snapshots",
  "diffs",
  "settings",
  ...TRACKED_TABLE_NAMES,
  "webhooks",
  "deliveries",
  "delivery_attempts",
  "idempotency_keys",
  "rate_limits",
  ...PEOPLE_TABLE_NAMES,
  ...CHANNEL_TABLE_NAMES,
  // migration 8: a snapshot's screenshot, and the secrets browser steps use
  "screenshots",
  "failure_screenshots",
  "secrets",
] as const;
export type TableName = (typeof TABLE_NAMES)[number];

/** One statement with `?` placeholders and its parameters in order. */
export interface SqlStatement {
  sql: string;
  params: unknown[];
}

/** Runs statements. SQL reaches it with the dialect's placeholders already in place. */
export interface SqlExecutor {
  /** The rows of one statement (a write with `RETURNING` too). */
  all<R>(sql: string, params: readonly unknown[]): Promise<R[]>;
  /** Runs one write; the number of rows it changed. */
  run(sql: string, params: readonly unknown[]): Promise<number>;
}

/**
 * A connection to a database (better-sqlite3, a `pg.Pool`): statements, and transactions that
 * take the write lock up front where the database has one. `transaction` commits when `work`
 * resolves and rolls back when it throws; statements inside it go through the executor it
 * passes, never through the driver itself.
 */
export interface SqlDriver extends SqlExecutor {
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * What differs between the SQL databases, for statements the shared store writes once:
 * placeholders, how tables are named, how booleans, JSON and times are stored, how a read locks
 * the rows its transaction then changes, the picks of due work, the schema check, and how driver
 * errors map to `StoreError` codes. (Upserts are shared: both databases speak
 * `INSERT ... ON CONFLICT ... DO UPDATE ... RETURNING`.)
 */
export interface SqlDialect {
  /** For messages: `sqlite`, `postgres`. */
  readonly name: string;
  /** The placeholder of the n-th parameter (1-based), e.g. `$1`; absent: `?` as written. */
  placeholder?(n: number): string;
  /**
   * Whether the writes of one call share a transaction: true where each commit is the cost
   * (SQLite appends to its WAL once per transaction, and rate-limit counting runs per request),
   * false where a transaction costs round trips of its own (PostgreSQL's `BEGIN` and `COMMIT`).
   */
  readonly groupWrites: boolean;
  /** A table as statements name it (quoted, schema-qualified where the database has schemas). */
  table(name: TableName | "driftwatch_migrations"): string;
  /** A boolean as a parameter. */
  bool(value: boolean): unknown;
  readBool(value: unknown): boolean;
  /** A value as the text of a JSON column. */
  writeJson(value: unknown): string;
  /** A JSON column as read (text, or already parsed by the driver) as a fresh value. */
  readJson<T>(value: unknown): T;
  /** A condition true when the JSON array in `column` holds the string bound to its one `?`. */
  jsonArrayHas(column: string): string;
  /** A time column as read (ISO text or `Date`) as ISO 8601 UTC with milliseconds. */
  readTime(value: unknown): string;
  /**
   * Appended to a `SELECT` of rows its transaction then changes (of the table `alias` when
   * given): ` FOR UPDATE`, or empty where a write transaction locks the whole database.
   */
  lockRows(alias?: string): string;
  /**
   * The first step of a claim of due monitors, inside the claim's transaction: the rows
   * `{ id, lease_owner }` to lease, locked against other claimers where the database locks rows
   * (the store then sets their lease by id, and tells a takeover by the expired `lease_owner`).
   */
  pickDueMonitors(input: { now: string; limit: number }): SqlStatement;
  /** The same for due deliveries. */
  pickDueDeliveries(input: ClaimDeliveriesInput): SqlStatement;
  /** A statement answering one row `{ version, tables }`: the newest migration and how many of `tables` exist. */
  schemaCheck(tables: readonly TableName[]): SqlStatement;
  /** A statement listing a table's columns, one row each, for `readColumn` (used by the copy). */
  describeTable(table: TableName): SqlStatement;
  /** A row of `describeTable` as a column: its name, kind and place in the primary key. */
  readColumn(row: Record<string, unknown>): CopyColumn;
  /** A driver's error as a `StoreError` with a code; undefined when it is none of the driver's. */
  mapError(error: unknown): StoreError | undefined;
}
