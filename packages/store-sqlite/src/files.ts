// A SQLite store's file, from outside a running store: check it, take a consistent backup while a
// server writes to it, put a backup back in its place. `driftwatch backup`, `restore` and
// `doctor` are these functions behind flags; an embedder that keeps its store in SQLite calls them
// the same way.
import fs from "node:fs";
import path from "node:path";
import { DriftwatchError, type DriftwatchErrorOptions } from "@driftwatch/core";
import BetterSqlite3 from "better-sqlite3";
import { SQLITE_SCHEMA_VERSION } from "./migrations.js";

/**
 * Why a backup or a restore did not happen: `not_found` (no database, or no backup file),
 * `invalid_target` (the target is the source itself, or a directory), `exists` (the target exists
 * and `force` is off), `in_use` (restore: another connection holds the database), `unusable` (the
 * copy or the backup failed its check: see `problems`), `io_error` (SQLite or the file system
 * refused; `cause` says why). Nothing is left behind in any of these cases.
 */
export type SqliteFileErrorCode = "not_found" | "invalid_target" | "exists" | "in_use" | "unusable" | "io_error";

export class SqliteFileError extends DriftwatchError<SqliteFileErrorCode> {
  override readonly name = "SqliteFileError";
  /** For `unusable`: what the check found (see `inspectSqliteFile`). */
  readonly problems: string[];
  constructor(code: SqliteFileErrorCode, message: string, options: DriftwatchErrorOptions & { problems?: string[] } = {}) {
    super(code, message, options);
    this.problems = options.problems ?? [];
  }
}

/** What `inspectSqliteFile` found. */
export interface SqliteFileInspection {
  /** True when the file opens, passes `PRAGMA integrity_check` and holds a schema this build can run. */
  ok: boolean;
  /** What is wrong, one line each (empty when `ok`). */
  problems: string[];
  /** The newest migration applied to the file; null when it has none (or no migrations table). */
  schemaVersion: number | null;
}

/**
 * Opens the file read-only and reports what `PRAGMA integrity_check` and the migrations table say:
 * a file that is not a driftwatch database, or whose schema is newer than `SQLITE_SCHEMA_VERSION`,
 * is not `ok`. An older schema is `ok` (opening the store migrates it): compare `schemaVersion`
 * with `SQLITE_SCHEMA_VERSION` to tell whether migrations are pending. Never throws.
 */
export function inspectSqliteFile(filename: string): SqliteFileInspection {
  let db;
  try {
    db = new BetterSqlite3(filename, { readonly: true, fileMustExist: true });
  } catch (error) {
    return {
      ok: false,
      problems: [`cannot open ${filename}: ${(error as Error).message}`],
      schemaVersion: null,
    };
  }
  try {
    const problems: string[] = [];
    let rows: { integrity_check: string }[];
    try {
      rows = db.prepare("PRAGMA integrity_check").all() as {
        integrity_check: string;
      }[];
    } catch (error) {
      return {
        ok: false,
        problems: [`${filename} is not a readable SQLite database: ${(error as Error).message}`],
        schemaVersion: null,
      };
    }
    if (rows.length !== 1 || rows[0]!.integrity_check !== "ok") {
      problems.push(
        `integrity_check: ${rows
          .slice(0, 5)
          .map((r) => r.integrity_check)
          .join("; ")}`
      );
    }
    let schemaVersion: number | null = null;
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'driftwatch_migrations'").get();
    if (table === undefined) problems.push("no driftwatch_migrations table: not a driftwatch database");
    else {
      const row = db.prepare("SELECT MAX(version) AS version FROM driftwatch_migrations").get() as { version: number | null };
      schemaVersion = row.version;
      if (schemaVersion !== null && schemaVersion > SQLITE_SCHEMA_VERSION) {
        problems.push(`schema version ${schemaVersion} is newer than this build's ${SQLITE_SCHEMA_VERSION}: upgrade driftwatch first`);
      }
    }
    return { ok: problems.length === 0, problems, schemaVersion };
  } finally {
    db.close();
  }
}

export interface BackupSqliteOptions {
  /** Replace an existing backup file. Default false (`exists`). */
  force?: boolean;
}

export interface SqliteBackup {
  /** The backup file (absolute). */
  file: string;
  /** Its size in bytes. */
  size: number;
  schemaVersion: number | null;
}

/**
 * Takes a consistent copy of the database `filename` into `file` with SQLite's online backup API,
 * while other processes keep writing to it (the copy restarts when a writer changes a page it
 * already copied, so it is one state of the database). The copy is one self-contained file (a
 * rollback journal, not WAL: nothing beside it), checked with `inspectSqliteFile` before it is
 * moved to `file`; the partial copy and anything SQLite kept beside it are removed on every path.
 * Throws `SqliteFileError` (see its codes).
 */
