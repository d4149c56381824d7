import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

/** The end-to-end tests drive the built dashboard: build it when the sources are newer than dist. */
export default function setup(): void {
  const index = path.join(root, "dist", "index.html");
  // the dashboard's sources and the client's and the schema's (bundled into it)
  const sources = Math.max(
    newest(path.join(root, "src")),
    newest(path.join(root, "..", "client", "src")),
    newest(path.join(root, "..", "schema", "src")),
    statSync(path.join(root, "index.html")).mtimeMs,
  );
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  // NODE_ENV from vitest ("test") would make Vite bundle React's development build
  const result = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  if (result.status !== 0) throw new Error("npm run build failed: the end-to-end tests need the built dashboard");
}
