import pg from "pg";
import { StoreError, decodeJson, encodeJson } from "@driftwatch/core";
import type { CopyColumn, CopyColumnKind, SqlDialect, SqlStatement } from "@driftwatch/store-sql";
import { quoteIdentifier } from "./migrations.js";

/** node-postgres failures as `StoreError`s: database errors by SQLSTATE, anything else (no connection) as `store_unavailable`. */
export function postgresError(error: unknown): StoreError {
  if (error instanceof pg.DatabaseError) {
    const code = error.code ?? "";
    if (code === "23505") {
      return new StoreError("conflict", `A record with the same unique value exists: ${error.detail ?? error.message}`, { cause: error });
    }
    if (code === "23503") return new StoreError("not_found", "A record this write refers to does not exist.", { cause: error });
    // data exceptions (bad time, NUL character, out of range) and constraint violations: the input is wrong
    if (code.startsWith("22") || code.startsWith("23")) {
      return new StoreError("invariant_violation", `PostgreSQL rejected a value: ${error.message}`, { cause: error });
    }
    return new StoreError("store_unavailable", `PostgreSQL failed: ${error.message}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError("store_unavailable", `PostgreSQL is unavailable: ${message}`, { cause: error });
}

/** PostgreSQL's column types (`information_schema` names) as the copy's kinds; anything else is text. */
const POSTGRES_COLUMN_KINDS: Readonly<Record<string, CopyColumnKind>> = {
  "timestamp with time zone": "time",
  boolean: "bool",
  jsonb: "json",
  json: "json",
  smallint: "int",
  integer: "int",
  bigint: "int",
  real: "float",
  "double precision": "float",
  numeric: "float",
};

/**
 * PostgreSQL's side of the SQL store for the tables in `schema`: `$n` placeholders,
 * schema-qualified tables, native booleans, jsonb (strings encoded for U+0000, see `encodeJson`),
 * timestamptz read as `Date` (converted per row: the store never touches the process-global
 * `pg.types`), `FOR UPDATE` row locks, and claims that skip rows another worker is claiming
 * (`FOR UPDATE SKIP LOCKED`).
 */
export function createPostgresDialect(schema: string): SqlDialect {
  const s = quoteIdentifier(schema);
  const t = (name: string): string => `${s}.${name}`;
  return {
    name: "postgres",
    groupWrites: false,
    placeholder: (n) => `$${String(n)}`,
    table: t,
    bool: (value) => value,
    readBool: (value) => value === true,
    writeJson: (value) => encodeJson(value),
    readJson: <T>(value: unknown) => decodeJson((typeof value === "string" ? JSON.parse(value) : value) as T),
    readTime: (value) => (value as Date).toISOString(),
    lockRows: (alias) => (alias === undefined ? " FOR UPDATE" : ` FOR UPDATE OF ${alias}`),

    // Organizations take turns (each one's oldest due monitor, then each one's second, ...), so one
    // tenant's backlog cannot fill a claim. The window function cannot share a level with FOR UPDATE:
    // a ranked subquery numbers the due rows, the level that joins it locks, rechecks and limits.
    // SKIP LOCKED: rows another claimer is taking right now are passed over, not waited for;
    // a row whose lease was just taken and committed fails the recheck of the WHERE clause.
    pickDueMonitors: ({ now, limit }): SqlStatement => ({
      sql: `SELECT m.id, m.lease_owner FROM ${t("monitors")} m
        JOIN (
          SELECT id, row_number() OVER (PARTITION BY org_id ORDER BY next_check_at, id) AS turn
          FROM ${t("monitors")}
          WHERE state IN ('active', 'failing') AND next_check_at <= ?
            AND (lease_expires_at IS NULL OR lease_expires_at <= ?)) ranked ON ranked.id = m.id
        WHERE m.state IN ('active', 'failing') AND m.next_check_at <= ?
          AND (m.lease_expires_at IS NULL OR m.lease_expires_at <= ?)
        ORDER BY ranked.turn, m.next_check_at, m.id LIMIT ?
        FOR UPDATE OF m SKIP LOCKED`,
      params: [now, now, now, now, limit],
    }),

    /** Oldest first, organizations in turn (as the monitors' claim). */
    pickDueDeliveries: (input): SqlStatement => {
      const filters: unknown[] = [input.now];
      const conditions = ["d.state = 'pending'", "w.enabled", "(d.lease_expires_at IS NULL OR d.lease_expires_at <= ?)"];
      if (input.force !== true) conditions.push("d.next_attempt_at <= ?"), filters.push(input.now);
      if (input.orgId !== undefined) conditions.push("d.org_id = ?"), filters.push(input.orgId);
      if (input.webhookId !== undefined) conditions.push("d.webhook_id = ?"), filters.push(input.webhookId);
      const where = conditions.join(" AND ");
      return {
        sql: `SELECT d.id, d.lease_owner FROM ${t("deliveries")} d JOIN ${t("webhooks")} w ON w.id = d.webhook_id AND w.org_id = d.org_id
          JOIN (
            SELECT d.id, row_number() OVER (PARTITION BY d.org_id ORDER BY d.id) AS turn
            FROM ${t("deliveries")} d JOIN ${t("webhooks")} w ON w.id = d.webhook_id AND w.org_id = d.org_id
            WHERE ${where}) ranked ON ranked.id = d.id
          WHERE ${where}
          ORDER BY ranked.turn, d.id LIMIT ?
          FOR UPDATE OF d SKIP LOCKED`,
        params: [...filters, ...filters, Math.floor(input.limit)],
      };
    },

    schemaCheck: (tables): SqlStatement => ({
      sql: `SELECT (SELECT MAX(version) FROM ${t("driftwatch_migrations")}) AS version,
          (SELECT COUNT(*)::int FROM unnest(?::text[]) AS u(name) WHERE to_regclass(u.name) IS NOT NULL) AS tables`,
      params: [tables.map(t)],
    }),

    describeTable: (table): SqlStatement => ({
      sql: `SELECT c.column_name AS name, c.data_type AS type, COALESCE(k.ordinal_position, 0)::int AS pk
        FROM information_schema.columns c
        LEFT JOIN information_schema.table_constraints tc
          ON tc.table_schema = c.table_schema AND tc.table_name = c.table_name AND tc.constraint_type = 'PRIMARY KEY'
        LEFT JOIN information_schema.key_column_usage k
          ON k.constraint_schema = tc.constraint_schema AND k.constraint_name = tc.constraint_name AND k.column_name = c.column_name
        WHERE c.table_schema = ? AND c.table_name = ?
        ORDER BY c.ordinal_position`,
      params: [schema, table],
    }),

    readColumn: (row): CopyColumn => ({ name: String(row.name), kind: POSTGRES_COLUMN_KINDS[String(row.type)] ?? "text", pk: Number(row.pk) }),

    mapError: (error) => (error instanceof pg.DatabaseError ? postgresError(error) : undefined),
  };
}
