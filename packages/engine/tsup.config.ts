import { defineDriftwatchConfig } from "../../tooling/tsup";

/**
 * The library (ESM + CJS + .d.ts) and the worker thread of the compare pool
 * (dist/compare-worker.js, found next to the module that starts it; `shims` gives the CJS build an
 * `import.meta.url` to find it by). Neither cleans dist (they build in parallel); the `build`
 * script clears it first.
 */
export default [
  defineDriftwatchConfig({ clean: false, shims: true }),
  defineDriftwatchConfig({
    entry: { "compare-worker": "src/workers/compare-worker.ts" },
    format: ["esm"],
    dts: false,
    clean: false,
  }),
];
