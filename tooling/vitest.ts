import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig, type ViteUserConfig } from "vitest/config";

/**
 * Workspace packages resolve to their TypeScript sources through the `@driftwatch/source`
 * export condition, so tests run against `src` without a build.
 */
const SOURCE_CONDITION = "@driftwatch/source";

export function defineDriftwatchVitest(overrides: ViteUserConfig = {}): ViteUserConfig {
  const { test, ...rest } = overrides;
  return defineConfig({
    resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
    ssr: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions], externalConditions: [SOURCE_CONDITION] } },
    ...rest,
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      ...test,
    },
  });
}
