import { type VolatileMode, volatileModeOf } from "../policy/volatile.js";
import type { CheerioAPI } from "cheerio";
import type { AnyNode, Document, Element, ParentNode } from "domhandler";
import { htmlparser2Adapter, type HtmlTreeAdapter, loadHtml as load } from "./cheerio.js";
import { maxSeverity, type Change, type PolicyRules, type PolicyRulesInput, type Severity } from "@driftwatch/schema";
import { DriftwatchError } from "../errors.js";
import { fingerprintValidChanges } from "../fingerprint/index.js";
import { collectTextBlocks, type TextBlock } from "./blocks.js";
import { longestCommonSubsequence } from "./lcs.js";
import { normalizationsIn, normalizeSwitches, type NormalizeSwitches, textNormalizer } from "./normalize.js";
import { compilePolicy, createPolicyEvaluator, validatePolicyRules, type PolicyTarget } from "../policy/index.js";
import type { DiffExplanation } from "../diff/explain.js";
import { isElement, PageSelectors } from "./selectors.js";

export interface DiffHtmlOptions {
  /** CSS selector scoping the comparison to the matched element(s) of each page. */
  selector?: string | null;
  /**
   * Policy rules. `selector` + `action: "ignore"` drops matching elements before comparing;
   * other rules (by `selector`, `op`, `category`; first match wins) ignore changes or set their
   * severity. Rules with a JSONPath `path` apply to JSON diffs only. `volatile` selectors hide
   * text changes inside the matched elements (an element appearing or disappearing still counts);
   * `normalize` switches off built-in normalisations (relative times, tokens and cache-busting
   * queries shown as text), which are on by default.
   */
  policy?: PolicyRulesInput | null;
  /**
   * Attach `explanations`: which rule, volatile selector or normalisation hid or rated each
   * change. Costs nothing when off. `explainDiffHtml` also explains a diff where nothing survived.
   */
  explain?: boolean;
  /**
   * Deepest element nesting a page may have (default 512, the depth at which browsers stop
   * nesting). HTML parsing costs time proportional to the depth for every tag, so deeper pages
   * are refused with `too_deep` instead of taking quadratic time.
   */
  maxDepth?: number;
  /**
   * Bound on selector matching work: elements of a page x characters of all selectors (scope,
   * rules and volatile entries). Default 200,000,000. Past it the diff is refused with `rule_budget_exceeded`.
   */
  maxSelectorWork?: number;
}

/** Default of `DiffHtmlOptions.maxDepth`. */
export const DEFAULT_HTML_MAX_DEPTH = 512;
/** Default of `DiffHtmlOptions.maxSelectorWork`. */
export const DEFAULT_HTML_MAX_SELECTOR_WORK = 200_000_000;

export interface HtmlDiffSummary {
  additions: number;
  removals: number;
  modifications: number;
}

/** What `diffHtml` finds: the engine's part of a website diff (the store and the render add the rest). */
export interface HtmlDiffResult {
  classification: "content_change";
  summary: HtmlDiffSummary;
  /** Unique selectors of the changed elements, in page order. */
  changedTargets: string[];
  diffFingerprint: string;
  topSeverity: Severity;
  /** `path` is a CSS selector of the changed element: in the new page, or the old one for removals. */
  changes: Change[];
  /** With `explain: true`: why each change (and each hidden one) was hidden or rated. */
  explanations?: DiffExplanation[];
}

/** What `explainDiffHtml` returns: the diff (null when nothing survived) and the explanations. */
export interface ExplainedHtmlDiff {
  diff: HtmlDiffResult | null;
  explanations: DiffExplanation[];
}

/** One text block of a page, as `htmlTextBlocks` reports it. */
export interface HtmlTextBlock {
  /** Selects exactly the block's element in the page. */
  selector: string;
  tag: string;
  text: string;
}

interface Page {
  $: CheerioAPI;
  blocks: TextBlock[];
  selectors: PageSelectors;
  /** Per rule selector, the elements it matches (computed on first use). */
  ruleMatches: Map<string, Set<AnyNode>>;
}

