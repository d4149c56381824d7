// The world corpus's HTML histories of the HELD-OUT set (nobody tunes on it) checked fetch by
// fetch the way the service checks a monitor (service-like.ts): defaults / learned from the
// up-to-10 previous fetches / learned from the first 3. The tuning set is in world-html.test.ts (a
// file of its own: diffing and learning pages is the slow part), the corpus itself and the JSON table in
// world.test.ts. Defaults must never miss and learning must not add false alarms; the learned
// numbers are held at or below what was measured (2026-11-28, seventh round, two texts of content
// taking turns on every fetch taken for a slot over a larger pool: 13 before it, run once at the end;
// fifth round, lists whose items only changed places compared as sets by diffHtml: 16 before it; the third round: 17 before it, 18 before the second; at commit c7ddce8,
// 97 tuning and 36 held-out false alarms), and the learned policy must never miss:
//
// | set      | kind | mode     | histories | judged pairs | noise pairs | false alarms | misses | under-rated | pair 1 FA | pair 2 FA |
// |----------|------|----------|-----------|--------------|-------------|--------------|--------|-------------|-----------|-----------|
// | held-out | html | defaults | 18 | 144 | 79 | 79 | 0 | 0 | 17 | 18 |
// | held-out | html | learned | 18 | 144 | 79 | 12 | 0 | 0 | 17 | 12 |
// | held-out | html | first3 | 18 | 144 | 79 | 30 | 0 | 0 | 17 | 12 |
// (first3: 34 before three short texts shown in three fetches were remembered when none may be a state, a
// price or a headline; tuned on the tuning set only, run here once, at the end, 2026-11-28.)
// (pair 1 = fetch 0 -> 1, nothing learned yet; pair 2 = fetch 1 -> 2, learned from 2 samples and
// judged; the first changes come at fetch 3.) 2 cores shared with other sessions: this file took 10 s.
import { describe, expect, it } from "vitest";
import { measureWorld } from "./world-measure.js";

describe("world corpus, HTML, held-out set", () => {
  it("pages, checked as the service does: defaults never miss, learning never adds false alarms", () => {
    const { rows, outcomes } = measureWorld(["html"], undefined, "held-out");
    console.table(rows);
    const defaults = outcomes.get("held-out/html/defaults")!;
    expect([...defaults.judged.misses, ...defaults.early.misses]).toEqual([]);
    for (const mode of ["learned", "first3"]) expect(outcomes.get(`held-out/html/${mode}`)!.judged.falseAlarms.length).toBeLessThanOrEqual(defaults.judged.falseAlarms.length);
    const learned = outcomes.get("held-out/html/learned")!;
    expect([...learned.judged.misses, ...learned.early.misses]).toEqual([]);
    // what is left is the third fetch, learned from one pair (12 of 12); 13 before two texts of content taking
    // turns were taken for a slot over a larger pool, 16 before lists whose items only changed places were
    // compared as sets; 16 with the tenth round's pages (2026-11-29, 6 held-out histories, measured once);
    // 22 with the eleventh round's (2026-11-29, 6 held-out histories, measured once before tuning: 6 on them);
    // 26 with the twelfth round's (2026-11-29, 3 held-out histories, measured once before tuning: 4 on them);
    // 30 with the thirteenth round's (2026-11-29, 3 held-out histories, measured once before tuning: 4 on them)
    expect(learned.judged.falseAlarms.length, learned.judged.falseAlarms.join("\n")).toBeLessThanOrEqual(30);
    expect(learned.judged.underRated.length, learned.judged.underRated.join("\n")).toBeLessThanOrEqual(0);
    // learned once from the first three fetches: never misses; 30 false alarms measured once (34 before three
    // short texts shown in three fetches were remembered)
    const first3 = outcomes.get("held-out/html/first3")!;
    expect([...first3.judged.misses, ...first3.early.misses]).toEqual([]);
    // (46 with the tenth round's pages; 64 with the eleventh's, 18 of them on its pages; 75 with the twelfth's,
    // before tuning, 11 of them on its pages; 81 with the thirteenth's, before tuning, 6 of them on its pages)
    expect(first3.judged.falseAlarms.length, first3.judged.falseAlarms.join("\n")).toBeLessThanOrEqual(81);
    expect(first3.judged.underRated.length, first3.judged.underRated.join("\n")).toBeLessThanOrEqual(0);
  }, 180_000);
});
