// Policy fields for noise in JSON diffs (issue 11, point 2): volatile, tolerance, unordered, and
// the explanations of what they hid. What must NOT be hidden is tested next to what is.
import { describe, expect, it } from "vitest";
import { type Change, diffHtml, diffJson, explainDiffJson, isDriftwatchError, type PolicyRulesInput, validatePolicyRules } from "../src/index.js";

function summary(changes: Change[] | undefined): string[] {
  return (changes ?? []).map((c) => `${c.op} ${c.path} ${c.category} ${c.severity}`);
}

const response = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  generated_at: "2026-11-25T06:00:00Z",
  request_id: "req_8f3a",
  meta: { etag: "W/\"1\"", build: 41 },
  stats: { temperature: 21.5, visitors: 1200 },
  data: { status: "open", price: 25 },
  ...overrides,
});

describe("volatile paths", () => {
  const policy: PolicyRulesInput = { volatile: [{ path: "$.generated_at" }, { path: "$.request_id" }, { path: "$.meta" }] };

  it("hide value changes of the matched nodes and everything below them", () => {
    const after = response({ generated_at: "2026-11-25T06:05:00Z", request_id: "req_11c2", meta: { etag: "W/\"2\"", build: 42 } });
    expect(diffJson(response(), after, { policy })).toBeNull();
    // Without the policy the same pair is four value changes.
    expect(diffJson(response(), after)!.changes).toHaveLength(4);
  });

  it("still report a volatile member that disappears, with its normal severity", () => {
    const after = response();
    delete after.generated_at;
    expect(summary(diffJson(response(), after, { policy })!.changes)).toEqual(["remove $.generated_at schema critical"]);
  });

  it("still report a volatile member whose type changes, or that becomes null", () => {
    expect(summary(diffJson(response(), response({ generated_at: 1764050700 }), { policy })!.changes)).toEqual(["replace $.generated_at schema critical"]);
    expect(summary(diffJson(response(), response({ request_id: null }), { policy })!.changes)).toEqual(["replace $.request_id schema medium"]);
  });

  it("still report members added or removed below a volatile node", () => {
    expect(summary(diffJson(response(), response({ meta: { etag: "x", build: 41, region: "eu" } }), { policy })!.changes)).toEqual([
      "add $.meta.region schema info",
    ]);
  });

  it("leave other paths alone", () => {
    expect(summary(diffJson(response(), response({ data: { status: "closed", price: 25 } }), { policy })!.changes)).toEqual([
      "replace $.data.status value info",
    ]);
  });

  it("match wildcards and descendants", () => {
    const before = { items: [{ id: 1, seen: "a" }, { id: 2, seen: "b" }] };
    const after = { items: [{ id: 1, seen: "c" }, { id: 2, seen: "d" }] };
    expect(diffJson(before, after, { policy: { volatile: [{ path: "$.items[*].seen" }] } })).toBeNull();
    expect(diffJson(before, after, { policy: { volatile: [{ path: "$..seen" }] } })).toBeNull();
  });
});

describe("volatile entries narrowed by skeletons", () => {
  it("hide only values of the listed skeletons; another value at the path is compared as usual, or by the next entry", () => {
    const skeletons = ["<n> comments"];
    const policy: PolicyRulesInput = { volatile: [{ path: "$.notes[*]", parts: true, skeletons }] };
    const before = { notes: ["31 comments", "12 stops"] };
    expect(diffJson(before, { notes: ["32 comments", "12 stops"] }, { policy })).toBeNull();
    expect(summary(diffJson(before, { notes: ["32 comments", "14 stops"] }, { policy })?.changes)).toEqual(["replace $.notes[1] value info"]);
    // the next entry selecting the value decides for a value the first does not select
    const both: PolicyRulesInput = { volatile: [{ path: "$.notes[*]", parts: true, skeletons }, { path: "$.notes[1]" }] };
    expect(diffJson(before, { notes: ["32 comments", "14 stops"] }, { policy: both })).toBeNull();
  });

  it("select only blocks of the listed skeletons on pages, falling through to the next entry that selects the block", () => {
    const page = (comments: number, stops: number, promo: string) => `<article><p>${comments} comments</p><p>The tour has ${stops} stops.</p><p>${promo}</p></article>`;
    const policy: PolicyRulesInput = { volatile: [{ selector: "article > p", parts: true, skeletons: ["<n> comments"] }, { selector: "article > p:nth-of-type(3)", seen: ["Join us", "Visit the shop"] }] };
    expect(diffHtml(page(31, 12, "Join us"), page(33, 12, "Visit the shop"), { policy })).toBeNull();
    expect(diffHtml(page(31, 12, "Join us"), page(33, 14, "Visit the shop"), { policy })?.changes.map((c) => c.after)).toEqual(["The tour has 14 stops."]);
    expect(diffHtml(page(31, 12, "Join us"), page(33, 12, "A new promo"), { policy })?.changes.map((c) => c.after)).toEqual(["A new promo"]);
  });
});

