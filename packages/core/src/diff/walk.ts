import { DriftwatchError } from "../errors.js";
import { formatPath, formatSegment, type PathSegment } from "../paths/index.js";

/**
 * A container on the path being walked. Segments differ between the documents inside
 * key-matched arrays, so each node carries its segment in the old and in the new document.
 */
export interface PathNode {
  parent: PathNode | null;
  oldSeg: PathSegment;
  newSeg: PathSegment;
  /** Number of segments from the root. */
  depth: number;
  before: object | undefined;
  after: object | undefined;
  /** Formatted paths of this node in each document, filled in on first use. */
  oldPath?: string;
  newPath?: string;
}

export type Side = "before" | "after";

/** Segments of `parent` + `last` in one document. The root node contributes none. */
export function segmentsOf(parent: PathNode | null, last: PathSegment | undefined, side: Side): PathSegment[] {
  const out: PathSegment[] = [];
  if (last !== undefined) out.push(last);
  for (let node = parent; node !== null && node.parent !== null; node = node.parent) {
    out.push(side === "before" ? node.oldSeg : node.newSeg);
  }
  return out.reverse();
}

/** The formatted path of a node in one document, cached on the nodes along the way. */
export function pathOf(node: PathNode | null, side: Side): string {
  if (node === null || node.parent === null) return "$";
  const field = side === "before" ? "oldPath" : "newPath";
  const cached = node[field];
  if (cached !== undefined) return cached;
  const pending: PathNode[] = [];
  let n: PathNode | null = node;
  let base = "$";
  while (n !== null && n.parent !== null) {
    const c = n[field];
    if (c !== undefined) {
      base = c;
      break;
    }
    pending.push(n);
    n = n.parent;
  }
  for (let i = pending.length - 1; i >= 0; i--) {
    const p = pending[i]!;
    base += formatSegment(side === "before" ? p.oldSeg : p.newSeg);
    p[field] = base;
  }
  return base;
}

export function invalidInput(side: Side, parent: PathNode | null, last: PathSegment | undefined, message: string): DriftwatchError {
  const path = formatPath(segmentsOf(parent, last, side));
  return new DriftwatchError("invalid_input", `${side} document: ${message} at ${path}`, {
    details: [{ path, message: `${side} document: ${message}` }],
  });
}

/** Why a value is not JSON, or undefined when it is a JSON primitive or a plain container. */
export function notJson(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return value - value === 0 ? undefined : `non-finite number ${String(value)}`;
    case "object": {
      if (value === null || Array.isArray(value)) return undefined;
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto === Object.prototype || proto === null) return undefined;
      const name = (proto as { constructor?: { name?: string } }).constructor?.name ?? "object";
      return `${name} is not a plain object`;
    }
    case "undefined":
      return "undefined is not JSON";
    case "bigint":
      return "BigInt is not JSON";
    case "function":
      return "a function is not JSON";
    case "symbol":
      return "a symbol is not JSON";
  }
}

export const CYCLE_CHECK_EVERY = 1000;

/**
 * Called for every container node. Walks cannot recurse forever: a cyclic document grows without
 * end, so every CYCLE_CHECK_EVERY levels (and past maxDepth) the chain is searched for a repeated
 * container, reported as `invalid_input`; a merely deep document past maxDepth is `too_deep`.
 */
export function checkDepth(node: PathNode, maxDepth: number): void {
  const d = node.depth;
  if (d < maxDepth && (d === 0 || d % CYCLE_CHECK_EVERY !== 0)) return;
  for (const side of ["before", "after"] as const) {
    if (node[side] === undefined) continue;
    const chain: PathNode[] = [];
    for (let n: PathNode | null = node; n !== null; n = n.parent) chain.push(n);
    chain.reverse();
    const seen = new Set<object>();
    for (const n of chain) {
      const container = n[side];
      if (container === undefined) continue;
      if (seen.has(container)) throw invalidInput(side, n.parent, side === "before" ? n.oldSeg : n.newSeg, "cyclic reference");
      seen.add(container);
    }
  }
  if (d >= maxDepth) {
    const path = formatPath(segmentsOf(node.parent, node.newSeg, node.after === undefined ? "before" : "after"));
    throw new DriftwatchError("too_deep", `documents nest containers deeper than maxDepth (${maxDepth} levels)`, {
      details: [{ path, message: `nesting deeper than ${maxDepth} levels` }],
    });
  }
}

/**
 * Checks that a whole subtree of one document is JSON (plain objects and arrays, finite numbers,
 * strings, booleans, null; no cycles; at most maxDepth levels), without recursion.
 */
export function validateTree(value: unknown, side: Side, parent: PathNode | null, seg: PathSegment | undefined, maxDepth: number): void {
  const problem = notJson(value);
  if (problem !== undefined) throw invalidInput(side, parent, seg, problem);
  if (value === null || typeof value !== "object") return;
  const make = (p: PathNode | null, s: PathSegment, v: object): PathNode => {
    const node: PathNode = { parent: p, oldSeg: s, newSeg: s, depth: p === null ? 0 : p.depth + 1, before: undefined, after: undefined };
    node[side] = v;
    checkDepth(node, maxDepth);
    return node;
  };
  const stack: PathNode[] = [make(parent, seg ?? "", value)];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const container = node[side]!;
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const child: unknown = container[i];
        if (child !== null && typeof child === "object") {
          const p = notJson(child);
          if (p !== undefined) throw invalidInput(side, node, i, p);
          stack.push(make(node, i, child));
        } else {
          const p = notJson(child);
          if (p !== undefined) throw invalidInput(side, node, i, p);
        }
      }
    } else {
      for (const key of Object.keys(container)) {
        const child = (container as Record<string, unknown>)[key];
        const p = notJson(child);
        if (p !== undefined) throw invalidInput(side, node, key, p);
        if (child !== null && typeof child === "object") stack.push(make(node, key, child));
      }
    }
  }
}
