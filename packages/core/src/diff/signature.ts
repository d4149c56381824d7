import { longestIncreasing } from "./arrays.js";

/**
 * Signatures: one string per JSON value, equal exactly when the values are equal as JSON (object
 * members in any order). They pair equal elements of arrays compared as multisets and find equal
 * values removed in one place and added in another (moves). Building them costs time linear in
 * the values' size, so each diff has a budget of characters; past it, or on anything that is not
 * plain JSON, `signatureOf` answers undefined and the caller falls back to comparing in place
 * (the walk then reports what is wrong with the input).
 */
export class SignatureBudget {
  constructor(public left: number) {}
}

/** Characters of signatures one diff may build: four times a 1 MB document. */
export const SIGNATURE_BUDGET = 4 * 1024 * 1024;

const MAX_SIGNATURE_DEPTH = 1000;

function plainContainer(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function leaf(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return value - value === 0 ? (Object.is(value, -0) ? "0" : String(value)) : undefined;
    case "boolean":
      return value ? "true" : "false";
    case "object":
      return value === null ? "null" : undefined;
    default:
      return undefined;
  }
}

/** The signature of a JSON value, or undefined (over budget, too deep, cyclic or not JSON). */
export function signatureOf(value: unknown, budget: SignatureBudget): string | undefined {
  if (typeof value !== "object" || value === null) {
    const text = leaf(value);
    if (text === undefined) return undefined;
    budget.left -= text.length;
    return budget.left < 0 ? undefined : text;
  }
  if (!plainContainer(value)) return undefined;
  // Iterative canonical JSON (sorted member names), bounded in depth and in characters.
  const parts: string[] = [];
  const stack: { value: object; keys: string[] | null; i: number }[] = [];
  const open = (v: object): boolean => {
    if (stack.length >= MAX_SIGNATURE_DEPTH || !plainContainer(v)) return false;
    const keys = Array.isArray(v) ? null : Object.keys(v).sort();
    stack.push({ value: v, keys, i: 0 });
    parts.push(keys === null ? "[" : "{");
    return true;
  };
  open(value);
  let size = 0;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const keys = frame.keys;
    const length = keys === null ? (frame.value as unknown[]).length : keys.length;
    if (frame.i >= length) {
      stack.pop();
      parts.push(keys === null ? "]" : "}");
      continue;
    }
    if (frame.i > 0) parts.push(",");
    let child: unknown;
    if (keys === null) child = (frame.value as unknown[])[frame.i];
    else {
      const name = keys[frame.i]!;
      child = (frame.value as Record<string, unknown>)[name];
      const label = JSON.stringify(name);
      parts.push(label, ":");
      size += label.length + 1;
    }
    frame.i++;
    if (typeof child === "object" && child !== null) {
      if (!open(child)) return undefined;
      size += 2;
    } else {
      const text = leaf(child);
      if (text === undefined) return undefined;
      parts.push(text);
      size += text.length + 1;
    }
    if (size > budget.left) {
      budget.left = -1;
      return undefined;
    }
  }
  budget.left -= size;
  return parts.join("");
}

/**
 * What can be learnt about a value without walking it: the whole signature of a primitive, the
 * type and size of a container. Equal values have equal shallow signatures.
 */
export function shallowSignature(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return leaf(value);
  if (Array.isArray(value)) return `[${value.length}`;
  let count = 0;
  for (const _ in value) count++;
  return `{${count}`;
}

/**
 * Index-matched arrays whose middles `a[start..end)` and `b[start..end)` hold the same elements
 * in another order: the elements that changed place (the fewest, outside the longest run kept in
 * order), as [old, new, old, new, ...]; an empty list when the middles are equal. Null when they
 * are not permutations of each other, or when telling would cost more than the budget. Containers
 * whose shapes line up position by position are taken for edits in place, not moves, without
 * building their signatures.
 */
export function permutationMoves(a: readonly unknown[], b: readonly unknown[], start: number, end: number, budget: SignatureBudget): number[] | null {
  const counts = new Map<string, number>();
  let inPlace = true;
  let containers = false;
  for (let i = start; i < end; i++) {
    const sa = shallowSignature(a[i]);
    const sb = shallowSignature(b[i]);
    if (sa === undefined || sb === undefined) return null;
    if (sa !== sb) inPlace = false;
    if (typeof a[i] === "object" && a[i] !== null) containers = true;
    counts.set(sa, (counts.get(sa) ?? 0) + 1);
  }
  if (inPlace && containers) return null;
  for (let i = start; i < end; i++) {
    const sb = shallowSignature(b[i])!;
    const n = counts.get(sb);
    if (n === undefined || n === 0) return null;
    counts.set(sb, n - 1);
  }
  // Same shallow multiset: now the full signatures, queueing old positions per signature.
  const positions = new Map<string, number[]>();
  for (let i = start; i < end; i++) {
    const s = signatureOf(a[i], budget);
    if (s === undefined) return null;
    const list = positions.get(s);
    if (list === undefined) positions.set(s, [i]);
    else list.push(i);
  }
  const count = end - start;
  const sources = new Int32Array(count);
  const taken = new Map<string, number>();
  for (let j = 0; j < count; j++) {
    const s = signatureOf(b[start + j], budget);
    if (s === undefined) return null;
    const list = positions.get(s);
    const used = taken.get(s) ?? 0;
    if (list === undefined || used >= list.length) return null;
    taken.set(s, used + 1);
    sources[j] = list[used]!;
  }
  const kept = longestIncreasing(sources);
  const moves: number[] = [];
  for (let j = 0; j < count; j++) if (!kept[j]) moves.push(sources[j]!, start + j);
  return moves;
}
