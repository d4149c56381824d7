// The default JSON diff on dynamic targets (issue 11, point 1): inferred identity keys, moves and
// float noise, with no policy rules at all.
import fastJsonPatch, { type Operation } from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { buildPendingDiffDetectedEvent, type Change, diffJson, explainDiffJson, fingerprintChanges, inferArrayKey, isDriftwatchError, toJsonPatch } from "../src/index.js";

function ops(changes: Change[] | undefined): string[] {
  return (changes ?? []).map((c) => (c.op === "move" ? `move ${c.from} -> ${c.path}` : `${c.op} ${c.path}`));
}

function applied(before: unknown, changes: Change[]): unknown {
  return fastJsonPatch.applyPatch(structuredClone(before), toJsonPatch(changes) as Operation[], true, true).newDocument;
}

describe("inferArrayKey", () => {
  it("prefers id, uuid, key, slug, name, sku in that order", () => {
    expect(inferArrayKey([{ id: 1, uuid: "u1", name: "a" }], [{ id: 2, uuid: "u2", name: "b" }])).toBe("id");
    expect(inferArrayKey([{ uuid: "u1", name: "a" }], [{ uuid: "u1", name: "b" }])).toBe("uuid");
    expect(inferArrayKey([{ slug: "a", sku: "x" }], [{ slug: "b", sku: "x" }])).toBe("slug");
    expect(inferArrayKey([{ name: "a", sku: 1 }, { name: "b", sku: 2 }], [{ name: "b", sku: 2 }])).toBe("name");
    expect(inferArrayKey([{ sku: "p1", n: 1 }], [{ sku: "p1", n: 2 }])).toBe("sku");
  });
  it("skips a preferred key that repeats or is missing somewhere", () => {
    // id repeats in after; uuid is missing from one element; code is unique everywhere.
    const before = [{ id: 1, uuid: "a", code: "x" }, { id: 2, code: "y" }];
    const after = [{ id: 1, uuid: "a", code: "y" }, { id: 1, uuid: "b", code: "x" }];
    expect(inferArrayKey(before, after)).toBe("code");
  });
  it("falls back to a scalar member unique on both sides and shared by both, the most shared first, then by name", () => {
    // v is unique on both sides but no value is shared: a value, not an identity.
    expect(inferArrayKey([{ x: "1", v: 1 }, { x: "2", v: 2 }], [{ x: "1", v: 5 }, { x: "2", v: 6 }])).toBe("x");
    // Both b and cId are shared by two elements: the name first in code-unit order wins, whatever the member order.
    expect(inferArrayKey([{ cId: 1, b: "p" }, { cId: 2, b: "q" }], [{ cId: 2, b: "q" }, { cId: 1, b: "p" }])).toBe("b");
    expect(inferArrayKey([{ b: "p", cId: 1 }, { b: "q", cId: 2 }], [{ b: "q", cId: 2 }, { b: "p", cId: 1 }])).toBe("b");
    // cId shares 2 values, b only 1.
    expect(inferArrayKey([{ b: "p", cId: 1 }, { b: "q", cId: 2 }], [{ b: "z", cId: 2 }, { b: "p", cId: 1 }])).toBe("cId");
    // An integer is an identity only under a name that says so: a size or a count is a quantity.
    expect(inferArrayKey([{ size: 1, v: [1] }, { size: 2, v: [2] }], [{ size: 2, v: [2] }, { size: 1, v: [1] }])).toBeUndefined();
  });
  it("gives undefined when no member can be an identity", () => {
    expect(inferArrayKey([{ v: 1 }, { v: 1 }], [{ v: 1 }])).toBeUndefined(); // repeated
    expect(inferArrayKey([{ v: [1] }], [{ v: [1] }])).toBeUndefined(); // not a scalar
    expect(inferArrayKey([1, 2], [2, 1])).toBeUndefined(); // not objects
    expect(inferArrayKey([{ v: 1 }], [{ v: 2 }])).toBeUndefined(); // nothing shared
    // A fractional number is a measurement, never a fallback identity (even when unique and stable).
    expect(inferArrayKey([{ score: 0.5, n: 1.5 }, { score: 0.7, n: 2.5 }], [{ score: 0.7, n: 2.5 }, { score: 0.5, n: 1.5 }])).toBeUndefined();
    expect(inferArrayKey([{ rank: 1, score: 0.5 }, { rank: 2, score: 0.7 }], [{ rank: 2, score: 0.7 }, { rank: 1, score: 0.5 }])).toBe("rank");
    expect(inferArrayKey([], [])).toBeUndefined();
  });
  it("refuses non-arrays with invalid_input", () => {
    try {
      inferArrayKey({} as unknown as unknown[], []);
      expect.unreachable();
    } catch (error) {
      expect(isDriftwatchError(error) && error.code).toBe("invalid_input");
    }
  });
});

