import fc from "fast-check";
import fastJsonPatch, { type Operation } from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { type Change, canonicalJson, diffJson, maxSeverity, parsePath, resolvePath, toJsonPatch } from "../src/index.js";
import { type Json, jsonArb, pairArb, reorderKeys } from "./json-arbitraries.js";

const RUNS = 3000;

function apply(document: Json, changes: Change[]): unknown {
  const ops = toJsonPatch(changes) as Operation[];
  return fastJsonPatch.applyPatch(structuredClone(document), ops, true, true).newDocument;
}

describe("diffJson properties", () => {
  it("finds nothing between a document and itself, or a copy with other key order", () => {
    fc.assert(
      fc.property(jsonArb, fc.nat(), (a, seed) => {
        expect(diffJson(a, a)).toBeNull();
        expect(diffJson(a, reorderKeys(a, seed))).toBeNull();
      }),
      { numRuns: RUNS },
    );
  });

  it("gives a patch that turns a into b (reportMoves on), paths that resolve to the changed nodes, consistent counts", () => {
    fc.assert(
      fc.property(pairArb, ([a, b]) => {
        const diff = diffJson(a, b, { reportMoves: true, floatEpsilon: 0 });
        if (diff === null) {
          expect(b).toEqual(a);
          return;
        }
        expect(apply(a, diff.changes)).toEqual(b);
        expect(diff.schemaChanges + diff.valueChanges).toBe(diff.changes.length);
        expect(diff.schemaChanges).toBe(diff.changes.filter((c) => c.category === "schema").length);
        expect(diff.topSeverity).toBe(maxSeverity(diff.changes.map((c) => c.severity)));
        expect(diff.classification).toBe(diff.schemaChanges > 0 ? "schema_change" : "value_change");
        expect(diff.diffFingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
        for (const change of diff.changes) {
          const segments = parsePath(change.path);
          if (change.op === "remove") {
            const node = resolvePath(a, segments);
            expect(node).toEqual({ found: true, value: change.before });
          } else if (change.op === "move") {
            expect(resolvePath(a, change.from!)).toEqual({ found: true, value: change.before });
            expect(resolvePath(b, segments)).toEqual({ found: true, value: change.after });
          } else {
            const node = resolvePath(b, segments);
            expect(node).toEqual({ found: true, value: change.after });
          }
        }
        if (Array.isArray(a) !== Array.isArray(b) || typeof a !== typeof b || a === null || b === null) {
          // a root type change is one replace at $
          if (jsonKind(a) !== jsonKind(b)) expect(diff.changes).toEqual([expect.objectContaining({ path: "$", op: "replace" })]);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("by default reports what reportMoves reports except the moves of reordered keyed elements", () => {
    fc.assert(
      fc.property(pairArb, ([a, b]) => {
        const quiet = diffJson(a, b, { floatEpsilon: 0 })?.changes ?? [];
        const exact = diffJson(a, b, { reportMoves: true, floatEpsilon: 0 })?.changes ?? [];
        const line = (c: Change): string => JSON.stringify([c.op, c.from, c.path, c.before, c.after, c.severity]);
        const exactLines = exact.map(line);
        for (const change of quiet) expect(exactLines).toContain(line(change));
        const quietLines = new Set(quiet.map(line));
        for (const change of exact) if (!quietLines.has(line(change))) expect(change.op).toBe("move");
        // Without reorders both are the same, and the quiet patch turns a into b up to element order.
        if (quiet.length === exact.length) expect(sortArrays(quiet.length === 0 ? a : apply(a, quiet))).toEqual(sortArrays(b));
      }),
      { numRuns: RUNS },
    );
  });

  it("gives the same fingerprint whatever the key order of the inputs", () => {
    fc.assert(
      fc.property(pairArb, fc.nat(), fc.nat(), ([a, b], s1, s2) => {
        const one = diffJson(a, b);
        const two = diffJson(reorderKeys(a, s1), reorderKeys(b, s2));
        expect(two?.diffFingerprint).toBe(one?.diffFingerprint);
        expect(two?.changes.length).toBe(one?.changes.length);
      }),
      { numRuns: 1500 },
    );
  });

  it("treats prepending to a keyed array as one add, whatever the length", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.constantFrom("id", "sku"), (n, key) => {
        const items = Array.from({ length: n }, (_, i) => ({ [key]: `k${i}`, n: i }));
        const after = [{ [key]: "new", n: -1 }, ...items];
        const diff = diffJson({ items }, { items: after }, { arrayKeys: { "$.items": key } });
        expect(diff?.changes).toEqual([{ path: "$.items[0]", category: "value", op: "add", severity: "info", after: after[0] }]);
      }),
      { numRuns: 200 },
    );
  });
});

/** A deep copy with every array's elements sorted by their canonical JSON (order-insensitive comparison). */
function sortArrays(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(sortArrays).sort((x, y) => (canonicalJson(x) < canonicalJson(y) ? -1 : canonicalJson(x) > canonicalJson(y) ? 1 : 0));
  }
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sortArrays(v)]));
}

function jsonKind(v: Json): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}
