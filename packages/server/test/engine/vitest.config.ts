import { fileURLToPath } from "node:url";
import { defineDriftwatchVitest } from "../../../../tooling/vitest";

/**
 * The engine suites alone, without the package's e2e global setup (which builds the CLI):
 * `npx vitest run --config test/engine/vitest.config.ts`. The package's own config runs them too.
 */
export default defineDriftwatchVitest({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: { include: ["test/engine/**/*.test.ts"] },
});
