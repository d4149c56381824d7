// pino-pretty is loaded on first use, not on import: a process that never logs in the pretty format does not pay
// its memory (issue 26, docs/benchmarks.md). Checked in a child process
// of its own (tooling/lazy-load.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runLazyLoadCheck } from "../../../tooling/lazy-load";

const here = path.dirname(fileURLToPath(import.meta.url));

describe("pino-pretty is loaded for the pretty log format only", () => {
  it("a JSON logger loads no pino-pretty; a pretty logger does", () => {
    const result = runLazyLoadCheck({
      cwd: here,
      packages: ["pino-pretty"],
      before: `
const { Writable } = await import("node:stream");
const sink = new Writable({ write(chunk, encoding, done) { done(); } });
const log = await import("../src/cli/log.ts");
log.createCliLogger({ format: "json", destination: sink }).info("a line");
`,
      use: `
log.createCliLogger({ format: "pretty", destination: sink }).info("a line");
`,
    });
    expect(result.stderr).toBe("");
    expect(result.afterImport).toBe(0);
    expect(result.afterUse).toBeGreaterThan(0);
  }, 90_000);
});