describe("arrays of objects matched by an inferred key", () => {
  const before = {
    items: [
      { sku: "p1", title: "Kettle", price: 25 },
      { sku: "p2", title: "Toaster", price: 40 },
      { sku: "p3", title: "Blender", price: 90 },
    ],
  };

  it("finds no change when the list comes back in another order", () => {
    const after = { items: [before.items[2], before.items[0], before.items[1]] };
    expect(diffJson(before, after)).toBeNull();
    // Matched by position, the same pair is a cascade of replaced values.
    expect(diffJson(before, after, { defaultArrayKey: false })!.changes.length).toBeGreaterThanOrEqual(6);
  });

  it("reports an element's own edit at its identity (its path in the new document), not as an index cascade", () => {
    const after = { items: [{ sku: "p3", title: "Blender", price: 95 }, before.items[0], before.items[1]] };
    expect(diffJson(before, after)!.changes).toEqual([{ path: "$.items[0].price", category: "value", op: "replace", severity: "info", before: 90, after: 95 }]);
  });

  it("reports a removal at the old path and an addition at the new one", () => {
    const after = { items: [{ sku: "p4", title: "Mixer", price: 60 }, before.items[2], before.items[0]] };
    expect(ops(diffJson(before, after)!.changes)).toEqual(["remove $.items[1]", "add $.items[0]"]);
  });

  it("uses a fallback key, chosen the same way whatever the member order", () => {
    const b1 = { rows: [{ code: "A", n: 1 }, { code: "B", n: 2 }, { code: "C", n: 3 }] };
    const a1 = { rows: [{ code: "C", n: 3 }, { code: "A", n: 1 }, { code: "B", n: 7 }] };
    const diff = diffJson(b1, a1)!;
    expect(ops(diff.changes)).toEqual(["replace $.rows[2].n"]);
    const reordered = { rows: a1.rows.map((r) => ({ n: r.n, code: r.code })) };
    expect(diffJson(b1, reordered)!.diffFingerprint).toBe(diff.diffFingerprint);
  });

  it("with reportMoves, reports each element that changed place as one move, and the patch gives the new document", () => {
    const after = { items: [{ sku: "p3", title: "Blender", price: 95 }, before.items[0], before.items[1]] };
    const diff = diffJson(before, after, { reportMoves: true })!;
    expect(ops(diff.changes)).toEqual(["move $.items[2] -> $.items[0]", "replace $.items[0].price"]);
    const move = diff.changes[0]!;
    expect(move).toMatchObject({ category: "value", severity: "info", before: before.items[2], after: after.items[0] });
    expect(applied(before, diff.changes)).toEqual(after);
  });

  it("keeps explicit arrayKeys and defaultArrayKey ahead of the inference", () => {
    const b2 = [{ id: 1, code: "x" }, { id: 2, code: "y" }];
    const a2 = [{ id: 2, code: "x" }, { id: 1, code: "y" }];
    expect(diffJson(b2, a2)!.changes.map((c) => c.path)).toEqual(["$[0].code", "$[1].code"]); // inferred: id
    expect(diffJson(b2, a2, { arrayKeys: { $: "code" } })!.changes.map((c) => c.path)).toEqual(["$[0].id", "$[1].id"]);
    expect(diffJson(b2, a2, { defaultArrayKey: "code" })!.changes.map((c) => c.path)).toEqual(["$[0].id", "$[1].id"]);
  });
});

