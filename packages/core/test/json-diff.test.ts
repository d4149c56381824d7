import fastJsonPatch, { type Operation } from "fast-json-patch";
import { describe, expect, it } from "vitest";
import {
  type Change,
  classifySeverity,
  DEFAULT_SEVERITIES,
  diffJson,
  type DriftwatchError,
  isDriftwatchError,
  resolvePath,
  toJsonPatch,
} from "../src/index.js";

function only(before: unknown, after: unknown): Change {
  const diff = diffJson(before, after);
  expect(diff?.changes).toHaveLength(1);
  return diff!.changes[0]!;
}

function thrown(fn: () => unknown): DriftwatchError {
  try {
    fn();
  } catch (error) {
    expect(isDriftwatchError(error)).toBe(true);
    return error as DriftwatchError;
  }
  throw new Error("expected a DriftwatchError");
}

describe("default severities and categories", () => {
  it("member removed: critical schema change", () => {
    expect(only({ a: 1, b: 2 }, { a: 1 })).toEqual({ path: "$.b", category: "schema", op: "remove", severity: "critical", before: 2 });
  });
  it("type changed: critical schema change", () => {
    expect(only({ a: "1" }, { a: 1 })).toMatchObject({ path: "$.a", category: "schema", op: "replace", severity: "critical", detail: "type changed from string to number" });
    expect(only({ a: {} }, { a: [] })).toMatchObject({ severity: "critical", detail: "type changed from object to array" });
  });
  it("value became null: medium schema change", () => {
    expect(only({ a: "x" }, { a: null })).toMatchObject({ category: "schema", severity: "medium", before: "x", after: null });
  });
  it("array element type changed: medium schema change", () => {
    expect(only([1, 2], [1, "2"])).toMatchObject({ path: "$[1]", category: "schema", op: "replace", severity: "medium", detail: "array element type changed from number to string" });
  });
  it("member added: info schema change", () => {
    expect(only({}, { a: { b: 1 } })).toEqual({ path: "$.a", category: "schema", op: "add", severity: "info", after: { b: 1 } });
  });
  it("value changed: info value change", () => {
    expect(only({ a: 1 }, { a: 2 })).toEqual({ path: "$.a", category: "value", op: "replace", severity: "info", before: 1, after: 2 });
  });
  it("array element added or removed: info value change", () => {
    expect(only([1], [1, 2])).toEqual({ path: "$[1]", category: "value", op: "add", severity: "info", after: 2 });
    expect(only([1, 2], [1])).toEqual({ path: "$[1]", category: "value", op: "remove", severity: "info", before: 2 });
  });
  it("classifySeverity gives the documented defaults", () => {
    expect(DEFAULT_SEVERITIES).toEqual({
      member_removed: "critical",
      type_changed: "critical",
      became_null: "medium",
      element_type_changed: "medium",
      member_added: "info",
      value_changed: "info",
      element_added: "info",
      element_removed: "info",
      element_moved: "info",
    });
    expect(classifySeverity("member_removed")).toBe("critical");
    expect(classifySeverity("element_added")).toBe("info");
  });
  it("summarises a diff: classification, counts, top severity, fingerprint", () => {
    const diff = diffJson({ a: 1, b: 2, c: "x" }, { a: 2, c: null })!;
    expect(diff).toMatchObject({ classification: "schema_change", schemaChanges: 2, valueChanges: 1, topSeverity: "critical" });
    expect(diffJson({ a: 1 }, { a: 2 })).toMatchObject({ classification: "value_change", schemaChanges: 0, valueChanges: 1, topSeverity: "info" });
  });
});

