import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { evaluateJsonPath, nodeSegments, parseJsonPath } from "../src/jsonpath/index.js";
import { toNormalizedPath, validatePolicyRules } from "../src/index.js";

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

const file = process.env.DRIFTWATCH_JSONPATH_CTS ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "corpora/jsonpath-cts/cts.json");
const tests = (JSON.parse(fs.readFileSync(file, "utf8")) as { tests: CtsTest[] }).tests;

describe("RFC 9535 compliance suite against the driftwatch evaluator", () => {
  it("has the whole suite", () => {
    expect(tests.filter((t) => t.invalid_selector).length).toBeGreaterThan(200);
    expect(tests.filter((t) => !t.invalid_selector).length).toBeGreaterThan(400);
  });

  it.each(tests.filter((t) => t.invalid_selector).map((t) => [t.name, t] as const))("refuses %s", (_name, t) => {
    expect(() => parseJsonPath(t.selector)).toThrow(expect.objectContaining({ code: "invalid_path" }));
    let error: unknown;
    try {
      validatePolicyRules({ rules: [{ path: "$.ok", action: "ignore" }, { path: t.selector, action: "ignore" }] });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: "invalid_policy_rules", details: [{ path: "rules[1].path" }] });
  });

  it.each(tests.filter((t) => !t.invalid_selector).map((t) => [t.name, t] as const))("selects %s", (_name, t) => {
    const nodes = evaluateJsonPath(parseJsonPath(t.selector), t.document);
    const values = nodes.map((n) => n.value);
    const paths = nodes.map((n) => toNormalizedPath(nodeSegments(n)));
    if (t.result !== undefined) {
      expect(values).toEqual(t.result);
      expect(paths).toEqual(t.result_paths);
    } else {
      const alternative = t.results!.findIndex((r, i) => JSON.stringify(r) === JSON.stringify(values) && JSON.stringify(t.results_paths![i]) === JSON.stringify(paths));
      expect(alternative, JSON.stringify({ values, paths })).toBeGreaterThanOrEqual(0);
    }
  });
});

describe("evaluator details the suite does not cover", () => {
  const select = (path: string, document: unknown): unknown[] => evaluateJsonPath(parseJsonPath(path), document).map((n) => n.value);
  it("orders strings by Unicode scalar value, not UTF-16 code unit", () => {
    expect(select("$[?@ < '\uE000']", ["\u{1F600}", "a", "\uE000"])).toEqual(["a"]);
    expect(select("$[?@ > '\uE000']", ["\u{1F600}", "a", "\uE000"])).toEqual(["\u{1F600}"]);
  });
  it("length() counts Unicode scalar values", () => {
    expect(select("$[?length(@) == 2]", ["\u{1F600}a", "ab", "abc", "\u{1F600}"])).toEqual(["\u{1F600}a", "ab"]);
  });
  it("compares numbers by value and structures deeply", () => {
    expect(select("$[?@.a == 1]", [{ a: 1.0 }, { a: "1" }, { a: [1] }])).toEqual([{ a: 1 }]);
    expect(select("$[?@.a == $.ref]", { ref: { x: [1, { y: 2 }] }, p: { a: { x: [1, { y: 2 }] } }, q: { a: { x: [1, { y: 3 }] } } })).toEqual([
      { a: { x: [1, { y: 2 }] } },
    ]);
  });
});
