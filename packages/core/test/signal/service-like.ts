// Evaluates a history the way the service checks a monitor: fetch i (i >= 1) is diffed against
// fetch i - 1 with the user's policy (empty: a monitor created with no settings) merged with the
// policy suggestPolicy learned from the snapshots stored before fetch i - the newest `window` (10)
// of them, as the engine's noise learner does (packages/engine/src/pipeline/noise.ts; a fetch is
// stored as a snapshot only when its content differs from the previous stored one); with fewer
// than `minSamples` (2) samples nothing is learned. The merge is the engine's mergeSuggestedPolicy on an
// empty user policy: the suggested rules, arrayKeys, volatile, tolerance and unordered entries.
// With one sample, what one snapshot tells is learned from it twice (the engine does the same).
// Modes: `defaults` (no learning), `learned` (as above), `first3` (learned once from fetches 0..2,
// applied from fetch 3 on; fetches 1 and 2 use what is known then, as in `learned`).
//
// Pairs whose fetch index is >= judgeFrom (2: from the third fetch on, the first fetch learned
// from 2 samples) are judged; the earlier pairs are reported apart (`early`), and every pair is
// also counted by its fetch index (`byFetch`), so the first two pairs (fetches 1 and 2) can be read
// apart too. A noise pair with a diff is a false alarm; a meaningful pair
// whose change is not shown at `where` is a miss; shown below its minSeverity is under-rated.
import { type Change, type PolicyRules, type Severity, severityRank } from "@driftwatch/schema";
import { diffHtml, diffJson, parsePath, suggestPolicy, toNormalizedPath } from "../../src/index.js";
import type { Label } from "./corpus.js";
import type { WorldHistory } from "./world.js";

export type Mode = "defaults" | "learned" | "first3";

export interface Outcome {
  pairs: number;
  noisePairs: number;
  meaningfulPairs: number;
  falseAlarms: string[];
  misses: string[];
  underRated: string[];
}

export interface HistoryOutcome {
  /** Pairs of fetch index >= judgeFrom. */
  judged: Outcome;
  /** Pairs of fetch index < judgeFrom (reported apart). */
  early: Outcome;
  /** Every pair by its fetch index (byFetch[1] is fetch 0 -> 1): the first two pairs can be read apart. */
  byFetch: Outcome[];
}

export interface EvaluateOptions {
  mode: Mode;
  /** How many fetches before fetch i are learned from (the engine's NOISE_MAX_SAMPLES). */
  window?: number;
  /** Fewer samples than this: nothing learned (the engine's NOISE_MIN_SAMPLES, at least 2). */
  minSamples?: number;
  /**
   * Learn with the fetched content as the newest sample too. Measured on the tuning set and
   * rejected for the engine: it hides changes it learns from (JSON: 0 false alarms but 2 misses and
   * 13 under-rated; pages: 7 misses), where learning from the stored snapshots alone misses none.
   */
  candidate?: boolean;
  /** The first judged fetch index; earlier pairs are `early`. */
  judgeFrom?: number;
}

export const newOutcome = (): Outcome => ({ pairs: 0, noisePairs: 0, meaningfulPairs: 0, falseAlarms: [], misses: [], underRated: [] });

export function addOutcome(into: Outcome, from: Outcome): Outcome {
  into.pairs += from.pairs;
  into.noisePairs += from.noisePairs;
  into.meaningfulPairs += from.meaningfulPairs;
  into.falseAlarms.push(...from.falseAlarms);
  into.misses.push(...from.misses);
  into.underRated.push(...from.underRated);
  return into;
}

/** The engine's merge of a suggestion into an empty user policy. */
export function mergeIntoEmpty(suggested: PolicyRules): PolicyRules {
  const merged: PolicyRules = { rules: [...(suggested.rules ?? [])] };
  if (suggested.arrayKeys && Object.keys(suggested.arrayKeys).length > 0) merged.arrayKeys = { ...suggested.arrayKeys };
  if (suggested.volatile && suggested.volatile.length > 0) merged.volatile = [...suggested.volatile];
  if (suggested.tolerance && suggested.tolerance.length > 0) merged.tolerance = [...suggested.tolerance];
  if (suggested.unordered && suggested.unordered.length > 0) merged.unordered = [...suggested.unordered];
  return merged;
}

const WILD = 987654321;

/** `where` (a path with `[*]`) as a regex over Normalized Paths: that node or anything below it. */
function wherePattern(where: string): RegExp {
  const normalized = toNormalizedPath(where.replaceAll("[*]", `[${WILD}]`));
  const escaped = normalized.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replaceAll(`\\[${WILD}\\]`, "\\[\\d+\\]");
  return new RegExp(`^${escaped}(?:$|\\[)`);
}

function normalized(path: string): string | null {
  try {
    return toNormalizedPath(parsePath(path));
  } catch {
    return null;
  }
}

/**
 * Whether a change shows the labelled change: JSON, at `where` or below it, or at the array
 * element that holds it (an element whose identity changed is shown removed and added); HTML, the
 * text before or after holds `where`.
 */
