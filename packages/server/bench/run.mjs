// npm run bench (server): the HTTP bench (http.bench.ts) and the engine's benches
// (engine-*.bench.ts, when present), one process each, resolving workspace packages to sources.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts") && (only.length === 0 || only.some((o) => f.includes(o))))
  .sort((a, b) => (a === "http.bench.ts" ? -1 : b === "http.bench.ts" ? 1 : a.localeCompare(b)));
let failed = false;
for (const file of files) {
  console.log(`\n# ${file}`);
  const run = spawnSync(process.execPath, ["--conditions=@driftwatch/source", "--import", "tsx", path.join(dir, file)], { stdio: "inherit" });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
