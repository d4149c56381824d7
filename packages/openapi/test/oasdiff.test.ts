import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { diffOpenApi, getRule, parseOpenApi } from "../src/index.js";

// oasdiff's own checker test pairs (test/oasdiff/SOURCES.md): each expected id must be among the
// changes we report, with oasdiff's level.
const dir = path.join(import.meta.dirname, "oasdiff");
const cases = JSON.parse(fs.readFileSync(path.join(dir, "cases.json"), "utf8")) as Array<{ test: string; file: string; base: string; revision: string; expect: string[] }>;
const read = (name: string) => parseOpenApi(fs.readFileSync(path.join(dir, "data", name), "utf8"), { url: `memory:/${name}` });

describe("oasdiff's checker test pairs", () => {
  it("report every change oasdiff's tests expect", () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    const missing: string[] = [];
    for (const c of cases) {
      const changes = diffOpenApi(read(c.base), read(c.revision), { today: "2026-11-28" });
      for (const id of c.expect) {
        const found = changes.find((change) => change.id === id);
        if (found === undefined) missing.push(`${c.test} (${c.file}): ${id} not reported; got ${[...new Set(changes.map((x) => x.id))].join(", ") || "nothing"}`);
        else expect(found.level, `${c.test}: ${id}`).toBe(getRule(id)!.level);
      }
    }
    console.log(`oasdiff checker tests: ${cases.length - new Set(missing.map((m) => m.split(" ")[0])).size}/${cases.length} agree`);
    expect(missing).toEqual([]);
  });
});
