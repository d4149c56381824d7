import { describe, expect, it } from "vitest";
import { applySuggestion, parseRuleRef } from "./suggestions";

const suggested = {
  rules: [],
  volatile: [{ path: "$.updatedAt" }, { path: "$.requestId" }],
  arrayKeys: { "$.items": "sku" },
  tolerance: [{ path: "$.price", relative: 0.01 }],
};

describe("applying learned suggestions", () => {
  it("parses the evidence's references", () => {
    expect(parseRuleRef("volatile[1]")).toEqual({ key: "volatile", index: 1 });
    expect(parseRuleRef("arrayKeys['$.items']")).toEqual({ key: "arrayKeys", name: "$.items" });
    expect(parseRuleRef("nonsense")).toBeNull();
  });

  it("adds one suggestion after the user's own entries, once", () => {
    const user = { rules: [{ path: "$.a", action: "ignore" as const }], volatile: [{ path: "$.mine" }] };
    const evidence = { kind: "volatile" as const, rule: "volatile[1]", path: "$.requestId", changed: 3, pairs: 3, reason: "changed every time" };
    const once = applySuggestion(user, suggested, evidence);
    expect(once.volatile).toEqual([{ path: "$.mine" }, { path: "$.requestId" }]);
    expect(once.rules).toEqual(user.rules);
    expect(applySuggestion(once, suggested, evidence)).toEqual(once);
  });

  it("applies an array key and, with no evidence, everything", () => {
    const key = applySuggestion({ rules: [] }, suggested, { kind: "arrayKey", rule: "arrayKeys['$.items']", changed: 2, pairs: 3, reason: "reordered" });
    expect(key.arrayKeys).toEqual({ "$.items": "sku" });
    const all = applySuggestion({ rules: [], arrayKeys: { "$.items": "id" } }, suggested, null);
    expect(all.volatile).toHaveLength(2);
    expect(all.tolerance).toEqual([{ path: "$.price", relative: 0.01 }]);
    // the user's own array key wins
    expect(all.arrayKeys).toEqual({ "$.items": "id" });
  });
});
