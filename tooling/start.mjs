// `npm start` from the repository root: builds @driftwatch/server, the dashboard it serves at / and
// what they depend on (turbo, cached after the first run; only what `serve` runs: ESM JavaScript
// without type declarations (DRIFTWATCH_BUILD=serve, see tooling/tsup.ts), every package at once,
// since bundling one needs no other's build), then runs the built `driftwatch serve --demo` on the embedded SQLite
// default (./.driftwatch/driftwatch.db); its output (the demo's admin token and, while no user exists,
// the one-time setup link that creates the first account) is shown as is. Extra arguments are passed on:
//   npm start -- --port 9090
// Ctrl-C (SIGINT) or SIGTERM stops the server gracefully.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runTurbo } from "./turbo.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

console.log("Building @driftwatch/server, the dashboard and their dependencies (cached after the first run)...");
const build = runTurbo(["run", "build", "--only", "--filter=@driftwatch/server...", "--filter=@driftwatch/dashboard", "--output-logs=errors-only"], {
  cwd: root,
  env: { DRIFTWATCH_BUILD: "serve" },
});
if (build.status !== 0) {
  console.error(`The build failed (exit ${build.status ?? build.signal}); fix it and run npm start again.`);
  process.exit(build.status ?? 1);
}

const cli = path.join(root, "packages", "server", "dist", "cli.js");
// Its own process group: a terminal's Ctrl-C reaches npm and this script (npm forwards it too), and
// this script passes exactly one signal on, so the server shuts down gracefully instead of taking
// a repeated signal as "exit now".
const child = spawn(process.execPath, [cli, "serve", "--demo", ...process.argv.slice(2)], { cwd: root, stdio: "inherit", detached: true });
let forwarded = false;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (forwarded || child.exitCode !== null || child.signalCode !== null) return;
    forwarded = true;
    child.kill(signal === "SIGHUP" ? "SIGTERM" : signal);
  });
}
process.on("exit", () => {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});
child.on("exit", (code, signal) => {
  process.exit(code ?? (signal === "SIGINT" ? 130 : 143));
});
