import { createHash } from "node:crypto";
import { StoreError } from "@driftwatch/core";
import { TABLE_NAMES, type CopyColumn, type CopyColumnKind, type SqlDialect, type SqlDriver, type SqlExecutor, type TableName } from "./dialect.js";
import type { Row } from "./rows.js";

/** A migrated SQL database as the copy reads and writes it: its driver and its dialect. */
export interface SqlDatabase {
  readonly driver: SqlDriver;
  readonly dialect: SqlDialect;
  close(): Promise<void>;
}

export type { CopyColumn, CopyColumnKind } from "./dialect.js";

export interface TableProgress {
  table: TableName;
  /** Rows of the table now in the target (those a resumed copy found there included). */
  copied: number;
  /** Rows of the table in the source. */
  total: number;
}

export interface CopyOptions {
  /** Rows per read and per insert transaction (default 200). */
  batchSize?: number;
  /**
   * `fresh` (default): the target must be empty. `resume`: the target may hold rows already
   * (an interrupted copy, or data of its own): rows whose primary key it holds are kept as they
   * are and not written again; the rest are copied.
   */
  mode?: "fresh" | "resume";
  onProgress?(progress: TableProgress): void;
  /** Stops between two batches with an `AbortError`; what was copied stays (see `resume`). */
  signal?: AbortSignal;
}

export interface TableCheck {
  table: TableName;
  sourceRows: number;
  targetRows: number;
  sourceChecksum: string;
  targetChecksum: string;
  matches: boolean;
}

export interface CopyResult {
  tables: TableCheck[];
  /** Whether every table has the same rows (count and checksum) on both sides. */
  verified: boolean;
}

/** The order the tables are copied in: every row a foreign key names is copied before it. */
export const COPY_ORDER: readonly TableName[] = TABLE_NAMES;

const KIND_RANK: Record<CopyColumnKind, number> = { text: 0, int: 1, float: 1, time: 2, bool: 2, json: 2 };

/** The column kind both sides agree on: the more specific of the two. */
export function mergeColumnKinds(a: CopyColumnKind, b: CopyColumnKind): CopyColumnKind {
  return KIND_RANK[b] > KIND_RANK[a] ? b : a;
}

/**
 * A column value as `dialect`'s database returned it, in the form both databases compare equal
 * in: times as ISO 8601 UTC text, booleans as booleans, JSON parsed (and decoded the way that
 * dialect encodes it), numbers as numbers (PostgreSQL returns bigint as text).
 */
export function canonicalValue(value: unknown, kind: CopyColumnKind, dialect: SqlDialect): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case "time":
      return dialect.readTime(value);
    case "bool":
      return dialect.readBool(value);
    case "json":
      return dialect.readJson(value);
    case "int":
    case "float":
      return typeof value === "bigint" || typeof value === "string" ? Number(value) : value;
    case "text":
      return value;
  }
}

/** A canonical value as a parameter of `dialect`'s database. */
function writeValue(value: unknown, kind: CopyColumnKind, dialect: SqlDialect): unknown {
  if (value === null) return null;
  if (kind === "bool") return dialect.bool(value as boolean);
  if (kind === "json") return dialect.writeJson(value);
  return value;
}

