// Signal quality on the labelled corpus: every history is diffed pair by pair twice, with the
// default diffs and with the policy suggestPolicy learns from its first LEARN_SAMPLES snapshots.
// Held-out pairs labelled noise must raise no diff (a false alarm otherwise); pairs labelled
// meaningful must raise a diff that shows the change (a miss otherwise) at no less than the
// label's severity (under-rated otherwise). The table is printed; learned policies must be
// perfect, and defaults must never miss.
import { type Change, type PolicyRules, PolicyRulesSchema, type Severity, severityRank } from "@driftwatch/schema";
import { describe, expect, it } from "vitest";
import { diffHtml, diffJson, suggestPolicy } from "../../src/index.js";
import { type History, type Label, LEARN_SAMPLES } from "./corpus.js";
import { htmlHistories } from "./html-histories.js";
import { jsonHistories } from "./json-histories.js";
import { judgeMeaningful } from "./service-like.js";

interface Outcome {
  pairs: number;
  falseAlarms: string[];
  misses: string[];
  underRated: string[];
}

const newOutcome = (): Outcome => ({ pairs: 0, falseAlarms: [], misses: [], underRated: [] });

function diffPair(history: History, before: unknown, after: unknown, policy: PolicyRules | undefined): { changes: Change[]; topSeverity: Severity } | null {
  if (history.kind === "json") return diffJson(before, after, policy ? { policy } : {});
  return diffHtml(before as string, after as string, { ...(history.selector ? { selector: history.selector } : {}), ...(policy ? { policy } : {}) });
}

function judge(history: History, policy: PolicyRules | undefined, outcome: Outcome): void {
  history.labels.forEach((label: Label, i) => {
    const before = history.snapshots[LEARN_SAMPLES - 1 + i];
    const after = history.snapshots[LEARN_SAMPLES + i];
    const diff = diffPair(history, before, after, policy);
    const at = `${history.name}, pair ${i + 1}`;
    outcome.pairs++;
    if (label.kind === "noise") {
      if (diff !== null) outcome.falseAlarms.push(`${at}: noise raised ${diff.changes.length} change(s), first ${diff.changes[0]!.path} (${JSON.stringify(diff.changes[0]!.before)} -> ${JSON.stringify(diff.changes[0]!.after)})`);
      return;
    }
    judgeMeaningful(outcome, at, label, diff, history);
  });
}

const histories = [...jsonHistories(), ...htmlHistories()];

describe("signal quality corpus", () => {
  it("has at least 40 JSON and 20 HTML histories with labelled held-out pairs", () => {
    const json = histories.filter((h) => h.kind === "json");
    const html = histories.filter((h) => h.kind === "html");
    expect(json.length).toBeGreaterThanOrEqual(40);
    expect(html.length).toBeGreaterThanOrEqual(20);
    for (const h of histories) {
      expect(h.snapshots.length).toBe(LEARN_SAMPLES + h.labels.length);
      expect(h.labels.some((l) => l.kind === "noise")).toBe(true);
      expect(h.labels.some((l) => l.kind === "meaningful")).toBe(true);
    }
    // Generated deterministically: the same corpus on every run.
    expect(JSON.stringify(jsonHistories()[7]!.snapshots)).toBe(JSON.stringify(json[7]!.snapshots));
  });

  it("learned policies: no false alarms, no misses, nothing under-rated; defaults never miss", () => {
    const results = { json: { defaults: newOutcome(), learned: newOutcome() }, html: { defaults: newOutcome(), learned: newOutcome() } };
    for (const history of histories) {
      const learnFrom = history.snapshots.slice(0, LEARN_SAMPLES);
      const suggestion = suggestPolicy(learnFrom, { kind: history.kind, ...(history.selector ? { selector: history.selector } : {}) });
      // What the learner suggests is what the settings API accepts, and it never ignores.
      expect(PolicyRulesSchema.safeParse(suggestion.policy).success, history.name).toBe(true);
      expect(suggestion.policy.rules.every((rule) => rule.action !== "ignore"), history.name).toBe(true);
      judge(history, undefined, results[history.kind].defaults);
      judge(history, suggestion.policy, results[history.kind].learned);
    }
    const rows = (["json", "html"] as const).flatMap((kind) =>
      (["defaults", "learned"] as const).map((mode) => {
        const o = results[kind][mode];
        return { kind, mode, pairs: o.pairs, "false alarms": o.falseAlarms.length, misses: o.misses.length, "under-rated": o.underRated.length };
      }),
    );
    console.table(rows);
    const learnedProblems = [...results.json.learned.falseAlarms, ...results.json.learned.misses, ...results.json.learned.underRated, ...results.html.learned.falseAlarms, ...results.html.learned.misses, ...results.html.learned.underRated];
    expect(learnedProblems).toEqual([]);
    expect([...results.json.defaults.misses, ...results.html.defaults.misses]).toEqual([]);
  });
});
