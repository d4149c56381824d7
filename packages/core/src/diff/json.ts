import { type Change, type Classification, type PolicyRulesInput, SEVERITIES, type Severity, severityRank } from "@driftwatch/schema";
import { DriftwatchError, isDriftwatchError } from "../errors.js";
import { fingerprintValidChanges } from "../fingerprint/index.js";
import { formatSegment, type PathSegment } from "../paths/index.js";
import { optionsObject } from "../guards.js";
import { volatileHides, volatileSelects } from "../policy/volatile.js";
import { type CompiledPolicy, compilePolicy, createPolicyEvaluator, ensurePolicyRules, entryAtOrAbove, type EvalBudget, withinTolerance } from "../policy/index.js";
import { compileJsonPath } from "../policy/jsonpath.js";
import { CHANGE_CATEGORIES, DEFAULT_SEVERITIES, jsonTypeOf } from "../severity/index.js";
import { type ArrayKeyPattern, DEFAULT_WALK_SETTINGS, JsonDiffer, RawChange, type WalkSettings } from "./differ.js";
import type { DiffExplanation } from "./explain.js";
import { signatureOf } from "./signature.js";
import { type PathNode, pathOf, segmentsOf } from "./walk.js";

export interface DiffJsonOptions {
  /** Policy rules applied to the changes (ignore, severity); their `arrayKeys` are used too. */
  policy?: PolicyRulesInput | null;
  /**
   * Identity keys of arrays of objects by array path, wildcards allowed:
   * `{ "$.items": "sku", "$.items[*].variants": "code" }`. Wins over `policy.arrayKeys`.
   */
  arrayKeys?: Record<string, string>;
  /**
   * Identity key of every other array of objects: a name tries that key only, `false` matches
   * them by index. Default: inferred per array (`inferArrayKey`): `id`, `uuid`, `key`, `slug`,
   * `name` or `sku`, else a scalar member unique in every element of both arrays.
   */
  defaultArrayKey?: string | false;
  /**
   * Numbers whose difference is less than this times the larger magnitude are equal (binary float
   * noise such as 0.1 + 0.2 vs 0.3). Default 1e-12; 0 compares exactly.
   */
  floatEpsilon?: number;
  /**
   * Report elements of key-matched arrays that changed place as `move` changes. Default false: a
   * reorder of a key-matched array is no change. (Index-matched arrays always report an equal
   * element that changed place as one `move`.)
   */
  reportMoves?: boolean;
  /**
   * Attach `explanations` to the result: which rule or inference hid or rated each change. Costs
   * nothing when off. `explainDiffJson` also explains a diff where nothing survived.
   */
  explain?: boolean;
  /**
   * Deepest nesting of arrays and objects accepted; deeper documents are refused with
   * `too_deep`. Default 1000, which keeps every result serialisable by `JSON.stringify`. The walk
   * is iterative, so larger limits (even `Infinity`) work.
   */
  maxDepth?: number;
  /**
   * The step budget of the policy's JSONPath evaluations (see `PolicyContext.ruleBudget`); pass the
   * same one to several calls to bound them together. Default: 10,000,000 steps per document.
   */
  ruleBudget?: EvalBudget;
}

/** What `diffJson` returns when something changed. */
export interface JsonDiff {
  classification: Extract<Classification, "schema_change" | "value_change">;
  schemaChanges: number;
  valueChanges: number;
  topSeverity: Severity;
  diffFingerprint: string;
  changes: Change[];
  /** With `explain: true`: why each change (and each hidden one) was hidden or rated. */
  explanations?: DiffExplanation[];
}

/** What `explainDiffJson` returns: the diff (null when nothing survived) and the explanations. */
export interface ExplainedJsonDiff {
  diff: JsonDiff | null;
  explanations: DiffExplanation[];
}

export const DEFAULT_MAX_DEPTH = 1000;

const arrayKeyCache = new WeakMap<Record<string, string>, ArrayKeyPattern[]>();

function compileArrayKeys(arrayKeys: Record<string, string>): ArrayKeyPattern[] {
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
    compiled.push({ steps: c.steps, key, pattern });
  }
  arrayKeyCache.set(arrayKeys, compiled);
  return compiled;
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
    case "element_moved":
      return "array element moved";
    default:
      return undefined;
  }
}

function walkSettings(options: DiffJsonOptions, explain: boolean): WalkSettings {
  const { floatEpsilon, reportMoves } = options;
  if (floatEpsilon !== undefined && (typeof floatEpsilon !== "number" || !(floatEpsilon >= 0) || floatEpsilon >= 1)) {
    throw new DriftwatchError("invalid_input", "floatEpsilon must be a number from 0 (exact) up to, not including, 1", {
      details: [{ path: "floatEpsilon", message: `expected a number in [0, 1), got ${JSON.stringify(floatEpsilon) ?? typeof floatEpsilon}` }],
    });
  }
  for (const [name, value] of [["reportMoves", reportMoves], ["explain", options.explain]] as const) {
    if (value !== undefined && typeof value !== "boolean") {
      throw new DriftwatchError("invalid_input", `${name} must be a boolean`, { details: [{ path: name, message: `expected a boolean, got ${typeof value}` }] });
    }
  }
  if (floatEpsilon === undefined && reportMoves === undefined && !explain) return DEFAULT_WALK_SETTINGS;
  return {
    floatEpsilon: floatEpsilon ?? DEFAULT_WALK_SETTINGS.floatEpsilon,
    reportMoves: reportMoves ?? false,
    explain,
  };
}

