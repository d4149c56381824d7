import { hash } from "node:crypto";
import { type VolatileMode, volatileModeOf } from "./volatile.js";
import { type Category, type Change, type Op, type PolicyRules, PolicyRulesSchema, type Severity } from "@driftwatch/schema";
import { DriftwatchError, type DriftwatchErrorDetail } from "../errors.js";
import { canonicalJson } from "../fingerprint/index.js";
import { optionsObject, requireChanges } from "../guards.js";
import { cssSelectorError } from "../html/css-selector.js";
import { type PathSegment, parsePath } from "../paths/index.js";
import {
  type CompiledPath,
  compileJsonPath,
  DEFAULT_DOCUMENT_BUDGET,
  EvalBudget,
  evaluateQuery,
  matchesAtOrAbove,
  matchesExactly,
  type NodeTrie,
  type PathStep,
  trieMatchesAtOrAbove,
} from "./jsonpath.js";

export type { PathStep } from "./jsonpath.js";
export { EvalBudget } from "./jsonpath.js";

/** What a policy decides for one change: drop it, set its severity, or nothing (no rule matched). */
export type PolicyDecision = { action: "ignore"; rule: number } | { action: "set"; severity: Severity; rule: number } | undefined;

interface CompiledRule {
  index: number;
  action: "ignore" | "set";
  severity: Severity | undefined;
  category: Category | undefined;
  op: Op | undefined;
  selector: string | undefined;
  path: CompiledPath | undefined;
}

/** A `volatile`, `tolerance` or `unordered` entry with a JSONPath, compiled to segment steps. */
export interface CompiledPathEntry {
  /** Position in its list, for explanations (`volatile[2]`). */
  readonly index: number;
  readonly steps: readonly PathStep[];
}

export interface CompiledVolatile extends CompiledPathEntry {
  readonly mode: VolatileMode;
}

export interface CompiledTolerance extends CompiledPathEntry {
  readonly absolute: number | undefined;
  readonly relative: number | undefined;
}

/** A policy compiled once: rule paths as segment matchers, array keys as patterns. */
export interface CompiledPolicy {
  readonly rules: readonly CompiledRule[];
  readonly arrayKeys: readonly { steps: readonly PathStep[]; key: string; pattern: string }[];
  /** `volatile` entries with a path (JSON diffs): value changes at or below are noise (as `mode` says). */
  readonly volatilePaths: readonly CompiledVolatile[];
  /** `volatile` entries with a selector (website diffs). */
  readonly volatileSelectors: readonly { index: number; selector: string; mode: VolatileMode }[];
  readonly tolerance: readonly CompiledTolerance[];
  /** Arrays compared as multisets. */
  readonly unordered: readonly CompiledPathEntry[];
  /** True when some rule needs the documents (a filter or other form the JSONPath evaluator runs). */
  readonly needsDocuments: boolean;
}

/** One change as the policy sees it. `segments` are those of `path` (computed when absent). */
export interface PolicyTarget {
  path: string;
  category: Category;
  op: Op;
  segments?: readonly PathSegment[];
}

export interface PolicyContext {
  /** `json` (default): rules match on `path`; `html`: rules match on `selector`. */
  kind?: "json" | "html";
  /** The old document, for rules the JSONPath evaluator runs (removals resolve in it). */
  before?: unknown;
  /** The new document, for rules the JSONPath evaluator runs (adds and replaces resolve in it). */
  after?: unknown;
  /**
   * Whether a website change falls under a rule's selector. Default: the change's selector equals
   * the rule's or continues it with a descendant or child combinator (`.ad-banner > p`).
   */
  matchSelector?: (ruleSelector: string, change: PolicyTarget) => boolean;
  /**
   * One step budget for the JSONPath evaluations of both documents (and of every other call given
   * the same budget: a caller comparing many documents bounds them all together). Default: a
   * budget of its own of 10,000,000 steps per document.
   */
  ruleBudget?: EvalBudget;
}

/** Most distinct policies (by content) whose compiled form is kept; the least recently used go first. */
export const POLICY_CACHE_ENTRIES = 512;

/**
 * A stable key of a policy's content: the SHA-256 of its canonical JSON (object keys sorted), so
 * equal rules share one key however they were built: read again from a store for every check,
 * copied into a worker thread, or written with their keys in another order.
 */
