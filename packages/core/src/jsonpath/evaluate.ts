import { DriftwatchError } from "../errors.js";
import type { PathSegment } from "../paths/index.js";
import { compileIRegexp } from "./iregexp.js";
import type { Comparable, FunctionCall, LogicalExpr, Query, Selector } from "./parse.js";

/** A selected node: its value and the way to it (a linked list from the root, built lazily). */
export interface JsonNode {
  value: unknown;
  parent: JsonNode | undefined;
  key: PathSegment | undefined;
}

/**
 * A budget of evaluation steps shared by evaluations (one rule's, or all rules on one document).
 * Every node visited, selector applied, comparison, function call and character a regex reads
 * costs steps; when the budget runs out the evaluation stops with `rule_budget_exceeded`.
 */
export class EvalBudget {
  used = 0;
  constructor(readonly limit: number) {}

  charge(steps: number): void {
    this.used += steps;
    if (this.used > this.limit) {
      throw new DriftwatchError("rule_budget_exceeded", `JSONPath evaluation exceeded its budget of ${this.limit} steps`);
    }
  }
}

/** Default step budget of one rule's evaluation on one document. */
export const DEFAULT_RULE_BUDGET = 1_000_000;
/** Default step budget of all rules' evaluations on one document. */
export const DEFAULT_DOCUMENT_BUDGET = 10_000_000;

const NOTHING: unique symbol = Symbol("Nothing");
type Value = unknown | typeof NOTHING;

/** The nodes `query` selects in `document`, in RFC 9535 order, charging `budget`. */
export function evaluateJsonPath(query: Query, document: unknown, budget: EvalBudget = new EvalBudget(DEFAULT_RULE_BUDGET)): JsonNode[] {
  const root: JsonNode = { value: document, parent: undefined, key: undefined };
  return new Evaluator(root, budget).query(query, root);
}

