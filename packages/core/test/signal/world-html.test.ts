// The world corpus's HTML histories checked fetch by fetch the way the service checks a monitor
// (service-like.ts): tuning and held-out sets, defaults / learned from the up-to-10 previous
// fetches / learned from the first 3. See world.test.ts for the corpus itself and the JSON table.
// Defaults must never miss and learning must not add false alarms; the learned numbers are printed,
// not asserted yet. Measured on the learner of 2026-11-28 (commit c7ddce8):
//
// | set      | kind | mode     | histories | pairs | noise | false alarms | misses | under-rated | early FA |
// |----------|------|----------|-----------|-------|-------|--------------|--------|-------------|----------|
// MEASURED-HTML
import { describe, expect, it } from "vitest";
import { measureWorld } from "./world-measure.js";

describe("world corpus, HTML", () => {
  it("pages, checked as the service does: defaults never miss, learning never adds false alarms", () => {
    const { rows, outcomes } = measureWorld(["html"]);
    console.table(rows);
    for (const set of ["tuning", "held-out"]) {
      const defaults = outcomes.get(`${set}/html/defaults`)!;
      expect([...defaults.judged.misses, ...defaults.early.misses]).toEqual([]);
      for (const mode of ["learned", "first3"]) expect(outcomes.get(`${set}/html/${mode}`)!.judged.falseAlarms.length).toBeLessThanOrEqual(defaults.judged.falseAlarms.length);
    }
  }, 180_000);
});