export async function backupSqliteFile(filename: string, file: string, options: BackupSqliteOptions = {}): Promise<SqliteBackup> {
  const target = path.resolve(file);
  if (!fs.existsSync(filename)) throw new SqliteFileError("not_found", `there is no database at ${filename}`);
  if (path.resolve(filename) === target) throw new SqliteFileError("invalid_target", "the backup file cannot be the database itself");
  if (fs.existsSync(target) && fs.statSync(target).isDirectory()) {
    throw new SqliteFileError("invalid_target", `${target} is a directory; name the backup file (for example ${path.join(target, "driftwatch.db")})`);
  }
  if (fs.existsSync(target) && options.force !== true) throw new SqliteFileError("exists", `${target} exists; the option force replaces it`);
  const partial = `${target}.partial-${process.pid}`;
  /** The partial copy and any file SQLite kept beside it. */
  const discard = (): void => {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(partial + suffix, { force: true });
  };
  let source;
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    source = new BetterSqlite3(filename, { fileMustExist: true });
    source.pragma("busy_timeout = 5000");
    await source.backup(partial);
    // The copy keeps the source's WAL mode: turned back to a rollback journal, it is one
    // self-contained file, and opening it (the check below, restore) leaves no -wal or -shm beside it.
    const copy = new BetterSqlite3(partial, { fileMustExist: true });
    try {
      copy.pragma("journal_mode = DELETE");
    } finally {
      copy.close();
    }
  } catch (error) {
    discard();
    throw new SqliteFileError("io_error", `cannot back up ${filename}: ${(error as Error).message}`, { cause: error });
  } finally {
    source?.close();
  }
  const check = inspectSqliteFile(partial);
  if (!check.ok) {
    discard();
    throw new SqliteFileError("unusable", `the copy failed its check, nothing was written: ${check.problems.join("; ")}`, { problems: check.problems });
  }
  fs.renameSync(partial, target);
  discard();
  return {
    file: target,
    size: fs.statSync(target).size,
    schemaVersion: check.schemaVersion,
  };
}

/**
 * True when another connection holds the database (a running server): leaving WAL mode, or an
 * exclusive transaction outside it, needs this connection to be the only one. Leaves a database
 * nobody else holds in rollback-journal mode (the store turns WAL back on when it opens it).
 */
export function sqliteFileInUse(filename: string): boolean {
  const db = new BetterSqlite3(filename, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 0");
    const mode = db.pragma("journal_mode", { simple: true }) as string;
    if (mode.toLowerCase() !== "wal") {
      db.exec("BEGIN EXCLUSIVE; COMMIT;");
      return false;
    }
    const result = db.pragma("journal_mode = DELETE", {
      simple: true,
    }) as string;
    return result.toLowerCase() !== "delete";
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code?.startsWith("SQLITE_BUSY") === true || code === "SQLITE_LOCKED") return true;
    throw error;
  } finally {
    db.close();
  }
}

export interface RestoreSqliteOptions {
  /** Replace an existing database (kept beside it as `<filename>.replaced-<time>`). Default false (`exists`). */
  force?: boolean;
  /** The time in the kept file's name. Default now. */
  now?: Date;
}

export interface SqliteRestore {
  schemaVersion: number | null;
  /** Where the database it replaced is kept; null when there was none. */
  replaced: string | null;
}

/**
 * Puts the backup `file` in place of the database `filename`. The backup is checked first
 * (`inspectSqliteFile`: integrity, a schema not newer than this build); an existing database is
 * replaced only with `force`, only when no other connection holds it (stop the server first), and
 * is kept as `<filename>.replaced-<time>`. The backup is copied and synced beside the database,
 * then renamed into place, so a crash leaves the old database or the new one. Throws
 * `SqliteFileError` (see its codes).
 */
export function restoreSqliteFile(file: string, filename: string, options: RestoreSqliteOptions = {}): SqliteRestore {
  if (!fs.existsSync(file)) throw new SqliteFileError("not_found", `there is no backup at ${file}`);
  const check = inspectSqliteFile(file);
  if (!check.ok) {
    throw new SqliteFileError("unusable", `${file} is not a usable backup, nothing was changed: ${check.problems.join("; ")}`, { problems: check.problems });
  }
  const exists = fs.existsSync(filename);
  if (exists && options.force !== true) {
    throw new SqliteFileError("exists", `${filename} exists; with no process on it, the option force replaces it (it is kept as ${filename}.replaced-<time>)`);
  }
  if (exists) {
    let busy;
    try {
      busy = sqliteFileInUse(filename);
    } catch (error) {
      throw new SqliteFileError("io_error", `cannot open ${filename}: ${(error as Error).message}`, { cause: error });
    }
    if (busy) throw new SqliteFileError("in_use", `${filename} is in use by another process (a running server?); stop it first`);
  }
  fs.mkdirSync(path.dirname(filename), { recursive: true });
  const incoming = `${filename}.restoring-${process.pid}`;
  fs.copyFileSync(file, incoming);
  const fd = fs.openSync(incoming, "r+");
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  let replaced: string | null = null;
  if (exists) {
    replaced = `${filename}.replaced-${(options.now ?? new Date()).toISOString().replace(/[:.]/g, "-")}`;
    fs.renameSync(filename, replaced);
  }
  for (const suffix of ["-wal", "-shm", "-journal"]) fs.rmSync(filename + suffix, { force: true });
  fs.renameSync(incoming, filename);
  return { schemaVersion: check.schemaVersion, replaced };
}