/** A change as the policy evaluator sees it, with the element it is about. */
interface HtmlPolicyTarget extends PolicyTarget {
  page: Page;
  element: Element;
}

const EMPTY_POLICY: PolicyRules = { rules: [] };

function requireString(value: unknown, name: string): string {
  if (typeof value !== "string") {
    throw new DriftwatchError("invalid_input", `${name} must be a string of HTML, got ${value === null ? "null" : typeof value}`);
  }
  return value;
}

function select($: CheerioAPI, selector: string, onError: (cause: unknown) => DriftwatchError): Element[] {
  try {
    return $.root().find(selector).toArray();
  } catch (cause) {
    throw onError(cause);
  }
}

function invalidRuleSelector(policy: PolicyRules, selector: string, cause: unknown): DriftwatchError {
  const index = policy.rules.findIndex((rule) => rule.selector === selector);
  const message = `not a valid CSS selector: ${JSON.stringify(selector)}`;
  return new DriftwatchError("invalid_policy_rules", `rules[${index}].selector is ${message}`, {
    cause,
    details: [{ path: `rules[${index}].selector`, message }],
  });
}

function invalidScope(selector: string, cause: unknown): DriftwatchError {
  return new DriftwatchError("invalid_input", `selector is not a valid CSS selector: ${JSON.stringify(selector)}`, {
    cause,
    details: [{ path: "selector", message: "not a valid CSS selector" }],
  });
}

/** Outermost elements only: a match inside another match is already part of it. */
function outermost(elements: Element[]): Element[] {
  const set = new Set<AnyNode>(elements);
  return elements.filter((element) => {
    for (let node = element.parent; node !== null; node = node.parent) if (set.has(node)) return false;
    return true;
  });
}

let probe: CheerioAPI | undefined;
const validSelectors = new Set<string>();

/**
 * Checks every selector up front against an empty document (compiling is what fails), so a bad
 * rule is refused even when no change reaches it. Valid selectors are remembered.
 */
function validateSelectors(policy: PolicyRules, scope: string | null): void {
  probe ??= load("");
  const check = (selector: string, onError: (cause: unknown) => DriftwatchError): void => {
    if (validSelectors.has(selector)) return;
    select(probe!, selector, onError);
    if (validSelectors.size >= 1000) validSelectors.clear();
    validSelectors.add(selector);
  };
  if (scope !== null) check(scope, (cause) => invalidScope(scope, cause));
  for (const rule of policy.rules) {
    const selector = rule.selector;
    if (selector !== undefined) check(selector, (cause) => invalidRuleSelector(policy, selector, cause));
  }
  (policy.volatile ?? []).forEach((entry, index) => {
    const selector = entry.selector;
    if (selector !== undefined) check(selector, (cause) => invalidVolatileSelector(index, selector, cause));
  });
}

function invalidVolatileSelector(index: number, selector: string, cause: unknown): DriftwatchError {
  const message = `not a valid CSS selector: ${JSON.stringify(selector)}`;
  return new DriftwatchError("invalid_policy_rules", `volatile[${index}].selector is ${message}`, {
    cause,
    details: [{ path: `volatile[${index}].selector`, message }],
  });
}

/** Rules that only drop elements (`selector` + `ignore`, nothing else): applied before comparing. */
function ignoredSelectors(policy: PolicyRules): string[] {
  return policy.rules
    .filter((rule) => rule.selector !== undefined && rule.action === "ignore" && rule.op === undefined && rule.category === undefined)
    .map((rule) => rule.selector!);
}

interface PageLimits {
  maxDepth: number;
  maxSelectorWork: number;
}

const DEFAULT_LIMITS: PageLimits = { maxDepth: DEFAULT_HTML_MAX_DEPTH, maxSelectorWork: DEFAULT_HTML_MAX_SELECTOR_WORK };

function positiveLimit(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new DriftwatchError("invalid_input", `${name} must be a positive integer`, { details: [{ path: name, message: "must be a positive integer" }] });
  }
  return value;
}