export function policyContentKey(policy: PolicyRules): string {
  return hash("sha256", canonicalJson(policy), "base64url");
}

const compiledByContent = new Map<string, CompiledPolicy>();
/** A shortcut for a rules object compiled before (its content key is not computed again). */
const compiledByObject = new WeakMap<PolicyRules, CompiledPolicy>();

/**
 * Compiles validated policy rules, cached by content (`policyContentKey`). Rules objects are
 * treated as immutable once given: the same object is looked up without hashing it again.
 * Throws `invalid_policy_rules` when a rule path does not parse.
 */
export function compilePolicy(policy: PolicyRules): CompiledPolicy {
  const same = compiledByObject.get(policy);
  if (same) return same;
  const key = policyContentKey(policy);
  let compiled = compiledByContent.get(key);
  if (compiled === undefined) {
    compiled = compileUncached(policy);
    if (compiledByContent.size >= POLICY_CACHE_ENTRIES) compiledByContent.delete(compiledByContent.keys().next().value!);
  } else {
    compiledByContent.delete(key);
  }
  compiledByContent.set(key, compiled);
  compiledByObject.set(policy, compiled);
  return compiled;
}

function compileUncached(policy: PolicyRules): CompiledPolicy {
  const problems: DriftwatchErrorDetail[] = [];
  const rules: CompiledRule[] = (policy.rules ?? []).map((rule, index) => {
    let path: CompiledPath | undefined;
    if (rule.path !== undefined) {
      const compiled = compileJsonPath(rule.path);
      if (compiled.kind === "error") problems.push({ path: `rules[${index}].path`, message: compiled.message });
      else path = compiled;
    }
    return {
      index,
      action: rule.action ?? (rule.severity ? "set" : "ignore"),
      severity: rule.severity,
      category: rule.category,
      op: rule.op,
      selector: rule.selector,
      path,
    };
  });
  const arrayKeys: { steps: readonly PathStep[]; key: string; pattern: string }[] = [];
  for (const [pattern, key] of Object.entries(policy.arrayKeys ?? {})) {
    const compiled = compileJsonPath(pattern);
    if (compiled.kind !== "steps") {
      problems.push({ path: `arrayKeys[${JSON.stringify(pattern)}]`, message: arrayKeyMessage(compiled) });
    } else arrayKeys.push({ steps: compiled.steps, key, pattern });
  }
  const steps = (path: string, at: string): readonly PathStep[] | undefined => {
    const compiled = compileJsonPath(path);
    if (compiled.kind === "steps") return compiled.steps;
    problems.push({ path: at, message: noiseRuleMessage(compiled) });
    return undefined;
  };
  const volatilePaths: CompiledVolatile[] = [];
  const volatileSelectors: { index: number; selector: string; mode: VolatileMode }[] = [];
  (policy.volatile ?? []).forEach((entry, index) => {
    if (entry.selector !== undefined) volatileSelectors.push({ index, selector: entry.selector, mode: volatileModeOf(entry) });
    else if (entry.path !== undefined) {
      const s = steps(entry.path, `volatile[${index}].path`);
      if (s) volatilePaths.push({ index, steps: s, mode: volatileModeOf(entry) });
    }
  });
  const tolerance: CompiledTolerance[] = [];
  (policy.tolerance ?? []).forEach((entry, index) => {
    const s = steps(entry.path, `tolerance[${index}].path`);
    if (s) tolerance.push({ index, steps: s, absolute: entry.absolute, relative: entry.relative });
  });
  const unordered: CompiledPathEntry[] = [];
  (policy.unordered ?? []).forEach((path, index) => {
    const s = steps(path, `unordered[${index}]`);
    if (s) unordered.push({ index, steps: s });
  });
  if (problems.length > 0) throw policyError(problems);
  const result: CompiledPolicy = {
    rules,
    arrayKeys,
    volatilePaths,
    volatileSelectors,
    tolerance,
    unordered,
    needsDocuments: rules.some((r) => r.path?.kind === "query"),
  };
  return result;
}

function arrayKeyMessage(compiled: CompiledPath | { kind: "error"; message: string }): string {
  return compiled.kind === "error"
    ? compiled.message
    : "array key paths use names, indexes, slices, * and .. only (no filters)";
}

