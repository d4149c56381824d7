// `driftwatch store copy`: moves every row of a driftwatch database between SQLite and
// PostgreSQL (either way), with a progress bar, a verification of counts and checksums at the
// end, and `--resume` after an interruption. The copy itself is store-sql's `copySqlDatabase`.
import cliProgress from "cli-progress";
import { isDriftwatchError } from "@driftwatch/core";
import type { CopyResult, SqlDatabase, TableProgress } from "@driftwatch/store-sql";
import { parseArgs, parseDatabaseUrl, redactUrl, type DatabaseLocation } from "../config/index.js";
import { type CliIo, EXIT_ERROR } from "./io.js";

export const STORE_USAGE = `Usage: driftwatch store copy --from <url> --to <url> [--resume] [--batch-size 200] [--no-progress]

Copies every organization, monitor, snapshot, diff, webhook, delivery, token (hashes only),
setting and the rest of a driftwatch database to another one: sqlite:./a.db to postgres://...
to move up, or back. Both databases are migrated to this version first. Stop every driftwatch
process on the source before copying: what they write meanwhile may be missed.

  --from        the source database URL (sqlite:<path>, file:, postgres://)
  --to          the target database URL; it must be empty unless --resume
  --resume      continue an interrupted copy (or copy into a database holding data of its own):
                rows whose key the target holds are kept, the rest are copied
  --batch-size  rows per read and per insert transaction (default 200, at most 5000)
  --no-progress no progress bar (it is drawn only on a terminal anyway)

At the end every table is verified on both sides: row count and a checksum of its rows. Exit
status 0 when every table matches, 1 when one does not, 2 when the copy could not run.
`;

/** How a CLI URL opens as a SQL database for the copy (the adapter imported only when used). */
async function openSql(location: DatabaseLocation): Promise<SqlDatabase> {
  switch (location.kind) {
    case "sqlite": {
      const { openSqliteDatabase } = await import("@driftwatch/store-sqlite");
      return openSqliteDatabase({ filename: location.filename });
    }
    case "postgres": {
      const { openPostgresDatabase } = await import("@driftwatch/store-postgres");
      return openPostgresDatabase({ connectionString: location.url, max: 4 });
    }
    case "memory":
      throw new Error("a memory: database lives only inside a running server; copy from or to sqlite: or postgres://");
  }
}

export async function runStore(args: readonly string[], io: CliIo, options: { signal?: AbortSignal } = {}): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "--help" || sub === "-h" || sub === "help") {
    io.stdout(STORE_USAGE);
    return 0;
  }
  if (sub !== "copy") {
    io.stderr(`driftwatch store: unknown subcommand ${JSON.stringify(sub ?? "")}.\n\n${STORE_USAGE}`);
    return EXIT_ERROR;
  }
  let from: DatabaseLocation;
  let to: DatabaseLocation;
  let resume: boolean;
  let batchSize: number;
  let progress: boolean;
  try {
    const { options: flags, positionals } = parseArgs(rest, {
      from: { type: "string" },
      to: { type: "string" },
      resume: { type: "boolean" },
      "batch-size": { type: "string" },
      "no-progress": { type: "boolean" },
      help: { type: "boolean" },
    });
    if (flags.help === true) {
      io.stdout(STORE_USAGE);
      return 0;
    }
    if (positionals.length > 0) throw new Error(`unexpected argument ${positionals[0]}`);
    if (typeof flags.from !== "string") throw new Error("--from <url> is required");
    if (typeof flags.to !== "string") throw new Error("--to <url> is required");
    from = parseDatabaseUrl(flags.from, "--from", io.cwd);
    to = parseDatabaseUrl(flags.to, "--to", io.cwd);
    if (from.kind === "memory" || to.kind === "memory") throw new Error("memory: cannot be copied from or to: use sqlite: or postgres://");
    if (sameDatabase(from, to)) throw new Error("--from and --to name the same database");
    resume = flags.resume === true;
    const size = typeof flags["batch-size"] === "string" ? Number(flags["batch-size"]) : 200;
    if (!Number.isInteger(size) || size < 1 || size > 5000) throw new Error("--batch-size must be a whole number from 1 to 5000");
    batchSize = size;
    progress = flags["no-progress"] !== true && io.stderrIsTTY === true;
  } catch (error) {
    io.stderr(`driftwatch store copy: ${(error as Error).message}.\n\n${STORE_USAGE}`);
    return EXIT_ERROR;
  }

  let source: SqlDatabase | undefined;
  let target: SqlDatabase | undefined;
  const bar = progress ? new cliProgress.SingleBar({ format: "{table} |{bar}| {value}/{total} rows", hideCursor: true }, cliProgress.Presets.shades_classic) : null;
  try {
    source = await openSql(from);
    target = await openSql(to);
    io.stderr(`Copying ${redactUrl(from.url)} to ${redactUrl(to.url)}${resume ? " (resuming)" : ""}.\n`);
    const { copySqlDatabase } = await import("@driftwatch/store-sql");
    let current: string | null = null;
    const onProgress = (p: TableProgress): void => {
      if (bar === null) {
        if (p.copied === p.total) io.stderr(`  ${p.table}: ${String(p.total)} rows\n`);
        return;
      }
      if (current !== p.table) {
        if (current !== null) bar.stop();
        current = p.table;
        bar.start(p.total, p.copied, { table: p.table.padEnd(18) });
      } else {
        bar.update(p.copied);
      }
    };
    const result = await copySqlDatabase(source, target, { batchSize, mode: resume ? "resume" : "fresh", onProgress, signal: options.signal });
    bar?.stop();
    io.stdout(formatResult(result));
    if (!result.verified) {
      io.stderr("The copy does not match the source (see the tables marked MISMATCH). Was a driftwatch process writing to either database?\n");
      return 1;
    }
    io.stderr("Verified: every table has the same rows in both databases.\n");
    return 0;
  } catch (error) {
    bar?.stop();
    const interrupted = (error as Error).name === "AbortError";
    io.stderr(
      `driftwatch store copy: ${interrupted ? "interrupted" : (error as Error).message}${isDriftwatchError(error) ? ` (${error.code})` : ""}\n` +
        (interrupted || (isDriftwatchError(error) && error.code !== "conflict") ? "Run the same command with --resume to continue.\n" : ""),
    );
    return EXIT_ERROR;
  } finally {
    await Promise.all([source?.close(), target?.close()]);
  }
}

function sameDatabase(a: DatabaseLocation, b: DatabaseLocation): boolean {
  if (a.kind === "sqlite" && b.kind === "sqlite") return a.filename === b.filename;
  return a.kind === b.kind && a.url === b.url;
}

function formatResult(result: CopyResult): string {
  const rows = result.tables.map((t) => [t.table, String(t.sourceRows), String(t.targetRows), t.targetChecksum.slice(0, 12), t.matches ? "ok" : "MISMATCH"]);
  const header = ["table", "source rows", "target rows", "checksum", ""];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 1 || i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ").trimEnd();
  return `${[line(header), ...rows.map(line)].join("\n")}\n`;
}
