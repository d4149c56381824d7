import { defineDriftwatchVitest } from "../../tooling/vitest";

export default defineDriftwatchVitest(import.meta.dirname, {
  test: {
    // The e2e suites start the built CLI: build it first when the sources are newer.
    globalSetup: ["test/e2e/global-setup.ts"],
    testTimeout: 90_000,
  },
});
