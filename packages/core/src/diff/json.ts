import { type Change, type Classification, type Op, type PolicyRules, SEVERITIES, type Severity, severityRank } from "@driftwatch/schema";
import { DriftwatchError, isDriftwatchError } from "../errors.js";
import { fingerprintValidChanges } from "../fingerprint/index.js";
import { formatSegment, type PathSegment } from "../paths/index.js";
import { optionsObject } from "../guards.js";
import { arrayKeyFor, type CompiledPolicy, compilePolicy, createPolicyEvaluator, ensurePolicyRules } from "../policy/index.js";
import { compileJsonPath, matchesExactly, type PathStep } from "../policy/jsonpath.js";
import { CHANGE_CATEGORIES, type ChangeKind, DEFAULT_SEVERITIES, jsonTypeOf, replacementKind } from "../severity/index.js";
import { looksKeyed, matchByKey } from "./arrays.js";
import { CYCLE_CHECK_EVERY, checkDepth, invalidInput, notJson, type PathNode, pathOf, segmentsOf, validateTree } from "./walk.js";

export interface DiffJsonOptions {
  /** Policy rules applied to the changes (ignore, severity); their `arrayKeys` are used too. */
  policy?: PolicyRules;
  /**
   * Identity keys of arrays of objects by array path, wildcards allowed:
   * `{ "$.items": "sku", "$.items[*].variants": "code" }`. Wins over `policy.arrayKeys`.
   */
  arrayKeys?: Record<string, string>;
  /** Identity key tried on every other array of objects; `false` matches them by index. Default `"id"`. */
  defaultArrayKey?: string | false;
  /**
   * Deepest nesting of arrays and objects accepted; deeper documents are refused with
   * `too_deep`. Default 1000, which keeps every result serialisable by `JSON.stringify`. The walk
   * is iterative, so larger limits (even `Infinity`) work.
   */
  maxDepth?: number;
}

/** What `diffJson` returns when something changed. */
export interface JsonDiff {
  classification: Extract<Classification, "schema_change" | "value_change">;
  schemaChanges: number;
  valueChanges: number;
  topSeverity: Severity;
  diffFingerprint: string;
  changes: Change[];
}

interface RawChange {
  kind: ChangeKind;
  op: Op;
  parent: PathNode | null;
  oldSeg: PathSegment | undefined;
  newSeg: PathSegment | undefined;
  before: unknown;
  after: unknown;
}

/** A container pair being compared: object members by new-document key, or array positions. */
interface Frame extends PathNode {
  before: object;
  after: object;
  keys: string[] | null;
  /** Array frames: kept [old, new] index pairs (key matching), or null for positions lo..hi. */
  pairs: number[] | null;
  i: number;
  end: number;
  matched: number;
}

export const DEFAULT_MAX_DEPTH = 1000;

const arrayKeyCache = new WeakMap<Record<string, string>, { steps: readonly PathStep[]; key: string }[]>();

function compileArrayKeys(arrayKeys: Record<string, string>): { steps: readonly PathStep[]; key: string }[] {
  if (typeof arrayKeys !== "object" || arrayKeys === null || Array.isArray(arrayKeys)) {
    throw new DriftwatchError("invalid_path", "arrayKeys must map array paths to key names", {
      details: [{ path: "arrayKeys", message: 'expected an object such as { "$.items": "sku" }' }],
    });
  }
  let compiled = arrayKeyCache.get(arrayKeys);
  if (compiled) return compiled;
  compiled = [];
  for (const [pattern, key] of Object.entries(arrayKeys)) {
    const c = compileJsonPath(pattern);
    if (c.kind !== "steps" || typeof key !== "string" || key === "") {
      throw new DriftwatchError("invalid_path", `arrayKeys[${JSON.stringify(pattern)}] is not a usable array path and key`, {
        details: [{ path: `arrayKeys[${JSON.stringify(pattern)}]`, message: c.kind === "error" ? c.message : "use names, indexes, * and .. with a non-empty key" }],
      });
    }
    compiled.push({ steps: c.steps, key });
  }
  arrayKeyCache.set(arrayKeys, compiled);
  return compiled;
}

const hasOwn = Object.prototype.hasOwnProperty;