function limitsOf(options: DiffHtmlOptions): PageLimits {
  return {
    maxDepth: positiveLimit(options.maxDepth, "maxDepth", DEFAULT_LIMITS.maxDepth),
    maxSelectorWork: positiveLimit(options.maxSelectorWork, "maxSelectorWork", DEFAULT_LIMITS.maxSelectorWork),
  };
}

const depths = new WeakMap<object, number>();

/**
 * The parse5 tree adapter cheerio uses, counting each element's depth as the parser inserts it
 * and stopping the parse past `maxDepth`. The parser scans its stack of open elements for many
 * tags, so the depth bound is what keeps parsing linear in the page's size.
 */
export function depthLimitedAdapter(maxDepth: number): HtmlTreeAdapter {
  const adapter = htmlparser2Adapter();
  const place = (parent: ParentNode, child: AnyNode): void => {
    if (child.type !== "tag" && child.type !== "script" && child.type !== "style") return;
    const depth = (depths.get(parent) ?? 0) + 1;
    if (depth > maxDepth) {
      throw new DriftwatchError("too_deep", `the page nests elements deeper than maxDepth (${String(maxDepth)} levels)`);
    }
    depths.set(child, depth);
  };
  return {
    ...adapter,
    appendChild(parent, child): void {
      place(parent, child);
      adapter.appendChild(parent, child);
    },
    insertBefore(parent, child, reference): void {
      place(parent, child);
      adapter.insertBefore(parent, child, reference);
    },
  };
}

function countElements(document: Document): number {
  let count = 0;
  const stack: AnyNode[] = [document];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== "root" && !isElement(node)) continue;
    if (node.type !== "root") count++;
    for (const child of (node as ParentNode).children) stack.push(child);
  }
  return count;
}

/** Characters of every selector the diff matches against a page (scope, rule and volatile selectors). */
function selectorChars(policy: PolicyRules, scope: string | null): number {
  let chars = scope?.length ?? 0;
  for (const rule of policy.rules) chars += rule.selector?.length ?? 0;
  for (const entry of policy.volatile ?? []) chars += entry.selector?.length ?? 0;
  return chars;
}

function loadPage(
  html: string,
  scope: string | null,
  policy: PolicyRules,
  normalize: ((text: string) => string) | undefined,
  limits: PageLimits = DEFAULT_LIMITS,
): Page {
  const $ = load(html, { treeAdapter: depthLimitedAdapter(limits.maxDepth) });
  const document: Document = $.root()[0]!;
  const chars = selectorChars(policy, scope);
  if (chars > 0) {
    const work = countElements(document) * chars;
    if (work > limits.maxSelectorWork) {
      throw new DriftwatchError(
        "rule_budget_exceeded",
        `matching ${String(chars)} characters of selectors against this page exceeds the selector work bound (${String(limits.maxSelectorWork)} element x character steps)`,
      );
    }
  }
  const ignored = new Set<AnyNode>();
  for (const selector of ignoredSelectors(policy)) {
    for (const element of select($, selector, (cause) => invalidRuleSelector(policy, selector, cause))) ignored.add(element);
  }
  const volatile = new Map<AnyNode, number>();
  const modes = new Map<number, VolatileMode>();
  // An entry with `skeletons` may not select an element's text: the entries after it that select
  // the element, in order, are tried next (collectTextBlocks).
  const later = new Map<AnyNode, number[]>();
  (policy.volatile ?? []).forEach((entry, index) => {
    const selector = entry.selector;
    if (selector === undefined) return;
    const mode = volatileModeOf(entry);
    modes.set(index, mode);
    for (const element of select($, selector, (cause) => invalidVolatileSelector(index, selector, cause))) {
      const first = volatile.get(element);
      if (first === undefined) volatile.set(element, index);
      else if (modes.get(first)?.skeletons !== undefined) {
        const list = later.get(element);
        if (list === undefined) later.set(element, [index]);
        else if (modes.get(list[list.length - 1]!)?.skeletons !== undefined) list.push(index);
      }
    }
  });
  const roots: AnyNode[] = scope === null ? [document] : outermost(select($, scope, (cause) => invalidScope(scope, cause)));
  return { $, blocks: collectTextBlocks(roots, ignored, { volatile, modes, later, normalize }), selectors: new PageSelectors(document), ruleMatches: new Map() };
}

