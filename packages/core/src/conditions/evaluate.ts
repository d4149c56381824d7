import type { AlertResult, Condition, ConditionResult, Price, Severity, TrackedValue } from "@driftwatch/schema";
import type { TrackedReading } from "../track/extract.js";
import type { CompiledAlert, PatternMatcher } from "./validate.js";

/** Longest text `contains` and `matches` read (and the state keeps for `changed`); the rest is ignored. */
export const MAX_CONDITION_INPUT = 100_000;

/** A tracked value as a check saw it: the value, null when it was missing, or the reading with its reason. */
export type ObservedValue = TrackedValue | TrackedReading | null | undefined;

/** What one check observed, as the conditions read it. */
export interface CheckObservation {
  /** Tracked values by name. */
  values?: Record<string, ObservedValue>;
  /** The monitor's selected text (`text`), null or absent when not known. */
  text?: string | null;
  /** The top severity of this check's diff (`diff.topSeverity`); null when the check found no change. */
  topSeverity?: Severity | null;
}

/** The previous check as the state keeps it: only what the conditions read, JSON-serialisable. */
interface RememberedCheck {
  values: Record<string, TrackedValue | null>;
}

/**
 * What the evaluator carries from one check to the next: the previous check's values (for
 * `changed`, `appeared`, `*_by_percent`...), each condition's streak of consecutive checks it
 * held (`forChecks`), and whether the alert as a whole matched last time. Plain JSON, so an
 * engine can store it with the monitor. `key` identifies the conditions it belongs to: a state
 * of other conditions restarts the streaks.
 */
export interface AlertState {
  key: string;
  previous: RememberedCheck | null;
  streaks: number[];
  matched: boolean;
}

export interface AlertEvaluation extends AlertResult {
  /** True when the alert matches now and did not on the previous check. */
  newlyMatched: boolean;
  /** The state to pass to the next check's evaluation. */
  state: AlertState;
}

type Resolved = { present: true; value: TrackedValue } | { present: false; reason: string };

/**
 * Evaluates `alert` on one check. Pure: the same alert, observation and state give the same
 * result and the same next state. Work is bounded by the number of conditions and
 * MAX_CONDITION_INPUT characters per text condition (`matches` runs on re2js, linear time).
 */
export function evaluateAlert(compiled: CompiledAlert, observation: CheckObservation, state?: AlertState | null): AlertEvaluation {
  const { alert, patterns } = compiled;
  const key = alertKey(compiled);
  const usable = state !== undefined && state !== null && state.key === key && state.streaks.length === alert.conditions.length ? state : null;
  const previous = state !== undefined && state !== null ? state.previous : null;
  const results: ConditionResult[] = [];
  const streaks: number[] = [];
  alert.conditions.forEach((condition, index) => {
    const raw = evaluateCondition(condition, patterns[index], resolve(condition.value, observation), previous === null ? null : resolveRemembered(condition.value, previous));
    const streak = raw.matched ? (usable?.streaks[index] ?? 0) + 1 : 0;
    streaks.push(streak);
    const needed = condition.forChecks ?? 1;
    if (raw.matched && streak < needed) {
      results.push({ index, matched: false, reason: `${raw.reason}; held ${streak} of ${needed} consecutive checks` });
    } else if (raw.matched && needed > 1) {
      results.push({ index, matched: true, reason: `${raw.reason}; held ${streak} consecutive checks (${needed} needed)` });
    } else {
      results.push({ index, matched: raw.matched, reason: raw.reason });
    }
  });
  const matched = alert.when === "any" ? results.some((r) => r.matched) : results.every((r) => r.matched);
  const next: AlertState = { key, previous: remember(compiled, observation), streaks, matched };
  return { matched, results, newlyMatched: matched && !(usable?.matched ?? false), state: next };
}

