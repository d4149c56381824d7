import { type DiffExplanation, diffHtml, diffJson, diffScreenshots, type DiffScreenshotsOptions, EvalBudget, explainDiffHtml, explainDiffJson, isDriftwatchError, type PolicyEvidence, type PolicyRules, suggestPolicy, type VisualComparison } from "@driftwatch/core";
import { isOpenApiError } from "@driftwatch/openapi";
import type { Change } from "@driftwatch/schema";
import { parseStoredDocument } from "../openapi/bundle.js";
import { compareOpenApi, type OpenApiComparedDiff } from "../openapi/compare-openapi.js";

/**
 * The heavy part of a check, as plain data in and out so that it can run on the main thread or
 * in a worker thread alike: parse the new content, compare it with the previous one under the
 * monitor's policy, and cap the diff's size.
 */
export interface CompareTask {
  type: "api" | "website" | "openapi";
  /** `openapi` monitors: where the document was read from (resolves a plain document's relative `$ref`s). */
  url?: string;
  /** The new content. */
  body: string;
  /** The previous snapshot's content, or null for a first snapshot (the body is only validated). */
  previousBody: string | null;
  policy: PolicyRules;
  /** The website monitor's scope selector. */
  selector: string | null;
  /** Caps of the diff as stored (see `truncateChanges`). */
  maxDiffChanges: number;
  maxDiffBytes: number;
  /** Also say which changes the policy hid, and by which entry (`CompareResult.hidden`). */
  explain?: boolean;
}

/** Most hidden changes listed one by one in `HiddenChanges.first` (all are counted). */
export const HIDDEN_LIST_MAX = 20;

/** The changes a policy hid: counted per policy entry, the first few listed. */
export interface HiddenChanges {
  count: number;
  /** Hidden changes per policy entry (`volatile[3]`: 2); at most one key per entry of the policy. */
  byRule: Record<string, number>;
  first: { path: string; outcome: "volatile" | "tolerance" | "unordered" | "ignored"; rule: string }[];
}

const HIDING_OUTCOMES: ReadonlySet<string> = new Set(["volatile", "tolerance", "unordered", "ignored"]);

/** What `explanations` say was hidden by a policy entry (inferences, float noise and ratings aside). */
export function hiddenOf(explanations: readonly DiffExplanation[]): HiddenChanges {
  const hidden: HiddenChanges = { count: 0, byRule: {}, first: [] };
  for (const e of explanations) {
    if (!HIDING_OUTCOMES.has(e.outcome) || e.rule === undefined) continue;
    hidden.count++;
    hidden.byRule[e.rule] = (hidden.byRule[e.rule] ?? 0) + 1;
    if (hidden.first.length < HIDDEN_LIST_MAX) hidden.first.push({ path: e.path, outcome: e.outcome as HiddenChanges["first"][number]["outcome"], rule: e.rule });
  }
  return hidden;
}

/** The engine's part of a diff, with `changes` capped and `truncated` set when it was. */
export type ComparedDiff =
  | {
      classification: "schema_change" | "value_change";
      schemaChanges: number;
      valueChanges: number;
      topSeverity: Change["severity"];
      diffFingerprint: string;
      changes: Change[];
      truncated?: true;
    }
  | (Omit<OpenApiComparedDiff, "changes"> & { changes: Change[]; truncated?: true })
  | {
      classification: "content_change";
      summary: { additions: number; removals: number; modifications: number };
      changedTargets: string[];
      topSeverity: Change["severity"];
      diffFingerprint: string;
      changes: Change[];
      truncated?: true;
    };

/** Codes of a comparison that failed because of the content or the policy, not because of a bug. */
export type CompareErrorCode = "invalid_body" | "too_deep" | "rule_budget_exceeded" | "invalid_policy_rules" | "invalid_input" | "diff_failed";

export type CompareResult =
  | { ok: true; diff: ComparedDiff | null; hidden?: HiddenChanges }
  | { ok: false; code: CompareErrorCode; message: string };

const CONTENT_CODES: ReadonlySet<string> = new Set(["too_deep", "rule_budget_exceeded", "invalid_policy_rules", "invalid_input"]);

/**
 * The first changes that fit both caps: at most `maxChanges`, and at most `maxBytes` of JSON
 * together. Looks at no more than `maxChanges + 1` changes, so a huge diff costs no more to cap.
 */