/** Whether the target's element is, or is inside, an element `ruleSelector` matches in its page. */
function isInsideRuleSelector(policy: PolicyRules, ruleSelector: string, target: HtmlPolicyTarget): boolean {
  const { page } = target;
  let matches = page.ruleMatches.get(ruleSelector);
  if (matches === undefined) {
    matches = new Set(select(page.$, ruleSelector, (cause) => invalidRuleSelector(policy, ruleSelector, cause)));
    page.ruleMatches.set(ruleSelector, matches);
  }
  for (let node: AnyNode | null = target.element; node !== null; node = node.parent) if (matches.has(node)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Pairing removed and added blocks of one hunk into modifications

const MAX_ALIGNED_CELLS = 40_000;

function wordSet(text: string): Set<string> {
  return new Set(text.toLowerCase().split(" "));
}

function similarity(a: Set<string>, b: Set<string>): number {
  let common = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const word of small) if (large.has(word)) common++;
  return (2 * common) / (a.size + b.size);
}

/**
 * Which removed block becomes which added block, in order. Every pair scores 1 (a block
 * replaced in place is a modification) plus its word similarity and a bonus for the same tag,
 * so the most pairs form and, among equal counts, the most alike blocks pair up.
 */
function pairHunk(removed: readonly TextBlock[], added: readonly TextBlock[]): Array<[number, number]> {
  const k = removed.length;
  const l = added.length;
  if (k === 0 || l === 0) return [];
  if (k * l > MAX_ALIGNED_CELLS || (k === 1 && l === 1)) {
    return Array.from({ length: Math.min(k, l) }, (_, i): [number, number] => [i, i]);
  }
  const removedWords = removed.map((block) => wordSet(block.text));
  const addedWords = added.map((block) => wordSet(block.text));
  const width = l + 1;
  const score = new Float64Array((k + 1) * width);
  for (let i = 1; i <= k; i++) {
    for (let j = 1; j <= l; j++) {
      const pair =
        score[(i - 1) * width + j - 1]! +
        1 +
        similarity(removedWords[i - 1]!, addedWords[j - 1]!) +
        (removed[i - 1]!.element.name === added[j - 1]!.element.name ? 0.25 : 0);
      score[i * width + j] = Math.max(pair, score[(i - 1) * width + j]!, score[i * width + j - 1]!);
    }
  }
  const pairs: Array<[number, number]> = [];
  let i = k;
  let j = l;
  while (i > 0 && j > 0) {
    const here = score[i * width + j]!;
    if (here === score[(i - 1) * width + j]) i--;
    else if (here === score[i * width + j - 1]) j--;
    else {
      pairs.push([i - 1, j - 1]);
      i--;
      j--;
    }
  }
  return pairs.reverse();
}

// ---------------------------------------------------------------------------------------------

interface RawChange {
  op: "add" | "remove" | "replace";
  before?: TextBlock;
  after?: TextBlock;
}

function hunkChanges(removed: TextBlock[], added: TextBlock[], out: RawChange[]): void {
  let r = 0;
  let a = 0;
  for (const [i, j] of pairHunk(removed, added)) {
    while (r < i) out.push({ op: "remove", before: removed[r++]! });
    while (a < j) out.push({ op: "add", after: added[a++]! });
    out.push({ op: "replace", before: removed[r++]!, after: added[a++]! });
  }
  while (r < removed.length) out.push({ op: "remove", before: removed[r++]! });
  while (a < added.length) out.push({ op: "add", after: added[a++]! });
}

/**
 * Matched block index pairs. A block whose text occurs on one side only can be in no common
 * subsequence, so it is left out before the LCS runs: a page where everything changed, or where
 * a block was inserted between every two, then costs next to nothing.
 */
function alignedBlocks(a: Int32Array, b: Int32Array): number[] {
  const inA = new Set(a);
  const inB = new Set(b);
  const keptA: number[] = [];
  const keptB: number[] = [];
  for (let i = 0; i < a.length; i++) if (inB.has(a[i]!)) keptA.push(i);
  for (let j = 0; j < b.length; j++) if (inA.has(b[j]!)) keptB.push(j);
  if (keptA.length === a.length && keptB.length === b.length) return longestCommonSubsequence(a, b);
  const pairs = longestCommonSubsequence(
    keptA.map((i) => a[i]!),
    keptB.map((j) => b[j]!),
  );
  for (let p = 0; p < pairs.length; p += 2) {
    pairs[p] = keptA[pairs[p]!]!;
    pairs[p + 1] = keptB[pairs[p + 1]!]!;
  }
  return pairs;
}

/**
 * The changes between two block sequences, aligned by their comparison keys. With `matched`,
 * the aligned index pairs are left there too (for explanations).
 */
function compareBlocks(before: TextBlock[], after: TextBlock[], matched?: number[]): RawChange[] {
  const ids = new Map<string, number>();
  const intern = (blocks: TextBlock[]): Int32Array => {
    const out = new Int32Array(blocks.length);
    for (let i = 0; i < blocks.length; i++) {
      const text = blocks[i]!.key;
      let id = ids.get(text);
      if (id === undefined) ids.set(text, (id = ids.size));
      out[i] = id;
    }
    return out;
  };
  const matches = alignedBlocks(intern(before), intern(after));
  if (matched !== undefined) matched.push(...matches);
  const changes: RawChange[] = [];
  let i = 0;
  let j = 0;
  for (let p = 0; p <= matches.length; p += 2) {
    const mi = p < matches.length ? matches[p]! : before.length;
    const mj = p < matches.length ? matches[p + 1]! : after.length;
    if (mi > i || mj > j) hunkChanges(before.slice(i, mi), after.slice(j, mj), changes);
    i = mi + 1;
    j = mj + 1;
  }
  return changes;
}

function detailOf(change: RawChange): string {
  if (change.op === "add") return `text added in <${change.after!.element.name}>`;
  if (change.op === "remove") return `text removed from <${change.before!.element.name}>`;
  const from = change.before!.element.name;
  const to = change.after!.element.name;
  return from === to ? `text changed in <${to}>` : `text changed, <${from}> became <${to}>`;
}

/**
 * Compares the visible text of two HTML pages and returns a website diff, or null when nothing
 * changed (after policy rules).
 *
 * Each page is parsed like a browser does (cheerio with parse5; malformed HTML is repaired, not
 * refused) and reduced to text blocks: every block-level element with text of its own (not
 * counting nested blocks), in document order, whitespace-normalised, without script, style,
 * noscript, template, iframe or comments. The two block sequences are aligned by a longest common
 * subsequence; between aligned blocks, a removed block and an added block in place form one
 * modification (`replace`), the rest are `remove`s and `add`s.
 *
 * @throws DriftwatchError `invalid_input` for non-string pages or a bad scope selector,
 *   `invalid_policy_rules` for invalid rules (the detail names the rule index).
 */
export function diffHtml(beforeHtml: string, afterHtml: string, options: DiffHtmlOptions = {}): HtmlDiffResult | null {
  if (options === null || typeof options !== "object") throw new DriftwatchError("invalid_input", "options must be an object");
  return runDiffHtml(beforeHtml, afterHtml, options, options.explain === true).diff;
}

/**
 * `diffHtml` with explanations, always: `{ diff, explanations }`, where `diff` is null when no
 * change survived and `explanations` still say which volatile selector, normalisation or rule
 * hid each change (`driftwatch diff --explain`). Elements dropped by `selector` + `ignore` rules
 * are removed before comparing and are not explained one by one.
 */
export function explainDiffHtml(beforeHtml: string, afterHtml: string, options: DiffHtmlOptions = {}): ExplainedHtmlDiff {
  if (options === null || typeof options !== "object") throw new DriftwatchError("invalid_input", "options must be an object");
  const { diff, explanations } = runDiffHtml(beforeHtml, afterHtml, options, true);
  return { diff, explanations: explanations! };
}

function runDiffHtml(beforeHtml: string, afterHtml: string, options: DiffHtmlOptions, explain: boolean): { diff: HtmlDiffResult | null; explanations: DiffExplanation[] | null } {
  requireString(beforeHtml, "beforeHtml");
  requireString(afterHtml, "afterHtml");
  const scope = options.selector ?? null;
  if (scope !== null && (typeof scope !== "string" || scope.trim() === "")) {
    throw new DriftwatchError("invalid_input", "selector must be a non-empty CSS selector", {
      details: [{ path: "selector", message: "must be a non-empty string" }],
    });
  }
  if (options.explain !== undefined && typeof options.explain !== "boolean") {
    throw new DriftwatchError("invalid_input", "explain must be a boolean", { details: [{ path: "explain", message: "expected a boolean" }] });
  }
  const policy = options.policy === undefined || options.policy === null ? EMPTY_POLICY : validatePolicyRules(options.policy);
  validateSelectors(policy, scope);
  const switches = normalizeSwitches(policy.normalize);
  const normalize = textNormalizer(switches);
  const limits = limitsOf(options);
  const oldPage = loadPage(beforeHtml, scope, policy, normalize, limits);
  const newPage = loadPage(afterHtml, scope, policy, normalize, limits);
  const evaluate = createPolicyEvaluator(compilePolicy(policy), {
    kind: "html",
    matchSelector: (ruleSelector, target) => isInsideRuleSelector(policy, ruleSelector, target as HtmlPolicyTarget),
  });

  const explanations: DiffExplanation[] | null = explain ? [] : null;
  const matched: number[] | undefined = explain ? [] : undefined;
  let oldBlocks = oldPage.blocks;
  let newBlocks = newPage.blocks;
  let raws = compareBlocks(oldBlocks, newBlocks, matched);
  // Lists whose items changed places are compared as sets: the moved items' blocks are taken out
  // on both sides and the rest compared again (an item added, removed or edited is still reported).
  const moved = switches.listOrder && raws.length > 1 ? reorderedItems(oldPage, newPage, raws) : null;
  if (moved !== null) {
    if (explanations !== null) {
      for (const raw of raws) {
        const block = raw.after !== undefined && insideOf(raw.after, moved) ? raw.after : raw.before !== undefined && insideOf(raw.before, moved) ? raw.before : undefined;
        if (block === undefined) continue;
        const path = (block === raw.after ? newPage : oldPage).selectors.selectorOf(block.element);
        explanations.push({ path, selector: path, outcome: "unordered", rule: "normalize.listOrder", detail: `<${block.element.name}> moved: the items of its list changed places` });
      }
    }
    oldBlocks = oldBlocks.filter((block) => !insideOf(block, moved));
    newBlocks = newBlocks.filter((block) => !insideOf(block, moved));
    if (matched !== undefined) matched.length = 0;
    raws = compareBlocks(oldBlocks, newBlocks, matched);
  }
  if (explanations !== null) explainHidden(oldBlocks, newBlocks, newPage, matched!, switches, explanations);
  const changes: Change[] = [];
  const summary: HtmlDiffSummary = { additions: 0, removals: 0, modifications: 0 };
  for (const raw of raws) {
    // Adds and replaces resolve in the new page, removals in the old one.
    const [page, block] = raw.op === "remove" ? [oldPage, raw.before!] : [newPage, raw.after!];
    const path = page.selectors.selectorOf(block.element);
    const target: HtmlPolicyTarget = { path, category: "value", op: raw.op, page, element: block.element };
    const decision = policy.rules.length === 0 ? undefined : evaluate(target);
    if (decision?.action === "ignore") {
      explanations?.push({ path, selector: path, outcome: "ignored", rule: `rules[${decision.rule}]`, detail: `${detailOf(raw)}: ignored by the policy` });
      continue;
    }
    const change: Change = {
      path,
      category: "value",
      op: raw.op,
      severity: decision?.action === "set" ? decision.severity : "info",
      detail: detailOf(raw),
    };
    if (raw.before !== undefined) change.before = raw.before.text;
    if (raw.after !== undefined) change.after = raw.after.text;
    changes.push(change);
    if (explanations !== null) {
      const entry: DiffExplanation = { path, selector: path, outcome: "rated", severity: change.severity, detail: "" };
      if (decision?.action === "set") {
        entry.rule = `rules[${decision.rule}]`;
        entry.detail = `${change.detail}: rated ${change.severity} by the policy`;
      } else entry.detail = `${change.detail}: default severity info`;
      explanations.push(entry);
    }
    if (raw.op === "add") summary.additions++;
    else if (raw.op === "remove") summary.removals++;
    else summary.modifications++;
  }
  if (changes.length === 0) return { diff: null, explanations };
  const diff: HtmlDiffResult = {
    classification: "content_change",
    summary,
    changedTargets: [...new Set(changes.map((change) => change.path))],
    diffFingerprint: fingerprintValidChanges(changes),
    topSeverity: maxSeverity(changes.map((change) => change.severity))!,
    changes,
  };
  if (explanations !== null) diff.explanations = explanations;
  return { diff, explanations };
}

// ---------------------------------------------------------------------------------------------
// Lists whose items only changed places ("Most read" reordered): compared as sets

/** The items of a list: `li` of one list, `tr` of one table body. A `dt`/`dd` is half of a pair, not an item. */
const ITEM_TAGS: ReadonlySet<string> = new Set(["li", "tr"]);

/** One list (an item's parent) in both pages, found by its selector. */
interface ListPair {
  tag: string;
  before?: Element;
  after?: Element;
}

/** A list's items, in order, each with its identity: the comparison keys of the blocks inside it. */
function itemsOf(list: Element, tag: string, keyOf: ReadonlyMap<Element, string>): { item: Element; key: string }[] {
  const out: { item: Element; key: string }[] = [];
  for (const child of list.children) {
    if (!isElement(child) || child.name !== tag) continue;
    const keys: string[] = [];
    const stack: AnyNode[] = [child];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (!isElement(node)) continue;
      const key = keyOf.get(node);
      if (key !== undefined) keys.push(key);
      for (let c = node.children.length - 1; c >= 0; c--) stack.push(node.children[c]!);
    }
    out.push({ item: child, key: keys.join("\u0002") });
  }
  return out;
}