describe("paths and structure", () => {
  it("uses bracket notation for names that need it", () => {
    const diff = diffJson({ "a.b": 1, "it's": 1, ok: { "": 1, "☺": 1 } }, { "a.b": 2, "it's": 2, ok: { "": 2, "☺": 2 } })!;
    expect(diff.changes.map((c) => c.path).sort()).toEqual(["$.ok.☺", "$.ok['']", "$['a.b']", "$['it\\'s']"].sort());
  });
  it("reports a root type change as one replace at $", () => {
    expect(diffJson({ a: 1 }, [1])!.changes).toEqual([
      { path: "$", category: "schema", op: "replace", severity: "critical", detail: "type changed from object to array", before: { a: 1 }, after: [1] },
    ]);
    expect(only(1, "1").path).toBe("$");
  });
  it("matches arrays of objects by id: prepending to 10,000 is one add", () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ id: i, name: `n${i}` }));
    const after = [{ id: -1, name: "new" }, ...items];
    expect(diffJson({ items }, { items: after })!.changes).toEqual([{ path: "$.items[0]", category: "value", op: "add", severity: "info", after: after[0] }]);
    // without key matching, every element shifts
    expect(diffJson({ items }, { items: after }, { defaultArrayKey: false })!.changes.length).toBeGreaterThan(10_000);
  });
  it("uses arrayKeys with wildcards, and gives removals old indexes and the rest new ones", () => {
    const before = { items: [{ sku: "a", variants: [{ code: "x", q: 1 }, { code: "y", q: 1 }] }, { sku: "b", variants: [] }] };
    const after = { items: [{ sku: "c", variants: [] }, { sku: "a", variants: [{ code: "y", q: 2 }] }] };
    const diff = diffJson(before, after, { arrayKeys: { "$.items": "sku", "$.items[*].variants": "code" } })!;
    const byKey = Object.fromEntries(diff.changes.map((c) => [`${c.op} ${c.path}`, c]));
    expect(Object.keys(byKey).sort()).toEqual(["add $.items[0]", "remove $.items[0].variants[0]", "remove $.items[1]", "replace $.items[1].variants[0].q"].sort());
    for (const c of diff.changes) {
      expect(resolvePath(c.op === "remove" ? before : after, c.path)).toEqual({ found: true, value: c.op === "remove" ? c.before : c.after });
    }
  });
  it("finds no change in a reordered keyed array; with reportMoves, keeps the longest ordered run and moves the rest", () => {
    const before = [{ id: 1, v: "a" }, { id: 2, v: "b" }, { id: 3, v: "c" }, { id: 4, v: "d" }];
    const after = [before[3]!, before[0]!, before[1]!, before[2]!];
    expect(diffJson(before, after)).toBeNull();
    const diff = diffJson(before, after, { reportMoves: true })!;
    expect(diff.changes.map((c) => `${c.op} ${c.from ?? ""} ${c.path}`)).toEqual(["move $[3] $[0]"]);
    expect(fastJsonPatch.applyPatch(structuredClone(before), toJsonPatch(diff.changes) as Operation[]).newDocument).toEqual(after);
  });
  it("does not take the only member of the elements as their identity: the changed member is reported where it is", () => {
    expect(diffJson({ o: [{ a: 1 }, { a: 2 }] }, { o: [{ a: 3 }, { a: 2 }] })!.changes).toEqual([
      { path: "$.o[0].a", category: "value", op: "replace", severity: "info", before: 1, after: 3 },
    ]);
    expect(diffJson([{ id: 1 }, { id: 2 }], [{ id: 3 }, { id: 2 }])!.changes).toEqual([{ path: "$[0].id", category: "value", op: "replace", severity: "info", before: 1, after: 3 }]);
    // nor a nested member that is all the element holds (`{"m":{"id":1}}`: the element is its `m.id`)
    expect(diffJson({ o: [{ m: { id: 1 } }, { m: { id: 2 } }] }, { o: [{ m: { id: 3 } }, { m: { id: 2 } }] })!.changes).toEqual([
      { path: "$.o[0].m.id", category: "value", op: "replace", severity: "info", before: 1, after: 3 },
    ]);
    expect(diffJson({ o: [{ m: { id: 1 } }, { m: { id: 2 } }] }, { o: [{ m: { id: 2 } }, { m: { id: 1 } }] })!.changes.map((c) => c.path)).toEqual(["$.o[0].m.id", "$.o[1].m.id"]);
    // a nested identity beside other content is one still: its change is another element
    expect(diffJson({ o: [{ m: { id: 1 }, x: 1 }, { m: { id: 2 }, x: 1 }] }, { o: [{ m: { id: 3 }, x: 1 }, { m: { id: 2 }, x: 1 }] })!.changes.map((c) => `${c.op} ${c.path}`)).toEqual([
      "remove $.o[0]",
      "add $.o[0]",
    ]);
    expect(diffJson({ o: [{ m: { id: 1, k: 0 } }, { m: { id: 2, k: 0 } }] }, { o: [{ m: { id: 2, k: 0 } }, { m: { id: 1, k: 0 } }] })).toBeNull();
  });
  it("reports a keyed element whose key member changed type as that type change (critical), not a removal and an addition", () => {
    const before = { c: [{ name: "web", image: "a" }, { name: "worker", image: "a" }, { name: "cache", image: "a" }] };
    const after = { c: [{ name: "web", image: "a" }, { name: 42, image: "b" }, { name: "cache", image: "a" }] };
    const diff = diffJson(before, after)!;
    expect(diff.changes.map((c) => `${c.op} ${c.path} ${c.severity}`)).toEqual(["replace $.c[1].name critical", "replace $.c[1].image info"]);
    expect(diff.changes[0]).toMatchObject({ category: "schema", before: "worker", after: 42 });
    // with removals and additions around it, the patch still turns one into the other
    const cases: [unknown[], unknown[]][] = [
      [[{ id: "a", v: 1 }, { id: "b", v: 2 }, { id: "c", v: 3 }], [{ id: "x", v: 0 }, { id: 7, v: 2 }, { id: "c", v: 3 }, { id: "d", v: 4 }]],
      [[{ id: "a", v: 1 }, { id: "b", v: 2 }], [{ id: 1, v: 1 }, { id: 2, v: 2 }]],
      [[{ id: 1, v: 1 }, { id: "b", v: 2 }, { id: 3, v: 3 }], [{ id: 3, v: 3 }, { id: "1", v: 1 }]],
    ];
    for (const [a, b] of cases) {
      for (const reportMoves of [false, true]) {
        const d = diffJson(a, b, { reportMoves })!;
        expect(fastJsonPatch.applyPatch(structuredClone(a), toJsonPatch(d.changes) as Operation[]).newDocument, JSON.stringify([a, b])).toEqual(b);
      }
    }
    expect(diffJson(cases[1]![0], cases[1]![1])!.changes.map((c) => `${c.path} ${c.severity}`)).toEqual(["$[0].id critical", "$[1].id critical"]);
    // a key of the same type that changed is another element: removed and added, as before
    expect(diffJson([{ id: "a", v: 1 }, { id: "b", v: 2 }], [{ id: "a", v: 1 }, { id: "c", v: 2 }])!.changes.map((c) => `${c.op} ${c.path}`)).toEqual(["remove $[1]", "add $[1]"]);
  });
  it("falls back to positions when keys repeat or are missing", () => {
    expect(diffJson([{ id: 1, v: 1 }, { id: 1, v: 2 }], [{ id: 1, v: 2 }, { id: 1, v: 2 }])!.changes).toEqual([
      { path: "$[0].v", category: "value", op: "replace", severity: "info", before: 1, after: 2 },
    ]);
    // No scalar member to key on (before the key inference, [{ v: 1 }] to [{ v: 0 }, { v: 1 }] was such a case; now v is inferred).
    expect(diffJson([{ v: [1] }], [{ v: [0] }, { v: [1] }])!.changes.map((c) => `${c.op} ${c.path}`)).toEqual(["add $[1]", "replace $[0].v[0]"]);
  });
  it("reports an insertion in the middle of a primitive array as one add", () => {
    expect(diffJson([1, 2, 3, 4], [1, 2, 9, 3, 4])!.changes).toEqual([{ path: "$[2]", category: "value", op: "add", severity: "info", after: 9 }]);
  });
  it("treats own members named like Object.prototype members as members", () => {
    const before = JSON.parse('{"constructor": 1, "__proto__": {"a": 1}}') as unknown;
    const after = JSON.parse('{"toString": 2, "__proto__": {"a": 2}}') as unknown;
    const changes = diffJson(before, after)!.changes.map((c) => `${c.op} ${c.path}`).sort();
    expect(changes).toEqual(["add $.toString", "remove $.constructor", "replace $.__proto__.a"]);
    expect(diffJson({}, JSON.parse('{"__proto__": 1}'))!.changes[0]).toMatchObject({ op: "add", path: "$.__proto__" });
  });
});