class JsonDiffer {
  readonly changes: RawChange[] = [];
  private readonly stack: Frame[] = [];
  private readonly maxDepth: number;
  private readonly defaultKey: string | false;
  private readonly keyPatterns: { steps: readonly PathStep[]; key: string }[];
  private readonly policy: CompiledPolicy | undefined;

  constructor(options: DiffJsonOptions, policy: CompiledPolicy | undefined) {
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.defaultKey = options.defaultArrayKey ?? "id";
    this.policy = policy;
    this.keyPatterns = options.arrayKeys ? compileArrayKeys(options.arrayKeys) : [];
  }

  run(before: unknown, after: unknown): void {
    this.pair(null, undefined, undefined, before, after, false);
    const stack = this.stack;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.keys !== null ? this.stepObject(frame) : this.stepArray(frame)) stack.pop();
    }
  }

  private emit(kind: ChangeKind, op: Op, parent: PathNode | null, oldSeg: PathSegment | undefined, newSeg: PathSegment | undefined, before: unknown, after: unknown): void {
    this.changes.push({ kind, op, parent, oldSeg, newSeg, before, after });
  }

  /** Compares two values at one position; containers of the same kind open a frame. */
  private pair(parent: Frame | null, oldSeg: PathSegment | undefined, newSeg: PathSegment | undefined, a: unknown, b: unknown, inArray: boolean): void {
    if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
      const arrayA = Array.isArray(a);
      if (arrayA === Array.isArray(b)) {
        this.open(parent, oldSeg, newSeg, a, b, arrayA);
        return;
      }
    } else if (a === b) {
      const problem = notJson(a);
      if (problem !== undefined) throw invalidInput("after", parent, newSeg, problem);
      return;
    }
    validateTree(a, "before", parent, oldSeg, this.maxDepth);
    validateTree(b, "after", parent, newSeg, this.maxDepth);
    this.emit(replacementKind(a, b, inArray), "replace", parent, oldSeg, newSeg, a, b);
  }

  private open(parent: Frame | null, oldSeg: PathSegment | undefined, newSeg: PathSegment | undefined, a: object, b: object, isArray: boolean): void {
    const frame: Frame = {
      parent,
      oldSeg: oldSeg ?? "",
      newSeg: newSeg ?? "",
      depth: parent === null ? 0 : parent.depth + 1,
      before: a,
      after: b,
      keys: null,
      pairs: null,
      i: 0,
      end: 0,
      matched: 0,
    };
    if (frame.depth >= this.maxDepth || (frame.depth !== 0 && frame.depth % CYCLE_CHECK_EVERY === 0)) checkDepth(frame, this.maxDepth);
    if (!isArray) {
      let problem = notJson(a);
      if (problem !== undefined) throw invalidInput("before", parent, oldSeg, problem);
      problem = notJson(b);
      if (problem !== undefined) throw invalidInput("after", parent, newSeg, problem);
      frame.keys = Object.keys(b);
      frame.end = frame.keys.length;
    } else {
      this.planArray(frame, a as unknown[], b as unknown[]);
    }
    this.stack.push(frame);
  }

  /** Advances an object frame; true when it is done. */
  private stepObject(frame: Frame): boolean {
    const a = frame.before as Record<string, unknown>;
    const b = frame.after as Record<string, unknown>;
    const keys = frame.keys!;
    const end = frame.end;
    let i = frame.i;
    let matched = frame.matched;
    while (i < end) {
      const key = keys[i++]!;
      const bv = b[key];
      let av = a[key];
      // Inherited members of Object.prototype are functions, or the prototype itself for __proto__.
      if (av !== undefined && (typeof av === "function" || key === "__proto__") && !hasOwn.call(a, key)) av = undefined;
      if (av === undefined) {
        validateTree(bv, "after", frame, key, this.maxDepth);
        this.emit("member_added", "add", frame, undefined, key, undefined, bv);
        continue;
      }
      matched++;
      if (av === bv) {
        if (typeof av !== "object") {
          if (typeof av !== "string" && typeof av !== "boolean" && !(typeof av === "number" && av - av === 0)) {
            throw invalidInput("after", frame, key, notJson(av)!);
          }
          continue;
        }
        if (av === null) continue;
      }
      if (typeof av === "object" && av !== null && typeof bv === "object" && bv !== null) {
        const arrayA = Array.isArray(av);
        if (arrayA === Array.isArray(bv)) {
          frame.i = i;
          frame.matched = matched;
          this.open(frame, key, key, av, bv, arrayA);
          return false;
        }
      }
      this.pair(frame, key, key, av, bv, false);
    }
    frame.i = i;
    frame.matched = matched;
    // Counting with for...in uses the object's enum cache and allocates nothing; the key list is
    // only built when some old member is missing from the new object. A plain object (JSON) has
    // no inherited enumerable members, so the count is its own keys.
    let oldCount = 0;
    for (const _ in a) oldCount++;
    if (oldCount !== matched) {
      const oldKeys = Object.keys(a);
      for (const key of oldKeys) {
        const av = a[key];
        if (av === undefined) throw invalidInput("before", frame, key, "undefined is not JSON");
        if (hasOwn.call(b, key)) continue;
        validateTree(av, "before", frame, key, this.maxDepth);
        this.emit("member_removed", "remove", frame, key, undefined, av, undefined);
      }
    }
    return true;
  }

  /** Advances an array frame; true when it is done. */
  private stepArray(frame: Frame): boolean {
    const a = frame.before as unknown[];
    const b = frame.after as unknown[];
    const pairs = frame.pairs;
    while (frame.i < frame.end) {
      let oi: number;
      let ni: number;
      if (pairs === null) {
        oi = ni = frame.i++;
      } else {
        oi = pairs[frame.i++]!;
        ni = pairs[frame.i++]!;
      }
      const av = a[oi];
      const bv = b[ni];
      if (av === bv && (typeof av !== "object" || av === null)) {
        if (typeof av !== "string" && notJson(av) !== undefined) throw invalidInput("after", frame, ni, notJson(av)!);
        continue;
      }
      if (typeof av === "object" && av !== null && typeof bv === "object" && bv !== null) {
        const arrayA = Array.isArray(av);
        if (arrayA === Array.isArray(bv)) {
          this.open(frame, oi, ni, av, bv, arrayA);
          return false;
        }
      }
      this.pair(frame, oi, ni, av, bv, true);
    }
    return true;
  }

  private keyFor(frame: Frame): string | false {
    if (this.keyPatterns.length > 0 || (this.policy && this.policy.arrayKeys.length > 0)) {
      const segments = segmentsOf(frame.parent, frame.parent === null ? undefined : frame.newSeg, "after");
      for (const entry of this.keyPatterns) if (matchesExactly(entry.steps, segments)) return entry.key;
      if (this.policy) {
        const key = arrayKeyFor(this.policy, segments);
        if (key !== undefined) return key;
      }
    }
    return this.defaultKey;
  }

  /**
   * Decides how two arrays pair up. Arrays of objects sharing an identity key are matched by key
   * (elements outside the longest run kept in order are removed and added); other arrays keep
   * their common prefix and suffix of equal primitives and compare the rest by position, with
   * trailing additions or removals.
   */
  private planArray(frame: Frame, a: unknown[], b: unknown[]): void {
    const key = this.keyFor(frame);
    if (key !== false && looksKeyed(a, b, key)) {
      const match = matchByKey(a, b, key);
      if (match) {
        if (match.removed.length === 0 && match.added.length === 0 && a.length === b.length) {
          // Same keys in the same order: positions pair up, no pair list needed.
          frame.end = a.length;
          return;
        }
        for (const i of match.removed) {
          validateTree(a[i], "before", frame, i, this.maxDepth);
          this.emit("element_removed", "remove", frame, i, undefined, a[i], undefined);
        }
        for (const j of match.added) {
          validateTree(b[j], "after", frame, j, this.maxDepth);
          this.emit("element_added", "add", frame, undefined, j, undefined, b[j]);
        }
        frame.pairs = match.pairs;
        frame.end = match.pairs.length;
        return;
      }
    }
    const la = a.length;
    const lb = b.length;
    const min = la < lb ? la : lb;
    let prefix = 0;
    while (prefix < min && a[prefix] === b[prefix] && (typeof a[prefix] !== "object" || a[prefix] === null)) prefix++;
    let suffix = 0;
    if (la !== lb) {
      while (suffix < min - prefix) {
        const x = a[la - 1 - suffix];
        if (x !== b[lb - 1 - suffix] || (typeof x === "object" && x !== null)) break;
        const problem = notJson(x);
        if (problem !== undefined) throw invalidInput("after", frame, lb - 1 - suffix, problem);
        suffix++;
      }
    }
    for (let i = 0; i < prefix; i++) {
      const problem = typeof a[i] === "string" ? undefined : notJson(a[i]);
      if (problem !== undefined) throw invalidInput("after", frame, i, problem);
    }
    const ma = la - prefix - suffix;
    const mb = lb - prefix - suffix;
    const common = ma < mb ? ma : mb;
    for (let i = prefix + common; i < prefix + ma; i++) {
      validateTree(a[i], "before", frame, i, this.maxDepth);
      this.emit("element_removed", "remove", frame, i, undefined, a[i], undefined);
    }
    for (let j = prefix + common; j < prefix + mb; j++) {
      validateTree(b[j], "after", frame, j, this.maxDepth);
      this.emit("element_added", "add", frame, undefined, j, undefined, b[j]);
    }
    frame.i = prefix;
    frame.end = prefix + common;
  }
}

