import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type CliIo, EXIT_ERROR, processIo } from "./io.js";
import { runDiff } from "./diff.js";
import { USAGE } from "./usage.js";

export { USAGE };

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
    case "api-diff": {
      const { runApiDiff } = await import("./api-diff.js");
      return runApiDiff(rest, io);
    }
    case "learn": {
      const { runLearn } = await import("./learn.js");
      return runLearn(rest, io);
    }
    case "token": {
      const { runToken } = await import("./token.js");
      return runToken(rest, io);
    }
    case "store": {
      const { runStore } = await import("./store-copy.js");
      return runStore(rest, io);
    }
    case "user": {
      const { runUser } = await import("./user.js");
      return runUser(rest, io);
    }
    case "notify": {
      const { runNotify } = await import("./notify.js");
      return runNotify(rest, io);
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