describe("toJsonPatch", () => {
  it("escapes pointers and orders removals before writes", () => {
    const before = { "a/b": [1, 2, 3], "m~n": 1 };
    const after = { "a/b": [1], "m~n": 2, x: true };
    const ops = toJsonPatch(diffJson(before, after)!.changes);
    expect(ops).toEqual([
      { op: "remove", path: "/a~1b/2" },
      { op: "remove", path: "/a~1b/1" },
      { op: "replace", path: "/m~0n", value: 2 },
      { op: "add", path: "/x", value: true },
    ]);
  });
  it("replaces the root with an empty pointer", () => {
    expect(toJsonPatch(diffJson(1, [1])!.changes)).toEqual([{ op: "replace", path: "", value: [1] }]);
  });
  it("refuses an add without an after value", () => {
    expect(thrown(() => toJsonPatch([{ path: "$.a", category: "schema", op: "add", severity: "info" }])).code).toBe("invalid_input");
  });
});

describe("bad input", () => {
  const cases: [string, unknown, string][] = [
    ["undefined document", undefined, "$"],
    ["undefined member", { a: { b: undefined } }, "$.a.b"],
    ["function", { a: [() => 1] }, "$.a[0]"],
    ["symbol", { s: Symbol("x") }, "$.s"],
    ["BigInt", { n: 1n }, "$.n"],
    ["NaN", { n: Number.NaN }, "$.n"],
    ["Infinity", [Number.POSITIVE_INFINITY], "$[0]"],
    ["Date", { d: new Date(0) }, "$.d"],
    ["Map", { m: new Map() }, "$.m"],
    ["class instance", { c: new (class Thing {})() }, "$.c"],
    ["sparse array", { a: [1, , 3] }, "$.a[1]"],
  ];
  it.each(cases)("refuses %s with invalid_input naming where", (_name, bad, where) => {
    for (const [before, after] of [
      [bad, { other: 1 }],
      [{ other: 1 }, bad],
      [bad, bad],
    ] as const) {
      const error = thrown(() => diffJson(before, after));
      expect(error.code).toBe("invalid_input");
      expect(error.details[0]?.path).toBe(where);
    }
  });
  it("refuses non-finite numbers even where both documents hold them", () => {
    expect(thrown(() => diffJson({ a: Number.POSITIVE_INFINITY }, { a: Number.POSITIVE_INFINITY })).code).toBe("invalid_input");
    expect(thrown(() => diffJson([Number.NaN], [Number.NaN])).details[0]?.path).toBe("$[0]");
  });
  it("refuses cyclic documents, naming the back reference", () => {
    const cyclic: Record<string, unknown> = { a: { b: {} } };
    (cyclic.a as Record<string, Record<string, unknown>>).b!.c = cyclic.a;
    const error = thrown(() => diffJson({ a: 1 }, cyclic));
    expect(error.code).toBe("invalid_input");
    expect(error.message).toContain("cyclic");
    expect(error.details[0]?.path).toBe("$.a.b.c");
    const self: unknown[] = [];
    self.push(self);
    expect(thrown(() => diffJson(self, self)).message).toContain("cyclic");
    expect(thrown(() => diffJson([], self)).details[0]?.path).toBe("$[0]");
  });
  it("accepts the same object shared at two places (not a cycle)", () => {
    const shared = { x: 1 };
    expect(diffJson({ a: shared, b: shared }, { a: { x: 1 }, b: { x: 2 } })!.changes).toHaveLength(1);
  });
  it("refuses member names that no RFC 9535 path can hold (lone surrogates)", () => {
    expect(thrown(() => diffJson({}, { "\ud800": 1 })).code).toBe("invalid_input");
  });
});