export function truncateChanges(changes: readonly Change[], maxChanges: number, maxBytes: number): { changes: Change[]; truncated: boolean } {
  const kept: Change[] = [];
  let bytes = 2; // the brackets
  for (const change of changes) {
    if (kept.length >= maxChanges) break;
    const size = Buffer.byteLength(JSON.stringify(change), "utf8") + 1;
    if (bytes + size > maxBytes) break;
    bytes += size;
    kept.push(change);
  }
  return kept.length === changes.length ? { changes: kept, truncated: false } : { changes: kept, truncated: true };
}

function failure(error: unknown): CompareResult {
  if (isDriftwatchError(error) && CONTENT_CODES.has(error.code)) {
    return { ok: false, code: error.code as CompareErrorCode, message: error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  // Out of memory in a call stack too deep or an allocation too large: still the content's doing.
  return { ok: false, code: "diff_failed", message: `The new content could not be compared: ${message}` };
}

/**
 * Several snapshot pairs compared under one policy as one piece of work (the rules preview): the
 * pairs' JSONPath rule evaluations share one step budget, and a pool runs the whole batch in one
 * worker task under one time limit.
 */
export interface CompareBatchTask {
  type: "api" | "website";
  policy: PolicyRules;
  selector: string | null;
  pairs: { body: string; previousBody: string }[];
  maxDiffChanges: number;
  maxDiffBytes: number;
  /** JSONPath evaluation steps all the pairs may take together; past it each further pair fails with `rule_budget_exceeded`. */
  ruleSteps: number;
}

/** Compares each pair of the batch in order (one result per pair). Never throws. */
export function compareBatch(task: CompareBatchTask): CompareResult[] {
  const budget = new EvalBudget(task.ruleSteps);
  return task.pairs.map((pair) =>
    compareWith({ type: task.type, policy: task.policy, selector: task.selector, body: pair.body, previousBody: pair.previousBody, maxDiffChanges: task.maxDiffChanges, maxDiffBytes: task.maxDiffBytes }, budget),
  );
}

/** Runs a comparison. Never throws: every failure is a `CompareResult` with a code. */
export function compareContent(task: CompareTask): CompareResult {
  return compareWith(task, undefined);
}

/** Two versions of an OpenAPI document: API changes (a first version is only read, to refuse one that cannot be). */
function compareOpenApiTask(task: CompareTask): CompareResult {
  const url = task.url ?? "memory:/openapi";
  try {
    if (task.previousBody === null) {
      parseStoredDocument(task.body, url);
      return { ok: true, diff: null };
    }
    // the previous version was read when it was stored: an error here is the new version's
    const found = compareOpenApi(task.previousBody, task.body, url);
    if (found === null) return { ok: true, diff: null };
    const capped = truncateChanges(found.changes, task.maxDiffChanges, task.maxDiffBytes);
    return { ok: true, diff: { ...found, changes: capped.changes, ...(capped.truncated ? { truncated: true as const } : {}) } };
  } catch (error) {
    if (isOpenApiError(error)) {
      if (error.code === "too_complex") return { ok: false, code: "diff_failed", message: `The OpenAPI documents are too complex to compare: ${error.message}` };
      return { ok: false, code: "invalid_body", message: `The OpenAPI document cannot be read (${error.code}): ${error.message}` };
    }
    return failure(error);
  }
}

function compareWith(task: CompareTask, ruleBudget: EvalBudget | undefined): CompareResult {
  if (task.type === "openapi") return compareOpenApiTask(task);
  try {
    if (task.type === "api") {
      let after: unknown;
      try {
        after = JSON.parse(task.body);
      } catch {
        return { ok: false, code: "invalid_body", message: "The response body is not JSON" };
      }
      if (task.previousBody === null) return { ok: true, diff: null };
      let before: unknown;
      try {
        before = JSON.parse(task.previousBody);
      } catch {
        return { ok: true, diff: null }; // the previous content was not JSON (the monitor changed type): start over
      }
      const budget = ruleBudget === undefined ? {} : { ruleBudget };
      let found: ReturnType<typeof diffJson>;
      let hidden: HiddenChanges | undefined;
      if (task.explain === true) {
        const explained = explainDiffJson(before, after, { policy: task.policy, ...budget });
        found = explained.diff;
        hidden = hiddenOf(explained.explanations);
      } else found = diffJson(before, after, { policy: task.policy, ...budget });
      if (found === null) return { ok: true, diff: null, ...(hidden ? { hidden } : {}) };
      const capped = truncateChanges(found.changes, task.maxDiffChanges, task.maxDiffBytes);
      return {
        ok: true,
        diff: {
          classification: found.classification,
          schemaChanges: found.schemaChanges,
          valueChanges: found.valueChanges,
          topSeverity: found.topSeverity,
          diffFingerprint: found.diffFingerprint,
          changes: capped.changes,
          ...(capped.truncated ? { truncated: true as const } : {}),
        },
        ...(hidden ? { hidden } : {}),
      };
    }
    if (task.previousBody === null) return { ok: true, diff: null };
    let found: ReturnType<typeof diffHtml>;
    let hidden: HiddenChanges | undefined;
    if (task.explain === true) {
      const explained = explainDiffHtml(task.previousBody, task.body, { selector: task.selector, policy: task.policy });
      found = explained.diff;
      hidden = hiddenOf(explained.explanations);
    } else found = diffHtml(task.previousBody, task.body, { selector: task.selector, policy: task.policy });
    if (found === null) return { ok: true, diff: null, ...(hidden ? { hidden } : {}) };
    const capped = truncateChanges(found.changes, task.maxDiffChanges, task.maxDiffBytes);
    // The selectors of the listed changes only: on a huge page they are as unbounded as the changes.
    const changedTargets = capped.truncated ? [...new Set(capped.changes.map((change) => change.path))] : found.changedTargets;
    return {
      ok: true,
      diff: {
        classification: found.classification,
        summary: found.summary,
        changedTargets,
        topSeverity: found.topSeverity,
        diffFingerprint: found.diffFingerprint,
        changes: capped.changes,
        ...(capped.truncated ? { truncated: true as const } : {}),
      },
      ...(hidden ? { hidden } : {}),
    };
  } catch (error) {
    return failure(error);
  }
}

/** What a noise profile is learned from: a monitor's contents, oldest first, as plain data (it may run in a worker thread). */
export interface LearnTask {
  kind: "json" | "html";
  /** Contents, oldest first (stored snapshots, then the content a check fetched). */
  bodies: string[];
  selector: string | null;
  /** Fewer usable samples than this: nothing is learned. */
  minSamples: number;
}

export type LearnResult =
  | { ok: true; samples: number; policy: PolicyRules; evidence: PolicyEvidence[] }
  /** `expected`: the content's doing (too deep, too large): not worth a log line. */
  | { ok: false; samples: number; message: string; expected: boolean };

/**
 * Learns a noise profile (`suggestPolicy`) from contents. JSON: the newest contents that parse
 * (a body that is not JSON, from before the monitor's target changed, ends the usable history).
 * Never throws.
 */
export function learnContent(task: LearnTask): LearnResult {
  let history: unknown[] = task.bodies;
  if (task.kind === "json") {
    const parsed: unknown[] = [];
    for (let i = task.bodies.length - 1; i >= 0; i--) {
      try {
        parsed.unshift(JSON.parse(task.bodies[i]!));
      } catch {
        break;
      }
    }
    history = parsed;
  }
  if (history.length === 0) return { ok: true, samples: 0, policy: { rules: [] }, evidence: [] };
  const samples = history.length;
  // One sample tells what stays put (stable fields' severity, clocks and counts by their names):
  // it is learned from twice. Two or more: as they are.
  if (samples === 1) history = [history[0], history[0]];
  else if (samples < task.minSamples) return { ok: true, samples, policy: { rules: [] }, evidence: [] };
  try {
    const suggestion = suggestPolicy(history, { kind: task.kind, selector: task.selector });
    return { ok: true, samples, policy: suggestion.policy, evidence: suggestion.evidence };
  } catch (error) {
    return { ok: false, samples, message: error instanceof Error ? error.message : String(error), expected: isDriftwatchError(error) };
  }
}

/** Two screenshots to compare (`diffScreenshots`), in the pool: off the event loop when big. */
export interface VisualTask {
  before: Uint8Array;
  after: Uint8Array;
  options: DiffScreenshotsOptions;
}

/** `diffScreenshots`' result, or why it could not compare (its error's code and message). */
export type VisualResult = ({ ok: true } & VisualComparison) | { ok: false; code: string; message: string };

export function compareScreenshots(task: VisualTask): VisualResult {
  try {
    return { ok: true, ...diffScreenshots(task.before, task.after, task.options) };
  } catch (error) {
    if (isDriftwatchError(error)) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}
