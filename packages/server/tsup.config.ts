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
    // Chunks, so that what one command or one database needs (pg, pg-boss, the OpenAPI differ,
    // the progress bar) is loaded by the import that needs it, not by every start of the binary.
    splitting: true,
    banner: { js: "#!/usr/bin/env node" },
  }),
];
