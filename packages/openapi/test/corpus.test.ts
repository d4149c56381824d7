import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { diffOpenApi, getRule, parseOpenApi } from "../src/index.js";

// The corpus: small pairs, each with the change ids and levels oasdiff's checks give it
// (test/corpus/generate.mjs writes them). Agreement is reported per rule family; any
// disagreement fails.
const root = path.join(import.meta.dirname, "corpus");
interface Case {
  family: string;
  file: string;
  note?: string;
  expect: Array<{ id: string; level: string }>;
  base: Record<string, unknown>;
  revision: Record<string, unknown>;
}
const cases: Case[] = fs
  .readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    fs
      .readdirSync(path.join(root, dir.name))
      .filter((name) => name.endsWith(".yaml"))
      .map((name) => ({ ...(parse(fs.readFileSync(path.join(root, dir.name, name), "utf8")) as Omit<Case, "file">), file: `${dir.name}/${name}` })),
  );

const key = (c: { id: string; level: string }): string => `${c.id} (${c.level})`;

describe("corpus of OpenAPI pairs", () => {
  it("has at least 150 cases, every expected id an implemented rule", () => {
    expect(cases.length).toBeGreaterThanOrEqual(150);
    for (const c of cases) for (const e of c.expect) expect(getRule(e.id), `${c.file}: ${e.id}`).toBeDefined();
  });

  it("agrees with the expected classification in every family", () => {
    const perFamily = new Map<string, { cases: number; agree: number }>();
    const disagreements: string[] = [];
    for (const c of cases) {
      const changes = diffOpenApi(parseOpenApi(c.base, { url: `memory:/${c.file}/base` }), parseOpenApi(c.revision, { url: `memory:/${c.file}/revision` }), { today: "2026-11-28" });
      const got = changes.map(key).sort();
      const want = c.expect.map(key).sort();
      const stats = perFamily.get(c.family) ?? { cases: 0, agree: 0 };
      stats.cases++;
      if (JSON.stringify(got) === JSON.stringify(want)) stats.agree++;
      else disagreements.push(`${c.file}: expected [${want.join(", ")}], got [${got.join(", ")}]`);
      perFamily.set(c.family, stats);
    }
    const report = [...perFamily].sort().map(([family, s]) => `${family.padEnd(18)} ${s.agree}/${s.cases}`);
    console.log(`agreement per rule family (${cases.length} cases):\n${report.join("\n")}`);
    expect(disagreements).toEqual([]);
  });

  it("finds no change between a document and itself", () => {
    for (const c of cases) {
      for (const side of [c.base, c.revision]) {
        const doc = parseOpenApi(side, { url: `memory:/${c.file}` });
        expect(diffOpenApi(doc, doc), c.file).toEqual([]);
      }
    }
  });
});