describe("tolerance", () => {
  it("hides numeric changes within an absolute tolerance and reports those beyond it", () => {
    const policy: PolicyRulesInput = { tolerance: [{ path: "$.stats.temperature", absolute: 0.5 }] };
    expect(diffJson(response(), response({ stats: { temperature: 21.9, visitors: 1200 } }), { policy })).toBeNull();
    expect(summary(diffJson(response(), response({ stats: { temperature: 22.1, visitors: 1200 } }), { policy })!.changes)).toEqual([
      "replace $.stats.temperature value info",
    ]);
  });

  it("hides numeric changes within a relative tolerance and reports those beyond it", () => {
    const policy: PolicyRulesInput = { tolerance: [{ path: "$.stats.visitors", relative: 0.05 }] };
    expect(diffJson(response(), response({ stats: { temperature: 21.5, visitors: 1250 } }), { policy })).toBeNull();
    expect(diffJson(response(), response({ stats: { temperature: 21.5, visitors: 1300 } }), { policy })!.changes).toHaveLength(1);
  });

  it("accepts either limit when both are given, and covers a subtree", () => {
    const policy: PolicyRulesInput = { tolerance: [{ path: "$.stats", absolute: 1, relative: 0.01 }] };
    // 21.5 -> 22.4: within 1 absolute; 1200 -> 1211: within 1 % relative.
    expect(diffJson(response(), response({ stats: { temperature: 22.4, visitors: 1211 } }), { policy })).toBeNull();
    expect(diffJson(response(), response({ stats: { temperature: 23, visitors: 1200 } }), { policy })!.changes).toHaveLength(1);
  });

  it("never hides a type change or a non-numeric change", () => {
    const policy: PolicyRulesInput = { tolerance: [{ path: "$.stats", absolute: 1000 }] };
    expect(summary(diffJson(response(), response({ stats: { temperature: "21.5", visitors: 1200 } }), { policy })!.changes)).toEqual([
      "replace $.stats.temperature schema critical",
    ]);
  });
});

describe("unordered arrays", () => {
  const policy: PolicyRulesInput = { unordered: ["$.tags", "$.matrix"] };

  it("find no change when only the order of the elements changed", () => {
    expect(diffJson({ tags: ["a", "b", "c", "b"] }, { tags: ["b", "c", "b", "a"] }, { policy })).toBeNull();
    expect(diffJson({ matrix: [[1], { x: 1, y: 2 }] }, { matrix: [{ y: 2, x: 1 }, [1]] }, { policy })).toBeNull();
    // Without the entry the order counts (index-matched: one move).
    expect(diffJson({ tags: ["a", "b", "c"] }, { tags: ["b", "c", "a"] })!.changes[0]!.op).toBe("move");
  });

  it("report elements added or removed, as a multiset", () => {
    const diff = diffJson({ tags: ["a", "b", "b"] }, { tags: ["b", "c", "a"] }, { policy })!;
    expect(summary(diff.changes)).toEqual(["remove $.tags[2] value info", "add $.tags[1] value info"]);
    expect(diff.changes.map((c) => c.before ?? c.after)).toEqual(["b", "c"]);
  });

  it("report an element added to an unordered array even when the rest were reordered", () => {
    expect(summary(diffJson({ tags: ["x", "y"] }, { tags: ["y", "z", "x"] }, { policy })!.changes)).toEqual(["add $.tags[1] value info"]);
  });

  it("keep key matching (and so nested edits) for arrays of keyed objects, with no moves even under reportMoves", () => {
    const before = { tags: [{ id: 1, n: "a" }, { id: 2, n: "b" }] };
    const after = { tags: [{ id: 2, n: "b" }, { id: 1, n: "A" }] };
    expect(summary(diffJson(before, after, { policy, reportMoves: true })!.changes)).toEqual(["replace $.tags[1].n value info"]);
  });
});

