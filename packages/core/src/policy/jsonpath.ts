import { DriftwatchError } from "../errors.js";
import {
  DEFAULT_DOCUMENT_BUDGET,
  DEFAULT_RULE_BUDGET,
  EvalBudget,
  evaluateJsonPath,
  iregexpProblem,
  type JsonNode,
  parseJsonPath,
  type Query,
} from "../jsonpath/index.js";
import type { Argument, LogicalExpr } from "../jsonpath/parse.js";
import type { PathSegment } from "../paths/index.js";

export { DEFAULT_DOCUMENT_BUDGET, DEFAULT_RULE_BUDGET, EvalBudget } from "../jsonpath/index.js";

/**
 * One step of a compiled rule path. Names and indexes compare as strings (`$.a[0]` also selects
 * a member named "0").
 */
export type PathStep =
  | { kind: "keys"; keys: readonly string[]; descendant: boolean }
  | { kind: "wildcard"; descendant: boolean }
  | { kind: "slice"; start: number; end: number; step: number; descendant: boolean };

/**
 * A rule path compiled to steps over path segments, or an RFC 9535 query (filters, negative
 * indexes and slices) that the budgeted evaluator runs on the document.
 */
export type CompiledPath = { kind: "steps"; steps: PathStep[] } | { kind: "query"; path: string; query: Query };

/**
 * Highest polynomial degree (in the document's size) a rule path's evaluation may cost, by the
 * static estimate of `estimateDegree`: `$..*[?@..x]` is 2, `$..*..*..*..*` is 4 (refused).
 */
export const MAX_PATH_DEGREE = 3;

/**
 * Compiles an RFC 9535 JSONPath for a policy rule. Paths without filters, negative indexes or
 * negative slices compile into steps over path segments; others into a query the budgeted
 * evaluator runs. Returns an error message when the path does not parse, uses a slice step of 0
 * (it selects nothing), passes match() or search() a literal that is not an I-Regexp, or is
 * estimated too costly to evaluate.
 */
export function compileJsonPath(path: string): CompiledPath | { kind: "error"; message: string } {
  let query: Query;
  try {
    query = parseJsonPath(path);
  } catch (error) {
    return { kind: "error", message: parseMessage(error) };
  }
  const problem = lintQuery(query);
  if (problem !== undefined) return { kind: "error", message: problem };
  const degree = estimateDegree(query);
  if (degree > MAX_PATH_DEGREE) {
    return {
      kind: "error",
      message: `too costly: its evaluation grows as the document's size to the power ${degree} (at most ${MAX_PATH_DEGREE}; nest fewer .. segments and filters)`,
    };
  }
  const steps = toSteps(query);
  return steps ? { kind: "steps", steps } : { kind: "query", path, query };
}

function parseMessage(error: unknown): string {
  if (error instanceof DriftwatchError) {
    const detail = error.details?.[0]?.message;
    return `does not parse: ${detail ?? error.message}`;
  }
  throw error;
}

/** Policy-level refusals of queries RFC 9535 accepts but a rule should not hold. */
function lintQuery(query: Query): string | undefined {
  for (const segment of query.segments) {
    for (const selector of segment.selectors) {
      if (selector.kind === "slice" && selector.step === 0) return "slice step 0 selects nothing";
      if (selector.kind === "filter") {
        const problem = lintExpr(selector.expr);
        if (problem !== undefined) return problem;
      }
    }
  }
  return undefined;
}

function lintExpr(expr: LogicalExpr): string | undefined {
  switch (expr.kind) {
    case "or":
    case "and":
      for (const item of expr.items) {
        const p = lintExpr(item);
        if (p !== undefined) return p;
      }
      return undefined;
    case "not":
      return lintExpr(expr.expr);
    case "exists":
      return lintQuery(expr.query);
    case "test":
      return lintArguments(expr.call.name, expr.call.args);
    case "compare":
      for (const side of [expr.left, expr.right]) {
        const p = side.kind === "query" ? lintQuery(side.query) : side.kind === "call" ? lintArguments(side.call.name, side.call.args) : undefined;
        if (p !== undefined) return p;
      }
      return undefined;
  }
}

function lintArguments(name: string, args: readonly Argument[]): string | undefined {
  for (const [i, arg] of args.entries()) {
    if ((name === "match" || name === "search") && i === 1 && arg.kind === "literal" && typeof arg.value === "string") {
      const p = iregexpProblem(arg.value);
      if (p !== undefined) return `${name}(): ${p}`;
    }
    const p =
      arg.kind === "query"
        ? lintQuery(arg.query)
        : arg.kind === "call"
          ? lintArguments(arg.call.name, arg.call.args)
          : arg.kind === "logical"
            ? lintExpr(arg.expr)
            : undefined;
    if (p !== undefined) return p;
  }
  return undefined;
}

/**
 * A static estimate of a query's cost as a power of the document's size: each `..` segment visits
 * every node below each node it starts from (+1), and a filter costs its selected nodes times its
 * most costly inner query.
 */
