import { processIo } from "./cli/io.js";
import { runCli } from "./cli/main.js";

// The `driftwatch` binary (tsup adds the `#!/usr/bin/env node` banner to dist/cli.js).
runCli(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
    // Everything is closed by now; should a library still hold the event loop, do not hang.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`driftwatch: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
