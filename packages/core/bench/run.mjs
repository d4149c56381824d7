// npm run bench: runs every *.bench.ts in this folder, one process each (so benches do not warm
// up or slow down each other), resolving workspace packages to their sources. `--expose-gc` lets a
// bench collect garbage before each task, so no task pays for the garbage the previous one left.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts") && (only.length === 0 || only.some((o) => f.includes(o))))
  .sort();
let failed = false;
for (const file of files) {
  console.log(`\n# ${file}`);
  const run = spawnSync(process.execPath, ["--expose-gc", "--conditions=@driftwatch/source", "--import", "tsx", path.join(dir, file)], { stdio: "inherit" });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
