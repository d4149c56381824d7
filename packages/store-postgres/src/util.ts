import pg from "pg";
import type { Pool, PoolClient, QueryResultRow } from "pg";
import { StoreError, isDriftwatchError, clampPageLimit as clampLimit, normalizeStoreTime as isoTime } from "@driftwatch/core";
import { encodeParam, type ColumnKind } from "./rows.js";

// Small pieces every part of the PostgreSQL store shares.

export type Db = Pool | PoolClient;

/** Runs one statement; failures become `StoreError`s. */
export async function query<R extends QueryResultRow>(db: Db, text: string, values: unknown[] = []): Promise<R[]> {
  try {
    return (await db.query<R>(text, values)).rows;
  } catch (error) {
    throw translateError(error);
  }
}

/** Schema-qualified table names. */
export type Tables = Record<
  | "organizations"
  | "tokens"
  | "monitors"
  | "snapshots"
  | "diffs"
  | "settings"
  | "webhooks"
  | "deliveries"
  | "delivery_attempts"
  | "idempotency_keys"
  | "rate_limits",
  string
>;

export async function connect(pool: Pool): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw translateError(error);
  }
}

/** Maps node-postgres failures to `StoreError`s with a code; driftwatch errors pass through. */
export function translateError(error: unknown): unknown {
  if (isDriftwatchError(error)) return error;
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

// The shared store helpers of core, under the names this adapter uses.
export { clampLimit, isoTime };

/** Positional parameters for one statement: `add(value)` returns its `$n`. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** `UPDATE`'s `SET` list for the defined fields of a patch; empty when the patch sets nothing. */
export function patchAssignments(columns: Readonly<Record<string, readonly [string, ColumnKind]>>, patch: object, params: Params): string[] {
  const sets: string[] = [];
  for (const [field, value] of Object.entries(patch)) {
    const column = columns[field];
    if (column === undefined || value === undefined) continue;
    const [name, kind] = column;
    sets.push(`${name} = ${params.add(encodeParam(value, kind))}`);
  }
  return sets;
}
