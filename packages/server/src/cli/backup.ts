// `driftwatch backup` and `restore`: flags, then @driftwatch/store-sqlite's backupSqliteFile and
// restoreSqliteFile (the checks, the online backup and the swap are the package's).
import path from "node:path";
import type { SqliteFileError } from "@driftwatch/store-sqlite";
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

/** Exit status of a store-sqlite file error: a failed check or a database in use is 1, the rest could not run (2). */
function fail(command: string, error: unknown, io: CliIo, existing: string): number {
  if ((error as { name?: unknown } | null)?.name !== "SqliteFileError") throw error;
  const code = (error as SqliteFileError).code;
  io.stderr(`driftwatch ${command}: ${code === "exists" ? existing : (error as SqliteFileError).message}.\n`);
  return code === "unusable" || code === "in_use" ? 1 : EXIT_ERROR;
}

export async function runBackup(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parse("backup", args, io, BACKUP_USAGE);
  if (typeof parsed === "number") return parsed;
  const { backupSqliteFile } = await import("@driftwatch/store-sqlite");
  try {
    const backup = await backupSqliteFile(parsed.filename, parsed.file, { force: parsed.force });
    io.stdout(`Backed up ${parsed.filename} to ${backup.file} (${backup.size} bytes, schema version ${backup.schemaVersion}, integrity ok).\n`);
    return 0;
  } catch (error) {
    return fail("backup", error, io, `${parsed.file} exists; pass --force to replace it`);
  }
}

export async function runRestore(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parse("restore", args, io, RESTORE_USAGE);
  if (typeof parsed === "number") return parsed;
  const { restoreSqliteFile } = await import("@driftwatch/store-sqlite");
  try {
    const restored = restoreSqliteFile(parsed.file, parsed.filename, { force: parsed.force });
    io.stdout(
      `Restored ${parsed.file} to ${parsed.filename} (schema version ${restored.schemaVersion}).` +
        (restored.replaced === null ? "\n" : ` The previous database is kept as ${restored.replaced}.\n`) +
        "Start the server again; it applies any newer migrations on start.\n",
    );
    return 0;
  } catch (error) {
    return fail("restore", error, io, `${parsed.filename} exists; stop the server and pass --force to replace it (it is kept as ${parsed.filename}.replaced-<time>)`);
  }
}
