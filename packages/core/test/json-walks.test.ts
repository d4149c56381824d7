// diffJson walks the first RECURSION_LIMIT levels recursively and deeper levels on an explicit
// stack (and every level on the stack when Object.prototype has enumerable members). Both walks
// must give the same answer: these tests diff the same pairs shallow and wrapped deep enough to
// cross the limit, and with Object.prototype polluted.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { type Change, diffJson, type DiffJsonOptions, isDriftwatchError } from "../src/index.js";
import { RECURSION_LIMIT } from "../src/diff/differ.js";
import { type Json, pairArb } from "./json-arbitraries.js";

/** `value` under `levels` wrappers, alternating arrays and objects, the innermost an object member. */
function wrap(value: unknown, levels: number): { doc: unknown; prefix: string } {
  let doc = value;
  let prefix = "";
  for (let i = 0; i < levels; i++) {
    if (i % 2 === 0) {
      doc = { w: doc };
      prefix = `.w${prefix}`;
    } else {
      doc = [doc];
      prefix = `[0]${prefix}`;
    }
  }
  return { doc, prefix: `$${prefix}` };
}

function shifted(changes: Change[], prefix: string): Change[] {
  return changes.map((c) => (c.from === undefined ? { ...c, path: prefix + c.path.slice(1) } : { ...c, path: prefix + c.path.slice(1), from: prefix + c.from.slice(1) }));
}

function outcome(run: () => ReturnType<typeof diffJson>): { changes: Change[] | null; counts?: unknown[] } | { error: string; message: string } {
  try {
    const diff = run();
    return diff === null ? { changes: null } : { changes: diff.changes, counts: [diff.classification, diff.schemaChanges, diff.valueChanges, diff.topSeverity] };
  } catch (error) {
    if (!isDriftwatchError(error)) throw error;
    return { error: error.code, message: error.message };
  }
}

function expectSameDeep(a: unknown, b: unknown, levels: number, options: DiffJsonOptions = {}): void {
  const shallow = outcome(() => diffJson(a, b, options));
  const wa = wrap(a, levels);
  const wb = wrap(b, levels);
  const deep = outcome(() => diffJson(wa.doc, wb.doc, { maxDepth: 5000, ...options }));
  if ("error" in shallow) {
    expect(deep).toMatchObject({ error: shallow.error });
    // The same offending position, under the wrapper path.
    const at = /at (\$.*)$/.exec(shallow.message)?.[1];
    if (at !== undefined) expect((deep as { message: string }).message).toContain(`at ${wa.prefix}${at.slice(1)}`);
    return;
  }
  expect("changes" in deep).toBe(true);
  const d = deep as { changes: Change[] | null; counts?: unknown[] };
  expect(d.changes === null ? null : d.changes).toEqual(shallow.changes === null ? null : shifted(shallow.changes, wa.prefix));
  expect(d.counts).toEqual(shallow.counts);
}

