import { StoreError } from "@driftwatch/core";
import type { CopyColumn, SqlDialect, SqlStatement } from "@driftwatch/store-sql";

/**
 * SQLite's side of the SQL store: `?` placeholders, unqualified tables, booleans as 0/1, JSON as
 * text, times as ISO 8601 text (which sorts as time), no row locks (a write transaction is
 * `BEGIN IMMEDIATE`, which locks the database), and the due rows of a claim picked by one `SELECT` (the write transaction already excludes other claimers).
 */
export const sqliteDialect: SqlDialect = {
  name: "sqlite",
  groupWrites: true,
  table: (name) => name,
  bool: (value) => (value ? 1 : 0),
  readBool: (value) => value === 1,
  writeJson: (value) => JSON.stringify(value),
  readJson: <T>(value: unknown) => JSON.parse(value as string) as T,
  readTime: (value) => value as string,
  lockRows: () => "",

  /** Oldest due first, organizations in turn (each one's oldest, then each one's second, ...). */
  pickDueMonitors: ({ now, limit }): SqlStatement => ({
    sql: `SELECT id, lease_owner FROM (
        SELECT id, lease_owner, next_check_at, ROW_NUMBER() OVER (PARTITION BY org_id ORDER BY next_check_at, id) AS turn FROM monitors
        WHERE state IN ('active', 'failing') AND next_check_at IS NOT NULL AND next_check_at <= ?
          AND (lease_expires_at IS NULL OR lease_expires_at <= ?))
      ORDER BY turn, next_check_at, id LIMIT ?`,
    params: [now, now, limit],
  }),

  /** Oldest first, organizations in turn, so one tenant's backlog cannot fill a claim. */
  pickDueDeliveries: (input): SqlStatement => ({
    sql: `SELECT id, lease_owner FROM (
        SELECT d.id, d.lease_owner, ROW_NUMBER() OVER (PARTITION BY d.org_id ORDER BY d.id) AS turn
        FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.org_id = d.org_id
        WHERE d.state = 'pending' AND w.enabled = 1
          AND (? = 1 OR (d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= ?))
          AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= ?)
          AND (? IS NULL OR d.org_id = ?) AND (? IS NULL OR d.webhook_id = ?))
      ORDER BY turn, id LIMIT ?`,
    params: [
      input.force === true ? 1 : 0,
      input.now,
      input.now,
      input.orgId ?? null,
      input.orgId ?? null,
      input.webhookId ?? null,
      input.webhookId ?? null,
      Math.max(0, Math.floor(input.limit)),
    ],
  }),

  schemaCheck: (tables): SqlStatement => ({
    sql: `SELECT (SELECT MAX(version) FROM driftwatch_migrations) AS version,
        (SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN (${tables.map(() => "?").join(", ")})) AS tables`,
    params: [...tables],
  }),

  describeTable: (table): SqlStatement => ({ sql: "SELECT name, type, pk FROM pragma_table_info(?)", params: [table] }),

  /** SQLite's declared types say only INTEGER, REAL or TEXT: times, booleans and JSON read as such. */
  readColumn: (row): CopyColumn => {
    const type = String(row.type).toUpperCase();
    return { name: String(row.name), kind: type === "INTEGER" ? "int" : type === "REAL" ? "float" : "text", pk: Number(row.pk) };
  },

  /** SQLite's result codes as `StoreError`s. */
  mapError(error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== "string" || !code.startsWith("SQLITE_")) return undefined;
    const message = (error as Error).message;
    if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
      return new StoreError("conflict", `A record with the same unique value exists: ${message}`, { cause: error });
    }
    if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") return new StoreError("not_found", "A record this write refers to does not exist.", { cause: error });
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
      return new StoreError("store_unavailable", "The SQLite database stayed locked longer than busyTimeoutMs.", { cause: error });
    }
    return new StoreError("store_unavailable", `SQLite failed: ${message}`, { cause: error });
  },
};
