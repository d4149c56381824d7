import {
  StoreError,
  isDriftwatchError,
  clampPageLimit as clampLimit,
  normalizeStoreTime as isoTime,
  normalizeStoreTimeOrNull as isoTimeOrNull,
} from "@driftwatch/core";
import { encodeColumnValue } from "./rows.js";

// Small pieces every part of the SQLite store shares.

/** The store's cached prepared statements, as the extracted parts of the store use them. */
export interface Queries {
  get<T>(sql: string, ...params: unknown[]): T | undefined;
  all<T>(sql: string, ...params: unknown[]): T[];
  /** Number of rows changed. */
  run(sql: string, ...params: unknown[]): number;
}

// The shared store helpers of core, under the names this adapter uses.
export { clampLimit, isoTime, isoTimeOrNull };

export const TIME_COLUMNS = new Set(["last_checked_at", "last_changed_at", "next_check_at", "updated_at", "previous_secret_expires_at"]);

/** Maps SQLite failures to `StoreError`s with a code; driftwatch errors pass through. */
export function translateError(error: unknown): unknown {
  if (isDriftwatchError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
      return new StoreError("conflict", `A record with the same unique value exists: ${(error as Error).message}`, { cause: error });
    }
    if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") {
      return new StoreError("not_found", "A record this write refers to does not exist.", { cause: error });
    }
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
      return new StoreError("store_unavailable", "The SQLite database stayed locked longer than busyTimeoutMs.", { cause: error });
    }
    if (code.startsWith("SQLITE_")) {
      return new StoreError("store_unavailable", `SQLite failed: ${(error as Error).message}`, { cause: error });
    }
  }
  return error;
}

/** Applies the defined fields of a patch to one row and returns the row after it; undefined when there is no such row. */
export function patchRow<Row>(
  q: Queries,
  table: "monitors" | "webhooks",
  columns: Record<string, string>,
  orgId: string,
  id: string,
  patch: object
): Row | undefined {
  const sets: string[] = [];
  const values: unknown[] = [];
  for (const [field, value] of Object.entries(patch)) {
    const column = columns[field];
    if (column === undefined || value === undefined) continue;
    sets.push(`${column} = ?`);
    values.push(TIME_COLUMNS.has(column) && typeof value === "string" ? isoTime(value) : encodeColumnValue(value));
  }
  if (sets.length === 0) return q.get<Row>(`SELECT * FROM ${table} WHERE org_id = ? AND id = ?`, orgId, id);
  return q.get<Row>(`UPDATE ${table} SET ${sets.join(", ")} WHERE org_id = ? AND id = ? RETURNING *`, ...values, orgId, id);
}