export function estimateDegree(query: Query): number {
  let nodes = 0;
  let work = 0;
  for (const segment of query.segments) {
    if (segment.descendant) nodes += 1;
    else if (segment.selectors.some((s) => s.kind !== "name" && s.kind !== "index")) nodes = Math.max(nodes, 1);
    work = Math.max(work, nodes);
    for (const selector of segment.selectors) {
      if (selector.kind === "filter") work = Math.max(work, Math.max(nodes, 1) + exprDegree(selector.expr));
    }
  }
  return work;
}

function exprDegree(expr: LogicalExpr): number {
  switch (expr.kind) {
    case "or":
    case "and":
      return Math.max(0, ...expr.items.map(exprDegree));
    case "not":
      return exprDegree(expr.expr);
    case "exists":
      return estimateDegree(expr.query);
    case "test":
      return argsDegree(expr.call.args);
    case "compare":
      return Math.max(
        ...[expr.left, expr.right].map((side) => (side.kind === "query" ? estimateDegree(side.query) : side.kind === "call" ? argsDegree(side.call.args) : 0)),
      );
  }
}

function argsDegree(args: readonly Argument[]): number {
  return Math.max(
    0,
    ...args.map((arg) =>
      arg.kind === "query" ? estimateDegree(arg.query) : arg.kind === "call" ? argsDegree(arg.call.args) : arg.kind === "logical" ? exprDegree(arg.expr) : 0,
    ),
  );
}

/** The query as steps over path segments, or undefined when it needs the evaluator. */
function toSteps(query: Query): PathStep[] | undefined {
  const steps: PathStep[] = [];
  for (const segment of query.segments) {
    const { descendant, selectors } = segment;
    if (selectors.length === 1 && selectors[0]!.kind === "wildcard") {
      steps.push({ kind: "wildcard", descendant });
      continue;
    }
    if (selectors.length === 1 && selectors[0]!.kind === "slice") {
      const { start, end, step } = selectors[0]!;
      if ((start ?? 0) < 0 || (end ?? 0) < 0 || (step ?? 1) <= 0) return undefined;
      steps.push({ kind: "slice", start: start ?? 0, end: end ?? Number.POSITIVE_INFINITY, step: step ?? 1, descendant });
      continue;
    }
    const keys: string[] = [];
    for (const selector of selectors) {
      if (selector.kind === "name") keys.push(selector.name);
      else if (selector.kind === "index" && selector.index >= 0) keys.push(String(selector.index));
      else return undefined;
    }
    steps.push({ kind: "keys", keys, descendant });
  }
  return steps;
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

/** The nodes a query selects in a document, as a trie over string keys. */
export interface NodeTrie {
  end: boolean;
  children: Map<string, NodeTrie>;
}

/**
 * Evaluates a query once on a document into a trie of selected nodes, within a step budget: at
 * most DEFAULT_RULE_BUDGET steps for this evaluation and what is left of `documentBudget`
 * (shared by every rule evaluated on the same document). Over budget it throws
 * `rule_budget_exceeded` naming `label` (the rule's path field).
 */
export function evaluateQuery(query: Query, document: unknown, documentBudget: EvalBudget, label: string): NodeTrie {
  const left = documentBudget.limit - documentBudget.used;
  const budget = new EvalBudget(Math.max(0, Math.min(DEFAULT_RULE_BUDGET, left)));
  let nodes;
  try {
    nodes = evaluateJsonPath(query, document, budget);
  } catch (error) {
    if (error instanceof DriftwatchError && error.code === "rule_budget_exceeded") {
      const which = left < DEFAULT_RULE_BUDGET ? `the ${documentBudget.limit} steps all rules may take on one document` : `its budget of ${DEFAULT_RULE_BUDGET} steps`;
      throw new DriftwatchError("rule_budget_exceeded", `${label} exceeded ${which}; simplify the rule`, {
        details: [{ path: label, message: `evaluation exceeded ${which}` }],
      });
    }
    throw error;
  } finally {
    documentBudget.used += budget.used;
  }
  // Each selected node joins the trie through its nearest ancestor already there, so building
  // the trie costs the number of distinct nodes reached, not the sum of their depths.
  const root: NodeTrie = { end: false, children: new Map() };
  const placed = new Map<JsonNode, NodeTrie>();
  for (const selected of nodes) {
    const chain: JsonNode[] = [];
    let at: JsonNode | undefined = selected;
    let trie: NodeTrie | undefined;
    while (at?.parent && !(trie = placed.get(at))) {
      chain.push(at);
      at = at.parent;
    }
    let node = trie ?? root;
    for (let i = chain.length - 1; i >= 0; i--) {
      const token = String(chain[i]!.key);
      let child = node.children.get(token);
      if (!child) {
        child = { end: false, children: new Map() };
        node.children.set(token, child);
      }
      placed.set(chain[i]!, child);
      node = child;
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
