import { DriftwatchError } from "../errors.js";

/**
 * Matching of arrays whose elements are objects sharing an identity key (configured or inferred).
 * Elements with a key on both sides pair up whatever their positions; when moves are wanted, the
 * elements kept in place form the longest increasing subsequence of old positions in new order and
 * the rest changed place.
 */
export interface KeyedMatch {
  /** Old and new index of each element on both sides, interleaved: [old0, new0, old1, new1, ...]. */
  pairs: number[];
  removed: number[];
  added: number[];
  /** True when the paired elements are not in the same relative order on both sides. */
  reordered: boolean;
  /** With `wantMoves`: the pairs that changed place (outside the longest ordered run). */
  moved: number[];
}

type Key = string | number;

function keyOf(element: unknown, key: string): Key | undefined {
  if (element === null || typeof element !== "object" || Array.isArray(element)) return undefined;
  if (!Object.hasOwn(element, key)) {
    // A nested identity: `metadata.uid` is the `uid` member of the element's `metadata` object.
    const dot = key.indexOf(".");
    if (dot <= 0 || dot === key.length - 1) return undefined;
    const outer = key.slice(0, dot);
    if (!Object.hasOwn(element, outer)) return undefined;
    return keyOf((element as Record<string, unknown>)[outer], key.slice(dot + 1));
  }
  const value = (element as Record<string, unknown>)[key];
  if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) return value;
  return undefined;
}

/**
 * Whether `key` is the only member of every element: then it is the element's value, not an
 * identity (`[{"a":1},{"a":2}]` is matched by position, so a changed `a` is reported where it is).
 * A nested key is the only member when it is all the element holds: `m.id` of `{"m":{"id":1}}`.
 */
function onlyMember(before: readonly unknown[], after: readonly unknown[], key: string): boolean {
  for (const side of [before, after]) {
    for (const element of side) if (!soleMember(element, key)) return false;
  }
  return true;
}

function soleMember(element: unknown, key: string): boolean {
  if (element === null || typeof element !== "object" || Array.isArray(element)) return false;
  let other: string | undefined;
  for (const name in element) {
    if (name === key || !Object.hasOwn(element, name)) continue;
    if (other !== undefined) return false;
    other = name;
  }
  if (other === undefined) return true;
  // `m.id`: the element holds `m` alone, and `m` holds `id` alone
  return key.startsWith(`${other}.`) && !Object.hasOwn(element, key) && soleMember((element as Record<string, unknown>)[other], key.slice(other.length + 1));
}

/** Members of nested objects tried as identities when no member of the element itself is one (`metadata.uid`, `node.id`). */
const NESTED_KEYS: readonly string[] = Object.freeze(["uid", "id", "uuid", "name", "key", "slug"]);
const MAX_NESTED_OBJECTS = 8;

/** True when the first element of either array carries the key (worth trying key matching). */
export function looksKeyed(before: readonly unknown[], after: readonly unknown[], key: string): boolean {
  return (
    (before.length > 0 || after.length > 0) &&
    (before.length === 0 || keyOf(before[0], key) !== undefined) &&
    (after.length === 0 || keyOf(after[0], key) !== undefined)
  );
}

/**
 * Key matching of two arrays, or null when they do not share an identity key (an element without
 * a string or number key, or a key repeated on one side). The common head and tail (same keys in
 * the same order) pair up directly; only the middle needs maps, and a key repeated inside the head
 * or tail only (the same keys at the same places on both sides) pairs by position, harmlessly.
 *
 * Every element whose key is on both sides is paired, in new-document order. `reordered` says
 * whether the pairs changed order; with `wantMoves`, `moved` lists the pairs outside the longest
 * run kept in order (the fewest elements that changed place), as [old, new, old, new, ...].
 */
