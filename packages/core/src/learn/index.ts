import { DriftwatchError } from "../errors.js";
import { validatePolicyRules } from "../policy/index.js";
import { suggestHtmlPolicy } from "./html.js";
import { type Json, suggestJsonPolicy } from "./json.js";
import type { PolicySuggestion, SuggestPolicyOptions } from "./types.js";

export type { PolicyEvidence, PolicySuggestion, SuggestPolicyOptions } from "./types.js";

/** The most samples one call looks at; a noise profile keeps far fewer. */
export const MAX_LEARN_SAMPLES = 1000;

function invalid(path: string, message: string, cause?: unknown): DriftwatchError {
  return new DriftwatchError("invalid_input", `${path}: ${message}`, { details: [{ path, message }], ...(cause === undefined ? {} : { cause }) });
}

function parseSample(value: unknown, index: number): Json {
  if (typeof value !== "string") return value as Json;
  try {
    return JSON.parse(value) as Json;
  } catch (cause) {
    throw invalid(`history[${index}]`, `not valid JSON (${cause instanceof Error ? cause.message : String(cause)})`, cause);
  }
}

/** Whether `value` is a JSON value (plain objects, arrays, finite numbers, strings, booleans, null). */
function jsonProblem(value: unknown): string | undefined {
  const stack: unknown[] = [value];
  let visited = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (++visited > 10_000_000) return "too large";
    if (v === null || typeof v === "string" || typeof v === "boolean") continue;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return `${v} is not a JSON number`;
      continue;
    }
    if (Array.isArray(v)) {
      for (const e of v) stack.push(e);
      continue;
    }
    if (typeof v === "object") {
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) return "objects must be plain JSON objects";
      for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k]);
      continue;
    }
    return `a ${typeof v} is not a JSON value`;
  }
  return undefined;
}

/** The most entries a policy's `volatile`, `tolerance` and `unordered` lists hold (the schema's limit). */
const MAX_ENTRIES = 500;

/** Entries past the schema's limit are left out; their evidence says they were kept, and why. */
function capEntries(suggestion: PolicySuggestion): void {
  const { policy } = suggestion;
  for (const list of ["volatile", "tolerance", "unordered"] as const) {
    const entries = policy[list];
    if (entries === undefined || entries.length <= MAX_ENTRIES) continue;
    policy[list] = entries.slice(0, MAX_ENTRIES) as never;
    for (const evidence of suggestion.evidence) {
      const match = evidence.rule === undefined ? null : /^(\w+)\[(\d+)\]$/.exec(evidence.rule);
      if (match === null || match[1] !== list || Number(match[2]) < MAX_ENTRIES) continue;
      evidence.kind = "kept";
      delete evidence.rule;
      evidence.reason = `kept: ${evidence.reason}, but a policy holds at most ${MAX_ENTRIES} ${list} entries`;
    }
  }
}

/**
 * Learns a policy from consecutive snapshots of one target (oldest first): identity keys of
 * arrays of objects, volatile fields by value shape (timestamps, UUIDs, tokens, ETags, request
 * ids, counters, relative times), unordered arrays, float tolerances and, for fields stable in
 * every sample, severity rules that rate their removal or an enum-like value change `medium`.
 * Website monitors (`kind: "html"`) get volatile selectors for blocks whose text changes on most
 * fetches in a volatile way. Fields that changed but look meaningful (an enum-like status, a
 * price, a version, a boolean) are kept, and `evidence` says why for each entry.
 *
 * The policy is accepted by `PolicyRulesSchema` (the settings API), `diffJson` and `diffHtml`;
 * it never ignores a change outright.
 *
 * @throws DriftwatchError `invalid_input` for fewer than 2 samples, unparseable JSON, non-string
 *   pages or an unknown kind; `too_deep` for documents nested deeper than 1000 levels.
 */
export function suggestPolicy(history: readonly unknown[], options: SuggestPolicyOptions): PolicySuggestion {
  if (!Array.isArray(history)) throw invalid("history", "expected an array of snapshot bodies, oldest first");
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw invalid("options", 'expected { kind: "json" | "html" }');
  const kind: unknown = options.kind;
  if (kind !== "json" && kind !== "html") throw invalid("options.kind", `expected "json" or "html", got ${JSON.stringify(kind) ?? String(kind)}`);
  if (history.length < 2) throw invalid("history", `at least 2 samples are needed to learn from, got ${history.length}`);
  if (history.length > MAX_LEARN_SAMPLES) throw invalid("history", `at most ${MAX_LEARN_SAMPLES} samples, got ${history.length}`);
  const selector: unknown = options.selector ?? null;
  if (selector !== null && (typeof selector !== "string" || selector.trim() === "")) {
    throw invalid("options.selector", "expected a non-empty CSS selector");
  }
  let suggestion: PolicySuggestion;
  if (kind === "html") {
    history.forEach((page, index) => {
      if (typeof page !== "string") throw invalid(`history[${index}]`, `expected a string of HTML, got ${page === null ? "null" : typeof page}`);
    });
    suggestion = suggestHtmlPolicy(history as readonly string[], selector as string | null);
  } else {
    const samples = history.map((body, index) => {
      const value = parseSample(body, index);
      const problem = jsonProblem(value);
      if (problem !== undefined) throw invalid(`history[${index}]`, problem);
      return value;
    });
    suggestion = suggestJsonPolicy(samples);
  }
  capEntries(suggestion);
  // What is suggested must be what the settings API accepts.
  suggestion.policy = validatePolicyRules(suggestion.policy);
  return suggestion;
}
