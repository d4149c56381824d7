import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type CliIo, EXIT_ERROR, processIo } from "./io.js";
import { runDiff } from "./diff.js";

export const USAGE = `Usage: driftwatch <command> [options]

Commands:
  serve          Run the server (API, scheduler, webhook delivery)
                   --port 8080  --host 127.0.0.1
                   --database sqlite:./.driftwatch/driftwatch.db | postgres://... | memory:
                   --allow-private-networks  --rate-limit-reads 600  --rate-limit-writes 120
                   --demo (built-in demo target, monitors and webhook receiver)
                   --log-format pretty|json (default: pretty on a terminal, else json)
  token create   Print a new API token: --org <slug> [--name n] [--scopes a,b] [--database url]
  backup         Online backup of a SQLite store: <file> [--database sqlite:...] [--force]
  restore        Put a backup back (server stopped): <file> [--database sqlite:...] [--force]
  doctor         Check store, browser, egress and clock; print what to fix [--database url]
  diff           Diff two JSON files: <before.json> <after.json> [--rules rules.json] [--explain] [--json]
                   exit 0 no change, 1 changed, 2 error; --explain: which rule or inference hid or rated each change
  learn          Fetch a target a few times and print the policy learned from its noise, with evidence:
                   <url> [--samples 5] [--interval 2s] [--selector css] [--kind json|html]
                   [--allow-private-networks] [--json]

Options:
  --help, -h     Show this help (also: driftwatch <command> --help)
  --version, -v  Show the version

Environment: DRIFTWATCH_PORT, DRIFTWATCH_HOST, DRIFTWATCH_DATABASE_URL,
DRIFTWATCH_ALLOW_PRIVATE_NETWORKS, DRIFTWATCH_RATE_LIMIT_READS, DRIFTWATCH_RATE_LIMIT_WRITES,
DRIFTWATCH_ADMIN_TOKEN, DRIFTWATCH_CHROMIUM_PATH. Flags win over the environment.
Tuning: DRIFTWATCH_LOG_LEVEL, DRIFTWATCH_LOG_FORMAT, DRIFTWATCH_BODY_LIMIT_BYTES, DRIFTWATCH_SHUTDOWN_TIMEOUT_MS,
DRIFTWATCH_LEASE_MS (see docs/deployment.md).
`;

/** The version in @driftwatch/server's package.json (found from src/cli or dist). */
export function packageVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "@driftwatch/server" && typeof pkg.version === "string") return pkg.version;
    }
    dir = path.dirname(dir);
  }
  return "unknown";
}

/** Runs one CLI invocation and resolves with its exit status (`serve` resolves when it stops). */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case "help":
    case "--help":
    case "-h":
      io.stdout(USAGE);
      return command === undefined ? EXIT_ERROR : 0;
    case "--version":
    case "-v":
    case "version":
      io.stdout(`${packageVersion()}\n`);
      return 0;
    case "diff":
      return runDiff(rest, io);
    case "learn": {
      const { runLearn } = await import("./learn.js");
      return runLearn(rest, io);
    }
    case "token": {
      const { runToken } = await import("./token.js");
      return runToken(rest, io);
    }
    case "serve": {
      const { runServe } = await import("./serve.js");
      return runServe(rest, io);
    }
    // Operations: backup, restore and doctor (cli/backup.ts, cli/doctor.ts).
    case "backup":
    case "restore": {
      const { runBackup, runRestore } = await import("./backup.js");
      return command === "backup" ? runBackup(rest, io) : runRestore(rest, io);
    }
    case "doctor": {
      const { runDoctor } = await import("./doctor.js");
      return runDoctor(rest, io);
    }
    default:
      io.stderr(`driftwatch: unknown command ${JSON.stringify(command)}.\n\n${USAGE}`);
      return EXIT_ERROR;
  }
}