/**
 * The items of a list kept on both sides that changed places: an item is kept when its identity
 * is found as often in the old list as in the new one; when the kept items come in another order,
 * they are returned (both sides), else null (no reorder: nothing to take out).
 */
function movedItems(before: readonly { item: Element; key: string }[], after: readonly { item: Element; key: string }[]): Element[] | null {
  const counts = new Map<string, number>();
  for (const { key } of before) counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const { key } of after) counts.set(key, (counts.get(key) ?? 0) - 1);
  const keptBefore = before.filter(({ key }) => counts.get(key) === 0);
  const keptAfter = after.filter(({ key }) => counts.get(key) === 0);
  if (keptBefore.length < 2 || keptBefore.every(({ key }, i) => keptAfter[i]!.key === key)) return null;
  return [...keptBefore, ...keptAfter].map(({ item }) => item);
}

/**
 * Lists whose items changed places ("Most read" reordered), compared as sets: a list is the parent
 * of `li` or `tr` items with the same selector in both pages, an item is identified by all the
 * text inside it (its blocks' comparison keys, so volatile and normalised parts aside). The items
 * found as often in the old list as in the new one are kept; when they come in another order,
 * their blocks are taken out of the comparison on both sides (they only moved), and what is left
 * of the list (an item added, removed or edited) is compared as usual. Returns the elements of
 * the moved items (both pages), or null when no list was reordered. Only lists that hold a
 * changed block (`raws`) are looked at.
 */
