import react from "@vitejs/plugin-react";
import { defaultClientConditions } from "vite";
import { configDefaults, defineConfig } from "vitest/config";
import { testSuiteExclude } from "../../tooling/test-suites";

/**
 * The dashboard's build (static files in dist/, served by @driftwatch/server at /) and its tests:
 * component tests in jsdom (src/**\/*.test.tsx) and end-to-end tests in real Chromium against the
 * real server (test/e2e). @driftwatch/client resolves to its TypeScript sources. With
 * DRIFTWATCH_TEST_SUITE=quick the files tooling/test-suites.ts lists are left out.
 */
const exclude = [...configDefaults.exclude, ...testSuiteExclude(import.meta.dirname)];

export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ["@driftwatch/source", ...defaultClientConditions] },
  build: {
    outDir: "dist",
    assetsDir: "assets",
    emptyOutDir: true,
    sourcemap: false,
    target: "es2022",
    // no inline polyfill script: the CSP allows no inline script
    modulePreload: { polyfill: false },
  },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "components",
          environment: "jsdom",
          include: ["src/**/*.test.tsx", "src/**/*.test.ts"],
          exclude,
          setupFiles: ["src/test-setup.ts"],
          testTimeout: 30_000,
          // expect.poll (and, in src/test-setup.ts, testing-library's waitFor and findBy) give up after
          // 1 s by default: too soon for a render on a loaded 2-core CI machine.
          expect: { poll: { timeout: 20_000 } },
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          environment: "node",
          include: ["test/e2e/**/*.test.ts"],
          exclude,
          globalSetup: ["test/e2e/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // expect.poll gives up after 1 s by default: too soon for Chromium and a server process on a loaded machine.
          expect: { poll: { timeout: 30_000 } },
          fileParallelism: false,
        },
      },
    ],
  },
});
