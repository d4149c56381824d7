import path from "node:path";
import { fileURLToPath } from "node:url";
import { DriftwatchError, type DriftwatchErrorOptions } from "../errors.js";

export type OpenStoreErrorCode = "invalid_store_url" | "store_unavailable";

/**
 * A store URL that cannot be read (`invalid_store_url`, from `parseStoreUrl`) or a store that
 * cannot be opened (`store_unavailable`, from whatever opens adapters: `openStore` of
 * @driftwatch/server, or an adapter itself).
 */
export class OpenStoreError extends DriftwatchError<OpenStoreErrorCode> {
  override readonly name = "OpenStoreError";
  constructor(code: OpenStoreErrorCode, message: string, options?: DriftwatchErrorOptions) {
    super(code, message, options);
  }
}

export type StoreLocation =
  | { kind: "memory" }
  | { kind: "sqlite"; filename: string }
  | { kind: "postgres"; connectionString: string };


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
  if (value === "memory:" || value === "memory://") return { kind: "memory" };
  if (/^sqlite:/i.test(value)) {
    let rest = value.slice("sqlite:".length);
    if (rest.startsWith("//")) rest = rest.slice(2); // sqlite:///abs/path.db -> /abs/path.db
    if (rest === "") throw new OpenStoreError("invalid_store_url", "A sqlite: URL needs a file path, e.g. sqlite:./data/driftwatch.db or sqlite:///var/lib/driftwatch.db.");
    const filename = rest === ":memory:" ? ":memory:" : path.resolve(cwd, decodeURIComponent(rest));
    return { kind: "sqlite", filename };
  }
  if (/^file:/i.test(value)) {
    let filename: string;
    try {
      filename = value.startsWith("file://") ? fileURLToPath(value) : path.resolve(cwd, decodeURIComponent(value.slice("file:".length)));
    } catch (error) {
      throw new OpenStoreError("invalid_store_url", `${redactStoreUrl(value)} is not a valid file URL.`, { cause: error });
    }
    if (filename === cwd || value === "file:") throw new OpenStoreError("invalid_store_url", "A file: URL needs a file path.");
    return { kind: "sqlite", filename };
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
    return { kind: "postgres", connectionString: value };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1];
  throw new OpenStoreError(
    "invalid_store_url",
    scheme === undefined
      ? `${JSON.stringify(redactStoreUrl(value))} is not a store URL: use memory:, sqlite:./path.db or postgres://user@host/database.`
      : `Unknown store URL scheme "${scheme}:": use memory:, sqlite:./path.db or postgres://user@host/database.`
  );
}
