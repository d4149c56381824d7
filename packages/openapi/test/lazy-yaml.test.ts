// yaml is loaded on first use, not on import: a process that never reads a YAML document does not pay
// its memory (issue 26, docs/benchmarks.md). Checked in a child process
// of its own (tooling/lazy-load.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runLazyLoadCheck } from "../../../tooling/lazy-load";

const here = path.dirname(fileURLToPath(import.meta.url));

describe("yaml is loaded on the first YAML document", () => {
  it("parsing and diffing JSON documents loads no yaml; the first YAML document does", () => {
    const result = runLazyLoadCheck({
      cwd: here,
      packages: ["yaml"],
      before: `
const openapi = await import("../src/index.ts");
const json = openapi.parseOpenApi(JSON.stringify({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths: { "/a": { get: { responses: { "200": { description: "ok" } } } } } }));
openapi.diffOpenApi(json, json);
`,
      use: `
openapi.parseOpenApi("openapi: 3.0.3\\ninfo: { title: t, version: '1' }\\npaths: {}\\n");
`,
    });
    expect(result.stderr).toBe("");
    expect(result.afterImport).toBe(0);
    expect(result.afterUse).toBeGreaterThan(0);
  }, 90_000);
});
