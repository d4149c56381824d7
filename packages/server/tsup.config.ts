import { defineDriftwatchConfig } from "../../tooling/tsup";

/**
 * The library (ESM + CJS + .d.ts) and the `driftwatch` binary (ESM only, with a shebang).
 * Neither cleans dist (they build in parallel); the `build` script clears it first.
 */
export default [
  defineDriftwatchConfig({ clean: false }),
  defineDriftwatchConfig({
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    dts: false,
    clean: false,
    banner: { js: "#!/usr/bin/env node" },
  }),
];
