import { defineDriftwatchVitest } from "../../tooling/vitest";

export default defineDriftwatchVitest(import.meta.dirname, {
  // Browser tests share 2 cores with everything else: one file at a time.
  test: { globalSetup: ["test/global-setup.ts"], fileParallelism: false, testTimeout: 60_000 },
});
