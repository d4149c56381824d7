import { defineConfig, type Options } from "tsup";

/**
 * The one build every package shares: ESM + CJS + separate .d.ts/.d.cts, sourcemaps,
 * Node 20 target. Packages pass only what differs (extra entries, a banner for a CLI).
 */
export function defineDriftwatchConfig(overrides: Options = {}): ReturnType<typeof defineConfig> {
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