export function shows(change: Change, history: Pick<WorldHistory, "kind">, where: string): boolean {
  if (history.kind === "html") return [change.before, change.after].some((text) => typeof text === "string" && text.includes(where));
  const pattern = wherePattern(where);
  for (const p of [change.path, (change as { from?: unknown }).from]) {
    if (typeof p !== "string") continue;
    const n = normalized(p);
    if (n === null) continue;
    if (pattern.test(n)) return true;
    // the element holding `where` replaced, removed or added as a whole
    if (/\[\d+\]$/.test(n) && pattern.test(`${n}${toNormalizedPath(where.replaceAll("[*]", "[0]")).slice(n.replace(/\[\d+\]/g, "[0]").length)}`)) return true;
  }
  return false;
}

function diffPair(history: WorldHistory, before: unknown, after: unknown, policy: PolicyRules | undefined): { changes: Change[]; topSeverity: Severity } | null {
  if (history.kind === "json") return diffJson(before, after, policy ? { policy } : {});
  return diffHtml(before as string, after as string, { ...(history.selector ? { selector: history.selector } : {}), ...(policy ? { policy } : {}) });
}

function learn(history: WorldHistory, samples: unknown[]): PolicyRules {
  const suggestion = suggestPolicy(samples, { kind: history.kind, ...(history.selector ? { selector: history.selector } : {}) });
  return mergeIntoEmpty(suggestion.policy);
}

function judgePair(history: WorldHistory, i: number, label: Label, diff: { changes: Change[] } | null, outcome: Outcome): void {
  const at = `${history.name}, fetch ${i}`;
  outcome.pairs++;
  if (label.kind === "noise") {
    outcome.noisePairs++;
    if (diff !== null) {
      const c = diff.changes[0]!;
      outcome.falseAlarms.push(`${at}: noise raised ${diff.changes.length} change(s), first ${c.path} (${JSON.stringify(c.before)?.slice(0, 80)} -> ${JSON.stringify(c.after)?.slice(0, 80)})`);
    }
    return;
  }
  outcome.meaningfulPairs++;
  judgeMeaningful(outcome, at, label, diff, history);
}

/** A meaningful change not shown at its place is a miss; shown below its least severity, under-rated. */
export function judgeMeaningful(
  outcome: { misses: string[]; underRated: string[] },
  at: string,
  label: Extract<Label, { kind: "meaningful" }>,
  diff: { changes: Change[] } | null,
  history: Pick<WorldHistory, "kind">,
): void {
  const shown = diff?.changes.filter((change) => shows(change, history, label.where)) ?? [];
  if (shown.length === 0) {
    outcome.misses.push(`${at}: ${label.what} not shown at ${label.where}`);
    return;
  }
  const top = shown.reduce((best, change) => Math.max(best, severityRank(change.severity)), 0);
  if (top < severityRank(label.minSeverity)) outcome.underRated.push(`${at}: ${label.what} rated ${shown.map((c) => c.severity).join("/")}, expected >= ${label.minSeverity}`);
}

/** One history, checked fetch by fetch as the service would. */
export function evaluateHistory(history: WorldHistory, options: EvaluateOptions): HistoryOutcome {
  const window = options.window ?? 10;
  const minSamples = Math.max(2, options.minSamples ?? 2);
  const judgeFrom = options.judgeFrom ?? 2;
  const result: HistoryOutcome = { judged: newOutcome(), early: newOutcome(), byFetch: [] };
  let first3: PolicyRules | undefined;
  // indexes of the fetches stored as snapshots (content differs from the previous stored one)
  const stored: number[] = [];
  const text = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));
  for (let i = 1; i < history.snapshots.length; i++) {
    const last = stored[stored.length - 1];
    if (last === undefined || text(history.snapshots[last]) !== text(history.snapshots[i - 1])) stored.push(i - 1);
    let policy: PolicyRules | undefined;
    if (options.mode !== "defaults") {
      if (options.mode === "first3" && i >= 3) policy = first3 ??= learn(history, history.snapshots.slice(0, 3));
      else {
        const ids = stored.slice(-window);
        // with `candidate`: the content about to be compared is the newest sample too
        if (options.candidate === true && text(history.snapshots[i]) !== text(history.snapshots[ids[ids.length - 1]!])) {
          ids.push(i);
          if (ids.length > window) ids.shift();
        }
        const samples = ids.map((j) => history.snapshots[j]);
        if (samples.length >= minSamples) policy = learn(history, samples);
        // one sample: what a single snapshot tells (the severity of stable fields, clocks and counts), as the engine does
        else if (samples.length === 1) policy = learn(history, [samples[0], samples[0]]);
      }
    }
    const diff = diffPair(history, history.snapshots[i - 1], history.snapshots[i], policy);
    const one = newOutcome();
    judgePair(history, i, history.labels[i - 1]!, diff, one);
    result.byFetch[i] = one;
    addOutcome(i >= judgeFrom ? result.judged : result.early, one);
  }
  return result;
}

/** A set of histories: judged and early outcomes summed. */
export function evaluateSet(histories: readonly WorldHistory[], options: EvaluateOptions): HistoryOutcome {
  const total: HistoryOutcome = { judged: newOutcome(), early: newOutcome(), byFetch: [] };
  for (const history of histories) {
    const one = evaluateHistory(history, options);
    addOutcome(total.judged, one.judged);
    addOutcome(total.early, one.early);
    one.byFetch.forEach((o, i) => addOutcome((total.byFetch[i] ??= newOutcome()), o));
  }
  return total;
}