/**
 * Equal values removed in one place and added in another become one move each (the removal's
 * place is `from`, the addition's is `path`). Only array elements pair up: a member renamed with
 * the same value stays a removal (a schema change) plus an addition.
 */
function pairMoves(raw: RawChange[], differ: JsonDiffer): RawChange[] {
  let removals = 0;
  let additions = 0;
  for (const r of raw) {
    if (r.kind === "element_removed") removals++;
    else if (r.kind === "element_added") additions++;
  }
  if (removals === 0 || additions === 0) return raw;
  const removedBySignature = new Map<string, number[]>();
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i]!;
    if (r.kind !== "element_removed") continue;
    const s = signatureOf(r.before, differ.budget);
    if (s === undefined) return raw;
    const list = removedBySignature.get(s);
    if (list === undefined) removedBySignature.set(s, [i]);
    else list.push(i);
  }
  const dropped = new Uint8Array(raw.length);
  const out = raw.slice();
  let moves = 0;
  for (let j = 0; j < raw.length; j++) {
    const r = raw[j]!;
    if (r.kind !== "element_added") continue;
    const s = signatureOf(r.after, differ.budget);
    if (s === undefined) break;
    const list = removedBySignature.get(s);
    if (list === undefined || list.length === 0) continue;
    const i = list.shift()!;
    const removed = raw[i]!;
    out[j] = new RawChange("element_moved", "move", r.parent, removed.oldSeg, r.newSeg, removed.before, r.after, removed.parent);
    dropped[i] = 1;
    moves++;
  }
  return moves === 0 ? raw : out.filter((_, i) => !dropped[i]);
}

