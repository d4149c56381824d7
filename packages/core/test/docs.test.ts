// The code blocks marked ```ts example in the core README, docs/diff-engine.md, docs/policy-rules.md and docs/conditions.md are programs
// that assert what they show; this runs each of them against the package's sources.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { transformWithEsbuild } from "vite";
import { describe, expect, it } from "vitest";
import * as core from "../src/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const docs = [path.resolve(here, "../README.md"), path.resolve(here, "../../../docs/diff-engine.md"), path.resolve(here, "../../../docs/policy-rules.md"), path.resolve(here, "../../../docs/conditions.md")];

function examples(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  return [...text.matchAll(/```ts example\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

const modules: Record<string, unknown> = { "@driftwatch/core": core, "node:assert/strict": { default: (await import("node:assert/strict")).default } };

/** Turns the example's imports into lookups of the modules above, strips types, runs it. */
async function run(source: string): Promise<void> {
  const rewritten = source.replace(/^import (\w+|\{[^}]*\}) from "([^"]+)";$/gm, (_all, what: string, from: string) => {
    if (!(from in modules)) throw new Error(`example imports ${from}, which the docs test does not provide`);
    const binding = what.startsWith("{") ? what.replace(/\btype \w+,?/g, "") : `{ default: ${what} }`;
    return `const ${binding} = modules[${JSON.stringify(from)}];`;
  });
  const { code } = await transformWithEsbuild(rewritten, "example.ts", { loader: "ts", format: "esm" });
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (m: unknown) => Promise<void>;
  await new AsyncFunction("modules", code)(modules);
}

describe.each(docs)("examples in %s", (file) => {
  const blocks = examples(file);
  it("has examples", () => {
    expect(blocks.length).toBeGreaterThan(0);
  });
  it.each(blocks.map((b, i) => [i + 1, b] as const))("example %i runs and its assertions hold", async (_i, block) => {
    await run(block);
  });
});