function noiseRuleMessage(compiled: CompiledPath | { kind: "error"; message: string }): string {
  return compiled.kind === "error"
    ? `invalid JSONPath: ${compiled.message}`
    : "volatile, tolerance and unordered paths use names, indexes, slices, * and .. only (no filters)";
}

/** The identity key a compiled policy names for the array at `segments`, if any. */
export function arrayKeyFor(policy: CompiledPolicy, segments: readonly PathSegment[]): string | undefined {
  return arrayKeyEntryFor(policy, segments)?.key;
}

/** The `arrayKeys` entry a compiled policy has for the array at `segments`, if any. */
export function arrayKeyEntryFor(policy: CompiledPolicy, segments: readonly PathSegment[]): { key: string; pattern: string } | undefined {
  for (const entry of policy.arrayKeys) if (matchesExactly(entry.steps, segments)) return entry;
  return undefined;
}

/**
 * Whether a rule of the policy rates a change of the value at exactly `segments` above `low` (a
 * `replace` rule with a path, such as the learner's for a status it saw change): that member holds
 * a value someone watches, not an identity.
 */
export function ratesValueAt(policy: CompiledPolicy, segments: readonly PathSegment[]): boolean {
  const last = segments.at(-1);
  if (last === undefined) return false;
  const index = ratingRulesOf(policy);
  const candidates = index.byName.get(String(last));
  if (candidates !== undefined) for (const steps of candidates) if (matchesExactly(steps, segments)) return true;
  for (const steps of index.anyName) if (matchesExactly(steps, segments)) return true;
  if (typeof last === "number") for (const steps of index.slices) if (matchesExactly(steps, segments)) return true;
  return false;
}

/**
 * The paths of the rules `ratesValueAt` looks at, by the name their last step selects (a
 * wildcard's in `anyName`, a slice's, which selects indexes only, in `slices`), built once per
 * compiled policy: asked for every candidate key of every array of objects without a key, it would
 * otherwise run every rule of the policy each time.
 */
interface RatingRules {
  byName: Map<string, (readonly PathStep[])[]>;
  anyName: (readonly PathStep[])[];
  slices: (readonly PathStep[])[];
}

const ratingRules = new WeakMap<CompiledPolicy, RatingRules>();

function ratingRulesOf(policy: CompiledPolicy): RatingRules {
  let index = ratingRules.get(policy);
  if (index !== undefined) return index;
  index = { byName: new Map(), anyName: [], slices: [] };
  for (const rule of policy.rules) {
    if (rule.action !== "set" || rule.op !== "replace" || rule.path?.kind !== "steps" || rule.severity === undefined || rule.severity === "info" || rule.severity === "low") continue;
    const steps = rule.path.steps;
    const last = steps.at(-1);
    // the last step selects the last segment (a member name, or an index a slice selects)
    if (last === undefined) continue;
    if (last.kind === "slice") index.slices.push(steps);
    else if (last.kind === "wildcard") index.anyName.push(steps);
    else
      for (const key of last.keys) {
        const list = index.byName.get(key);
        if (list === undefined) index.byName.set(key, [steps]);
        else if (list.at(-1) !== steps) list.push(steps);
      }
  }
  ratingRules.set(policy, index);
  return index;
}

/** The first entry whose path selects `segments` or one of their ancestors (and that `accept`s, when given). */
export function entryAtOrAbove<T extends CompiledPathEntry>(entries: readonly T[], segments: readonly PathSegment[], accept?: (entry: T) => boolean): T | undefined {
  for (const entry of entries) if (matchesAtOrAbove(entry.steps, segments) && (accept === undefined || accept(entry))) return entry;
  return undefined;
}

/** The first entry whose path selects exactly `segments`. */
export function entryExactly<T extends CompiledPathEntry>(entries: readonly T[], segments: readonly PathSegment[]): T | undefined {
  for (const entry of entries) if (matchesExactly(entry.steps, segments)) return entry;
  return undefined;
}

/**
 * Whether two numbers are equal under a tolerance: they differ by at most `absolute`, or by at
 * most `relative` x max(|a|, |b|).
 */
