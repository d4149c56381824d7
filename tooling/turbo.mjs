// Runs turbo with its telemetry and update notifier off for this repository (the root scripts and
// tooling/start.mjs call turbo through here): `node tooling/turbo.mjs run build ...`.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The environment every turbo run of this repository gets. */
export const TURBO_ENV = { TURBO_TELEMETRY_DISABLED: "1", TURBO_NO_UPDATE_NOTIFIER: "1", DO_NOT_TRACK: "1" };

export function runTurbo(args, options = {}) {
  const require = createRequire(import.meta.url);
  const bin = path.join(path.dirname(require.resolve("turbo/package.json")), "bin", "turbo");
  return spawnSync(process.execPath, [bin, ...args], { stdio: "inherit", ...options, env: { ...process.env, ...TURBO_ENV, ...options.env } });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const result = runTurbo(process.argv.slice(2));
  process.exit(result.status ?? 1);
}
