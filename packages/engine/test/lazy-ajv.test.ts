// Ajv (and ajv-formats) is loaded on first use, not on import: a process that never validates a response against a contract does not pay
// its memory (issue 26, docs/benchmarks.md). Checked in a child process
// of its own (tooling/lazy-load.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runLazyLoadCheck } from "../../../tooling/lazy-load";

const here = path.dirname(fileURLToPath(import.meta.url));

describe("Ajv is loaded on the first contract compiled", () => {
  it("importing the engine and creating a contract checker loads no Ajv; the first compile does", () => {
    const result = runLazyLoadCheck({
      cwd: here,
      packages: ["ajv", "ajv-formats"],
      before: `
const engine = await import("../src/index.ts");
const { parseOpenApi } = await import("@driftwatch/openapi");
const checker = new engine.ContractChecker({ store: {}, fetcher: {} });
`,
      use: `
const doc = parseOpenApi(JSON.stringify({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths: { "/a": { get: { operationId: "getA", responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", properties: { id: { type: "integer" } } } } } } } } } } }));
const compiled = checker.compiler.get("k", doc, { document: "memory:/openapi", operation: "getA" }, 200);
if (compiled instanceof Error) throw compiled;
`,
    });
    expect(result.stderr).toBe("");
    expect(result.afterImport).toBe(0);
    expect(result.afterUse).toBeGreaterThan(0);
  }, 90_000);
});