describe("explanations of policy decisions", () => {
  it("name the volatile, tolerance, unordered and rule entries that hid or rated each change", () => {
    const policy: PolicyRulesInput = {
      rules: [{ path: "$.data.status", severity: "high" }, { path: "$.debug", action: "ignore" }],
      volatile: [{ path: "$.generated_at" }],
      tolerance: [{ path: "$.stats.temperature", absolute: 1 }],
      unordered: ["$.tags"],
    };
    const before = { ...response(), tags: ["a", "b"], debug: 1 };
    const after = { ...response({ generated_at: "later", stats: { temperature: 22, visitors: 1200 }, data: { status: "closed", price: 25 } }), tags: ["b", "a"], debug: 2 };
    const { diff, explanations } = explainDiffJson(before, after, { policy });
    expect(summary(diff!.changes)).toEqual(["replace $.data.status value high"]);
    const byOutcome = Object.fromEntries(explanations.map((e) => [e.outcome, e]));
    expect(byOutcome.unordered).toMatchObject({ path: "$.tags", rule: "unordered[0]" });
    expect(byOutcome.volatile).toMatchObject({ path: "$.generated_at", rule: "volatile[0]" });
    expect(byOutcome.tolerance).toMatchObject({ path: "$.stats.temperature", rule: "tolerance[0]" });
    expect(byOutcome.ignored).toMatchObject({ path: "$.debug", rule: "rules[1]" });
    expect(byOutcome.rated).toMatchObject({ path: "$.data.status", rule: "rules[0]", severity: "high" });
    expect(explanations).toHaveLength(5);
  });

  it("are returned by explainDiffJson when every change was hidden", () => {
    const { diff, explanations } = explainDiffJson({ t: "a" }, { t: "b" }, { policy: { volatile: [{ path: "$.t" }] } });
    expect(diff).toBeNull();
    expect(explanations).toEqual([expect.objectContaining({ path: "$.t", outcome: "volatile", rule: "volatile[0]" })]);
  });
});

describe("validation of the noise fields", () => {
  const cases: Array<[unknown, string]> = [
    [{ volatile: [{ path: "$.items[?(@.x)]" }] }, "volatile[0].path"],
    [{ volatile: [{ path: "$.a", selector: ".b" }] }, "volatile[0]"],
    [{ volatile: [{}] }, "volatile[0]"],
    [{ tolerance: [{ path: "$.a" }] }, "tolerance[0]"],
    [{ tolerance: [{ path: "$.a", absolute: -1 }] }, "tolerance[0].absolute"],
    [{ tolerance: [{ path: "not a path", absolute: 1 }] }, "tolerance[0].path"],
    [{ unordered: ["$.a[?(@.b)]"] }, "unordered[0]"],
    [{ normalize: { relativeTimes: "yes" } }, "normalize.relativeTimes"],
  ];
  it.each(cases)("refuses %j naming %s", (input, where) => {
    try {
      validatePolicyRules(input);
      expect.unreachable();
    } catch (error) {
      expect(isDriftwatchError(error) && error.code).toBe("invalid_policy_rules");
      expect((error as { details: { path: string }[] }).details.map((d) => d.path)).toContain(where);
    }
  });
});
