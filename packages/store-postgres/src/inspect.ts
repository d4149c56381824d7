// A PostgreSQL database, from outside a running store: reachable, which driftwatch schema version
// it holds, how far its clock is from this machine's. `driftwatch doctor` prints this; an
// embedder's health check can call it the same way.
import pg from "pg";
import { OpenStoreError } from "@driftwatch/core";
import { quoteIdentifier } from "./migrations.js";

export interface InspectPostgresOptions {
  /** The schema driftwatch's tables are in. Default: the URL's `schema` parameter, else `public`. */
  schema?: string;
  /** Connection and statement timeout (ms). Default 5000. */
  timeoutMs?: number;
}

export interface PostgresInspection {
  schema: string;
  /** False when the schema has no `driftwatch_migrations` table (nothing created yet). */
  hasSchema: boolean;
  /** The newest migration applied; null without the table or without a row. Compare with `POSTGRES_SCHEMA_VERSION`. */
  schemaVersion: number | null;
  /** The database's `now()` minus this machine's clock at the middle of the query (ms). */
  clockSkewMs: number;
  /** How long that query took (ms): the skew is known to within half of it. */
  roundTripMs: number;
}

/**
 * Connects once (its own client, not a pool), reads the clock and the schema version, and
 * disconnects. Throws `OpenStoreError` `store_unavailable` when it cannot connect (`cause` says
 * why); a query that fails afterwards (privileges) throws the driver's error as it is.
 */
export async function inspectPostgresDatabase(connectionString: string, options: InspectPostgresOptions = {}): Promise<PostgresInspection> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const client = new pg.Client({
    connectionString,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
  });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new OpenStoreError("store_unavailable", (error as Error).message, {
      cause: error,
    });
  }
  try {
    const before = Date.now();
    const { rows } = await client.query<{ now: Date }>("SELECT now() AS now");
    const after = Date.now();
    const schema = options.schema ?? new URL(connectionString).searchParams.get("schema") ?? "public";
    const table = await client.query<{ name: string | null }>("SELECT to_regclass($1) AS name", [`${quoteIdentifier(schema)}.driftwatch_migrations`]);
    const hasSchema = table.rows[0]!.name !== null;
    let schemaVersion: number | null = null;
    if (hasSchema) {
      const { rows: versions } = await client.query<{ version: number | null }>(
        `SELECT MAX(version) AS version FROM ${quoteIdentifier(schema)}.driftwatch_migrations`
      );
      schemaVersion = versions[0]!.version;
    }
    return {
      schema,
      hasSchema,
      schemaVersion,
      clockSkewMs: rows[0]!.now.getTime() - (before + after) / 2,
      roundTripMs: after - before,
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}
