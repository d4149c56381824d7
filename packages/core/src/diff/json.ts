import { type Change, type Classification, type PolicyRules, SEVERITIES, type Severity, severityRank } from "@driftwatch/schema";
import { DriftwatchError, isDriftwatchError } from "../errors.js";
import { fingerprintValidChanges } from "../fingerprint/index.js";
import { formatSegment, type PathSegment } from "../paths/index.js";
import { optionsObject } from "../guards.js";
import { compilePolicy, createPolicyEvaluator, ensurePolicyRules } from "../policy/index.js";
import { compileJsonPath } from "../policy/jsonpath.js";
import { CHANGE_CATEGORIES, DEFAULT_SEVERITIES, jsonTypeOf } from "../severity/index.js";
import { type ArrayKeyPattern, JsonDiffer, type RawChange } from "./differ.js";
import { type PathNode, pathOf, segmentsOf } from "./walk.js";

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
    compiled.push({ steps: c.steps, key });
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
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const defaultKey = options.defaultArrayKey ?? "id";
  const keyPatterns = options.arrayKeys ? compileArrayKeys(options.arrayKeys) : [];
  let differ = new JsonDiffer(maxDepth, defaultKey, keyPatterns, policy);
  try {
    differ.run(before, after);
  } catch (error) {
    // Called with little stack left, the recursive levels of the walk can overflow it: walk
    // again on the explicit stack alone, which needs a few frames whatever the depth.
    if (!(error instanceof RangeError)) throw error;
    differ = new JsonDiffer(maxDepth, defaultKey, keyPatterns, policy, 0);
    differ.run(before, after);
  }
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
