// The world corpus's HTML histories of the TUNING set checked fetch by fetch the way the service
// checks a monitor (service-like.ts): defaults / learned from the up-to-10 previous fetches /
// learned from the first 3. The held-out set is in world-html-held-out.test.ts (a file of its own:
// diffing and learning pages is the slow part), the corpus itself and the JSON table in
// world.test.ts. Defaults must never miss and learning must not add false alarms; the learned
// numbers are held at or below what was measured (the learner of 2026-11-28, fourth round: 28 before it; the fifth round,
// lists whose items only changed places compared as sets by diffHtml, left it at 27 and took first3 from 76 to 75; in the second round
// 37 false alarms and 1 under-rated, at commit c7ddce8 97 tuning and 36 held-out false alarms), and
// the learned policy must never miss:
//
// | set      | kind | mode     | histories | judged pairs | noise pairs | false alarms | misses | under-rated | pair 1 FA | pair 2 FA |
// |----------|------|----------|-----------|--------------|-------------|--------------|--------|-------------|-----------|-----------|
// | tuning | html | defaults | 42 | 336 | 187 | 187 | 0 | 3 | 42 | 42 |
// | tuning | html | learned | 42 | 336 | 187 | 28 | 0 | 0 | 42 | 28 |
// | tuning | html | first3 | 42 | 336 | 187 | 67 | 0 | 0 | 42 | 28 |
// (first3: 86 before three short texts shown in three fetches were remembered (`seen`) when none may be a
// state, a price or a headline; measured 2026-11-28. Every first3 false alarm left is a rotating block: 28 on
// the third fetch (learned from one pair, as in `learned`), and of the 39 later ones 20 a block that showed
// A B A while learning and then a third text, 15 a pool of four of which three were seen, 4 a slot whose
// texts include one word ("社会", which may be a state). Three samples cannot tell those from a real change.)
// (seventh round, 2026-11-28: three fresh pages added to the tuning set - a pet shop's product page,
// a Go blog article, a rowing club's home page - measured once before anything was tuned on them:
// learned 27 -> 30, first3 75 -> 86, every new false alarm a rotating block on a fresh page (learned:
// its second text at fetch 2, learned from one pair); 39 histories, 312 pairs, 175 noise before. Then two texts of
// content taking turns on every fetch (A B A B) taken for a slot over a larger pool: learned 30 -> 28, 27 -> 25 on
// the 39 histories before the fresh pages.)
// (pair 1 = fetch 0 -> 1, nothing learned yet; pair 2 = fetch 1 -> 2, learned from 2 samples and
// judged; the first changes come at fetch 3.) 2 cores shared with other sessions: this file took 20 s.
import { describe, expect, it } from "vitest";
import { measureWorld } from "./world-measure.js";

describe("world corpus, HTML, tuning set", () => {
  it("pages, checked as the service does: defaults never miss, learning never adds false alarms", () => {
    const { rows, outcomes } = measureWorld(["html"], undefined, "tuning");
    console.table(rows);
    const defaults = outcomes.get("tuning/html/defaults")!;
    expect([...defaults.judged.misses, ...defaults.early.misses]).toEqual([]);
    for (const mode of ["learned", "first3"]) expect(outcomes.get(`tuning/html/${mode}`)!.judged.falseAlarms.length).toBeLessThanOrEqual(defaults.judged.falseAlarms.length);
    const learned = outcomes.get("tuning/html/learned")!;
    expect([...learned.judged.misses, ...learned.early.misses]).toEqual([]);
    // what is left is the third fetch, learned from one pair (28 of 28: a promo block that changed once cannot be
    // told from a headline that changed once); 30 before two texts of content taking turns (A B A B) were taken
    // for a slot over a larger pool (27 before on the 39 histories before the seventh round's three fresh pages),
    // 28 before recurrence memory, 29 before blocks moved down by an added paragraph were followed to their new place.
    // With the tenth round's pages (2026-11-29, 8 tuning histories, measured once, no learner change since): 40,
    // of which 6 after the third fetch: two promo bars whose texts may be states (single words, or a line with
    // "available"), kept on purpose (a status that flaps is reported)
    // With the eleventh round's pages (2026-11-29, 3 tuning histories - a game review, a project blog's post, a
    // business article -, measured once before tuning): 43, the 3 new ones each a promo block's second text at
    // the third fetch (learned from one pair)
    // With the twelfth round's pages (2026-11-29, 6 tuning histories - a security advisory, terms of use and of
    // service, a licensing page, two recipe pages -, measured once before tuning): 52, 9 of them on the new pages;
    // 50 after a capitalised word was no longer read as a token (share links, reordered, learned as a ranked list)
    // With the thirteenth round's pages (2026-11-29, 6 tuning histories of go-trafilatura's comparison set,
    // measured once before tuning): 54, 4 of them on the new pages
    expect(learned.judged.falseAlarms.length, learned.judged.falseAlarms.join("\n")).toBeLessThanOrEqual(54);
    expect(learned.judged.underRated.length, learned.judged.underRated.join("\n")).toBeLessThanOrEqual(0);
    // learned once from the first three fetches (suggestPolicy on 3 snapshots): never misses; 86 false alarms
    // before three short texts shown in three fetches were remembered, 67 after (all a rotating block)
    const first3 = outcomes.get("tuning/html/first3")!;
    expect([...first3.judged.misses, ...first3.early.misses]).toEqual([]);
    // (85 with the tenth round's pages; 90 with the eleventh's, 5 of them on its pages, all a promo block; 100
    // with the twelfth's, before tuning, 10 of them on its pages; 107 with the thirteenth's, before tuning, 7 of
    // them on its pages)
    expect(first3.judged.falseAlarms.length, first3.judged.falseAlarms.join("\n")).toBeLessThanOrEqual(107);
    expect(first3.judged.underRated.length, first3.judged.underRated.join("\n")).toBeLessThanOrEqual(0);
  }, 180_000);
});
