// Store URLs: checked with core's parser (parseStoreUrl), shown without their password (core's
// redactStoreUrl), and opened here, where the adapters are known: core names none of them.
import { parseStoreUrl, redactStoreUrl, type Store, type StoreHooks } from "@driftwatch/core";
import { ConfigError } from "./values.js";

export type DatabaseLocation =
  | { kind: "sqlite"; url: string; filename: string }
  | { kind: "postgres"; url: string }
  | { kind: "memory"; url: string };

/**
 * Checks a database URL the way `openStore` reads it: `sqlite:<path>` (relative to `cwd`;
 * `sqlite:///abs` and `sqlite:/abs` are absolute; `file:` URLs too), `postgres://` or
 * `postgresql://`, or `memory:`. A `ConfigError` naming `source` otherwise.
 */
export function parseDatabaseUrl(value: string, source = "--database", cwd: string = process.cwd()): DatabaseLocation {
  const v = value.trim();
  let location;
  try {
    location = parseStoreUrl(v, cwd);
  } catch (error) {
    throw new ConfigError("invalid_value", `${source}: ${(error as Error).message}`, { cause: error });
  }
  switch (location.kind) {
    case "memory":
      return { kind: "memory", url: "memory:" };
    case "sqlite":
      return { kind: "sqlite", url: v, filename: location.filename };
    case "postgres":
      return { kind: "postgres", url: v };
  }
}

/** A database URL without its password, for logs and error messages. */
export function redactUrl(value: string): string {
  return redactStoreUrl(value);
}

export interface OpenStoreOptions {
  /** Folder relative SQLite paths resolve against (default `process.cwd()`). */
  cwd?: string;
  /** Passed to the adapter (see `StoreHooks`). */
  hooks?: StoreHooks;
  /** More options for the adapter's factory, e.g. `{ max: 20 }` for PostgreSQL or `{ busyTimeoutMs: 10000 }` for SQLite. */
  adapterOptions?: Record<string, unknown>;
}

/**
 * Opens the store a URL names: `memory:`, `sqlite:./path.db` (also `file:` URLs) or
 * `postgres://user@host/db`. The adapter package is imported only when its URL is used, so a
 * SQLite deployment never loads `pg`. Migrations run as the adapter opens. `OpenStoreError`
 * (`invalid_store_url`) for a URL it cannot read.
 *
 * ```ts
 * const store = await openStore(process.env.DRIFTWATCH_DATABASE_URL ?? "sqlite:./.driftwatch/driftwatch.db");
 * ```
 */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const location = parseStoreUrl(url, options.cwd);
  const common = { ...options.adapterOptions, ...(options.hooks === undefined ? {} : { hooks: options.hooks }) };
  switch (location.kind) {
    case "memory": {
      const { createMemoryStore } = await import("@driftwatch/store-memory");
      return createMemoryStore(common);
    }
    case "sqlite": {
      const { createSqliteStore } = await import("@driftwatch/store-sqlite");
      return createSqliteStore({ ...common, filename: location.filename });
    }
    case "postgres": {
      const { createPostgresStore } = await import("@driftwatch/store-postgres");
      return createPostgresStore({ ...common, connectionString: location.connectionString });
    }
  }
}

/**
 * Opens the store a database URL names (see `openStore`), after checking it as `parseDatabaseUrl`
 * does. Relative SQLite paths resolve against `cwd`.
 */
export async function openDatabase(databaseUrl: string, options: { cwd?: string } = {}): Promise<Store> {
  const cwd = options.cwd ?? process.cwd();
  parseDatabaseUrl(databaseUrl, "database URL", cwd);
  return openStore(databaseUrl.trim(), { cwd });
}