describe("deep documents", () => {
  function nest(depth: number, leaf: unknown): unknown {
    let value = leaf;
    for (let i = 0; i < depth; i++) value = i % 2 ? { k: value } : [value];
    return value;
  }

  it("refuses 10,000 levels with too_deep by default, never a RangeError", () => {
    const deep = nest(10_000, 1);
    for (const [a, b] of [
      [deep, nest(10_000, 2)],
      [{}, { x: deep }],
      [deep, deep],
    ]) {
      const error = thrown(() => diffJson(a, b));
      expect(error.code).toBe("too_deep");
    }
  });

  it("diffs 10,000 levels end to end when maxDepth allows, fingerprint included", () => {
    const a = nest(10_000, 1);
    const b = nest(10_000, 2);
    const diff = diffJson(a, b, { maxDepth: 20_000 })!;
    expect(diff.changes).toHaveLength(1);
    const change = diff.changes[0]!;
    expect(change).toMatchObject({ op: "replace", before: 1, after: 2, severity: "info" });
    expect(resolvePath(b, change.path)).toEqual({ found: true, value: 2 });
    expect(diff.diffFingerprint).toMatch(/^sha256:/);
    // a whole deep subtree added: validated and fingerprinted without recursion
    const added = diffJson({}, { x: a }, { maxDepth: 20_000 })!;
    expect(added.changes[0]).toMatchObject({ path: "$.x", op: "add" });
    expect(diffJson(a, nest(10_000, 1), { maxDepth: 20_000 })).toBeNull();
  });

  it("still finds cycles below the cycle-check depth when maxDepth is unlimited", () => {
    const loop: Record<string, unknown> = {};
    loop.next = loop;
    expect(thrown(() => diffJson({}, { loop }, { maxDepth: Number.POSITIVE_INFINITY })).message).toContain("cyclic");
  });
});
