import { JSONPath } from "jsonpath-plus";
import { parseStringLiteral } from "../paths/literal.js";
import type { PathSegment } from "../paths/index.js";

/**
 * One step of a compiled rule path. Names and indexes compare as strings, as jsonpath-plus
 * does (`$.a[0]` also selects a member named "0").
 */
export type PathStep =
  | { kind: "keys"; keys: readonly string[]; descendant: boolean }
  | { kind: "wildcard"; descendant: boolean }
  | { kind: "slice"; start: number; end: number; step: number; descendant: boolean };

/** A rule path compiled to steps over path segments, or a query jsonpath-plus must evaluate. */
export type CompiledPath = { kind: "steps"; steps: PathStep[] } | { kind: "query"; path: string };

const NAME_CHAR = /[^.[\]()?@^~*'"`,:\s$]/u;

/**
 * Compiles the simple forms of a JSONPath (names, `*`, `..`, indexes, non-negative slices and
 * unions of names or indexes) into steps; anything else (filters, scripts, negative indexes,
 * `^`, `~`) comes back as a query for jsonpath-plus. Returns an error message when the path
 * does not parse at all.
 */
export function compileJsonPath(path: string): CompiledPath | { kind: "error"; message: string } {
  if (path[0] !== "$") return { kind: "error", message: "a JSONPath starts with $" };
  const steps: PathStep[] = [];
  let i = 1;
  const n = path.length;
  try {
    while (i < n) {
      let descendant = false;
      if (path.startsWith("..", i)) {
        descendant = true;
        i += 2;
        if (path[i] === "[") {
          const [step, next] = readBracket(path, i, descendant);
          if (!step) return queryOrError(path);
          steps.push(step);
          i = next;
          continue;
        }
      } else if (path[i] === ".") {
        i++;
      } else if (path[i] === "[") {
        const [step, next] = readBracket(path, i, false);
        if (!step) return queryOrError(path);
        steps.push(step);
        i = next;
        continue;
      } else {
        return queryOrError(path);
      }
      if (path[i] === "*") {
        steps.push({ kind: "wildcard", descendant });
        i++;
        continue;
      }
      const start = i;
      while (i < n && NAME_CHAR.test(path[i]!)) i++;
      if (i === start) return queryOrError(path);
      steps.push({ kind: "keys", keys: [path.slice(start, i)], descendant });
    }
  } catch (error) {
    return { kind: "error", message: (error as Error).message };
  }
  return { kind: "steps", steps };
}

function readBracket(path: string, at: number, descendant: boolean): [PathStep | null, number] {
  let i = at + 1;
  const skip = (): void => {
    while (path[i] === " ") i++;
  };
  skip();
  if (path[i] === "*") {
    i++;
    skip();
    return path[i] === "]" ? [{ kind: "wildcard", descendant }, i + 1] : [null, i];
  }
  const keys: string[] = [];
  const sliceMatch = /^(\d*):(\d*)(?::(\d*))?\s*\]/.exec(path.slice(i));
  if (sliceMatch) {
    const step = sliceMatch[3] ? Number(sliceMatch[3]) : 1;
    if (step <= 0) return [null, i];
    const slice: PathStep = {
      kind: "slice",
      start: sliceMatch[1] ? Number(sliceMatch[1]) : 0,
      end: sliceMatch[2] ? Number(sliceMatch[2]) : Number.POSITIVE_INFINITY,
      step,
      descendant,
    };
    return [slice, i + sliceMatch[0].length];
  }
  for (;;) {
    const c = path[i];
    if (c === "'" || c === '"') {
      const [name, next] = parseStringLiteral(path, i + 1, c);
      keys.push(name);
      i = next;
    } else {
      const m = /^\d+/.exec(path.slice(i));
      if (!m || (m[0].length > 1 && m[0][0] === "0")) return [null, i];
      keys.push(m[0]);
      i += m[0].length;
    }
    skip();
    if (path[i] === "]") return [{ kind: "keys", keys, descendant }, i + 1];
    if (path[i] !== ",") return [null, i];
    i++;
    skip();
  }
}

/** A path outside the simple forms: valid when jsonpath-plus can split it and parse its scripts. */
function queryOrError(path: string): CompiledPath | { kind: "error"; message: string } {
  let parts: string[];
  try {
    parts = JSONPath.toPathArray(path);
  } catch (error) {
    return { kind: "error", message: (error as Error).message };
  }
  if (parts.length === 0 || parts[0] !== "$") return { kind: "error", message: "a JSONPath starts with $" };
  if (!balanced(path)) return { kind: "error", message: "unbalanced brackets, parentheses or quotes" };
  for (const part of parts) {
    if (part === "") return { kind: "error", message: "empty segment" };
    const script = /^\??\((.*)\)$/s.exec(part)?.[1];
    if (script === undefined) continue;
    try {
      const Script = (JSONPath.prototype as unknown as { safeVm: { Script: new (code: string) => unknown } }).safeVm.Script;
      new Script(script.replace(/@(?:parentProperty|parent|property|root|path)/g, "_$_x").replace(/@([.\s)[]|$)/g, "_$_v$1"));
    } catch (error) {
      return { kind: "error", message: `expression ${JSON.stringify(script)} does not parse: ${(error as Error).message}` };
    }
  }
  return { kind: "query", path };
}

