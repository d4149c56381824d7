import { defineDriftwatchConfig } from "../../tooling/tsup";

// `@driftwatch/core/conditions`: the alert evaluator alone, for browsers (src/conditions/browser.ts).
export default defineDriftwatchConfig({ entry: { index: "src/index.ts", conditions: "src/conditions/browser.ts" } });