/** JSON with object keys sorted, so values that are equal serialise equally. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Statement text with the dialect's placeholders. */
function compile(dialect: SqlDialect, sql: string): string {
  const placeholder = dialect.placeholder;
  if (placeholder === undefined) return sql;
  let n = 0;
  return sql.replace(/\?/g, () => placeholder(++n));
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** One table as both sides see it: its columns (kinds merged) and its primary key. */
interface TablePlan {
  table: TableName;
  columns: CopyColumn[];
  pk: CopyColumn[];
}

async function planTable(source: SqlDatabase, target: SqlDatabase, table: TableName): Promise<TablePlan> {
  const [from, to] = await Promise.all([describe(source, table), describe(target, table)]);
  const names = (columns: CopyColumn[]) => columns.map((c) => c.name).sort().join(",");
  if (names(from) !== names(to)) {
    throw new StoreError(
      "invariant_violation",
      `Table ${table} has other columns in the target (${names(to)}) than in the source (${names(from)}): are both at the same driftwatch version?`,
    );
  }
  const targetKinds = new Map(to.map((c) => [c.name, c.kind]));
  const columns = from
    .map((c) => ({ ...c, kind: mergeColumnKinds(c.kind, targetKinds.get(c.name)!) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  if (pk.length === 0) throw new StoreError("invariant_violation", `Table ${table} has no primary key to copy it by.`);
  return { table, columns, pk };
}

async function describe(db: SqlDatabase, table: TableName): Promise<CopyColumn[]> {
  const statement = db.dialect.describeTable(table);
  const rows = await db.driver.all<Row>(compile(db.dialect, statement.sql), statement.params);
  if (rows.length === 0) throw new StoreError("invariant_violation", `Table ${table} is missing in the ${db.dialect.name} database.`);
  return rows.map((row) => db.dialect.readColumn(row));
}

/** Reads a table in primary-key order, a batch at a time, after `after` (a primary-key tuple). */
async function readBatch(db: SqlDatabase, plan: TablePlan, after: unknown[] | null, limit: number): Promise<Row[]> {
  const cols = plan.columns.map((c) => quote(c.name)).join(", ");
  const key = plan.pk.map((c) => quote(c.name)).join(", ");
  const where = after === null ? "" : ` WHERE (${key}) > (${plan.pk.map(() => "?").join(", ")})`;
  const sql = `SELECT ${cols} FROM ${db.dialect.table(plan.table)}${where} ORDER BY ${key} LIMIT ${String(limit)}`;
  return db.driver.all<Row>(compile(db.dialect, sql), after ?? []);
}

async function countRows(db: SqlExecutor, dialect: SqlDialect, table: TableName): Promise<number> {
  const rows = await db.all<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${dialect.table(table)}`, []);
  return Number(rows[0]?.n ?? 0);
}

/** The rows of `rows` whose primary key the target does not hold yet. */
async function missingRows(db: SqlDatabase, plan: TablePlan, rows: Row[], from: SqlDialect): Promise<Row[]> {
  const key = plan.pk.map((c) => quote(c.name)).join(", ");
  // `IN (?, ...)` for one key column; for a compound key, one `(a = ? AND b = ?)` per row, so
  // every parameter takes its column's type.
  const match =
    plan.pk.length === 1
      ? `${key} IN (${rows.map(() => "?").join(", ")})`
      : rows.map(() => `(${plan.pk.map((c) => `${quote(c.name)} = ?`).join(" AND ")})`).join(" OR ");
  const sql = compile(db.dialect, `SELECT ${key} FROM ${db.dialect.table(plan.table)} WHERE ${match}`);
  const params = rows.flatMap((row) => plan.pk.map((c) => writeValue(canonicalValue(row[c.name], c.kind, from), c.kind, db.dialect)));
  const keyOf = (dialect: SqlDialect) => (row: Row) => stableJson(plan.pk.map((c) => canonicalValue(row[c.name], c.kind, dialect)));
  const present = new Set((await db.driver.all<Row>(sql, params)).map(keyOf(db.dialect)));
  return present.size === 0 ? rows : rows.filter((row) => !present.has(keyOf(from)(row)));
}

async function insertBatch(db: SqlDatabase, plan: TablePlan, rows: Row[], from: SqlDialect): Promise<void> {
  const cols = plan.columns.map((c) => quote(c.name)).join(", ");
  const tuple = `(${plan.columns.map(() => "?").join(", ")})`;
  const key = plan.pk.map((c) => quote(c.name)).join(", ");
  const sql = compile(
    db.dialect,
    `INSERT INTO ${db.dialect.table(plan.table)} (${cols}) VALUES ${rows.map(() => tuple).join(", ")} ON CONFLICT (${key}) DO NOTHING`,
  );
  const params: unknown[] = [];
  for (const row of rows) {
    for (const column of plan.columns) params.push(writeValue(canonicalValue(row[column.name], column.kind, from), column.kind, db.dialect));
  }
  await db.driver.transaction((tx) => tx.run(sql, params));
}

/** Whether a database holds any row in any of driftwatch's tables. */
export async function isEmptyDatabase(db: SqlDatabase): Promise<boolean> {
  for (const table of COPY_ORDER) {
    if ((await countRows(db.driver, db.dialect, table)) > 0) return false;
  }
  return true;
}

/**
 * Copies every row of every driftwatch table from one migrated SQL database to another (SQLite
 * to PostgreSQL and back), table by table in foreign-key order and batch by batch in primary-key
 * order, each batch in one transaction of the target. Values are converted between the two
 * databases' column types (times, booleans, JSON). Then every table is verified: row counts and a
 * checksum of its rows in canonical form on both sides.
 *
 * Interrupted (a crash, Ctrl-C, `signal`), the target holds whole batches; `mode: "resume"` reads
 * the source again and writes only the rows the target is missing.
 */
export async function copySqlDatabase(source: SqlDatabase, target: SqlDatabase, options: CopyOptions = {}): Promise<CopyResult> {
  const batchSize = Math.max(1, Math.min(5000, Math.floor(options.batchSize ?? 200)));
  const mode = options.mode ?? "fresh";
  if (mode === "fresh" && !(await isEmptyDatabase(target))) {
    throw new StoreError("conflict", "The target database is not empty: to continue an interrupted copy, or to copy into a database that holds data of its own, resume (rows it holds are kept).");
  }
  const plans: TablePlan[] = [];
  for (const table of COPY_ORDER) plans.push(await planTable(source, target, table));

  for (const plan of plans) {
    const total = await countRows(source.driver, source.dialect, plan.table);
    let after: unknown[] | null = null;
    let copied = 0;
    options.onProgress?.({ table: plan.table, copied, total });
    for (;;) {
      options.signal?.throwIfAborted();
      const rows = await readBatch(source, plan, after, batchSize);
      if (rows.length === 0) break;
      const missing = mode === "resume" ? await missingRows(target, plan, rows, source.dialect) : rows;
      if (missing.length > 0) await insertBatch(target, plan, missing, source.dialect);
      copied += rows.length;
      const last = rows[rows.length - 1]!;
      after = plan.pk.map((c) => last[c.name]);
      options.onProgress?.({ table: plan.table, copied: Math.min(copied, total), total });
      if (rows.length < batchSize) break;
    }
  }
  return verifySqlCopy(source, target, { batchSize, plans });
}

/** Row counts and checksums of every table on both sides (see `copySqlDatabase`). */
export async function verifySqlCopy(
  source: SqlDatabase,
  target: SqlDatabase,
  options: { batchSize?: number; plans?: TablePlan[] } = {},
): Promise<CopyResult> {
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 500));
  const tables: TableCheck[] = [];
  for (const table of COPY_ORDER) {
    const plan = options.plans?.find((p) => p.table === table) ?? (await planTable(source, target, table));
    const [from, to] = await Promise.all([checksumTable(source, plan, batchSize), checksumTable(target, plan, batchSize)]);
    tables.push({
      table,
      sourceRows: from.rows,
      targetRows: to.rows,
      sourceChecksum: from.checksum,
      targetChecksum: to.checksum,
      matches: from.rows === to.rows && from.checksum === to.checksum,
    });
  }
  return { tables, verified: tables.every((t) => t.matches) };
}

const MOD_256 = 1n << 256n;

/**
 * A table's checksum: the sum (mod 2^256) of the sha256 of every row in canonical form. A sum,
 * not a hash of the rows in order, since the databases sort text keys by their own collations.
 */
async function checksumTable(db: SqlDatabase, plan: TablePlan, batchSize: number): Promise<{ rows: number; checksum: string }> {
  let sum = 0n;
  let rows = 0;
  let after: unknown[] | null = null;
  for (;;) {
    const batch = await readBatch(db, plan, after, batchSize);
    for (const row of batch) {
      const digest = createHash("sha256").update(stableJson(plan.columns.map((c) => canonicalValue(row[c.name], c.kind, db.dialect)))).digest("hex");
      sum = (sum + BigInt(`0x${digest}`)) % MOD_256;
    }
    rows += batch.length;
    if (batch.length < batchSize) break;
    const last = batch[batch.length - 1]!;
    after = plan.pk.map((c) => last[c.name]);
  }
  return { rows, checksum: sum.toString(16).padStart(64, "0") };
}
