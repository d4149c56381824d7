import type { Severity } from "@driftwatch/client";
import { severityRank } from "../../ui/severity";
import type { Alert, Condition, TrackedValue } from "./api";

/*
 * The conditions' preview in the browser: which past checks would have alerted. The same rules as
 * @driftwatch/core's `evaluateAlert`/`previewAlert` (that package needs Node, so the dashboard
 * does not import it): a missing value or one of the wrong type makes a condition false and says
 * why; `forChecks: N` holds after N consecutive checks; a check alerts when the conditions hold
 * and did not on the check before.
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

type Resolved = { present: true; value: TrackedValue } | { present: false; reason: string };

const MAX_INPUT = 100_000;
const SEVERITY_NAMES = new Set(["info", "low", "medium", "high", "critical"]);

const isPrice = (v: TrackedValue): v is { amount: number; currency: string | null } => typeof v === "object" && v !== null && typeof (v as { amount?: unknown }).amount === "number";
const numeric = (v: TrackedValue): number | null => (typeof v === "number" ? v : isPrice(v) ? v.amount : null);
const typeName = (v: TrackedValue): string => (isPrice(v) ? "a price" : typeof v === "number" ? "a number" : typeof v === "boolean" ? "a boolean" : "a text");
const round = (n: number): number => Math.round(n * 100) / 100;
const capped = (v: TrackedValue): TrackedValue => (typeof v === "string" && v.length > MAX_INPUT ? v.slice(0, MAX_INPUT) : v);

export function showValue(v: TrackedValue): string {
  if (isPrice(v)) return v.currency === null ? String(v.amount) : `${String(v.amount)} ${v.currency}`;
  if (typeof v === "string") return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  return String(v);
}

function equalsOperand(v: TrackedValue, to: number | string | boolean): boolean | null {
  const n = numeric(v);
  if (n !== null) return typeof to === "number" ? Math.abs(n - to) <= 1e-9 * Math.max(1, Math.abs(n), Math.abs(to)) : null;
  if (typeof v === "string") return typeof to === "string" ? v === to : null;
  if (typeof v === "boolean") return typeof to === "boolean" ? v === to : null;
  return null;
}

function equalValues(a: TrackedValue, b: TrackedValue): boolean {
  if (isPrice(a) && isPrice(b)) return a.amount === b.amount && a.currency === b.currency;
  return a === b;
}

function resolve(name: string, check: PastCheck): Resolved {
  if (name === "text") return typeof check.text === "string" ? { present: true, value: check.text } : { present: false, reason: "the check has no selected text" };
  if (name === "diff.topSeverity")
    return typeof check.topSeverity === "string" ? { present: true, value: check.topSeverity } : { present: false, reason: "the check found no change, so there is no diff severity" };
  const v = check.values[name];
  if (v !== undefined && v !== null) return { present: true, value: v };
  const why = check.reasons?.[name];
  return { present: false, reason: why ? `${name} is missing: ${why}` : `${name} is missing on this check` };
}

function evaluate(c: Condition, current: Resolved, previous: Resolved | null): { matched: boolean; reason: string } {
  const { op, to, value: name } = c;
  const first = { matched: false, reason: `first check: no previous value of ${name} to compare with` };
  if (op === "appeared" || op === "disappeared") {
    if (previous === null) return first;
    if (op === "appeared") {
      if (!current.present) return { matched: false, reason: current.reason };
      return previous.present ? { matched: false, reason: `${name} was already there (${showValue(previous.value)})` } : { matched: true, reason: `${name} appeared: ${showValue(current.value)}` };
    }
    if (current.present) return { matched: false, reason: `${name} is there: ${showValue(current.value)}` };
    return previous.present ? { matched: true, reason: `${name} disappeared (was ${showValue(previous.value)})` } : { matched: false, reason: `${name} was already missing` };
  }
  if (!current.present) return { matched: false, reason: current.reason };
  const value = current.value;
  switch (op) {
    case "lt":
    case "lte":
    case "gt":
    case "gte": {
      const severity = name === "diff.topSeverity";
      const left = severity ? (typeof value === "string" && SEVERITY_NAMES.has(value) ? severityRank(value as Severity) : null) : numeric(value);
      const right = severity ? (typeof to === "string" && SEVERITY_NAMES.has(to) ? severityRank(to as Severity) : null) : typeof to === "number" ? to : null;
      if (left === null || right === null) return { matched: false, reason: `${name} is ${typeName(value)} (${showValue(value)}), not a number` };
      const holds = op === "lt" ? left < right : op === "lte" ? left <= right : op === "gt" ? left > right : left >= right;
      const words = { lt: "below", lte: "at most", gt: "above", gte: "at least" }[op];
      return { matched: holds, reason: `${name} is ${showValue(value)}, ${holds ? "" : "not "}${words} ${String(to)}` };
    }
    case "eq":
    case "ne": {
      const equal = to === undefined ? null : equalsOperand(value, to);
      if (equal === null) return { matched: false, reason: `${name} is ${typeName(value)} (${showValue(value)}); it does not compare with ${JSON.stringify(to)}` };
      return { matched: op === "eq" ? equal : !equal, reason: `${name} is ${showValue(value)}, ${equal ? "equal" : "not equal"} to ${JSON.stringify(to)}` };
    }
    case "contains":
    case "matches": {
      if (typeof value !== "string") return { matched: false, reason: `${name} is ${typeName(value)}, not a text` };
      let holds: boolean;
      if (op === "contains") holds = (capped(value) as string).includes(String(to));
      else {
        try {
          holds = new RegExp(String(to), "u").test(capped(value) as string);
        } catch {
          return { matched: false, reason: `the pattern ${JSON.stringify(to)} is not valid` };
        }
      }
      return { matched: holds, reason: `${name} ${holds ? (op === "contains" ? "contains" : "matches") : op === "contains" ? "does not contain" : "does not match"} ${JSON.stringify(to)}` };
    }
    case "changed":
    case "changed_to": {
      if (previous === null) return first;
      if (op === "changed") {
        if (!previous.present) return { matched: false, reason: `${name} was missing on the previous check (see appeared)` };
        const holds = !equalValues(capped(previous.value), capped(value));
        return { matched: holds, reason: holds ? `${name} changed from ${showValue(previous.value)} to ${showValue(value)}` : `${name} is unchanged (${showValue(value)})` };
      }
      const now = to === undefined ? null : equalsOperand(value, to);
      if (now === null) return { matched: false, reason: `${name} is ${typeName(value)} (${showValue(value)}); it does not compare with ${JSON.stringify(to)}` };
      if (!now) return { matched: false, reason: `${name} is ${showValue(value)}, not ${JSON.stringify(to)}` };
      const before = previous.present ? equalsOperand(previous.value, to!) === true : false;
      return before
        ? { matched: false, reason: `${name} was already ${JSON.stringify(to)}` }
        : { matched: true, reason: `${name} changed to ${JSON.stringify(to)} (was ${previous.present ? showValue(previous.value) : "missing"})` };
    }
    case "dropped_by_percent":
    case "rose_by_percent": {
      if (previous === null) return first;
      if (!previous.present) return { matched: false, reason: previous.reason };
      const now = numeric(value);
      const then = numeric(previous.value);
      if (now === null || then === null) return { matched: false, reason: `${name} is ${typeName(now === null ? value : previous.value)}, not a number or a price` };
      if (isPrice(value) && isPrice(previous.value) && value.currency !== previous.value.currency)
        return { matched: false, reason: `${name} changed currency (${previous.value.currency ?? "none"} to ${value.currency ?? "none"}); amounts do not compare` };
      if (then <= 0) return { matched: false, reason: `${name} was ${String(then)}; a percentage of it means nothing` };
      const percent = ((op === "dropped_by_percent" ? then - now : now - then) / then) * 100;
      const holds = typeof to === "number" && percent >= to;
      const verb = op === "dropped_by_percent" ? "dropped" : "rose";
      return {
        matched: holds,
        reason: `${name} ${percent > 0 ? `${verb} by ${String(round(percent))} %` : `did not ${verb === "dropped" ? "drop" : "rise"}`} (${showValue(previous.value)} to ${showValue(value)}), ${holds ? "at least" : "less than"} ${String(to)} %`,
      };
    }
  }
}

/** Runs the alert over past checks, oldest first, as the engine would have. */
export function previewAlert(alert: Alert, checks: readonly PastCheck[]): PreviewEntry[] {
  let previous: PastCheck | null = null;
  let streaks = alert.conditions.map(() => 0);
  let lastMatched = false;
  return checks.map((check) => {
    const next: number[] = [];
    const results = alert.conditions.map((c, index): ConditionOutcome => {
      const raw = evaluate(c, resolve(c.value, check), previous === null ? null : resolvePrevious(c.value, previous));
      const streak = raw.matched ? (streaks[index] ?? 0) + 1 : 0;
      next.push(streak);
      const needed = c.forChecks ?? 1;
      if (raw.matched && streak < needed) return { index, matched: false, reason: `${raw.reason}; held ${String(streak)} of ${String(needed)} consecutive checks` };
      if (raw.matched && needed > 1) return { index, matched: true, reason: `${raw.reason}; held ${String(streak)} consecutive checks (${String(needed)} needed)` };
      return { index, matched: raw.matched, reason: raw.reason };
    });
    const matched = alert.when === "any" ? results.some((r) => r.matched) : results.every((r) => r.matched);
    const entry = { check, matched, alerted: matched && !lastMatched, results };
    streaks = next;
    lastMatched = matched;
    previous = check;
    return entry;
  });
}

function resolvePrevious(name: string, previous: PastCheck): Resolved {
  const r = resolve(name, previous);
  return r.present ? r : { present: false, reason: `${name} was missing on the previous check` };
}