function describeValue(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * Structural diff of two JSON documents: every change with its RFC 9535 path, category,
 * operation and default severity, then policy rules, a fingerprint and counts. Returns null
 * when nothing changed (or every change was ignored by the policy). Throws `invalid_input` for
 * values that are not JSON and `too_deep` past `options.maxDepth`.
 *
 * Defaults that keep dynamic targets quiet: arrays of objects are matched by an identity key
 * (configured, or inferred per array), so a reorder is no change and an element's own edits are
 * reported at its identity; an equal element that changed place in an index-matched array, or an
 * equal element removed from one array and added to another, is one `move`; numbers within a
 * relative 1e-12 are equal. Policy `volatile`, `tolerance` and `unordered` entries hide value
 * noise while presence and type changes still count.
 */
export function diffJson(before: unknown, after: unknown, options: DiffJsonOptions = {}): JsonDiff | null {
  options = optionsObject<DiffJsonOptions>(options, "diffJson options");
  return runDiffJson(before, after, options, options.explain === true).diff;
}

/**
 * `diffJson` with explanations, always: `{ diff, explanations }`, where `diff` is null when no
 * change survived and `explanations` still say what was hidden and by which rule or inference
 * (`driftwatch diff --explain`).
 */
export function explainDiffJson(before: unknown, after: unknown, options: DiffJsonOptions = {}): ExplainedJsonDiff {
  options = optionsObject<DiffJsonOptions>(options, "explainDiffJson options");
  const { diff, explanations } = runDiffJson(before, after, options, true);
  return { diff, explanations: explanations! };
}

function runDiffJson(before: unknown, after: unknown, options: DiffJsonOptions, explain: boolean): { diff: JsonDiff | null; explanations: DiffExplanation[] | null } {
  const policy = options.policy === undefined || options.policy === null ? undefined : compilePolicy(ensurePolicyRules(options.policy));
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const defaultKey = options.defaultArrayKey;
  const keyPatterns = options.arrayKeys ? compileArrayKeys(options.arrayKeys) : [];
  const settings = walkSettings(options, explain);
  let differ = new JsonDiffer(maxDepth, defaultKey, keyPatterns, policy, settings);
  try {
    differ.run(before, after);
  } catch (error) {
    // Called with little stack left, the recursive levels of the walk can overflow it: walk
    // again on the explicit stack alone, which needs a few frames whatever the depth.
    if (!(error instanceof RangeError)) throw error;
    differ = new JsonDiffer(maxDepth, defaultKey, keyPatterns, policy, settings, 0);
    differ.run(before, after);
  }
  const explanations: DiffExplanation[] | null = explain ? [] : null;
  if (explanations !== null) {
    for (const note of differ.notes!) {
      const path = note.seg === undefined ? "$" : changePath(note.parent, note.seg, "after");
      const entry: DiffExplanation = { path, outcome: note.outcome, detail: note.detail };
      if (note.rule !== undefined) entry.rule = note.rule;
      explanations.push(entry);
    }
  }
  const raw = pairMoves(differ.changes, differ);
  if (raw.length === 0) return { diff: null, explanations };
  const evaluate = policy && policy.rules.length > 0 ? createPolicyEvaluator(policy, { kind: "json", before, after, ...(options.ruleBudget === undefined ? {} : { ruleBudget: options.ruleBudget }) }) : undefined;
  const noise = policy !== undefined && (policy.volatilePaths.length > 0 || policy.tolerance.length > 0) ? policy : undefined;
  const changes: Change[] = [];
  let schemaChanges = 0;
  let top = 0;
  for (const r of raw) {
    const side = r.op === "remove" ? "before" : "after";
    const seg = side === "before" ? r.oldSeg : r.newSeg;
    const category = CHANGE_CATEGORIES[r.kind];
    let severity = DEFAULT_SEVERITIES[r.kind];
    const path = seg === undefined ? "$" : changePath(r.parent, seg, side);
    let segments: PathSegment[] | undefined;
    if (noise !== undefined && r.kind === "value_changed") {
      segments = segmentsOf(r.parent, seg, side);
      const hidden = hiddenAsNoise(noise, segments, r.before, r.after);
      if (hidden !== undefined) {
        explanations?.push({ path, outcome: hidden.outcome, rule: hidden.rule, detail: hidden.detail });
        continue;
      }
    }
    let ruleIndex: number | undefined;
    if (evaluate) {
      const decision = evaluate({ path, category, op: r.op, segments: segments ?? segmentsOf(r.parent, seg, side) });
      if (decision?.action === "ignore") {
        explanations?.push({ path, outcome: "ignored", rule: `rules[${decision.rule}]`, detail: `${r.op} (${r.kind.replace("_", " ")}) ignored by the policy` });
        continue;
      }
      if (decision?.action === "set") {
        severity = decision.severity;
        ruleIndex = decision.rule;
      }
    }
    const change: Change = { path, category, op: r.op, severity };
    if (r.op === "move") change.from = changePath(r.fromParent, r.oldSeg!, "before");
    const detail = detailOf(r);
    if (detail !== undefined) change.detail = detail;
    if (r.op !== "add") change.before = r.before;
    if (r.op !== "remove") change.after = r.after;
    changes.push(change);
    if (category === "schema") schemaChanges++;
    const rank = severityRank(severity);
    if (rank > top) top = rank;
    if (explanations !== null) {
      const entry: DiffExplanation = { path, outcome: "rated", severity, detail: "" };
      if (ruleIndex !== undefined) {
        entry.rule = `rules[${ruleIndex}]`;
        entry.detail = `${r.kind.replace("_", " ")} rated ${severity} by the policy`;
      } else entry.detail = `${r.kind.replace("_", " ")}: default severity ${severity}`;
      explanations.push(entry);
    }
  }
  if (changes.length === 0) return { diff: null, explanations };
  const diff: JsonDiff = {
    classification: schemaChanges > 0 ? "schema_change" : "value_change",
    schemaChanges,
    valueChanges: changes.length - schemaChanges,
    topSeverity: SEVERITIES[top]!,
    diffFingerprint: fingerprintValidChanges(changes),
    changes,
  };
  if (explanations !== null) diff.explanations = explanations;
  return { diff, explanations };
}

const DECIMAL_STRING = /^-?\d{1,20}\.\d{1,20}$/;

/** A number written as a decimal string (`"16.37849822"`, an exchange's quote): a tolerance covers it as a number. */
function decimalString(value: unknown): value is string {
  return typeof value === "string" && DECIMAL_STRING.test(value);
}

/** A same-type value change that a `volatile` or `tolerance` entry makes noise, or undefined. */
function hiddenAsNoise(
  policy: CompiledPolicy,
  segments: readonly PathSegment[],
  before: unknown,
  after: unknown,
): { outcome: "volatile" | "tolerance"; rule: string; detail: string } | undefined {
  if (policy.volatilePaths.length > 0) {
    // the first entry that selects the value (an entry with `skeletons` selects only strings of those skeletons)
    const entry = entryAtOrAbove(policy.volatilePaths, segments, (e) => volatileSelects(e.mode, before));
    if (entry !== undefined && volatileHides(entry.mode, before, after)) {
      return { outcome: "volatile", rule: `volatile[${entry.index}]`, detail: `volatile value changed (${describeValue(before)} to ${describeValue(after)}); presence and type are unchanged` };
    }
  }
  if (policy.tolerance.length > 0 && ((typeof before === "number" && typeof after === "number") || (decimalString(before) && decimalString(after)))) {
    const entry = entryAtOrAbove(policy.tolerance, segments);
    if (entry !== undefined && withinTolerance(Number(before), Number(after), entry.absolute, entry.relative)) {
      const limits = [entry.absolute === undefined ? "" : `absolute ${entry.absolute}`, entry.relative === undefined ? "" : `relative ${entry.relative}`].filter(Boolean).join(" or ");
      return { outcome: "tolerance", rule: `tolerance[${entry.index}]`, detail: `${before} to ${after} is within the tolerance (${limits})` };
    }
  }
  return undefined;
}
