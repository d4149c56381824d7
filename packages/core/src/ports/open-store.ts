import path from "node:path";
import { fileURLToPath } from "node:url";
import { DriftwatchError, type DriftwatchErrorOptions } from "../errors.js";
import type { Store, StoreHooks } from "../store/index.js";

export type OpenStoreErrorCode = "invalid_store_url" | "store_unavailable";

/** Raised by `openStore`: a URL it cannot read (`invalid_store_url`) or an adapter it cannot load (`store_unavailable`). */
export class OpenStoreError extends DriftwatchError<OpenStoreErrorCode> {
  override readonly name = "OpenStoreError";
  constructor(code: OpenStoreErrorCode, message: string, options?: DriftwatchErrorOptions) {
    super(code, message, options);
  }
}

export type StoreLocation =
  | { kind: "memory"; adapter: "@driftwatch/store-memory" }
  | { kind: "sqlite"; adapter: "@driftwatch/store-sqlite"; filename: string }
  | { kind: "postgres"; adapter: "@driftwatch/store-postgres"; connectionString: string };

export interface OpenStoreOptions {
  /** Folder relative SQLite paths resolve against (default `process.cwd()`). */
  cwd?: string;
  /** Passed to the adapter (see `StoreHooks`). */
  hooks?: StoreHooks;
  /** More options for the adapter's factory, e.g. `{ max: 20 }` for PostgreSQL or `{ busyTimeoutMs: 10000 }` for SQLite. */
  adapterOptions?: Record<string, unknown>;
  /** How the adapter package is loaded (default: a dynamic `import`); for bundlers that need an explicit map. */
  importAdapter?: (specifier: string) => Promise<unknown>;
}

/**
 * A store URL without its password (`postgres://user:***@host/db`), for logs and error messages.
 * Anything that is not a URL with credentials comes back as it is.
 */
export function redactStoreUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:)[^@/?#]*@/i, "$1***@");
}

/**
 * Reads a store URL: `memory:`; `sqlite:./relative.db`, `sqlite:/abs.db`, `sqlite:///abs.db`,
 * `sqlite::memory:` (also `file:` URLs); `postgres://...` or `postgresql://...`.
 * `OpenStoreError` `invalid_store_url` for anything else.
 */
export function parseStoreUrl(url: string, cwd: string = process.cwd()): StoreLocation {
  const value = typeof url === "string" ? url.trim() : "";
  if (value === "memory:" || value === "memory://") return { kind: "memory", adapter: "@driftwatch/store-memory" };
  if (/^sqlite:/i.test(value)) {
    let rest = value.slice("sqlite:".length);
    if (rest.startsWith("//")) rest = rest.slice(2); // sqlite:///abs/path.db -> /abs/path.db
    if (rest === "") throw new OpenStoreError("invalid_store_url", "A sqlite: URL needs a file path, e.g. sqlite:./data/driftwatch.db or sqlite:///var/lib/driftwatch.db.");
    const filename = rest === ":memory:" ? ":memory:" : path.resolve(cwd, decodeURIComponent(rest));
    return { kind: "sqlite", adapter: "@driftwatch/store-sqlite", filename };
  }
  if (/^file:/i.test(value)) {
    let filename: string;
    try {
      filename = value.startsWith("file://") ? fileURLToPath(value) : path.resolve(cwd, decodeURIComponent(value.slice("file:".length)));
    } catch (error) {
      throw new OpenStoreError("invalid_store_url", `${redactStoreUrl(value)} is not a valid file URL.`, { cause: error });
    }
    if (filename === cwd || value === "file:") throw new OpenStoreError("invalid_store_url", "A file: URL needs a file path.");
    return { kind: "sqlite", adapter: "@driftwatch/store-sqlite", filename };
  }
  if (/^postgres(ql)?:\/\//i.test(value)) {
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch (error) {
      throw new OpenStoreError("invalid_store_url", `${redactStoreUrl(value)} is not a valid PostgreSQL URL (postgres://user:password@host:5432/database).`, { cause: error });
    }
    if (parsed.hostname === "" && !parsed.searchParams.has("host")) {
      throw new OpenStoreError("invalid_store_url", `${redactStoreUrl(value)} names no host (postgres://user:password@host:5432/database).`);
    }
    return { kind: "postgres", adapter: "@driftwatch/store-postgres", connectionString: value };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1];
  throw new OpenStoreError(
    "invalid_store_url",
    scheme === undefined
      ? `${JSON.stringify(redactStoreUrl(value))} is not a store URL: use memory:, sqlite:./path.db or postgres://user@host/database.`
      : `Unknown store URL scheme "${scheme}:": use memory:, sqlite:./path.db or postgres://user@host/database.`
  );
}

/** Only the adapter packages, never a user-controlled specifier. */
const defaultImport = (specifier: string): Promise<unknown> => import(/* @vite-ignore */ specifier);

function isMissingModule(error: unknown, specifier: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && String((error as Error).message).includes(specifier);
}

/**
 * Opens the store a URL names, loading its adapter package on demand (so a SQLite user never
 * loads `pg`). The adapters are optional peer dependencies of `@driftwatch/core`: install the
 * one you use. Migrations run as the adapter opens.
 *
 * ```ts
 * const store = await openStore(process.env.DATABASE_URL ?? "sqlite:./data/driftwatch.db");
 * ```
 *
 * @deprecated Use `openStore` of `@driftwatch/server` (the same function and options): core is the
 * lowest package and should not name its adapters. This one goes with the next minor release.
 */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const location = parseStoreUrl(url, options.cwd);
  const load = options.importAdapter ?? defaultImport;
  let adapter: { createStore?: unknown };
  try {
    adapter = (await load(location.adapter)) as { createStore?: unknown };
  } catch (error) {
    if (isMissingModule(error, location.adapter)) {
      throw new OpenStoreError("store_unavailable", `${url.split(":")[0]}: URLs need the ${location.adapter} package: npm install ${location.adapter}`, { cause: error });
    }
    throw new OpenStoreError("store_unavailable", `Loading ${location.adapter} failed: ${(error as Error).message}`, { cause: error });
  }
  if (typeof adapter.createStore !== "function") {
    throw new OpenStoreError("store_unavailable", `${location.adapter} does not export createStore; is it a driftwatch store adapter of a matching version?`);
  }
  const createStore = adapter.createStore as (options: Record<string, unknown>) => Promise<Store>;
  const factoryOptions: Record<string, unknown> = { ...options.adapterOptions };
  if (options.hooks !== undefined) factoryOptions.hooks = options.hooks;
  if (location.kind === "sqlite") factoryOptions.filename = location.filename;
  if (location.kind === "postgres") factoryOptions.connectionString = location.connectionString;
  return createStore(factoryOptions);
}
