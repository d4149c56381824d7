import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { longestCommonSubsequence } from "../src/html/lcs.js";

/** Textbook O(nm) dynamic programme: the LCS length. */
function lcsLength(a: number[], b: number[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = a[i - 1] === b[j - 1] ? diag + 1 : Math.max(up, row[j - 1]!);
      diag = up;
    }
  }
  return row[b.length]!;
}

function checkMatches(a: number[], b: number[], pairs: number[]): void {
  let lastA = -1;
  let lastB = -1;
  for (let p = 0; p < pairs.length; p += 2) {
    const i = pairs[p]!;
    const j = pairs[p + 1]!;
    expect(i).toBeGreaterThan(lastA);
    expect(j).toBeGreaterThan(lastB);
    expect(a[i]).toBe(b[j]);
    lastA = i;
    lastB = j;
  }
}

describe("longestCommonSubsequence", () => {
  it("handles empty and equal sequences", () => {
    expect(longestCommonSubsequence([], [])).toEqual([]);
    expect(longestCommonSubsequence([1, 2], [])).toEqual([]);
    expect(longestCommonSubsequence([1, 2, 3], [1, 2, 3])).toEqual([0, 0, 1, 1, 2, 2]);
    expect(longestCommonSubsequence([1, 2, 3], [4, 5])).toEqual([]);
  });

  it("finds a longest common subsequence (checked against the O(nm) programme)", () => {
    const sequence = fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 40 });
    fc.assert(
      fc.property(sequence, sequence, (a, b) => {
        const pairs = longestCommonSubsequence(a, b);
        checkMatches(a, b, pairs);
        expect(pairs.length / 2).toBe(lcsLength(a, b));
      }),
      { numRuns: 3000 },
    );
  });

  it("is optimal on long sequences with scattered edits", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 200, maxLength: 600 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 1000 })), { maxLength: 20 }),
        (a, edits) => {
          const b = a.slice();
          for (const [at, kind, value] of edits) {
            const i = at % (b.length + 1);
            if (kind === 0) b.splice(i, 0, value);
            else if (kind === 1) b.splice(i, 1);
            else b[i] = value;
          }
          const pairs = longestCommonSubsequence(a, b);
          checkMatches(a, b, pairs);
          expect(pairs.length / 2).toBe(lcsLength(a, b));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("copes with 20,000-element sequences without deep recursion", () => {
    const a = Array.from({ length: 20_000 }, (_, i) => i);
    const b = Array.from({ length: 20_000 }, (_, i) => (i % 1000 === 0 ? -i - 1 : i));
    expect(longestCommonSubsequence(a, b).length / 2).toBe(20_000 - 20);
    const c = Array.from({ length: 5_000 }, (_, i) => i + 100_000);
    expect(longestCommonSubsequence(a.slice(0, 5_000), c)).toEqual([]);
  });
});
