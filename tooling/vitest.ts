import { defaultClientConditions, defaultServerConditions } from "vite";
import { configDefaults, defineConfig, type ViteUserConfig } from "vitest/config";
import { testSuiteExclude } from "./test-suites";

/**
 * Workspace packages resolve to their TypeScript sources through the `@driftwatch/source`
 * export condition, so tests run against `src` without a build.
 */
const SOURCE_CONDITION = "@driftwatch/source";

/**
 * The vitest config of the package in `packageDir` (pass `import.meta.dirname`). With
 * DRIFTWATCH_TEST_SUITE=quick the files tooling/test-suites.ts lists for the package are left out.
 */
export function defineDriftwatchVitest(packageDir: string, overrides: ViteUserConfig = {}): ViteUserConfig {
  const { test, ...rest } = overrides;
  return defineConfig({
    resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
    ssr: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions], externalConditions: [SOURCE_CONDITION] } },
    ...rest,
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      exclude: [...configDefaults.exclude, ...testSuiteExclude(packageDir)],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      // expect.poll gives up after 1 s by default: too soon for work of another connection, timer or
      // process on a loaded 2-core CI machine. A deadline only bounds the wait for a condition.
      expect: { poll: { timeout: 20_000 } },
      ...test,
    },
  });
}