/** The path of a node as segments from the root. */
export function nodeSegments(node: JsonNode): PathSegment[] {
  const out: PathSegment[] = [];
  for (let n: JsonNode | undefined = node; n?.parent; n = n.parent) out.push(n.key!);
  return out.reverse();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

class Evaluator {
  constructor(
    private readonly root: JsonNode,
    private readonly budget: EvalBudget,
  ) {}

  query(query: Query, current: JsonNode): JsonNode[] {
    let nodes: JsonNode[] = [query.root === "$" ? this.root : current];
    for (const segment of query.segments) {
      const next: JsonNode[] = [];
      for (const node of nodes) {
        if (segment.descendant) {
          // Visit the node and its descendants in document order, without recursion.
          const stack: JsonNode[] = [node];
          while (stack.length > 0) {
            const visited = stack.pop()!;
            this.budget.charge(1);
            for (const selector of segment.selectors) this.select(selector, visited, next);
            const children = this.children(visited);
            for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
          }
        } else {
          this.budget.charge(1);
          for (const selector of segment.selectors) this.select(selector, node, next);
        }
      }
      nodes = next;
      if (nodes.length === 0) break;
    }
    return nodes;
  }

  private children(node: JsonNode): JsonNode[] {
    const value = node.value;
    if (Array.isArray(value)) {
      this.budget.charge(value.length);
      return value.map((v, i) => ({ value: v, parent: node, key: i }));
    }
    if (isObject(value)) {
      const keys = Object.keys(value);
      this.budget.charge(keys.length);
      return keys.map((k) => ({ value: value[k], parent: node, key: k }));
    }
    return [];
  }

  private select(selector: Selector, node: JsonNode, out: JsonNode[]): void {
    const value = node.value;
    switch (selector.kind) {
      case "name":
        if (isObject(value) && Object.hasOwn(value, selector.name)) out.push({ value: value[selector.name], parent: node, key: selector.name });
        return;
      case "index":
        if (Array.isArray(value)) {
          const i = selector.index < 0 ? value.length + selector.index : selector.index;
          if (i >= 0 && i < value.length) out.push({ value: value[i], parent: node, key: i });
        }
        return;
      case "wildcard":
        for (const child of this.children(node)) out.push(child);
        return;
      case "slice":
        if (Array.isArray(value)) this.slice(selector, node, value, out);
        return;
      case "filter":
        for (const child of this.children(node)) {
          if (this.logical(selector.expr, child)) out.push(child);
        }
        return;
    }
  }

  /** RFC 9535 section 2.3.4.2.2. */
  private slice(selector: Extract<Selector, { kind: "slice" }>, node: JsonNode, array: unknown[], out: JsonNode[]): void {
    const len = array.length;
    const step = selector.step ?? 1;
    if (step === 0) return;
    const normalize = (i: number): number => (i >= 0 ? i : len + i);
    const start = selector.start ?? (step > 0 ? 0 : len - 1);
    const end = selector.end ?? (step > 0 ? len : -len - 1);
    if (step > 0) {
      const lower = Math.min(Math.max(normalize(start), 0), len);
      const upper = Math.min(Math.max(normalize(end), 0), len);
      this.budget.charge(Math.max(0, Math.ceil((upper - lower) / step)));
      for (let i = lower; i < upper; i += step) out.push({ value: array[i], parent: node, key: i });
    } else {
      const upper = Math.min(Math.max(normalize(start), -1), len - 1);
      const lower = Math.min(Math.max(normalize(end), -1), len - 1);
      this.budget.charge(Math.max(0, Math.ceil((upper - lower) / -step)));
      for (let i = upper; lower < i; i += step) out.push({ value: array[i], parent: node, key: i });
    }
  }

  private logical(expr: LogicalExpr, current: JsonNode): boolean {
    this.budget.charge(1);
    switch (expr.kind) {
      case "or":
        return expr.items.some((e) => this.logical(e, current));
      case "and":
        return expr.items.every((e) => this.logical(e, current));
      case "not":
        return !this.logical(expr.expr, current);
      case "exists":
        return this.query(expr.query, current).length > 0;
      case "test":
        return this.call(expr.call, current) === true;
      case "compare": {
        const left = this.comparable(expr.left, current);
        const right = this.comparable(expr.right, current);
        switch (expr.op) {
          case "==":
            return this.equal(left, right);
          case "!=":
            return !this.equal(left, right);
          case "<":
            return this.less(left, right);
          case ">":
            return this.less(right, left);
          case "<=":
            return this.less(left, right) || this.equal(left, right);
          case ">=":
            return this.less(right, left) || this.equal(left, right);
        }
      }
    }
  }

  private comparable(c: Comparable, current: JsonNode): Value {
    switch (c.kind) {
      case "literal":
        return c.value;
      case "query": {
        const nodes = this.query(c.query, current);
        return nodes.length === 1 ? nodes[0]!.value : NOTHING;
      }
      case "call":
        return this.call(c.call, current);
    }
  }

  private valueArgument(call: FunctionCall, index: number, current: JsonNode): Value {
    const arg = call.args[index]!;
    if (arg.kind === "literal") return arg.value;
    if (arg.kind === "query") {
      const nodes = this.query(arg.query, current);
      return nodes.length === 1 ? nodes[0]!.value : NOTHING;
    }
    if (arg.kind === "call") return this.call(arg.call, current);
    return NOTHING;
  }

  private nodesArgument(call: FunctionCall, current: JsonNode): JsonNode[] {
    const arg = call.args[0]!;
    return arg.kind === "query" ? this.query(arg.query, current) : [];
  }

  private call(call: FunctionCall, current: JsonNode): Value {
    this.budget.charge(1);
    switch (call.name) {
      case "length": {
        const v = this.valueArgument(call, 0, current);
        if (typeof v === "string") {
          this.budget.charge(v.length);
          let n = 0;
          for (let i = 0; i < v.length; i++) {
            const c = v.charCodeAt(i);
            if (!(c >= 0xdc00 && c <= 0xdfff && i > 0 && v.charCodeAt(i - 1) >= 0xd800 && v.charCodeAt(i - 1) <= 0xdbff)) n++;
          }
          return n;
        }
        if (Array.isArray(v)) return v.length;
        if (isObject(v)) return Object.keys(v).length;
        return NOTHING;
      }
      case "count":
        return this.nodesArgument(call, current).length;
      case "value": {
        const nodes = this.nodesArgument(call, current);
        return nodes.length === 1 ? nodes[0]!.value : NOTHING;
      }
      case "match":
      case "search": {
        const input = this.valueArgument(call, 0, current);
        const pattern = this.valueArgument(call, 1, current);
        if (typeof input !== "string" || typeof pattern !== "string") return false;
        // A linear-time engine: the cost is the pattern's size plus the input's length.
        this.budget.charge(pattern.length + input.length);
        const regexp = compileIRegexp(pattern);
        if (!regexp) return false;
        return call.name === "match" ? regexp.matches(input) : regexp.matcher(input).find();
      }
    }
  }

  private equal(a: Value, b: Value): boolean {
    if (a === NOTHING || b === NOTHING) return a === b;
    // Iterative deep equality, so nesting depth cannot exhaust the stack.
    const stack: [unknown, unknown][] = [[a, b]];
    while (stack.length > 0) {
      const [x, y] = stack.pop()!;
      this.budget.charge(1);
      if (x === y) continue;
      if (Array.isArray(x)) {
        if (!Array.isArray(y) || x.length !== y.length) return false;
        for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]]);
        continue;
      }
      if (isObject(x)) {
        if (!isObject(y)) return false;
        const keys = Object.keys(x);
        if (keys.length !== Object.keys(y).length) return false;
        for (const k of keys) {
          if (!Object.hasOwn(y, k)) return false;
          stack.push([x[k], y[k]]);
        }
        continue;
      }
      return false;
    }
    return true;
  }

  private less(a: Value, b: Value): boolean {
    if (typeof a === "number" && typeof b === "number") return a < b;
    if (typeof a === "string" && typeof b === "string") {
      this.budget.charge(Math.min(a.length, b.length));
      return compareCodePoints(a, b) < 0;
    }
    return false;
  }
}

/** Orders strings by Unicode scalar values (not UTF-16 code units), as RFC 9535 requires. */
function compareCodePoints(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(j)!;
    if (x !== y) return x - y;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return a.length - i - (b.length - j);
}
