import { afterAll, describe, expect, it } from "vitest";
import { compareBatch, createComparePool } from "../src/index.js";

/** The rules preview's batch: one rule step budget and one time limit for all its pairs. */
const items = Array.from({ length: 900 }, (_, i) => i);
// Each of 900 items counts all items: about 810,000 steps per document the rule runs on.
const policy = { rules: [{ path: "$.items[?count($.items[*]) > 0]", action: "ignore" as const }] };
const pair = (n: number) => ({ previousBody: JSON.stringify({ items, n }), body: JSON.stringify({ items: [...items, n], n: n + 1 }) });
const base = { type: "api" as const, policy, selector: null, maxDiffChanges: 1000, maxDiffBytes: 1024 * 1024 };

describe("compareBatch", () => {
  it("shares one rule step budget between the pairs", () => {
    const results = compareBatch({ ...base, pairs: [pair(1), pair(2), pair(3)], ruleSteps: 1_200_000 });
    expect(results[0]).toMatchObject({ ok: true });
    expect(results[1]).toMatchObject({ ok: false, code: "rule_budget_exceeded" });
    expect(results[2]).toMatchObject({ ok: false, code: "rule_budget_exceeded" });
  });

  it("compares every pair within a budget that holds them", () => {
    const results = compareBatch({ ...base, pairs: [pair(1), pair(2), pair(3)], ruleSteps: 100_000_000 });
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
  });
});

describe("ComparePool.compareBatch", () => {
  const pool = createComparePool({ workers: 1 });
  afterAll(() => pool.close());

  it("runs the batch in a worker thread, small as it is", async () => {
    const small = { previousBody: JSON.stringify({ a: 1 }), body: JSON.stringify({ a: 2 }) };
    const result = await pool.compareBatch({ type: "api", policy: { rules: [] }, selector: null, pairs: [small, small], ruleSteps: 1000 }, { timeoutMs: 60_000 });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.results.map((r) => r.ok && r.diff?.changes.length)).toEqual([1, 1]);
    expect(pool.offloaded).toBe(1);
  });

  it("stops the whole batch at its time limit", async () => {
    const result = await pool.compareBatch({ ...base, pairs: Array.from({ length: 50 }, (_, i) => pair(i)), ruleSteps: Number.MAX_SAFE_INTEGER }, { timeoutMs: 200 });
    expect(result).toMatchObject({ ok: false, code: "analysis_timeout" });
  });
});
