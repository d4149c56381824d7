import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { SQLITE_SCHEMA_VERSION } from "@driftwatch/store-sqlite";
import { ConfigError, DEFAULT_DATABASE_URL, ENV, parseArgs, parseDatabaseUrl, redactUrl } from "../config/index.js";
import { type CliIo, EXIT_ERROR } from "./io.js";

export const BACKUP_USAGE = `Usage: driftwatch backup <file> [--database sqlite:...] [--force]

Takes a consistent copy of a SQLite store with SQLite's online backup API, while the server runs
(it keeps checking and delivering). The copy is checked (PRAGMA integrity_check) before it is
moved to <file>; an existing <file> is replaced only with --force.
PostgreSQL: use pg_dump (see docs/deployment.md).

  --database  default DRIFTWATCH_DATABASE_URL, else ${DEFAULT_DATABASE_URL}
`;

export const RESTORE_USAGE = `Usage: driftwatch restore <file> [--database sqlite:...] [--force]

Puts a backup taken with driftwatch backup back in place of a SQLite store. Stop the server first:
restore refuses while another process has the database open. The backup is checked (integrity,
driftwatch schema not newer than this build) before anything is replaced; an existing database is
replaced only with --force and kept next to it as <database>.replaced-<time>.

  --database  default DRIFTWATCH_DATABASE_URL, else ${DEFAULT_DATABASE_URL}
`;

const OPTIONS = { database: { type: "string" }, force: { type: "boolean" }, help: { type: "boolean" } } as const;

interface Parsed {
  file: string;
  filename: string;
  databaseUrl: string;
  force: boolean;
}

function parse(command: string, args: readonly string[], io: CliIo, usage: string): Parsed | number {
  let parsed;
  try {
    parsed = parseArgs(args, OPTIONS);
  } catch (error) {
    io.stderr(`driftwatch ${command}: ${(error as Error).message}\n\n${usage}`);
    return EXIT_ERROR;
  }
  const { options, positionals } = parsed;
  if (options.help === true) {
    io.stdout(usage);
    return 0;
  }
  if (positionals.length !== 1) {
    io.stderr(`driftwatch ${command}: expected one <file> (got ${positionals.length}).\n\n${usage}`);
    return EXIT_ERROR;
  }
  const fromFlag = typeof options.database === "string" ? options.database : undefined;
  const fromEnv = io.env[ENV.database] === "" ? undefined : io.env[ENV.database];
  const databaseUrl = fromFlag ?? fromEnv ?? DEFAULT_DATABASE_URL;
  let location;
  try {
    location = parseDatabaseUrl(databaseUrl, fromFlag !== undefined ? "--database" : fromEnv !== undefined ? ENV.database : "database", io.cwd);
  } catch (error) {
    io.stderr(`driftwatch ${command}: ${(error as ConfigError).message}\n`);
    return EXIT_ERROR;
  }
  if (location.kind === "postgres") {
    io.stderr(
      `driftwatch ${command}: ${redactUrl(databaseUrl)} is PostgreSQL; use pg_dump --format=custom and pg_restore ` +
        `(docs/deployment.md, "Backups").\n`,
    );
    return EXIT_ERROR;
  }
  if (location.kind === "memory") {
    io.stderr(`driftwatch ${command}: memory: keeps nothing to back up or restore.\n`);
    return EXIT_ERROR;
  }
  return { file: path.resolve(io.cwd, positionals[0]!), filename: location.filename, databaseUrl, force: options.force === true };
}