function changePath(parent: PathNode | null, seg: PathSegment, side: "before" | "after"): string {
  try {
    return pathOf(parent, side) + formatSegment(seg);
  } catch (error) {
    if (!isDriftwatchError(error) || error.code !== "invalid_path") throw error;
    // Not I-JSON: a member name with a lone surrogate, which no RFC 9535 path can name.
    throw new DriftwatchError("invalid_input", `${side} document: ${error.message}`, { cause: error, details: error.details });
  }
}

function detailOf(change: RawChange): string | undefined {
  switch (change.kind) {
    case "type_changed":
      return `type changed from ${jsonTypeOf(change.before)} to ${jsonTypeOf(change.after)}`;
    case "element_type_changed":
      return `array element type changed from ${jsonTypeOf(change.before)} to ${jsonTypeOf(change.after)}`;
    case "became_null":
      return `value became null (was ${jsonTypeOf(change.before)})`;
    default:
      return undefined;
  }
}

/**
 * Structural diff of two JSON documents: every change with its RFC 9535 path, category,
 * operation and default severity, then policy rules, a fingerprint and counts. Returns null
 * when nothing changed (or every change was ignored by the policy). Throws `invalid_input` for
 * values that are not JSON and `too_deep` past `options.maxDepth`.
 */
export function diffJson(before: unknown, after: unknown, options: DiffJsonOptions = {}): JsonDiff | null {
  options = optionsObject<DiffJsonOptions>(options, "diffJson options");
  const policy = options.policy === undefined || options.policy === null ? undefined : compilePolicy(ensurePolicyRules(options.policy));
  const differ = new JsonDiffer(options, policy);
  differ.run(before, after);
  const raw = differ.changes;
  if (raw.length === 0) return null;
  const evaluate = policy && policy.rules.length > 0 ? createPolicyEvaluator(policy, { kind: "json", before, after }) : undefined;
  const changes: Change[] = [];
  let schemaChanges = 0;
  let top = 0;
  for (const r of raw) {
    const side = r.op === "remove" ? "before" : "after";
    const seg = side === "before" ? r.oldSeg : r.newSeg;
    const category = CHANGE_CATEGORIES[r.kind];
    let severity = DEFAULT_SEVERITIES[r.kind];
    const path = seg === undefined ? "$" : changePath(r.parent, seg, side);
    if (evaluate) {
      const decision = evaluate({ path, category, op: r.op, segments: segmentsOf(r.parent, seg, side) });
      if (decision?.action === "ignore") continue;
      if (decision?.action === "set") severity = decision.severity;
    }
    const change: Change = { path, category, op: r.op, severity };
    const detail = detailOf(r);
    if (detail !== undefined) change.detail = detail;
    if (r.op !== "add") change.before = r.before;
    if (r.op !== "remove") change.after = r.after;
    changes.push(change);
    if (category === "schema") schemaChanges++;
    const rank = severityRank(severity);
    if (rank > top) top = rank;
  }
  if (changes.length === 0) return null;
  return {
    classification: schemaChanges > 0 ? "schema_change" : "value_change",
    schemaChanges,
    valueChanges: changes.length - schemaChanges,
    topSeverity: SEVERITIES[top]!,
    diffFingerprint: fingerprintValidChanges(changes),
    changes,
  };
}