function reorderedItems(oldPage: Page, newPage: Page, raws: readonly RawChange[]): Set<AnyNode> | null {
  const lists = new Map<string, ListPair>();
  const listsOf = (page: Page, side: "before" | "after", element: Element): void => {
    for (let node: AnyNode | null = element; node !== null; node = node.parent) {
      if (!isElement(node) || !ITEM_TAGS.has(node.name) || node.parent === null || !isElement(node.parent)) continue;
      const selector = page.selectors.selectorOf(node.parent);
      let pair = lists.get(selector);
      if (pair === undefined) lists.set(selector, (pair = { tag: node.name }));
      if (pair.tag === node.name) pair[side] = node.parent;
    }
  };
  for (const raw of raws) {
    if (raw.before !== undefined) listsOf(oldPage, "before", raw.before.element);
    if (raw.after !== undefined) listsOf(newPage, "after", raw.after.element);
  }
  let moved: Set<AnyNode> | null = null;
  let oldKeys: Map<Element, string> | undefined;
  let newKeys: Map<Element, string> | undefined;
  for (const pair of lists.values()) {
    if (pair.before === undefined || pair.after === undefined) continue;
    oldKeys ??= new Map(oldPage.blocks.map((block) => [block.element, block.key]));
    newKeys ??= new Map(newPage.blocks.map((block) => [block.element, block.key]));
    const items = movedItems(itemsOf(pair.before, pair.tag, oldKeys), itemsOf(pair.after, pair.tag, newKeys));
    if (items === null) continue;
    moved ??= new Set();
    for (const item of items) moved.add(item);
  }
  return moved;
}

