import { parseStringLiteral, pathError } from "../paths/literal.js";

/**
 * RFC 9535 JSONPath queries as a syntax tree. The parser accepts exactly the RFC grammar
 * (section 2 and appendix A) and checks function well-typedness (section 2.4.3); it never
 * evaluates anything. Filter nesting and query length are bounded so that parsing is linear and
 * cannot exhaust the stack.
 */
export interface Query {
  /** `$` (absolute) or `@` (relative, inside filters). */
  root: "$" | "@";
  segments: Segment[];
}

export interface Segment {
  descendant: boolean;
  selectors: Selector[];
}

export type Selector =
  | { kind: "name"; name: string }
  | { kind: "wildcard" }
  | { kind: "index"; index: number }
  | { kind: "slice"; start: number | undefined; end: number | undefined; step: number | undefined }
  | { kind: "filter"; expr: LogicalExpr };

export type LogicalExpr =
  | { kind: "or"; items: LogicalExpr[] }
  | { kind: "and"; items: LogicalExpr[] }
  | { kind: "not"; expr: LogicalExpr }
  | { kind: "compare"; op: CompareOp; left: Comparable; right: Comparable }
  | { kind: "exists"; query: Query }
  | { kind: "test"; call: FunctionCall };

export type CompareOp = "==" | "!=" | "<" | "<=" | ">" | ">=";

export type Comparable = { kind: "literal"; value: unknown } | { kind: "query"; query: Query } | { kind: "call"; call: FunctionCall };

export type FunctionName = "length" | "count" | "match" | "search" | "value";

export type Argument =
  | { kind: "literal"; value: unknown }
  | { kind: "query"; query: Query }
  | { kind: "call"; call: FunctionCall }
  | { kind: "logical"; expr: LogicalExpr };

export interface FunctionCall {
  name: FunctionName;
  args: Argument[];
}

type ParamType = "value" | "nodes" | "logical";

const FUNCTIONS: Record<FunctionName, { params: ParamType[]; result: ParamType }> = {
  length: { params: ["value"], result: "value" },
  count: { params: ["nodes"], result: "value" },
  match: { params: ["value", "value"], result: "logical" },
  search: { params: ["value", "value"], result: "logical" },
  value: { params: ["nodes"], result: "value" },
};

/** Longest query text the parser reads. */
export const MAX_QUERY_LENGTH = 4096;
/** Deepest nesting of filters, parentheses and function calls. */
export const MAX_NESTING = 32;

const MAX_INT = 2 ** 53 - 1;

/** An operand before we know whether it is compared, tested or passed to a function. */
type Operand = { kind: "literal"; value: unknown } | { kind: "query"; query: Query } | { kind: "call"; call: FunctionCall };

/** What `parseOr` returns: a logical expression, or a lone operand nothing combined. */
type Parsed = { kind: "expr"; expr: LogicalExpr } | { kind: "operand"; operand: Operand };

/** Parses an RFC 9535 query; throws `invalid_path` with the position of the first problem. */
export function parseJsonPath(text: string): Query {
  if (typeof text !== "string") throw pathError(String(text), 0, "a JSONPath is a string");
  if (text.length > MAX_QUERY_LENGTH) throw pathError(text.slice(0, 40) + "…", 0, `a JSONPath has at most ${MAX_QUERY_LENGTH} characters`);
  return new Parser(text).parseRoot();
}