export function withinTolerance(a: number, b: number, absolute: number | undefined, relative: number | undefined): boolean {
  const delta = Math.abs(a - b);
  if (absolute !== undefined && delta <= absolute) return true;
  return relative !== undefined && delta <= relative * Math.max(Math.abs(a), Math.abs(b));
}

function defaultMatchSelector(ruleSelector: string, change: PolicyTarget): boolean {
  const p = change.path;
  if (!p.startsWith(ruleSelector)) return false;
  if (p.length === ruleSelector.length) return true;
  const next = p[ruleSelector.length];
  return next === " " || next === ">";
}

/**
 * Makes the per-call rule evaluator: complex rule paths are evaluated (RFC 9535, step-budgeted) at most
 * once per rule and document (the old one for removals, the new one otherwise).
 */
export function createPolicyEvaluator(policy: CompiledPolicy, context: PolicyContext = {}): (target: PolicyTarget) => PolicyDecision {
  const kind = context.kind ?? "json";
  const matchSelector = context.matchSelector ?? defaultMatchSelector;
  const tries = new Map<string, NodeTrie>();
  const shared = context.ruleBudget;
  const budgets = shared === undefined ? { before: new EvalBudget(DEFAULT_DOCUMENT_BUDGET), after: new EvalBudget(DEFAULT_DOCUMENT_BUDGET) } : { before: shared, after: shared };
  const queryMatches = (rule: CompiledRule, path: Extract<CompiledPath, { kind: "query" }>, target: PolicyTarget, segments: readonly PathSegment[]): boolean => {
    const side = target.op === "remove" ? "before" : "after";
    if (!(side in context)) {
      throw new DriftwatchError("invalid_policy_rules", `rule ${rule.index} needs the ${side} document to evaluate its path`, {
        details: [{ path: `rules[${rule.index}].path`, message: `pass { before, after } documents to evaluate ${path.path}` }],
      });
    }
    const cacheKey = `${rule.index}:${side}`;
    let trie = tries.get(cacheKey);
    if (!trie) {
      trie = evaluateQuery(path.query, context[side], budgets[side], `rules[${rule.index}].path`);
      tries.set(cacheKey, trie);
    }
    return trieMatchesAtOrAbove(trie, segments);
  };
  return (target) => {
    let segments: readonly PathSegment[] | undefined = target.segments;
    for (const rule of policy.rules) {
      if (rule.category !== undefined && rule.category !== target.category) continue;
      if (rule.op !== undefined && rule.op !== target.op) continue;
      if (rule.selector !== undefined && (kind !== "html" || !matchSelector(rule.selector, target))) continue;
      if (rule.path !== undefined) {
        if (kind !== "json") continue;
        segments ??= parsePath(target.path);
        const ok = rule.path.kind === "steps" ? matchesAtOrAbove(rule.path.steps, segments) : queryMatches(rule, rule.path, target, segments);
        if (!ok) continue;
      }
      return rule.action === "ignore" ? { action: "ignore", rule: rule.index } : { action: "set", severity: rule.severity!, rule: rule.index };
    }
    return undefined;
  };
}

/**
 * Applies policy rules to changes: the first matching rule wins; `ignore` drops the change, a
 * severity replaces its severity. A rule matches when every field it sets matches: `path` (a
 * RFC 9535 JSONPath; the change is at or below a selected node), `selector`
 * (website changes), `category` and `op`. Pass the documents in `context` when a rule path uses
 * a filter expression. Returns new change objects; the input is not modified.
 */
export function applyPolicy(changes: readonly Change[], policy: PolicyRules, context: PolicyContext = {}): Change[] {
  requireChanges(changes, "changes");
  const evaluate = createPolicyEvaluator(compilePolicy(ensurePolicyRules(policy)), optionsObject<PolicyContext>(context, "applyPolicy context"));
  const out: Change[] = [];
  for (const change of changes) {
    const decision = evaluate(change);
    if (decision === undefined) out.push(change);
    else if (decision.action === "set") out.push({ ...change, severity: decision.severity });
  }
  return out;
}

const validatedCache = new WeakMap<object, PolicyRules>();

/**
 * Policy rules as given to `diffJson` and `applyPolicy`, validated once per rules object (the
 * result is cached, so passing the same object again costs a lookup).
 */