function balanced(path: string): boolean {
  const stack: string[] = [];
  let quote: string | null = null;
  for (let i = 0; i < path.length; i++) {
    const c = path[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === "[" || c === "(") stack.push(c === "[" ? "]" : ")");
    else if (c === "]" || c === ")") {
      if (stack.pop() !== c) return false;
    }
  }
  return quote === null && stack.length === 0;
}

function stepMatches(step: PathStep, segment: PathSegment): boolean {
  switch (step.kind) {
    case "wildcard":
      return true;
    case "keys": {
      const key = typeof segment === "number" ? String(segment) : segment;
      return step.keys.length === 1 ? step.keys[0] === key : step.keys.includes(key);
    }
    case "slice":
      return typeof segment === "number" && segment >= step.start && segment < step.end && (segment - step.start) % step.step === 0;
  }
}

/**
 * Positions in `segments` at which the steps can end. A rule path matches a change when any
 * position is reachable (the change is at or below a selected node); an array-key pattern
 * matches an array when the end of the segments is reachable.
 */
function reachable(steps: readonly PathStep[], segments: readonly PathSegment[]): Uint8Array {
  const m = segments.length;
  let positions = new Uint8Array(m + 1);
  positions[0] = 1;
  for (const step of steps) {
    const next = new Uint8Array(m + 1);
    let any = false;
    for (let p = 0; p < m; p++) {
      if (!positions[p]) continue;
      if (step.descendant) {
        for (let q = p; q < m; q++) {
          if (!next[q + 1] && stepMatches(step, segments[q]!)) {
            next[q + 1] = 1;
            any = true;
          }
        }
      } else if (stepMatches(step, segments[p]!)) {
        next[p + 1] = 1;
        any = true;
      }
    }
    if (!any) return next;
    positions = next;
  }
  return positions;
}

/** True when the steps select the node at `segments` or one of its ancestors. */
export function matchesAtOrAbove(steps: readonly PathStep[], segments: readonly PathSegment[]): boolean {
  if (steps.length === 0) return true;
  if (steps.length > segments.length) return false;
  if (!steps.some((s) => s.descendant)) {
    // Child steps only: the first steps.length segments decide.
    for (let i = 0; i < steps.length; i++) if (!stepMatches(steps[i]!, segments[i]!)) return false;
    return true;
  }
  if (steps.length === 1) {
    // `$..name`: any segment.
    for (const segment of segments) if (stepMatches(steps[0]!, segment)) return true;
    return false;
  }
  return reachable(steps, segments).includes(1);
}

/** True when the steps select exactly the node at `segments`. */
export function matchesExactly(steps: readonly PathStep[], segments: readonly PathSegment[]): boolean {
  if (steps.length === 0) return segments.length === 0;
  return reachable(steps, segments)[segments.length] === 1;
}

/** Tokens of the nodes a jsonpath-plus query selects in a document, as a trie over string keys. */
export interface NodeTrie {
  end: boolean;
  children: Map<string, NodeTrie>;
}

/** Evaluates a query once on a document (jsonpath-plus, safe eval) into a trie of selected nodes. */
export function evaluateQuery(path: string, document: unknown): NodeTrie {
  const root: NodeTrie = { end: false, children: new Map() };
  const pointers = JSONPath({ path, json: document as object, resultType: "pointer", wrap: true, eval: "safe", ignoreEvalErrors: true }) as string[];
  for (const pointer of pointers) {
    let node = root;
    if (pointer !== "") {
      for (const raw of pointer.slice(1).split("/")) {
        const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
        let child = node.children.get(token);
        if (!child) {
          child = { end: false, children: new Map() };
          node.children.set(token, child);
        }
        node = child;
      }
    }
    node.end = true;
  }
  return root;
}

/** True when the trie holds the node at `segments` or one of its ancestors. */
export function trieMatchesAtOrAbove(trie: NodeTrie, segments: readonly PathSegment[]): boolean {
  let node: NodeTrie | undefined = trie;
  for (const segment of segments) {
    if (node.end) return true;
    node = node.children.get(typeof segment === "number" ? String(segment) : segment);
    if (!node) return false;
  }
  return node.end;
}
