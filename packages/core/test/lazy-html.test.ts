// cheerio (and the HTML stack under it) is loaded on the first HTML diff, not on import: a
// process that only diffs JSON does not pay its memory (issue 26, docs/benchmarks.md). Checked in
// a child process of its own (tooling/lazy-load.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runLazyLoadCheck } from "../../../tooling/lazy-load";

const here = path.dirname(fileURLToPath(import.meta.url));

describe("the HTML stack is loaded on first use", () => {
  it("importing core and diffing JSON loads no cheerio; the first diffHtml does", () => {
    const result = runLazyLoadCheck({
      cwd: here,
      packages: ["cheerio", "parse5", "htmlparser2"],
      before: `
const core = await import("../src/index.ts");
core.diffJson({ a: 1 }, { a: 2 });
`,
      use: `
core.diffHtml("<p>a</p>", "<p>b</p>");
`,
    });
    expect(result.stderr).toBe("");
    expect(result.afterImport).toBe(0);
    expect(result.afterUse).toBeGreaterThan(0);
  }, 90_000);
});