/**
 * The conditions on a check that failed (the target did not answer, an error status, a body that
 * does not parse): the check has no values, so no condition holds on it and every `forChecks`
 * streak starts again (three good checks, a failure, then one good check is a streak of one).
 * The previous check's values stay those of the last check that had values, so `changed` and
 * `*_by_percent` compare across the failure; and a failure does not end a match: when the next
 * check holds again without needing a streak, it is not newly matched (no second alert for a
 * transient failure).
 */
export function evaluateFailedCheck(compiled: CompiledAlert, reason: string, state?: AlertState | null): AlertEvaluation {
  const key = alertKey(compiled);
  const count = compiled.alert.conditions.length;
  const usable = state !== undefined && state !== null && state.key === key && state.streaks.length === count ? state : null;
  const previous = state !== undefined && state !== null ? state.previous : null;
  const results: ConditionResult[] = compiled.alert.conditions.map((condition, index) => {
    const held = usable?.streaks[index] ?? 0;
    const needed = condition.forChecks ?? 1;
    const restart = needed > 1 && held > 0 ? `; the streak of ${held} consecutive checks starts again` : "";
    return { index, matched: false, reason: `the check failed (${reason}), so ${condition.value} has no value${restart}` };
  });
  const next: AlertState = { key, previous, streaks: new Array<number>(count).fill(0), matched: usable?.matched ?? false };
  return { matched: false, results, newlyMatched: false, state: next };
}

/** One entry of a preview: a past check and what the conditions said about it. */
export interface AlertPreviewEntry extends AlertResult {
  /** Position in the history given (0 = oldest). */
  index: number;
  /** The check's `at`, when the history gave one. */
  at?: string;
  /** Whether this check would have sent an alert: the conditions hold now and did not on the check before. */
  alerted: boolean;
}

/**
 * Which past checks would have alerted: runs the conditions over a monitor's history of tracked
 * values (oldest first), carrying the state from check to check as the engine would.
 */
export function previewAlert(compiled: CompiledAlert, history: ReadonlyArray<CheckObservation & { at?: string }>): AlertPreviewEntry[] {
  let state: AlertState | null = null;
  return history.map((check, index) => {
    const evaluation = evaluateAlert(compiled, check, state);
    state = evaluation.state;
    const entry: AlertPreviewEntry = { index, matched: evaluation.matched, results: evaluation.results, alerted: evaluation.newlyMatched };
    if (check.at !== undefined) entry.at = check.at;
    return entry;
  });
}

function alertKey(compiled: CompiledAlert): string {
  return JSON.stringify(compiled.alert.conditions.map((c) => [c.value, c.op, c.to ?? null, c.forChecks ?? 1]));
}

function remember(compiled: CompiledAlert, observation: CheckObservation): RememberedCheck {
  const values: Record<string, TrackedValue | null> = {};
  for (const condition of compiled.alert.conditions) {
    const resolved = resolve(condition.value, observation);
    let value = resolved.present ? resolved.value : null;
    if (typeof value === "string" && value.length > MAX_CONDITION_INPUT) value = value.slice(0, MAX_CONDITION_INPUT);
    values[condition.value] = value;
  }
  return { values };
}

function resolve(name: string, observation: CheckObservation): Resolved {
  if (name === "text") {
    const text = observation.text;
    return typeof text === "string" ? { present: true, value: text } : { present: false, reason: "the check has no selected text" };
  }
  if (name === "diff.topSeverity") {
    const severity = observation.topSeverity;
    return typeof severity === "string" ? { present: true, value: severity } : { present: false, reason: "the check found no change, so there is no diff severity" };
  }
  const observed = observation.values?.[name];
  if (observed === undefined || observed === null) return { present: false, reason: `${name} is missing on this check` };
  if (typeof observed === "object" && "status" in observed) {
    return observed.status === "ok" ? { present: true, value: observed.value } : { present: false, reason: `${name} is missing: ${observed.reason}` };
  }
  return { present: true, value: observed };
}

