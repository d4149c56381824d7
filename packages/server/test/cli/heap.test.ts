import { describe, expect, it } from "vitest";
import { applyServeHeapDefaults, HEAP_GROWING_PERCENT, heapChoice, youngGrowthFactor } from "../../src/cli/heap.js";
import { ConfigError, resolveServeConfig } from "../../src/config/index.js";

const MB = 1024 * 1024;

describe("serve's heap defaults (cli/heap.ts)", () => {
  it("sets the young generation's growth and the old space's growing percent unless told otherwise", () => {
    const set: string[] = [];
    expect(applyServeHeapDefaults({}, [], (flags) => set.push(flags))).toEqual({ mode: "lean" });
    expect(set).toEqual(["--semi-space-growth-factor=1", `--heap-growing-percent=${String(HEAP_GROWING_PERCENT)}`]);
  });

  it("leaves node's settings when DRIFTWATCH_HEAP=node or node was started with one of the flags it sets", () => {
    const cases: [Record<string, string>, string[], string][] = [
      [{ DRIFTWATCH_HEAP: "node" }, [], "DRIFTWATCH_HEAP=node"],
      [{ DRIFTWATCH_HEAP: " Node " }, [], "DRIFTWATCH_HEAP=node"],
      [{}, ["--max-semi-space-size=32"], "node was started with --max-semi-space-size"],
      [{}, ["--max_semi_space_size", "32"], "node was started with --max_semi_space_size"],
      [{ NODE_OPTIONS: "--enable-source-maps --heap-growing-percent=100" }, [], "node was started with --heap-growing-percent"],
      [{ NODE_OPTIONS: "--semi-space-growth-factor=4" }, [], "node was started with --semi-space-growth-factor"],
    ];
    for (const [env, execArgv, reason] of cases) {
      const set: string[] = [];
      expect(applyServeHeapDefaults(env, execArgv, (flags) => set.push(flags)), reason).toEqual({ mode: "node", reason });
      expect(set).toEqual([]);
    }
    // Other flags (an old-space limit, source maps) keep the defaults.
    expect(heapChoice({ DRIFTWATCH_HEAP: "lean", NODE_OPTIONS: "--max-old-space-size=512" }, ["--enable-source-maps"])).toEqual({ mode: "lean" });
  });

  it("lets the young generation double only while doubling stays within its ceiling", () => {
    expect(youngGrowthFactor(2 * MB, 16 * MB)).toBe(2);
    expect(youngGrowthFactor(8 * MB, 16 * MB)).toBe(2);
    expect(youngGrowthFactor(9 * MB, 16 * MB)).toBe(1);
    expect(youngGrowthFactor(16 * MB, 16 * MB)).toBe(1);
    expect(youngGrowthFactor(32 * MB, 16 * MB)).toBe(1);
  });

  it("rejects an unknown DRIFTWATCH_HEAP in serve's configuration", () => {
    expect(() => resolveServeConfig([], { DRIFTWATCH_HEAP: "lean" })).not.toThrow();
    expect(() => resolveServeConfig([], { DRIFTWATCH_HEAP: "small" })).toThrow(ConfigError);
    expect(() => resolveServeConfig([], { DRIFTWATCH_HEAP: "small" })).toThrow(/DRIFTWATCH_HEAP must be lean or node/);
  });
});
