import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { cliPath, packageDir } from "./support.js";

/** Newest modification time of the files under `dir` (0 when missing). */
function newest(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let max = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    max = Math.max(max, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return max;
}

/** The workspace packages the server's dist loads at run time. */
function workspaceDependencies(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  const names = Object.keys(pkg.dependencies).filter((n) => n.startsWith("@driftwatch/"));
  return names.map((n) => path.join(packageDir, "..", n.slice("@driftwatch/".length)));
}

/**
 * The e2e tests run the BUILT CLI: rebuild it (with turbo, which also builds what it depends on)
 * when dist/cli.js is missing or older than any source it is built from.
 */
export default function setup(): void {
  const built = fs.existsSync(cliPath) ? fs.statSync(cliPath).mtimeMs : 0;
  const stale = [packageDir, ...workspaceDependencies()].some((dir) => {
    const src = newest(path.join(dir, "src"));
    const dist = dir === packageDir ? built : newest(path.join(dir, "dist"));
    return dist === 0 || src > dist;
  });
  if (!stale) return;
  execFileSync("npx", ["turbo", "run", "build", "--filter=@driftwatch/server...", "--output-logs=errors-only"], {
    cwd: path.resolve(packageDir, "../.."),
    stdio: "inherit",
  });
}
