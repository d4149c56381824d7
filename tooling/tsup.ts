import { defineConfig, type Options } from "tsup";

/**
 * `DRIFTWATCH_BUILD=serve` (what `npm start` sets): only what running `driftwatch serve` from the
 * checkout needs, ESM JavaScript without type declarations (generating those is most of a
 * build's time). turbo hashes the variable (turbo.json), so such a build is never taken from the
 * cache for a full one, nor the other way round.
 */
const serveOnly = process.env.DRIFTWATCH_BUILD === "serve";

/**
 * The one build every package shares: ESM + CJS + separate .d.ts/.d.cts, sourcemaps,
 * Node 20 target. Packages pass only what differs (extra entries, a banner for a CLI).
 */
export function defineDriftwatchConfig(overrides: Options = {}): ReturnType<typeof defineConfig> {
  if (serveOnly) return defineConfig({ entry: ["src/index.ts"], target: "node20", platform: "node", splitting: false, treeshake: true, clean: true, ...overrides, format: ["esm"], dts: false, sourcemap: true });
  return defineConfig({
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node20",
    platform: "node",
    splitting: false,
    treeshake: true,
    ...overrides,
  });
}