describe("moves where order matters", () => {
  it("reports a rotated scalar array as one move, not three replaces", () => {
    const diff = diffJson(["a", "b", "c"], ["b", "c", "a"])!;
    expect(diff.changes).toEqual([
      { path: "$[2]", from: "$[0]", category: "value", op: "move", severity: "info", detail: "array element moved", before: "a", after: "a" },
    ]);
    expect(applied(["a", "b", "c"], diff.changes)).toEqual(["b", "c", "a"]);
  });

  it("reports a swap in an index-matched array of objects as moves, and edits in place as edits", () => {
    const before = [[1, 2], [3], [5]];
    const after = [[3], [1, 2], [5]];
    const diff = diffJson(before, after)!;
    expect(diff.changes.every((c) => c.op === "move")).toBe(true);
    expect(diff.changes).toHaveLength(1);
    expect(applied(before, diff.changes)).toEqual(after);
    expect(ops(diffJson([[1, 2], [3, 4]], [[1, 2], [3, 5]])!.changes)).toEqual(["replace $[1][1]"]);
    // Containers whose shapes line up position by position are taken for edits in place.
    expect(ops(diffJson([[1, 2], [3, 4]], [[3, 4], [1, 2]])!.changes)).toHaveLength(4);
  });

  it("reports an object moved from one list to another as one move", () => {
    const card = { title: "Write docs", points: 3, tags: ["docs"] };
    const before = { todo: [{ title: "A" }, { title: "B" }, card], done: [{ title: "C" }] };
    const after = { todo: [{ title: "A" }, { title: "B" }], done: [card, { title: "C" }] };
    const diff = diffJson(before, after)!;
    expect(diff.changes).toEqual([
      { path: "$.done[0]", from: "$.todo[2]", category: "value", op: "move", severity: "info", detail: "array element moved", before: card, after: card },
    ]);
    expect(applied(before, diff.changes)).toEqual(after);
  });

  it("keeps a member renamed with the same value a removal plus an addition (a schema change)", () => {
    expect(ops(diffJson({ price: 10 }, { cost: 10 })!.changes)).toEqual(["add $.cost", "remove $.price"]);
  });

  it("fingerprints the origin of a move", () => {
    const base = { path: "$.b[0]", category: "value", op: "move", severity: "info", before: 1, after: 1 } as const;
    expect(fingerprintChanges([{ ...base, from: "$.a[0]" }])).not.toBe(fingerprintChanges([{ ...base, from: "$.c[0]" }]));
  });

  it("keeps the origin of a move in the diff.detected event's changes", () => {
    const diff = diffJson(["a", "b", "c"], ["b", "c", "a"])!;
    const event = buildPendingDiffDetectedEvent({ ...diff, id: "dif_1", monitorId: "mon_1", snapshotId: "snp_1" }, { occurredAt: "2026-11-25T06:00:00Z" });
    expect(event.data.changes).toEqual([{ path: "$[2]", category: "value", op: "move", from: "$[0]", severity: "info" }]);
  });

  it("matches policy rules on op move", () => {
    const diff = diffJson(["a", "b", "c"], ["b", "c", "a"], { policy: { rules: [{ op: "move", severity: "high" }] } })!;
    expect(diff.topSeverity).toBe("high");
    expect(diffJson(["a", "b", "c"], ["b", "c", "a"], { policy: { rules: [{ op: "move", action: "ignore" }] } })).toBeNull();
  });
});

describe("float noise", () => {
  it("treats numbers within a relative 1e-12 as equal by default", () => {
    expect(diffJson({ total: 0.1 + 0.2 }, { total: 0.3 })).toBeNull();
    expect(diffJson({ big: 1e15 }, { big: 1e15 + 0.125 })).toBeNull();
    expect(diffJson({ v: 1 }, { v: 1 + 1e-9 })).not.toBeNull();
    expect(diffJson({ v: 0 }, { v: 1e-300 })).not.toBeNull(); // nothing is noise next to zero
  });
  it("can be changed or turned off with floatEpsilon", () => {
    expect(diffJson({ total: 0.1 + 0.2 }, { total: 0.3 }, { floatEpsilon: 0 })!.changes).toHaveLength(1);
    expect(diffJson({ v: 1 }, { v: 1.0001 }, { floatEpsilon: 1e-3 })).toBeNull();
  });
  it("refuses a floatEpsilon that is not a number in [0, 1)", () => {
    for (const bad of [-1, 1, Number.NaN, "1e-12"]) {
      try {
        diffJson({}, {}, { floatEpsilon: bad as number });
        expect.unreachable();
      } catch (error) {
        expect(isDriftwatchError(error) && error.code).toBe("invalid_input");
      }
    }
  });
});

describe("explanations of the defaults", () => {
  it("say which inference hid a reorder and which tolerance hid float noise", () => {
    const before = { items: [{ id: "a", v: 0.1 + 0.2 }, { id: "b", v: 1 }] };
    const after = { items: [{ id: "b", v: 1 }, { id: "a", v: 0.3 }] };
    const { diff, explanations } = explainDiffJson(before, after);
    expect(diff).toBeNull();
    expect(explanations).toEqual([
      expect.objectContaining({ path: "$.items", outcome: "inferred_key" }),
      expect.objectContaining({ path: "$.items[1].v", outcome: "float_noise", rule: "floatEpsilon" }),
    ]);
    expect(explanations[0]!.detail).toContain('inferred key "id"');
  });
  it("name a configured key as the rule, and rate every surviving change", () => {
    const { diff, explanations } = explainDiffJson([{ sku: 1 }, { sku: 2 }], [{ sku: 2 }, { sku: 1 }, { sku: 3 }], { arrayKeys: { $: "sku" } });
    expect(diff!.changes).toHaveLength(1);
    expect(explanations).toEqual([
      expect.objectContaining({ path: "$", outcome: "inferred_key", rule: 'arrayKeys["$"]' }),
      expect.objectContaining({ path: "$[2]", outcome: "rated", severity: "info" }),
    ]);
  });
  it("are attached by diffJson with explain: true and absent otherwise", () => {
    expect(diffJson({ a: 1 }, { a: 2 }, { explain: true })!.explanations).toEqual([
      { path: "$.a", outcome: "rated", severity: "info", detail: "value changed: default severity info" },
    ]);
    expect(diffJson({ a: 1 }, { a: 2 })).not.toHaveProperty("explanations");
  });
});