function resolveRemembered(name: string, previous: RememberedCheck): Resolved {
  const value = previous.values[name];
  return value === undefined || value === null ? { present: false, reason: `${name} was missing on the previous check` } : { present: true, value };
}

interface Outcome {
  matched: boolean;
  reason: string;
}

function isPrice(value: TrackedValue): value is Price {
  return typeof value === "object" && value !== null && typeof (value as Price).amount === "number";
}

function show(value: TrackedValue): string {
  if (isPrice(value)) return value.currency === null ? String(value.amount) : `${value.amount} ${value.currency}`;
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return String(value);
}

function typeName(value: TrackedValue): string {
  if (isPrice(value)) return "a price";
  return typeof value === "number" ? "a number" : typeof value === "boolean" ? "a boolean" : "a text";
}

function numeric(value: TrackedValue): number | null {
  if (typeof value === "number") return value;
  if (isPrice(value)) return value.amount;
  return null;
}

function equalValues(a: TrackedValue, b: TrackedValue): boolean {
  if (isPrice(a) && isPrice(b)) return a.amount === b.amount && a.currency === b.currency;
  return a === b;
}

/** `value` (as observed) equals the operand `to`; a price compares its amount. Null when the types do not compare. */
function equalsOperand(value: TrackedValue, to: number | string | boolean): boolean | null {
  const n = numeric(value);
  if (n !== null) return typeof to === "number" ? Math.abs(n - to) <= 1e-9 * Math.max(1, Math.abs(n), Math.abs(to)) : null;
  if (typeof value === "string") return typeof to === "string" ? value === to : null;
  if (typeof value === "boolean") return typeof to === "boolean" ? value === to : null;
  return null;
}

/**
 * Severities in ascending order, as @driftwatch/schema's SEVERITIES (a test keeps them equal).
 * Kept here so that this module imports nothing at run time: it is `@driftwatch/core/conditions`,
 * which a browser bundle imports without zod (see browser.ts).
 */
export const SEVERITY_ORDER: readonly Severity[] = ["info", "low", "medium", "high", "critical"];
const SEVERITY_NAMES = new Set<string>(SEVERITY_ORDER);
const severityRank = (severity: Severity): number => SEVERITY_ORDER.indexOf(severity);

