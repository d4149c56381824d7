// Public corpora: the RFC 6902 JSON Patch test suite (npm json-patch-test-suite) and the RFC 9535
// JSONPath compliance test suite (read from ../shared/testdata, never copied into the repo).
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fastJsonPatch, { type Operation } from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { diffJson, formatPath, type PathSegment, parsePath, resolvePath, toJsonPatch, toNormalizedPath } from "../src/index.js";

const require = createRequire(import.meta.url);

interface PatchCase {
  comment?: string;
  doc: unknown;
  patch: unknown[];
  expected?: unknown;
  error?: string;
  disabled?: boolean;
}

function patchCases(file: string): PatchCase[] {
  const cases = require(`json-patch-test-suite/${file}`) as PatchCase[];
  return cases.filter((c) => c.expected !== undefined && !c.disabled);
}

describe.each(["tests.json", "spec_tests.json"])("RFC 6902 suite %s", (file) => {
  const cases = patchCases(file);
  it("has enabled cases with expected documents", () => {
    expect(cases.length).toBeGreaterThan(10);
  });
  it.each(cases.map((c, i) => [c.comment ?? `case ${i}`, c] as const))("%s: diff(doc, expected) applied to doc gives expected", (_name, c) => {
    const diff = diffJson(c.doc, c.expected);
    if (diff === null) {
      expect(c.expected).toEqual(c.doc);
      return;
    }
    const ops = toJsonPatch(diff.changes) as Operation[];
    const result = fastJsonPatch.applyPatch(structuredClone(c.doc), ops, true, true).newDocument;
    expect(result).toEqual(c.expected);
  });
});

interface CtsTest {
  name: string;
  selector: string;
  document?: unknown;
  result?: unknown[];
  result_paths?: string[];
  results?: unknown[][];
  results_paths?: string[][];
  invalid_selector?: boolean;
}

function loadCts(): CtsTest[] {
  // Vendored copy of the jsonpath-compliance-test-suite (see corpora/jsonpath-cts/SOURCE.md),
  // so a clean clone tests against it; DRIFTWATCH_JSONPATH_CTS points at another copy.
  const file = process.env.DRIFTWATCH_JSONPATH_CTS ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "corpora/jsonpath-cts/cts.json");
  if (!fs.existsSync(file)) {
    throw new Error(`RFC 9535 compliance suite missing: expected ${file} (the jsonpath-compliance-test-suite cts.json)`);
  }
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { tests: CtsTest[] }).tests;
}

/** Walks a normalized path's segments the plain way, as the reference for resolution. */
function walk(document: unknown, segments: readonly PathSegment[]): unknown {
  let node = document;
  for (const s of segments) node = (node as Record<string | number, unknown>)[s];
  return node;
}

describe("RFC 9535 compliance suite", () => {
  const tests = loadCts();
  const entries: [string, string, unknown, unknown][] = [];
  for (const t of tests) {
    t.result_paths?.forEach((p, i) => entries.push([t.name, p, t.document, t.result?.[i]]));
    t.results_paths?.forEach((alternative, a) => alternative.forEach((p, i) => entries.push([t.name, p, t.document, t.results?.[a]?.[i]])));
  }

  it("yields hundreds of result paths", () => {
    expect(entries.length).toBeGreaterThan(500);
  });

  it("round-trips every result path through parsePath and toNormalizedPath", () => {
    for (const [name, p] of entries) expect(toNormalizedPath(parsePath(p)), name).toBe(p);
  });

  it("formats every result path to a query that names the same node", () => {
    for (const [name, p, document, expected] of entries) {
      const segments = parsePath(p);
      const reference = walk(document, segments);
      const formatted = formatPath(segments);
      const resolved = resolvePath(document, formatted);
      expect(resolved.found, `${name}: ${formatted}`).toBe(true);
      if (resolved.found) {
        expect(resolved.value, `${name}: ${formatted}`).toBe(reference);
        expect(resolved.value, `${name}: ${formatted}`).toEqual(expected);
      }
      expect(parsePath(formatted)).toEqual(segments);
    }
  });

  it("refuses every selector the suite marks invalid", () => {
    const invalid = tests.filter((t) => t.invalid_selector);
    expect(invalid.length).toBeGreaterThan(100);
    for (const t of invalid) {
      expect(() => parsePath(t.selector), t.name).toThrow(expect.objectContaining({ code: "invalid_path" }));
    }
  });
});
