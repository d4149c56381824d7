import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { diffHtml, type DiffHtmlOptions } from "../src/index.js";

// Runs the examples of docs/website-diffs.md: the fenced blocks `html before`, `html after`,
// `json options` and `json result`, in document order; each `json result` is diffHtml of the
// pages and options seen last.
const doc = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../docs/website-diffs.md"), "utf8");
const fences = [...doc.matchAll(/^```(html before|html after|json options|json result)\n([\s\S]*?)^```$/gm)].map((m) => ({
  kind: m[1]!,
  text: m[2]!,
}));

describe("docs/website-diffs.md examples", () => {
  it("has examples", () => {
    expect(fences.filter((f) => f.kind === "json result").length).toBeGreaterThanOrEqual(2);
  });

  let before = "";
  let after = "";
  let options: DiffHtmlOptions = {};
  let n = 0;
  for (const fence of fences) {
    if (fence.kind === "html before") before = fence.text;
    else if (fence.kind === "html after") after = fence.text;
    else if (fence.kind === "json options") options = JSON.parse(fence.text) as DiffHtmlOptions;
    else {
      const [b, a, o, expected] = [before, after, options, JSON.parse(fence.text) as unknown];
      it(`result ${++n} is what diffHtml returns`, () => {
        expect(diffHtml(b, a, o)).toStrictEqual(expected);
      });
    }
  }
});
