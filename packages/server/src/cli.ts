import { applyServeHeapDefaults } from "./cli/heap.js";

// The `driftwatch` binary (tsup adds the `#!/usr/bin/env node` banner to dist/cli.js). `serve`'s
// heap settings are applied before any module of the server loads (cli/heap.ts), so the rest is
// imported after them.
if (process.argv[2] === "serve") applyServeHeapDefaults(process.env, process.execArgv);
const { processIo } = await import("./cli/io.js");
const { runCli } = await import("./cli/main.js");

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
