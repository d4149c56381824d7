import { compileValidatedAlert, previewAlert as previewCompiled, type CheckObservation, type ObservedValue, type PatternMatcher } from "@driftwatch/core/conditions";
import type { Severity } from "@driftwatch/client";
import type { Alert, TrackedValue } from "./api";

/*
 * The conditions' preview in the browser: which past checks would have alerted. The evaluation is
 * @driftwatch/core's own (`@driftwatch/core/conditions`, the evaluator without Node, zod or re2js),
 * so the preview follows the same rules as the service's checks: a missing value or one of the
 * wrong type makes a condition false and says why; `forChecks: N` holds after N consecutive
 * checks; a check alerts when the conditions hold and did not on the check before. This module
 * only turns the dashboard's past checks into observations and back.
 */

/** One past check as the preview reads it (values by tracked name; absent = missing). */
export interface PastCheck {
  at: string;
  snapshotId: string | null;
  values: Record<string, TrackedValue | null | undefined>;
  /** Why a value is missing, when the check said. */
  reasons?: Record<string, string>;
  topSeverity?: Severity | null;
  text?: string | null;
}

export interface ConditionOutcome {
  index: number;
  matched: boolean;
  reason: string;
}

export interface PreviewEntry {
  check: PastCheck;
  matched: boolean;
  alerted: boolean;
  results: ConditionOutcome[];
}

export function showValue(v: TrackedValue): string {
  if (typeof v === "object" && v !== null) return v.currency === null ? String(v.amount) : `${String(v.amount)} ${v.currency}`;
  if (typeof v === "string") return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  return String(v);
}

/**
 * `matches` in the browser: a JavaScript RegExp. The service compiles the same pattern with RE2,
 * which refuses lookarounds and backreferences when the alert is saved. RE2's leading flag group
 * (`(?i)`, `(?s)`, `(?m)`, as in docs/conditions.md's recipes) becomes the RegExp's flags; a
 * pattern RegExp cannot compile makes its condition false in the preview. So does a pattern that
 * could backtrack for an exponential time in JavaScript (see mayBacktrack): RE2 matches it in
 * linear time on the server, but here it could freeze the page on a long text.
 */
export function compileRegExp(pattern: string): PatternMatcher | undefined {
  if (mayBacktrack(pattern)) return undefined;
  const flags = /^\(\?([ims]+)\)/.exec(pattern);
  let compiled: RegExp;
  try {
    compiled = new RegExp(flags === null ? pattern : pattern.slice(flags[0].length), `u${flags === null ? "" : [...new Set(flags[1])].join("")}`);
  } catch {
    return undefined;
  }
  return { matcher: (input) => ({ find: () => compiled.test(input) }) };
}

/**
 * Whether a pattern repeats, without bound (`*`, `+`, `{n,}`), a group that itself repeats or
 * holds alternatives: `(a+)+`, `(\\w+\\s?)*`, `(a|ab)*`. Such a pattern can take exponential time in
 * a backtracking engine. A conservative scan: escapes and character classes are skipped; a
 * bounded repetition (`?`, `{2,5}`) of such a group is allowed.
 */
export function mayBacktrack(pattern: string): boolean {
  const groups: Array<{ repeats: boolean; alternates: boolean }> = [];
  const unbounded = (at: number): boolean => {
    const next = pattern.charAt(at);
    return next === "*" || next === "+" || (next === "{" && /^\{\d*,\}/.test(pattern.slice(at)));
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "[") {
      // a character class up to its closing bracket (a `]` right after `[` or `[^` is a literal)
      let j = i + 1;
      if (pattern.charAt(j) === "^") j++;
      if (pattern.charAt(j) === "]") j++;
      while (j < pattern.length && pattern.charAt(j) !== "]") j += pattern.charAt(j) === "\\" ? 2 : 1;
      i = j;
      continue;
    }
    const top = groups[groups.length - 1];
    if (c === "(") groups.push({ repeats: false, alternates: false });
    else if (c === "|") {
      if (top) top.alternates = true;
    } else if (c === ")") {
      const group = groups.pop();
      if (group === undefined) continue;
      const repeated = unbounded(i + 1);
      if (repeated && (group.repeats || group.alternates)) return true;
      const parent = groups[groups.length - 1];
      if (parent && (group.repeats || repeated || pattern.charAt(i + 1) === "{")) parent.repeats = true;
    } else if ((c === "*" || c === "+" || c === "{") && top) top.repeats = true;
  }
  return false;
}

function observation(check: PastCheck): CheckObservation {
  const values: Record<string, ObservedValue> = {};
  for (const [name, value] of Object.entries(check.values)) {
    const reason = check.reasons?.[name];
    values[name] = (value === null || value === undefined) && reason !== undefined ? { status: "missing", reason } : value;
  }
  for (const [name, reason] of Object.entries(check.reasons ?? {})) {
    if (!(name in values)) values[name] = { status: "missing", reason };
  }
  return { values, text: check.text ?? null, topSeverity: check.topSeverity ?? null };
}

/** Runs the alert over past checks, oldest first, as the engine would have. */
export function previewAlert(alert: Alert, checks: readonly PastCheck[]): PreviewEntry[] {
  const entries = previewCompiled(compileValidatedAlert(alert, compileRegExp), checks.map(observation));
  return entries.map((entry, index) => ({ check: checks[index]!, matched: entry.matched, alerted: entry.alerted, results: entry.results }));
}
