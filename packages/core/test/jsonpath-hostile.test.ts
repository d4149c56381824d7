import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateJsonPath, nodeSegments, parseJsonPath } from "../src/jsonpath/index.js";
import { compileJsonPath } from "../src/policy/jsonpath.js";
import { applyPolicy, type Change, diffJson, formatPath, isDriftwatchError, type PathSegment, toNormalizedPath, validatePolicyRules } from "../src/index.js";

function change(path: string, op: Change["op"] = "replace"): Change {
  return { path, category: "value", op, severity: "info" };
}

/** The error a call throws; fails the test when it throws nothing or something else than a DriftwatchError. */
function errorOf(fn: () => unknown): { code: string; message: string; details?: { path: string; message: string }[] } {
  try {
    fn();
  } catch (error) {
    if (!isDriftwatchError(error)) throw error;
    return error as never;
  }
  throw new Error("expected a DriftwatchError");
}

function refusal(path: string): string {
  const error = errorOf(() => validatePolicyRules({ rules: [{ category: "value", action: "ignore" }, { path, action: "ignore" }] }));
  expect(error.code).toBe("invalid_policy_rules");
  expect(error.details?.[0]?.path).toBe("rules[1].path");
  return error.details![0]!.message;
}

/** A chain of `depth` nested objects `{ a: { a: ... } }`, built without recursion. */
function chain(depth: number): unknown {
  let node: unknown = 1;
  for (let i = 0; i < depth; i++) node = { a: node };
  return node;
}

describe("invalid rule paths are refused at write time", () => {
  it.each([
    ["$..", "must follow .."],
    ["$[0:10:0]", "step 0 selects nothing"],
    ["$.a[?(@.a.repeat(2e8).split(''))]", "does not parse"],
    ["$[?(@.x === 1)]", "does not parse"],
    ["$[?@.a = 1]", "does not parse"],
    ["$[?foo(@)]", "unknown function"],
    ["$[?length(@.a)]", "gives a value"],
    ["$[?match(@.a, 'a') == true]", "logical result"],
    ["$[?@.a[*] == 1]", "singular"],
    ["$[?count(1) > 0]", "must be a query"],
    ["$.a^", "unexpected"],
    ["$[?@.a =~ /x/]", "does not parse"],
  ])("%s", (path, message) => {
    expect(refusal(path)).toContain(message);
  });

  it("refuses a match() or search() literal that is not an I-Regexp, or is too long", () => {
    expect(refusal("$[?match(@.a, '(?i)x')]")).toContain("not a valid I-Regexp");
    expect(refusal("$[?search(@.a, 'a\\\\d')]")).toContain("not a valid I-Regexp");
    expect(compileJsonPath(`$[?search(@.a, '${"a".repeat(1001)}')]`)).toEqual({ kind: "error", message: "search(): a regular expression has at most 1000 characters" });
    expect(refusal(`$[?search(@.a, '${"a".repeat(1001)}')]`)).toContain("<=1000 characters");
    expect(() => validatePolicyRules({ rules: [{ path: "$[?match(@.a, '[a-z]+\\\\p{Lu}?')]", action: "ignore" }] })).not.toThrow();
  });

  it("refuses deep nesting of filters, parentheses and calls without exhausting the stack", () => {
    expect(refusal(`$${"[?@".repeat(40)}${"]".repeat(40)}`)).toContain("nest at most");
    expect(refusal(`$[?${"(".repeat(400)}@${")".repeat(400)}]`)).toContain("nest at most");
    expect(() => parseJsonPath(`$[?${"(".repeat(100_000)}@${")".repeat(100_000)}]`)).toThrow(/at most 4096 characters/);
    expect(() => parseJsonPath(`$[?${"(".repeat(2000)}@${")".repeat(2000)}]`)).toThrow(/nest at most/);
    expect(() => parseJsonPath(`$[?${"!".repeat(4000)}@]`)).toThrow(/does not parse|unexpected|!/);
    expect(refusal(`$[?${"value(".repeat(40)}@${")".repeat(40)} == 1]`)).toMatch(/nest at most|must be a query/);
  });

  it("refuses queries whose static cost estimate explodes", () => {
    expect(refusal("$..*..*..*..*")).toContain("too costly");
    expect(refusal("$[?$..*[?$..*[?$..*]]]")).toContain("too costly");
    expect(() => validatePolicyRules({ rules: [{ path: "$..*[?@..x]", action: "ignore" }] })).not.toThrow();
  });

  it("refuses invalid array-key patterns with filters", () => {
    const error = errorOf(() => validatePolicyRules({ rules: [], arrayKeys: { "$[0:1:0]": "id" } }));
    expect(error.details?.[0]?.message).toContain("step 0 selects nothing");
  });
});