/** What `PRAGMA integrity_check` and the migrations table say about a SQLite file (opened read-only). */
export function inspectSqliteFile(filename: string): { ok: boolean; problems: string[]; schemaVersion: number | null } {
  let db;
  try {
    db = new BetterSqlite3(filename, { readonly: true, fileMustExist: true });
  } catch (error) {
    return { ok: false, problems: [`cannot open ${filename}: ${(error as Error).message}`], schemaVersion: null };
  }
  try {
    const problems: string[] = [];
    let rows: { integrity_check: string }[];
    try {
      rows = db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[];
    } catch (error) {
      return { ok: false, problems: [`${filename} is not a readable SQLite database: ${(error as Error).message}`], schemaVersion: null };
    }
    if (rows.length !== 1 || rows[0]!.integrity_check !== "ok") {
      problems.push(`integrity_check: ${rows.slice(0, 5).map((r) => r.integrity_check).join("; ")}`);
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

export async function runBackup(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parse("backup", args, io, BACKUP_USAGE);
  if (typeof parsed === "number") return parsed;
  const { file, filename, force } = parsed;
  if (!fs.existsSync(filename)) {
    io.stderr(`driftwatch backup: there is no database at ${filename}.\n`);
    return EXIT_ERROR;
  }
  if (path.resolve(filename) === file) {
    io.stderr("driftwatch backup: the backup file cannot be the database itself.\n");
    return EXIT_ERROR;
  }
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) {
    io.stderr(`driftwatch backup: ${file} is a directory; name the backup file (for example ${path.join(file, "driftwatch.db")}).\n`);
    return EXIT_ERROR;
  }
  if (fs.existsSync(file) && !force) {
    io.stderr(`driftwatch backup: ${file} exists; pass --force to replace it.\n`);
    return EXIT_ERROR;
  }
  const partial = `${file}.partial-${process.pid}`;
  /** The partial copy and any file SQLite kept beside it. */
  const discard = (): void => {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(partial + suffix, { force: true });
  };
  let source;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    source = new BetterSqlite3(filename, { fileMustExist: true });
    source.pragma("busy_timeout = 5000");
    // The backup API copies page by page and restarts when a writer changes a copied page, so the
    // copy is one consistent state of the database while the server keeps writing.
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
    io.stderr(`driftwatch backup: cannot back up ${filename}: ${(error as Error).message}\n`);
    return EXIT_ERROR;
  } finally {
    source?.close();
  }
  const check = inspectSqliteFile(partial);
  if (!check.ok) {
    discard();
    io.stderr(`driftwatch backup: the copy failed its check, nothing was written: ${check.problems.join("; ")}\n`);
    return 1;
  }
  fs.renameSync(partial, file);
  discard();
  const size = fs.statSync(file).size;
  io.stdout(`Backed up ${filename} to ${file} (${size} bytes, schema version ${check.schemaVersion}, integrity ok).\n`);
  return 0;
}

/** True when another connection holds the database (leaving WAL mode needs it to be the only one). */
function inUse(filename: string): boolean {
  const db = new BetterSqlite3(filename, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 0");
    const mode = db.pragma("journal_mode", { simple: true }) as string;
    if (mode.toLowerCase() !== "wal") {
      // Not in WAL mode: an exclusive transaction fails while anyone else reads or writes.
      db.exec("BEGIN EXCLUSIVE; COMMIT;");
      return false;
    }
    const result = db.pragma("journal_mode = DELETE", { simple: true }) as string;
    return result.toLowerCase() !== "delete";
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY") || (error as { code?: string }).code === "SQLITE_LOCKED") return true;
    throw error;
  } finally {
    db.close();
  }
}

export async function runRestore(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parse("restore", args, io, RESTORE_USAGE);
  if (typeof parsed === "number") return parsed;
  const { file, filename, force } = parsed;
  if (!fs.existsSync(file)) {
    io.stderr(`driftwatch restore: there is no backup at ${file}.\n`);
    return EXIT_ERROR;
  }
  const check = inspectSqliteFile(file);
  if (!check.ok) {
    io.stderr(`driftwatch restore: ${file} is not a usable backup, nothing was changed: ${check.problems.join("; ")}\n`);
    return 1;
  }
  const exists = fs.existsSync(filename);
  if (exists && !force) {
    io.stderr(`driftwatch restore: ${filename} exists; stop the server and pass --force to replace it (it is kept as ${filename}.replaced-<time>).\n`);
    return EXIT_ERROR;
  }
  if (exists) {
    let busy;
    try {
      busy = inUse(filename);
    } catch (error) {
      io.stderr(`driftwatch restore: cannot open ${filename}: ${(error as Error).message}\n`);
      return EXIT_ERROR;
    }
    if (busy) {
      io.stderr(`driftwatch restore: ${filename} is in use by another process (a running server?); stop it first.\n`);
      return 1;
    }
  }
  fs.mkdirSync(path.dirname(filename), { recursive: true });
  const incoming = `${filename}.restoring-${process.pid}`;
  fs.copyFileSync(file, incoming);
  const fd = fs.openSync(incoming, "r+");
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  let kept = "";
  if (exists) {
    kept = `${filename}.replaced-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    fs.renameSync(filename, kept);
  }
  for (const suffix of ["-wal", "-shm", "-journal"]) fs.rmSync(filename + suffix, { force: true });
  fs.renameSync(incoming, filename);
  io.stdout(
    `Restored ${file} to ${filename} (schema version ${check.schemaVersion}).` +
      (kept === "" ? "\n" : ` The previous database is kept as ${kept}.\n`) +
      "Start the server again; it applies any newer migrations on start.\n",
  );
  return 0;
}