/** Whether a block is inside one of `items` (or is one). */
function insideOf(block: TextBlock, items: ReadonlySet<AnyNode>): boolean {
  for (let node: AnyNode | null = block.element; node !== null; node = node.parent) if (items.has(node)) return true;
  return false;
}

/** Aligned blocks whose text differs although their keys are equal: hidden as volatile or normalised. */
function explainHidden(oldBlocks: readonly TextBlock[], newBlocks: readonly TextBlock[], newPage: Page, matched: readonly number[], switches: NormalizeSwitches, out: DiffExplanation[]): void {
  for (let p = 0; p < matched.length; p += 2) {
    const before = oldBlocks[matched[p]!]!;
    const after = newBlocks[matched[p + 1]!]!;
    if (before.text === after.text) continue;
    const path = newPage.selectors.selectorOf(after.element);
    const index = after.volatile >= 0 ? after.volatile : before.volatile;
    if (index >= 0) {
      out.push({ path, selector: path, outcome: "volatile", rule: `volatile[${index}]`, detail: `text inside a volatile element changed in <${after.element.name}>` });
      continue;
    }
    const rules = [...new Set([...normalizationsIn(before.text, switches), ...normalizationsIn(after.text, switches)])];
    const entry: DiffExplanation = {
      path,
      selector: path,
      outcome: "volatile",
      detail: `text changed in <${after.element.name}> only where it is normalised (${rules.map((r) => r.slice("normalize.".length)).join(", ")})`,
    };
    if (rules.length > 0) entry.rule = rules.join(", ");
    out.push(entry);
  }
}

/**
 * The text blocks `diffHtml` compares, with a selector for each: to see what a page reduces to,
 * or to choose a scope `selector` and policy rules.
 */
export function htmlTextBlocks(html: string, options: Pick<DiffHtmlOptions, "selector" | "policy" | "maxDepth" | "maxSelectorWork"> = {}): HtmlTextBlock[] {
  requireString(html, "html");
  const policy = options.policy === undefined || options.policy === null ? EMPTY_POLICY : validatePolicyRules(options.policy);
  validateSelectors(policy, options.selector ?? null);
  const page = loadPage(html, options.selector ?? null, policy, textNormalizer(normalizeSwitches(policy.normalize)), limitsOf(options));
  return page.blocks.map((block) => ({ selector: page.selectors.selectorOf(block.element), tag: block.element.name, text: block.text }));
}