describe("recursive and explicit-stack walks agree", () => {
  it("on random pairs wrapped past the recursion limit, or straddling it", () => {
    fc.assert(
      fc.property(pairArb, fc.integer({ min: RECURSION_LIMIT - 6, max: RECURSION_LIMIT + 4 }), fc.boolean(), ([a, b], levels, reportMoves) => {
        expectSameDeep(a, b, levels, reportMoves ? { reportMoves } : {});
      }),
      { numRuns: 600 },
    );
  });

  it("on keyed arrays, policy array keys and added or removed subtrees below the limit", () => {
    const before = { items: [{ sku: "a", n: 1 }, { sku: "b", n: 2 }, { sku: "c", n: 3 }], gone: { x: [1, 2] }, same: [1, 2, 3] };
    const after = { items: [{ sku: "z", n: 0 }, { sku: "a", n: 1 }, { sku: "c", n: 4 }], added: { y: [true] }, same: [1, 2, 3, 4] };
    for (const levels of [1, RECURSION_LIMIT - 1, RECURSION_LIMIT, RECURSION_LIMIT + 1, RECURSION_LIMIT + 25]) {
      expectSameDeep(before, after, levels, { defaultArrayKey: "sku" });
      expectSameDeep(before, after, levels, { defaultArrayKey: false });
    }
  });

  it("on moves, inferred keys and volatile, tolerance and unordered entries", () => {
    const policy = { volatile: [{ path: "$..ts" }], tolerance: [{ path: "$..temp", absolute: 1 }], unordered: ["$..tags"] };
    const before = { rows: [{ code: "A", ts: 1, temp: 20 }, { code: "B", ts: 2, temp: 20 }], tags: ["x", "y", "y"], list: ["a", "b", "c"], todo: [{ t: 1 }], done: [] as unknown[] };
    const after = { rows: [{ code: "B", ts: 3, temp: 20.5 }, { code: "A", ts: 4, temp: 25 }], tags: ["y", "z", "x"], list: ["b", "c", "a"], todo: [] as unknown[], done: [{ t: 1 }] };
    for (const levels of [1, RECURSION_LIMIT - 1, RECURSION_LIMIT, RECURSION_LIMIT + 1, RECURSION_LIMIT + 25]) {
      expectSameDeep(before, after, levels, { policy });
      expectSameDeep(before, after, levels, { policy, reportMoves: true });
    }
    expect(diffJson(before, after, { policy })!.changes.map((c) => `${c.op} ${c.path}`)).toEqual([
      "replace $.rows[1].temp",
      "remove $.tags[2]",
      "add $.tags[1]",
      "move $.list[2]",
      "move $.done[0]",
    ]);
  });

  it("on values that are not JSON, reported at the same position", () => {
    class Point {
      x = 1;
    }
    const bad: [unknown, unknown][] = [
      [{ a: 1 }, { a: undefined }],
      [{ a: [1, 2] }, { a: [1, () => 2] }],
      [{ a: { b: 1 } }, { a: new Point() }],
      [{ a: [new Date(0)] }, { a: [new Date(0)] }],
      [{ a: Number.NaN }, { a: Number.NaN }],
      [[1, 2n], [1, 2n]],
    ];
    for (const [a, b] of bad) {
      for (const levels of [0, RECURSION_LIMIT + 3]) expectSameDeep(a, b, levels);
    }
  });

  it("on a cycle first met below the limit", () => {
    const loop: Record<string, unknown> = { v: 1 };
    loop.self = loop;
    const result = outcome(() => diffJson({ x: 1 }, { x: 1, loop }, { maxDepth: Number.POSITIVE_INFINITY }));
    expect(result).toMatchObject({ error: "invalid_input" });
    const twin: Record<string, unknown> = { v: 1 };
    twin.self = twin;
    const both = outcome(() => diffJson({ loop: twin }, { loop }, { maxDepth: Number.POSITIVE_INFINITY }));
    expect(both).toMatchObject({ error: "invalid_input" });
    expect((both as { message: string }).message).toContain("cyclic");
  });

  it("counts maxDepth the same way in both walks", () => {
    const { doc: a } = wrap(1, RECURSION_LIMIT + 10);
    const { doc: b } = wrap(2, RECURSION_LIMIT + 10);
    // Containers sit at depths 0 .. RECURSION_LIMIT + 9; a container at depth >= maxDepth is refused.
    for (const maxDepth of [0, 3, RECURSION_LIMIT - 1, RECURSION_LIMIT, RECURSION_LIMIT + 1, RECURSION_LIMIT + 9]) {
      expect(outcome(() => diffJson(a, b, { maxDepth }))).toMatchObject({ error: "too_deep" });
    }
    expect(diffJson(a, b, { maxDepth: RECURSION_LIMIT + 10 })?.changes).toHaveLength(1);
  });
});

describe("with little stack left", () => {
  it("falls back to the explicit stack instead of overflowing", () => {
    // 100 KB of stack (Node's default is ~1 MB) is too little for the recursive walk of a document
    // nested just below RECURSION_LIMIT: without the fallback this child ends in a RangeError.
    const child = spawnSync(
      process.execPath,
      ["--stack-size=100", "--conditions=@driftwatch/source", "--import", "tsx", fileURLToPath(new URL("./support/diff-deep-child.ts", import.meta.url)), String(RECURSION_LIMIT - 5)],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(child.status, child.stderr).toBe(0);
    const { prefix } = wrap(null, RECURSION_LIMIT - 5);
    expect(JSON.parse(child.stdout.trim().split("\n").pop()!)).toEqual({ paths: [`${prefix}.v`] });
  });
});

describe("with enumerable members on Object.prototype", () => {
  const proto = Object.prototype as Record<string, unknown>;
  afterEach(() => {
    delete proto.polluted;
  });

  it("diffs only own members, exactly as without them", () => {
    fc.assert(
      fc.property(pairArb, ([a, b]: [Json, Json]) => {
        const clean = outcome(() => diffJson(a, b));
        proto.polluted = "yes";
        try {
          expect(outcome(() => diffJson(a, b))).toEqual(clean);
        } finally {
          delete proto.polluted;
        }
      }),
      { numRuns: 300 },
    );
  });
});