function isBlank(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

function isNameFirst(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || (code >= 0x80 && code <= 0xd7ff) || code >= 0xe000
  );
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

class Parser {
  private i = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  private fail(message: string, at = this.i): never {
    throw pathError(this.text, at, message);
  }

  private skip(): void {
    while (isBlank(this.text[this.i])) this.i++;
  }

  private enter(): void {
    if (++this.depth > MAX_NESTING) this.fail(`filters, parentheses and function calls nest at most ${MAX_NESTING} deep`);
  }

  parseRoot(): Query {
    if (this.text[0] !== "$") this.fail("a JSONPath starts with $");
    this.i = 1;
    const query: Query = { root: "$", segments: this.parseSegments() };
    if (this.i < this.text.length) this.fail(isBlank(this.text[this.i]) ? "trailing blank" : `unexpected ${JSON.stringify(this.text[this.i])}`);
    return query;
  }

  /** `*(S segment)`; leaves the position before any blanks that no segment follows. */
  private parseSegments(): Segment[] {
    const segments: Segment[] = [];
    for (;;) {
      const save = this.i;
      this.skip();
      const c = this.text[this.i];
      if (c === "[") segments.push({ descendant: false, selectors: this.parseBracket() });
      else if (c === ".") {
        if (this.text[this.i + 1] === ".") {
          this.i += 2;
          const d = this.text[this.i];
          if (d === "[") segments.push({ descendant: true, selectors: this.parseBracket() });
          else segments.push({ descendant: true, selectors: [this.parseShorthand("..")] });
        } else {
          this.i++;
          segments.push({ descendant: false, selectors: [this.parseShorthand(".")] });
        }
      } else {
        this.i = save;
        return segments;
      }
    }
  }

  private parseShorthand(after: string): Selector {
    if (this.text[this.i] === "*") {
      this.i++;
      return { kind: "wildcard" };
    }
    const start = this.i;
    const first = this.text.codePointAt(this.i);
    if (first === undefined || !isNameFirst(first)) {
      this.fail(first === undefined ? `a member name or * must follow ${after}` : `a member name or * must follow ${after} (use ['…'] for other names)`);
    }
    while (this.i < this.text.length) {
      const code = this.text.codePointAt(this.i)!;
      if (!(isNameFirst(code) || (code >= 0x30 && code <= 0x39))) break;
      if (code >= 0xd800 && code <= 0xdfff) this.fail("lone surrogate");
      this.i += code > 0xffff ? 2 : 1;
    }
    return { kind: "name", name: this.text.slice(start, this.i) };
  }

  private parseBracket(): Selector[] {
    this.i++; // [
    const selectors: Selector[] = [];
    for (;;) {
      this.skip();
      selectors.push(this.parseSelector());
      this.skip();
      const c = this.text[this.i];
      if (c === "]") {
        this.i++;
        return selectors;
      }
      if (c !== ",") this.fail(c === undefined ? "unterminated [" : "expected ',' or ']'");
      this.i++;
    }
  }

  private parseSelector(): Selector {
    const c = this.text[this.i];
    if (c === "'" || c === '"') {
      const [name, next] = parseStringLiteral(this.text, this.i + 1, c);
      this.i = next;
      return { kind: "name", name };
    }
    if (c === "*") {
      this.i++;
      return { kind: "wildcard" };
    }
    if (c === "?") {
      this.i++;
      this.skip();
      this.enter();
      const expr = this.toLogical(this.parseOr(), "a filter");
      this.depth--;
      return { kind: "filter", expr };
    }
    if (c === ":" || c === "-" || isDigit(c)) {
      const start = c === ":" ? undefined : this.parseInt();
      this.skip();
      if (this.text[this.i] !== ":") {
        if (start === undefined) this.fail("expected an index");
        return { kind: "index", index: start };
      }
      this.i++;
      this.skip();
      const end = this.text[this.i] === "-" || isDigit(this.text[this.i]) ? this.parseInt() : undefined;
      this.skip();
      let step: number | undefined;
      if (this.text[this.i] === ":") {
        this.i++;
        this.skip();
        if (this.text[this.i] === "-" || isDigit(this.text[this.i])) step = this.parseInt();
      }
      return { kind: "slice", start, end, step };
    }
    return this.fail(c === undefined ? "unterminated [" : `unexpected ${JSON.stringify(c)} in a selector`);
  }

  /** `int = "0" / (["-"] DIGIT1 *DIGIT)` within the I-JSON range. */
  private parseInt(): number {
    const start = this.i;
    if (this.text[this.i] === "-") this.i++;
    if (!isDigit(this.text[this.i])) this.fail("expected a digit");
    if (this.text[this.i] === "0") {
      this.i++;
      if (this.text[start] === "-") this.fail("-0 is not an index", start);
      if (isDigit(this.text[this.i])) this.fail("bad index: leading zero", start);
    } else while (isDigit(this.text[this.i])) this.i++;
    const value = Number(this.text.slice(start, this.i));
    if (!Number.isSafeInteger(value) || Math.abs(value) > MAX_INT) this.fail("index out of the I-JSON range", start);
    return value;
  }

  private parseOr(): Parsed {
    const first = this.parseAnd();
    const items: LogicalExpr[] = [];
    for (;;) {
      const save = this.i;
      this.skip();
      if (!this.text.startsWith("||", this.i)) {
        this.i = save;
        break;
      }
      this.i += 2;
      this.skip();
      if (items.length === 0) items.push(this.toLogical(first, "||"));
      items.push(this.toLogical(this.parseAnd(), "||"));
    }
    return items.length === 0 ? first : { kind: "expr", expr: { kind: "or", items } };
  }

  private parseAnd(): Parsed {
    const first = this.parseBasic();
    const items: LogicalExpr[] = [];
    for (;;) {
      const save = this.i;
      this.skip();
      if (!this.text.startsWith("&&", this.i)) {
        this.i = save;
        break;
      }
      this.i += 2;
      this.skip();
      if (items.length === 0) items.push(this.toLogical(first, "&&"));
      items.push(this.toLogical(this.parseBasic(), "&&"));
    }
    return items.length === 0 ? first : { kind: "expr", expr: { kind: "and", items } };
  }

  /** paren-expr / comparison-expr / test-expr, or a lone operand. */
  private parseBasic(): Parsed {
    if (this.text[this.i] === "!") {
      this.i++;
      this.skip();
      if (this.text[this.i] === "(") return { kind: "expr", expr: { kind: "not", expr: this.parseParen() } };
      const operand = this.parseOperand();
      if (operand.kind === "literal") this.fail("! applies to a query, a function or a parenthesized expression");
      const save = this.i;
      this.skip();
      if (this.peekCompareOp()) this.fail("a comparison cannot follow ! (write !(a == b))");
      this.i = save;
      return { kind: "expr", expr: { kind: "not", expr: this.toLogical({ kind: "operand", operand }, "!") } };
    }
    if (this.text[this.i] === "(") return { kind: "expr", expr: this.parseParen() };
    const left = this.parseOperand();
    const save = this.i;
    this.skip();
    const op = this.peekCompareOp();
    if (!op) {
      this.i = save;
      return { kind: "operand", operand: left };
    }
    this.i += op.length;
    this.skip();
    const right = this.parseOperand();
    return { kind: "expr", expr: { kind: "compare", op, left: this.comparable(left), right: this.comparable(right) } };
  }

  private parseParen(): LogicalExpr {
    this.enter();
    this.i++; // (
    this.skip();
    const expr = this.toLogical(this.parseOr(), "( )");
    this.skip();
    if (this.text[this.i] !== ")") this.fail("expected ')'");
    this.i++;
    this.depth--;
    return expr;
  }

  private peekCompareOp(): CompareOp | undefined {
    const two = this.text.slice(this.i, this.i + 2);
    if (two === "==" || two === "!=" || two === "<=" || two === ">=") return two;
    const one = this.text[this.i];
    if (one === "<" || one === ">") return one;
    return undefined;
  }

  private parseOperand(): Operand {
    const c = this.text[this.i];
    if (c === "$" || c === "@") {
      this.i++;
      return { kind: "query", query: { root: c, segments: this.parseSegments() } };
    }
    if (c === "'" || c === '"') {
      const [value, next] = parseStringLiteral(this.text, this.i + 1, c);
      this.i = next;
      return { kind: "literal", value };
    }
    if (c === "-" || isDigit(c)) return { kind: "literal", value: this.parseNumber() };
    for (const [word, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.text.startsWith(word, this.i) && !/[a-z0-9_]/.test(this.text[this.i + word.length] ?? "")) {
        this.i += word.length;
        return { kind: "literal", value };
      }
    }
    const name = /^[a-z][a-z0-9_]*/.exec(this.text.slice(this.i, this.i + 64))?.[0];
    if (name !== undefined && this.text[this.i + name.length] === "(") return { kind: "call", call: this.parseCall(name) };
    if (c === undefined) return this.fail("unexpected end of the filter");
    return this.fail(name !== undefined ? `unknown word ${JSON.stringify(name)} (functions are called as name(...))` : `unexpected ${JSON.stringify(c)} in a filter`);
  }

  private parseNumber(): number {
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/.exec(this.text.slice(this.i, this.i + 400));
    if (!m) return this.fail("bad number");
    const after = this.text[this.i + m[0].length];
    if (after === "." || isDigit(after) || after === "e" || after === "E") this.fail("bad number");
    this.i += m[0].length;
    const value = Number(m[0]);
    if (!Number.isFinite(value)) this.fail("number out of range");
    return value;
  }

  private parseCall(name: string): FunctionCall {
    const at = this.i;
    if (!(name in FUNCTIONS)) this.fail(`unknown function ${name}() (length, count, match, search and value are known)`);
    const signature = FUNCTIONS[name as FunctionName];
    this.enter();
    this.i += name.length + 1;
    this.skip();
    const args: Argument[] = [];
    if (this.text[this.i] !== ")") {
      for (;;) {
        const argAt = this.i;
        const parsed = this.parseOr();
        const arg: Argument = parsed.kind === "operand" ? parsed.operand : { kind: "logical", expr: parsed.expr };
        const type = signature.params[args.length];
        if (type !== undefined) this.checkArgument(arg, type, name, args.length, argAt);
        args.push(arg);
        this.skip();
        if (this.text[this.i] === ")") break;
        if (this.text[this.i] !== ",") this.fail("expected ',' or ')' in a function call");
        this.i++;
        this.skip();
      }
    }
    this.i++; // )
    this.depth--;
    if (args.length !== signature.params.length) {
      this.fail(`${name}() takes ${signature.params.length} argument${signature.params.length === 1 ? "" : "s"}, not ${args.length}`, at);
    }
    return { name: name as FunctionName, args };
  }

  private checkArgument(arg: Argument, type: ParamType, name: string, index: number, at: number): void {
    const ok =
      type === "value"
        ? arg.kind === "literal" || (arg.kind === "query" && isSingular(arg.query)) || (arg.kind === "call" && FUNCTIONS[arg.call.name].result === "value")
        : type === "nodes"
          ? arg.kind === "query" || (arg.kind === "call" && FUNCTIONS[arg.call.name].result === "nodes")
          : arg.kind === "logical" || arg.kind === "query" || (arg.kind === "call" && FUNCTIONS[arg.call.name].result !== "value");
    if (!ok) {
      const wanted = type === "value" ? "a value (a literal, a singular query or a value function)" : type === "nodes" ? "a query" : "a logical expression";
      this.fail(`argument ${index + 1} of ${name}() must be ${wanted}`, at);
    }
  }

  private comparable(operand: Operand): Comparable {
    if (operand.kind === "query" && !isSingular(operand.query)) this.fail("only singular queries (names and indexes) can be compared");
    if (operand.kind === "call" && FUNCTIONS[operand.call.name].result !== "value") {
      this.fail(`${operand.call.name}() gives a logical result and cannot be compared`);
    }
    return operand;
  }

  private toLogical(parsed: Parsed, where: string): LogicalExpr {
    if (parsed.kind === "expr") return parsed.expr;
    const operand = parsed.operand;
    if (operand.kind === "query") return { kind: "exists", query: operand.query };
    if (operand.kind === "call") {
      if (FUNCTIONS[operand.call.name].result === "value") this.fail(`${operand.call.name}() gives a value: compare it (e.g. ${operand.call.name}(…) > 0) in ${where}`);
      return { kind: "test", call: operand.call };
    }
    return this.fail(`a literal alone is not a test in ${where}; compare it with something`);
  }
}

/** A singular query: names and indexes only, no descendants (RFC 9535 section 2.3.5.1). */
export function isSingular(query: Query): boolean {
  return query.segments.every((s) => !s.descendant && s.selectors.length === 1 && (s.selectors[0]!.kind === "name" || s.selectors[0]!.kind === "index"));
}
