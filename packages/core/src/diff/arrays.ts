/**
 * Matching of arrays whose elements are objects sharing an identity key. Elements kept in place
 * form the longest increasing subsequence of old positions in new order (so reordering still
 * round-trips through a JSON Patch); everything else is a removal plus an addition.
 */
export interface KeyedMatch {
  /** Old and new index of each kept element, interleaved: [old0, new0, old1, new1, ...]. */
  pairs: number[];
  removed: number[];
  added: number[];
}

type Key = string | number;

function keyOf(element: unknown, key: string): Key | undefined {
  if (element === null || typeof element !== "object" || Array.isArray(element)) return undefined;
  const value = (element as Record<string, unknown>)[key];
  if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) {
    return Object.hasOwn(element, key) ? value : undefined;
  }
  return undefined;
}

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
 * a string or number key, or a key repeated among the elements that moved). The common head and
 * tail (same keys in the same order) pair up directly; only the middle needs maps.
 */
export function matchByKey(before: readonly unknown[], after: readonly unknown[], key: string): KeyedMatch | null {
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
    for (let j = 0; j < count; j++) {
      const k = keyOf(after[head + j], key);
      if (k === undefined || seen.has(k)) return null;
      seen.add(k);
      sources[j] = oldIndex.get(k) ?? -1;
    }
    const kept = longestIncreasing(sources);
    const keptOld = new Uint8Array(la);
    for (let j = 0; j < count; j++) {
      if (kept[j]) {
        pairs.push(sources[j]!, head + j);
        keptOld[sources[j]!] = 1;
      } else added.push(head + j);
    }
    for (let i = head; i < la - tail; i++) if (!keptOld[i]) removed.push(i);
  }
  for (let t = tail - 1; t >= 0; t--) pairs.push(la - 1 - t, lb - 1 - t);
  return { pairs, removed, added };
}

/** Marks a longest strictly increasing subsequence of the non-negative entries (patience sort). */
function longestIncreasing(values: Int32Array): Uint8Array {
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