export function matchByKey(before: readonly unknown[], after: readonly unknown[], key: string, wantMoves = false): KeyedMatch | null {
  const la = before.length;
  const lb = after.length;
  const min = la < lb ? la : lb;
  let head = 0;
  while (head < min) {
    const k = keyOf(before[head], key);
    if (k === undefined || k !== keyOf(after[head], key)) break;
    head++;
  }
  let tail = 0;
  while (tail < min - head) {
    const k = keyOf(before[la - 1 - tail], key);
    if (k === undefined || k !== keyOf(after[lb - 1 - tail], key)) break;
    tail++;
  }
  const pairs: number[] = [];
  for (let i = 0; i < head; i++) pairs.push(i, i);
  const removed: number[] = [];
  const added: number[] = [];
  let reordered = false;
  let moved: number[] = [];
  if (head + tail < la || head + tail < lb) {
    const oldIndex = new Map<Key, number>();
    for (let i = head; i < la - tail; i++) {
      const k = keyOf(before[i], key);
      if (k === undefined || oldIndex.has(k)) return null;
      oldIndex.set(k, i);
    }
    const count = lb - tail - head;
    const sources = new Int32Array(count);
    const seen = new Set<Key>();
    let last = -1;
    for (let j = 0; j < count; j++) {
      const k = keyOf(after[head + j], key);
      if (k === undefined || seen.has(k)) return null;
      seen.add(k);
      const source = oldIndex.get(k) ?? -1;
      sources[j] = source;
      if (source >= 0) {
        if (source < last) reordered = true;
        last = source;
      }
    }
    // A key of the common head or tail that also occurs in the middle repeats on one side.
    for (let i = 0; i < head; i++) {
      const k = keyOf(before[i], key)!;
      if (oldIndex.has(k) || seen.has(k)) return null;
    }
    for (let i = la - tail; i < la; i++) {
      const k = keyOf(before[i], key)!;
      if (oldIndex.has(k) || seen.has(k)) return null;
    }
    const keptOld = new Uint8Array(la);
    const kept = reordered && wantMoves ? longestIncreasing(sources) : undefined;
    for (let j = 0; j < count; j++) {
      const source = sources[j]!;
      if (source >= 0) {
        pairs.push(source, head + j);
        keptOld[source] = 1;
        if (kept !== undefined && !kept[j]) moved.push(source, head + j);
      } else added.push(head + j);
    }
    for (let i = head; i < la - tail; i++) if (!keptOld[i]) removed.push(i);
  }
  for (let t = tail - 1; t >= 0; t--) pairs.push(la - 1 - t, lb - 1 - t);
  if (!reordered) moved = [];
  const match = { pairs, removed, added, reordered, moved };
  if (!reordered && removed.length > 0 && added.length > 0) pairRetyped(before, after, key, match);
  return match;
}

/**
 * An identity does not change type: an element removed and one added in the same place of an
 * ordered match, whose keys are a string on one side and a number on the other
 * (`{"name": "worker"}` -> `{"name": 42}`), are the same element whose key member changed type.
 * They are paired, so the walk reports the type change at the key member (critical), not a removal
 * and an addition of the element. Only pairs that keep the match in order are made (so the pairs
 * stay in the same relative order on both sides and the patch stays valid).
 */
function pairRetyped(before: readonly unknown[], after: readonly unknown[], key: string, match: KeyedMatch): void {
  const { pairs, removed, added } = match;
  // pairs are in new-document order and, unreordered, in old-document order too
  let p = 0;
  let r = 0;
  const keptRemoved: number[] = [];
  const keptAdded: number[] = [];
  const merged: number[] = [];
  for (const j of added) {
    // the pairs before this addition
    while (p < pairs.length && pairs[p + 1]! < j) {
      merged.push(pairs[p]!, pairs[p + 1]!);
      p += 2;
    }
    // removals before the next pair's old index are candidates for this slot
    const limit = p < pairs.length ? pairs[p]! : before.length;
    const lower = merged.length > 0 ? merged[merged.length - 2]! : -1;
    while (r < removed.length && removed[r]! <= lower) keptRemoved.push(removed[r++]!);
    const i = r < removed.length && removed[r]! < limit ? removed[r]! : -1;
    const ki = i < 0 ? undefined : keyOf(before[i], key);
    const kj = keyOf(after[j], key);
    if (ki !== undefined && kj !== undefined && typeof ki !== typeof kj) {
      merged.push(i, j);
      r++;
    } else keptAdded.push(j);
  }
  for (; p < pairs.length; p += 2) merged.push(pairs[p]!, pairs[p + 1]!);
  while (r < removed.length) keptRemoved.push(removed[r++]!);
  if (keptAdded.length === added.length) return;
  match.pairs = merged;
  match.removed = keptRemoved;
  match.added = keptAdded;
}

