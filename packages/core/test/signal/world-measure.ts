// The world corpus measured with the service-like harness: one row per set (tuning, held-out),
// kind (json, html) and mode (defaults, learned, first3), judged pairs (from the third fetch on)
// and the early pairs apart; the first two pairs' false alarms each. Exported so that the test, a benchmark or docs can print the same table.
import type { WorldHistory } from "./world.js";
import { worldSplit } from "./world-corpus.js";
import { evaluateSet, type HistoryOutcome, type Mode } from "./service-like.js";

export interface WorldRow {
  set: "tuning" | "held-out";
  kind: "json" | "html";
  mode: Mode;
  histories: number;
  pairs: number;
  noise: number;
  "false alarms": number;
  misses: number;
  "under-rated": number;
  "early pairs": number;
  "early false alarms": number;
  "early misses": number;
  "early under-rated": number;
  /** False alarms of the first two pairs (fetch 0 -> 1, fetch 1 -> 2), each. */
  "pair 1 FA": number;
  "pair 2 FA": number;
}

export interface WorldMeasurement {
  rows: WorldRow[];
  outcomes: Map<string, HistoryOutcome>;
}

export const MODES: readonly Mode[] = ["defaults", "learned", "first3"];

export function measureWorld(kinds: readonly ("json" | "html")[], modes: readonly Mode[] = MODES, only?: WorldRow["set"]): WorldMeasurement {
  const { tuning, heldOut } = worldSplit();
  const rows: WorldRow[] = [];
  const outcomes = new Map<string, HistoryOutcome>();
  const sets = (
    [
      ["tuning", tuning],
      ["held-out", heldOut],
    ] as [WorldRow["set"], WorldHistory[]][]
  ).filter(([set]) => only === undefined || set === only);
  for (const [set, histories] of sets)
    for (const kind of kinds)
      for (const mode of modes) {
        const these = histories.filter((h) => h.kind === kind);
        const o = evaluateSet(these, { mode });
        outcomes.set(`${set}/${kind}/${mode}`, o);
        rows.push({
          set,
          kind,
          mode,
          histories: these.length,
          pairs: o.judged.pairs,
          noise: o.judged.noisePairs,
          "false alarms": o.judged.falseAlarms.length,
          misses: o.judged.misses.length,
          "under-rated": o.judged.underRated.length,
          "early pairs": o.early.pairs,
          "early false alarms": o.early.falseAlarms.length,
          "early misses": o.early.misses.length,
          "early under-rated": o.early.underRated.length,
          "pair 1 FA": o.byFetch[1]?.falseAlarms.length ?? 0,
          "pair 2 FA": o.byFetch[2]?.falseAlarms.length ?? 0,
        });
      }
  return { rows, outcomes };
}
