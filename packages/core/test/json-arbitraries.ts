// fast-check generators of JSON documents and of related pairs of documents for the diff tests.
import fc from "fast-check";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Member names, weighted towards the ones that need bracket notation or escaping. */
export const keyArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("a", "b", "c", "name", "value", "updatedAt", "items", "x1", "_y") },
  {
    weight: 2,
    arbitrary: fc.constantFrom("a.b", "", " ", "x y", "it's", 'say "hi"', "back\\slash", "new\nline", "tab\t", "\u0000nul", "0", "12", "-1", "☺", "ü", "日本", "😀", "$", "~1", "a/b", "~", "[0]", "constructor", "toString", "hasOwnProperty")
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 6, unit: "grapheme" }) },
);

/** Finite numbers without -0 (JSON has no -0, and deep equality would tell it from 0). */
const numberArb = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }).map((n) => (Object.is(n, -0) ? 0 : n)));

export const leafArb: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  numberArb,
  fc.string({ maxLength: 8, unit: "grapheme" }),
  fc.constantFrom("", "x", "1", "null"),
);

/** Plain-object dictionary with unique keys, built without prototype surprises. */
function dict<T>(entries: [string, T][]): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [k, v] of entries) if (!Object.hasOwn(out, k)) out[k] = v;
  return out;
}

export const { json: jsonArb } = fc.letrec<{ json: Json; object: Json; array: Json }>((tie) => ({
  json: fc.oneof({ depthSize: "small", withCrossShrink: true }, leafArb, tie("object"), tie("array")),
  object: fc.array(fc.tuple(keyArb, tie("json")), { maxLength: 5 }).map(dict),
  array: fc.array(tie("json"), { maxLength: 5 }),
}));

/** A chain of objects and arrays nested `depth` levels, for deep-nesting cases. */
export const deepArb: fc.Arbitrary<Json> = fc
  .tuple(fc.integer({ min: 10, max: 60 }), fc.array(fc.constantFrom("o", "a"), { minLength: 60, maxLength: 60 }), keyArb, leafArb)
  .map(([depth, kinds, key, leaf]) => {
    let value: Json = leaf;
    for (let i = 0; i < depth; i++) value = kinds[i] === "o" ? { [key]: value, n: i } : [i, value];
    return value;
  });

type Pair = [Json, Json];

/**
 * Related pairs: mostly the same shape with some leaves, members and elements changed, plus
 * arrays of keyed objects with insertions, removals and reordering, and unrelated values
 * (type changes, including at the root).
 */
export const { pair: pairArb } = fc.letrec<{ pair: Pair; objectPair: Pair; arrayPair: Pair; keyedPair: Pair }>((tie) => ({
  pair: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leafArb.map((v): Pair => [v, v]),
    fc.tuple(leafArb, leafArb),
    fc.tuple(jsonArb, jsonArb),
    tie("objectPair"),
    tie("arrayPair"),
    tie("keyedPair"),
    fc.tuple(deepArb, deepArb),
  ),
  objectPair: fc
    .tuple(
      fc.array(fc.tuple(keyArb, tie("pair")), { maxLength: 5 }),
      fc.array(fc.tuple(keyArb, jsonArb), { maxLength: 2 }),
      fc.array(fc.tuple(keyArb, jsonArb), { maxLength: 2 }),
    )
    .map(([shared, onlyA, onlyB]): Pair => {
      const a = dict([...shared.map(([k, p]): [string, Json] => [k, p[0]]), ...onlyA]);
      const b = dict([...shared.map(([k, p]): [string, Json] => [k, p[1]]), ...onlyB]);
      return [a, b];
    }),
  arrayPair: fc
    .tuple(fc.array(tie("pair"), { maxLength: 5 }), fc.array(jsonArb, { maxLength: 2 }), fc.array(jsonArb, { maxLength: 2 }), fc.nat(5), fc.nat(5))
    .map(([shared, extraA, extraB, atA, atB]): Pair => {
      const a = shared.map((p) => p[0]);
      const b = shared.map((p) => p[1]);
      a.splice(Math.min(atA, a.length), 0, ...extraA);
      b.splice(Math.min(atB, b.length), 0, ...extraB);
      return [a, b];
    }),
  keyedPair: fc
    .tuple(
      fc.uniqueArray(fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constantFrom("a", "b", "c", "d", "e", "f")), { maxLength: 8 }),
      fc.array(fc.tuple(fc.constantFrom<"both" | "a" | "b">("both", "both", "a", "b"), tie("pair")), { minLength: 8, maxLength: 8 }),
      fc.array(fc.integer(), { minLength: 8, maxLength: 8 }),
      // "code" is no preferred key: matched only by the fallback inference.
      fc.constantFrom("id", "sku", "code"),
    )
    .map(([ids, plans, order, key]): Pair => {
      const a: Json[] = [];
      const b: { sort: number; value: Json }[] = [];
      ids.forEach((id, i) => {
        const [where, [va, vb]] = plans[i]!;
        if (where !== "b") a.push({ [key]: id, v: va });
        if (where !== "a") b.push({ sort: order[i]!, value: { [key]: id, v: vb } });
      });
      b.sort((x, y) => x.sort - y.sort);
      return [a, b.map((x) => x.value)];
    }),
}));

/** A deep copy with the members of every object in another order. */
export function reorderKeys(value: Json, seed: number): Json {
  if (Array.isArray(value)) return value.map((v, i) => reorderKeys(v, seed + i));
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  const rotated = keys.length > 0 ? [...keys.slice(seed % keys.length), ...keys.slice(0, seed % keys.length)].reverse() : keys;
  const out: Record<string, Json> = {};
  for (const k of rotated) out[k] = reorderKeys(value[k]!, seed + 1);
  return out;
}