/**
 * Identity keys tried first, in this order, on arrays of objects with no configured key: the
 * first one that every element of both arrays carries (a string or finite number) with no
 * repeats on either side is used.
 */
export const PREFERRED_ARRAY_KEYS: readonly string[] = Object.freeze(["id", "uuid", "key", "slug", "name", "sku"]);

/** Fields considered by the fallback inference: the first ones of the first element (sorted). */
const MAX_KEY_CANDIDATES = 64;
const PREFERRED = new Set(PREFERRED_ARRAY_KEYS);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The fallback of key inference: a string or integer member present and unique in every element
 * of both arrays and shared by at least one element of each (an identity that identifies nothing is a
 * value, not a key). The most shared wins; ties go to the name first in code-unit order, so
 * the choice never depends on member order.
 */
/** A fallback identity value: a string or an integer (a fractional number is a measurement, not an id). */
function identityOf(element: unknown, key: string): Key | undefined {
  const k = keyOf(element, key);
  if (typeof k !== "number") return k;
  // An integer identifies only under a name that says so: `size`, `count` or `stars` is a quantity.
  return Number.isInteger(k) && INTEGER_KEY_NAME.test(key) ? k : undefined;
}

/** Names under which an integer is an identity, not a quantity: `id`, `userId`, `number`, `code`, `rank`. */
export const INTEGER_KEY_NAME = /(?:^|_|-)(?:id|no|num|number|code|key|index|idx|rank|seq|position|pos|ref)$|(?:Id|ID|No|Num|Number|Code|Key|Index|Rank|Seq|Ref)$/;

function fallbackKey(before: readonly unknown[], after: readonly unknown[], exclude?: (name: string) => boolean): string | undefined {
  if (before.length === 0 || after.length === 0) return undefined;
  const first = before[0];
  if (!isPlainObject(first)) return undefined;
  let candidates: string[] = [];
  for (const name of Object.keys(first)) {
    if (!PREFERRED.has(name) && identityOf(first, name) !== undefined && exclude?.(name) !== true) candidates.push(name);
  }
  if (candidates.length === 0) return undefined;
  candidates.sort();
  if (candidates.length > MAX_KEY_CANDIDATES) candidates = candidates.slice(0, MAX_KEY_CANDIDATES);
  const oldValues = candidates.map(() => new Set<Key>());
  const alive = new Uint8Array(candidates.length).fill(1);
  let left = candidates.length;
  for (const element of before) {
    for (let c = 0; c < candidates.length; c++) {
      if (!alive[c]) continue;
      const k = identityOf(element, candidates[c]!);
      if (k === undefined || oldValues[c]!.has(k)) {
        alive[c] = 0;
        if (--left === 0) return undefined;
      } else oldValues[c]!.add(k);
    }
  }
  const newValues = candidates.map(() => new Set<Key>());
  const shared = new Int32Array(candidates.length);
  for (const element of after) {
    for (let c = 0; c < candidates.length; c++) {
      if (!alive[c]) continue;
      const k = identityOf(element, candidates[c]!);
      if (k === undefined || newValues[c]!.has(k)) {
        alive[c] = 0;
        if (--left === 0) return undefined;
      } else {
        newValues[c]!.add(k);
        if (oldValues[c]!.has(k)) shared[c] = shared[c]! + 1;
      }
    }
  }
  let best = -1;
  for (let c = 0; c < candidates.length; c++) if (alive[c] && shared[c]! > 0 && (best < 0 || shared[c]! > shared[best]!)) best = c;
  return best < 0 ? undefined : candidates[best];
}

