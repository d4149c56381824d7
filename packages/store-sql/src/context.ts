// What the SQL adapter's parts (people.ts, record-check.ts) run with: in a file of its own, so
// that they and adapter.ts import it without importing one another.
import type { StoreHooks } from "@driftwatch/core";
import type { SqlDialect, SqlExecutor, TableName } from "./dialect.js";
import type { Row, RowCodec } from "./rows.js";

/** What the shared statements need: the driver or a transaction, tables, codecs, the clock. */
export interface SqlContext {
  readonly dialect: SqlDialect;
  readonly rows: RowCodec;
  readonly t: Readonly<Record<TableName, string>>;
  readonly hooks: StoreHooks;
  now(): string;
  all<R extends Row>(db: SqlExecutor, sql: string, params: readonly unknown[]): Promise<R[]>;
  run(db: SqlExecutor, sql: string, params: readonly unknown[]): Promise<number>;
  /** `UPDATE <table> SET <patch> WHERE org_id AND id RETURNING *`; with nothing to set, the row as is (locked when `lock`). */
  patchRow(db: SqlExecutor, table: "monitors" | "webhooks", orgId: string, id: string, patch: object, lock?: boolean): Promise<Row | undefined>;
}