export function ensurePolicyRules(input: unknown): PolicyRules {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw policyError([{ path: "(root)", message: "policy rules must be an object such as { rules: [...] }" }]);
  }
  let rules = validatedCache.get(input);
  if (rules === undefined) {
    rules = validatePolicyRules(input);
    validatedCache.set(input, rules);
    validatedCache.set(rules, rules);
  }
  return rules;
}

function policyError(details: DriftwatchErrorDetail[]): DriftwatchError {
  const first = details[0]!;
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : "";
  return new DriftwatchError("invalid_policy_rules", `invalid policy rules: ${first.path}: ${first.message}${more}`, { details });
}

function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out === "" ? "(root)" : out;
}

/**
 * Validates policy rules (zod schema plus meaning): every rule has a matcher, `set` comes with a
 * severity and `ignore` without, rule paths parse, `arrayKeys`, `volatile`, `tolerance` and
 * `unordered` name valid paths (no filter expressions), rule, `volatile` and `visual.mask`
 * selectors are valid CSS. Throws a
 * `DriftwatchError` with code `invalid_policy_rules` whose `details` name each offending rule
 * index and field (`rules[2].path`). Returns the parsed rules, defaults applied.
 */
export function validatePolicyRules(input: unknown): PolicyRules {
  const parsed = PolicyRulesSchema.safeParse(input);
  if (!parsed.success) {
    throw policyError(parsed.error.issues.map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message })));
  }
  const rules = parsed.data;
  const problems: DriftwatchErrorDetail[] = [];
  rules.rules.forEach((rule, index) => {
    const at = `rules[${index}]`;
    if (rule.path === undefined && rule.selector === undefined && rule.category === undefined && rule.op === undefined) {
      problems.push({ path: at, message: "a rule needs at least one of path, selector, category or op" });
    }
    if (rule.path !== undefined && rule.selector !== undefined) {
      problems.push({ path: `${at}.selector`, message: "a rule matches JSON paths or website selectors, not both" });
    }
    if (rule.action === "set" && rule.severity === undefined) problems.push({ path: `${at}.severity`, message: "a set rule needs a severity" });
    if (rule.action === "ignore" && rule.severity !== undefined) {
      problems.push({ path: `${at}.severity`, message: "an ignore rule has no severity" });
    }
    if (rule.action === undefined && rule.severity === undefined) {
      problems.push({ path: `${at}.action`, message: 'a rule needs action "ignore" or a severity' });
    }
    if (rule.path !== undefined) {
      const compiled = compileJsonPath(rule.path);
      if (compiled.kind === "error") problems.push({ path: `${at}.path`, message: `invalid JSONPath: ${compiled.message}` });
    }
    if (rule.selector !== undefined) {
      const message = cssSelectorError(rule.selector);
      if (message !== null) problems.push({ path: `${at}.selector`, message });
    }
  });
  for (const pattern of Object.keys(rules.arrayKeys ?? {})) {
    const compiled = compileJsonPath(pattern);
    if (compiled.kind !== "steps") problems.push({ path: `arrayKeys[${JSON.stringify(pattern)}]`, message: arrayKeyMessage(compiled) });
  }
  const checkNoisePath = (path: string, at: string): void => {
    const compiled = compileJsonPath(path);
    if (compiled.kind !== "steps") problems.push({ path: at, message: noiseRuleMessage(compiled) });
  };
  rules.volatile?.forEach((entry, index) => {
    if (entry.path !== undefined) checkNoisePath(entry.path, `volatile[${index}].path`);
    if (entry.selector !== undefined) {
      const message = cssSelectorError(entry.selector);
      if (message !== null) problems.push({ path: `volatile[${index}].selector`, message });
    }
  });
  rules.visual?.mask?.forEach((selector, index) => {
    const message = cssSelectorError(selector);
    if (message !== null) problems.push({ path: `visual.mask[${index}]`, message });
  });
  rules.tolerance?.forEach((entry, index) => checkNoisePath(entry.path, `tolerance[${index}].path`));
  rules.unordered?.forEach((path, index) => checkNoisePath(path, `unordered[${index}]`));
  if (problems.length > 0) throw policyError(problems);
  return rules;
}