/** Key inference and matching in one pass: the inferred key and its match, or undefined. */
export function inferKeyedMatch(
  before: readonly unknown[],
  after: readonly unknown[],
  wantMoves: boolean,
  exclude?: (name: string) => boolean,
): { key: string; match: KeyedMatch } | undefined {
  const probe = before.length > 0 ? before[0] : after[0];
  if (!isPlainObject(probe)) return undefined;
  for (const key of PREFERRED_ARRAY_KEYS) {
    if (!looksKeyed(before, after, key) || exclude?.(key) === true) continue;
    const match = matchByKey(before, after, key, wantMoves);
    if (match && !onlyMember(before, after, key)) return { key, match };
  }
  const key = fallbackKey(before, after, exclude);
  if (key !== undefined && !onlyMember(before, after, key)) {
    const match = matchByKey(before, after, key, wantMoves);
    if (match) return { key, match };
  }
  return nestedKeyedMatch(before, after, probe, wantMoves, exclude);
}

/**
 * An identity inside a nested object of every element (`metadata.uid`, `metadata.name`,
 * `node.id`): tried only when the element itself has none, in the order of NESTED_KEYS, and
 * kept when it pairs at least one element of each side.
 */
function nestedKeyedMatch(
  before: readonly unknown[],
  after: readonly unknown[],
  probe: Record<string, unknown>,
  wantMoves: boolean,
  exclude?: (name: string) => boolean,
): { key: string; match: KeyedMatch } | undefined {
  if (before.length === 0 || after.length === 0) return undefined;
  let objects = 0;
  for (const outer of Object.keys(probe).sort()) {
    const inner = probe[outer];
    if (!isPlainObject(inner) || exclude?.(outer) === true) continue;
    if (++objects > MAX_NESTED_OBJECTS) break;
    for (const name of NESTED_KEYS) {
      const key = `${outer}.${name}`;
      if (identityOf(inner, name) === undefined || !looksKeyed(before, after, key)) continue;
      const match = matchByKey(before, after, key, wantMoves);
      if (match && match.pairs.length > 0 && !onlyMember(before, after, key)) return { key, match };
    }
  }
  return undefined;
}

/** Marks a longest strictly increasing subsequence of the non-negative entries (patience sort). */
export function longestIncreasing(values: Int32Array): Uint8Array {
  const n = values.length;
  const tails: number[] = []; // index into values of the smallest tail of each length
  const previous = new Int32Array(n).fill(-1);
  for (let j = 0; j < n; j++) {
    const v = values[j]!;
    if (v < 0) continue;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (values[tails[mid]!]! < v) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[j] = tails[lo - 1]!;
    tails[lo] = j;
  }
  const marks = new Uint8Array(n);
  let j = tails.length > 0 ? tails[tails.length - 1]! : -1;
  while (j >= 0) {
    marks[j] = 1;
    j = previous[j]!;
  }
  return marks;
}

/**
 * The identity key `diffJson` infers for two versions of an array of objects when no `arrayKeys`
 * entry names one, or undefined when the elements are matched by position. In order: the first of
 * `id`, `uuid`, `key`, `slug`, `name`, `sku` that every element of both arrays carries (a string
 * or finite number) without repeats on either side (a repeat is tolerated only within the common
 * head or tail, where both sides hold the same keys in the same order and pair by position); else,
 * among the other members of the first element holding a string or an integer (a fractional
 * number is a measurement, not an identity) that are present and unique in every element of both
 * arrays, the one whose values
 * are shared by the most elements of both arrays (at least one), ties going to the name first in
 * code-unit order, so member order never changes the choice.
 */
export function inferArrayKey(before: unknown[], after: unknown[]): string | undefined {
  if (!Array.isArray(before) || !Array.isArray(after)) {
    const which = Array.isArray(before) ? "after" : "before";
    throw new DriftwatchError("invalid_input", `inferArrayKey: ${which} must be an array`, { details: [{ path: which, message: "expected an array" }] });
  }
  return inferKeyedMatch(before, after, false)?.key;
}