function evaluateCondition(condition: Condition, pattern: PatternMatcher | undefined, current: Resolved, previous: Resolved | null): Outcome {
  const { op, to, value: name } = condition;
  const first = (): Outcome => ({ matched: false, reason: `first check: no previous value of ${name} to compare with` });
  switch (op) {
    case "appeared":
      if (previous === null) return first();
      if (!current.present) return { matched: false, reason: current.reason };
      return previous.present ? { matched: false, reason: `${name} was already there (${show(previous.value)})` } : { matched: true, reason: `${name} appeared: ${show(current.value)}` };
    case "disappeared":
      if (previous === null) return first();
      if (current.present) return { matched: false, reason: `${name} is there: ${show(current.value)}` };
      return previous.present ? { matched: true, reason: `${name} disappeared (was ${show(previous.value)})` } : { matched: false, reason: `${name} was already missing` };
    default:
      break;
  }
  if (!current.present) return { matched: false, reason: current.reason };
  const value = current.value;
  switch (op) {
    case "lt":
    case "lte":
    case "gt":
    case "gte": {
      let left: number | null;
      let right: number | null;
      if (name === "diff.topSeverity") {
        left = typeof value === "string" && SEVERITY_NAMES.has(value) ? severityRank(value as Severity) : null;
        right = typeof to === "string" && SEVERITY_NAMES.has(to) ? severityRank(to as Severity) : null;
      } else {
        left = numeric(value);
        right = typeof to === "number" ? to : null;
      }
      if (left === null || right === null) return { matched: false, reason: `${name} is ${typeName(value)} (${show(value)}), not a number` };
      const holds = op === "lt" ? left < right : op === "lte" ? left <= right : op === "gt" ? left > right : left >= right;
      const words = { lt: "below", lte: "at most", gt: "above", gte: "at least" }[op];
      return { matched: holds, reason: `${name} is ${show(value)}, ${holds ? "" : "not "}${words} ${String(to)}` };
    }
    case "eq":
    case "ne": {
      const equal = equalsOperand(value, to!);
      if (equal === null) return { matched: false, reason: `${name} is ${typeName(value)} (${show(value)}); it does not compare with ${JSON.stringify(to)}` };
      const holds = op === "eq" ? equal : !equal;
      return { matched: holds, reason: `${name} is ${show(value)}, ${equal ? "equal" : "not equal"} to ${JSON.stringify(to)}` };
    }
    case "contains": {
      if (typeof value !== "string") return { matched: false, reason: `${name} is ${typeName(value)}, not a text` };
      const holds = capped(value).includes(to as string);
      return { matched: holds, reason: `${name} ${holds ? "contains" : "does not contain"} ${JSON.stringify(to)}` };
    }
    case "matches": {
      if (typeof value !== "string") return { matched: false, reason: `${name} is ${typeName(value)}, not a text` };
      if (pattern === undefined) return { matched: false, reason: `the pattern ${JSON.stringify(to)} is not valid (or the alert was not validated)` };
      const holds = pattern.matcher(capped(value)).find();
      return { matched: holds, reason: `${name} ${holds ? "matches" : "does not match"} ${JSON.stringify(to)}` };
    }
    case "changed":
    case "changed_to": {
      if (previous === null) return first();
      if (op === "changed") {
        if (!previous.present) return { matched: false, reason: `${name} was missing on the previous check (see appeared)` };
        const holds = !equalValues(capped(previous.value), capped(value));
        return { matched: holds, reason: holds ? `${name} changed from ${show(previous.value)} to ${show(value)}` : `${name} is unchanged (${show(value)})` };
      }
      const now = equalsOperand(value, to!);
      if (now === null) return { matched: false, reason: `${name} is ${typeName(value)} (${show(value)}); it does not compare with ${JSON.stringify(to)}` };
      if (!now) return { matched: false, reason: `${name} is ${show(value)}, not ${JSON.stringify(to)}` };
      const before = previous.present ? equalsOperand(previous.value, to!) === true : false;
      return before
        ? { matched: false, reason: `${name} was already ${JSON.stringify(to)}` }
        : { matched: true, reason: `${name} changed to ${JSON.stringify(to)} (was ${previous.present ? show(previous.value) : "missing"})` };
    }
    case "dropped_by_percent":
    case "rose_by_percent": {
      if (previous === null) return first();
      if (!previous.present) return { matched: false, reason: previous.reason };
      const now = numeric(value);
      const then = numeric(previous.value);
      if (now === null || then === null) return { matched: false, reason: `${name} is ${typeName(now === null ? value : previous.value)}, not a number or a price` };
      if (isPrice(value) && isPrice(previous.value) && value.currency !== previous.value.currency) {
        return { matched: false, reason: `${name} changed currency (${previous.value.currency ?? "none"} to ${value.currency ?? "none"}); amounts do not compare` };
      }
      if (then <= 0) return { matched: false, reason: `${name} was ${then}; a percentage of it means nothing` };
      const percent = ((op === "dropped_by_percent" ? then - now : now - then) / then) * 100;
      const holds = percent >= (to as number);
      const verb = op === "dropped_by_percent" ? "dropped" : "rose";
      return {
        matched: holds,
        reason: `${name} ${percent > 0 ? `${verb} by ${round(percent)} %` : `did not ${verb === "dropped" ? "drop" : "rise"}`} (${show(previous.value)} to ${show(value)}), ${holds ? "at least" : "less than"} ${String(to)} %`,
      };
    }
  }
}

function capped<T extends TrackedValue>(value: T): T {
  return (typeof value === "string" && value.length > MAX_CONDITION_INPUT ? value.slice(0, MAX_CONDITION_INPUT) : value) as T;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