describe("hostile rules end as a bounded evaluation", () => {
  it("a catastrophic filter on a deep document stops with rule_budget_exceeded", () => {
    const doc = chain(3000);
    const policy = validatePolicyRules({ rules: [{ path: "$..*[?@..*]", action: "ignore" }] });
    const error = errorOf(() => applyPolicy([change("$.a")], policy, { before: doc, after: doc }));
    expect(error.code).toBe("rule_budget_exceeded");
    expect(error.details?.[0]?.path).toBe("rules[0].path");
  });

  it("$..* on a deep document is evaluated without exhausting the stack", () => {
    const doc = chain(20_000);
    const policy = validatePolicyRules({ rules: [{ path: "$..[?@.a == 1]", action: "ignore" }] });
    const deepest = `$${".a".repeat(19_999)}`;
    const out = applyPolicy([change(deepest), change("$.a")], policy, { before: doc, after: doc });
    expect(out.map((c) => c.path)).toEqual(["$.a"]);
    // Every node selected: the trie of 20 000 nested nodes is built in linear time.
    const all = validatePolicyRules({ rules: [{ path: "$.a..[?@]", action: "ignore" }] });
    expect(applyPolicy([change(deepest), change("$.a"), change("$.b")], all, { before: doc, after: doc }).map((c) => c.path)).toEqual(["$.a", "$.b"]);
  });

  it("500 filter rules on a large document share one budget per document", () => {
    const doc = { items: Array.from({ length: 5000 }, (_, i) => ({ v: i, tag: `t${i % 7}` })) };
    const rules = Array.from({ length: 500 }, (_, i) => ({ path: `$.items[?@.v == ${i * 10} || match(@.tag, 't[0-9]+x')]`, action: "ignore" as const }));
    const policy = validatePolicyRules({ rules });
    const error = errorOf(() => applyPolicy([change("$.items[4999].v")], policy, { before: doc, after: doc }));
    expect(error.code).toBe("rule_budget_exceeded");
    expect(error.message).toContain("all rules may take on one document");
    // Fewer rules fit the budget and give the right answer.
    const few = validatePolicyRules({ rules: rules.slice(0, 20) });
    const out = applyPolicy([change("$.items[10].v"), change("$.items[11].v")], few, { before: doc, after: doc });
    expect(out.map((c) => c.path)).toEqual(["$.items[11].v"]);
  });

  it("the over-budget rule fails diffJson with rule_budget_exceeded, not a hang or a crash", () => {
    const before = { items: Array.from({ length: 2000 }, (_, i) => i) };
    const after = { items: [...before.items, 1] };
    const error = errorOf(() => diffJson(before, after, { policy: { rules: [{ path: "$.items[?count($.items[*]) > 0]", action: "ignore" }] } }));
    expect(error.code).toBe("rule_budget_exceeded");
  });

  it("ReDoS patterns run in linear time: (a+)+$ on aaaa…!", () => {
    const doc = { s: `${"a".repeat(100_000)}!`, p: "(a+)+$" };
    const q = (path: string) => evaluateJsonPath(parseJsonPath(path), doc).map((n) => toNormalizedPath(nodeSegments(n)));
    expect(q("$[?match(@, '(a+)+$')]")).toEqual([]);
    expect(q("$[?search(@, '(a+)+!')]")).toEqual(["$['s']"]);
    expect(q("$[?search($.s, $.p)]")).toEqual([]);
    expect(q("$[?search(@, '(a|aa)+b')]")).toEqual([]);
  });

  it("patterns from the document that are too long or invalid match nothing", () => {
    const doc = { s: "abc", long: "a".repeat(5000), bad: "(?=a)" };
    expect(evaluateJsonPath(parseJsonPath("$[?search($.s, $.long)]"), doc)).toEqual([]);
    expect(evaluateJsonPath(parseJsonPath("$[?search($.s, $.bad)]"), doc)).toEqual([]);
  });

  it("a huge string under length() and match() costs its length", () => {
    const doc = { big: "x".repeat(3_000_000) };
    const error = errorOf(() => evaluateJsonPath(parseJsonPath("$[?length(@) > 0]"), doc));
    expect(error.code).toBe("rule_budget_exceeded");
  });

  it("deep equality of deep values is iterative and budgeted", () => {
    const doc = { x: chain(50_000), y: chain(50_000) };
    expect(evaluateJsonPath(parseJsonPath("$[?$.x == $.y]"), doc)).toHaveLength(2);
  });
});

const TOKENS = ["$", "@", ".", "..", "[", "]", "?", "(", ")", "*", ",", ":", "'", '"', "\\", "==", "!=", "<", "<=", "&&", "||", "!", " ", "a", "0", "-1", "1e3", "length(", "count(", "match(", "search(", "value(", "true", "null", "\u00e9", "\ud83d\ude00", "\ud800"];

describe("parser properties", () => {
  it("random strings never throw anything but invalid_path", () => {
    const text = fc.oneof(fc.string({ unit: "binary", maxLength: 60 }), fc.array(fc.constantFrom(...TOKENS), { maxLength: 30 }).map((t) => `$${t.join("")}`));
    fc.assert(
      fc.property(text, (path) => {
        try {
          parseJsonPath(path);
        } catch (error) {
          expect(isDriftwatchError(error) && error.code).toBe("invalid_path");
        }
        // Rule validation answers with invalid_policy_rules or accepts.
        try {
          validatePolicyRules({ rules: [{ path, action: "ignore" }] });
        } catch (error) {
          expect(isDriftwatchError(error) && error.code).toBe("invalid_policy_rules");
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("normalized paths round-trip: parse, evaluate to exactly that node, format back", () => {
    const segment = fc.oneof(fc.string({ unit: "grapheme", maxLength: 6 }), fc.nat({ max: 3 }));
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (segments: PathSegment[]) => {
        // A document holding exactly that path.
        let doc: unknown = "leaf";
        for (let i = segments.length - 1; i >= 0; i--) {
          const s = segments[i]!;
          if (typeof s === "number") {
            const arr: unknown[] = Array.from({ length: s + 1 }, () => null);
            arr[s] = doc;
            doc = arr;
          } else doc = { [s]: doc };
        }
        const normalized = toNormalizedPath(segments);
        for (const text of [normalized, formatPath(segments)]) {
          const nodes = evaluateJsonPath(parseJsonPath(text), doc);
          expect(nodes).toHaveLength(1);
          expect(nodes[0]!.value).toBe("leaf");
          expect(toNormalizedPath(nodeSegments(nodes[0]!))).toBe(normalized);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
