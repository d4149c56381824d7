import { describe, expect, it } from "vitest";
import { applyPolicy, type Change, compilePolicy, diffJson, type DriftwatchError, isDriftwatchError, policyContentKey, validatePolicyRules } from "../src/index.js";
import { ratesValueAt } from "../src/policy/index.js";

function change(path: string, op: Change["op"], category: Change["category"] = "value", severity: Change["severity"] = "info"): Change {
  return { path, category, op, severity };
}

describe("applyPolicy rule forms", () => {
  it("ignores $..updatedAt at any depth, and what lies below it", () => {
    const policy = validatePolicyRules({ rules: [{ path: "$..updatedAt", action: "ignore" }] });
    const out = applyPolicy(
      [change("$.updatedAt", "replace"), change("$.a[2].updatedAt", "replace"), change("$.updatedAt.nested", "add"), change("$.updated", "replace")],
      policy,
    );
    expect(out.map((c) => c.path)).toEqual(["$.updated"]);
  });

  it("sets a severity by path, for the node and below", () => {
    const policy = validatePolicyRules({ rules: [{ path: "$.price", severity: "critical" }] });
    const out = applyPolicy([change("$.price", "replace"), change("$.price.amount", "replace"), change("$.prices", "replace")], policy);
    expect(out.map((c) => c.severity)).toEqual(["critical", "critical", "info"]);
  });

  it("matches op and path together: $.items[*] removals are high", () => {
    const policy = validatePolicyRules({ rules: [{ path: "$.items[*]", op: "remove", severity: "high" }] });
    const out = applyPolicy([change("$.items[3]", "remove"), change("$.items[3]", "add"), change("$.items", "remove"), change("$.items[0].x", "remove")], policy);
    expect(out.map((c) => c.severity)).toEqual(["high", "info", "info", "high"]);
  });

  it("matches on category alone", () => {
    const policy = validatePolicyRules({ rules: [{ category: "value", action: "ignore" }] });
    const out = applyPolicy([change("$.a", "replace", "value"), change("$.b", "remove", "schema", "critical")], policy);
    expect(out.map((c) => c.path)).toEqual(["$.b"]);
  });

  it("lets the first matching rule win", () => {
    const policy = validatePolicyRules({
      rules: [
        { path: "$.a.b", severity: "low" },
        { path: "$.a", action: "ignore" },
        { path: "$.a.b", severity: "critical" },
      ],
    });
    const out = applyPolicy([change("$.a.b", "replace"), change("$.a.c", "replace")], policy);
    expect(out).toEqual([{ ...change("$.a.b", "replace"), severity: "low" }]);
  });

  it("supports names in brackets, unions, slices and indexes", () => {
    const policy = validatePolicyRules({
      rules: [
        { path: "$['a.b']", severity: "low" },
        { path: "$.list[1:4:2]", severity: "medium" },
        { path: "$['x','y'][0]", severity: "high" },
      ],
    });
    const out = applyPolicy(
      [change("$['a.b'].c", "add"), change("$.list[1]", "add"), change("$.list[2]", "add"), change("$.list[3]", "add"), change("$.y[0]", "add"), change("$.y[1]", "add")],
      policy,
    );
    expect(out.map((c) => c.severity)).toEqual(["low", "medium", "info", "medium", "high", "info"]);
  });

  it("evaluates RFC 9535 filter expressions on the right document, once per rule", () => {
    const policy = validatePolicyRules({ rules: [{ path: "$.items[?@.internal == true]", action: "ignore" }] });
    let reads = 0;
    const item = (id: number, internal: boolean): Record<string, unknown> => {
      const o: Record<string, unknown> = { id };
      Object.defineProperty(o, "internal", { enumerable: true, get: () => (reads++, internal) });
      return o;
    };
    const after = { items: Array.from({ length: 40 }, (_, i) => item(i, i % 2 === 0)) };
    const before = { items: [item(100, true), item(101, false)] };
    const many = Array.from({ length: 40 }, (_, i) => change(`$.items[${i}].v`, "replace"));
    const kept = applyPolicy([...many, change("$.items[0]", "remove"), change("$.items[1]", "remove")], policy, { before, after });
    expect(kept.map((c) => c.path)).toEqual([...many.filter((_, i) => i % 2 === 1).map((c) => c.path), "$.items[1]"]);
    // one evaluation per rule and document: 40 items in the new one, 2 in the old one
    expect(reads).toBe(42);
  });

  it("asks for the documents when a filter rule needs them", () => {
    const policy = validatePolicyRules({ rules: [{ path: "$.items[?(@.x)]", action: "ignore" }] });
    expect(() => applyPolicy([change("$.items[0]", "add")], policy)).toThrow(expect.objectContaining({ code: "invalid_policy_rules" }));
  });

  it("matches selectors on website changes only", () => {
    const policy = validatePolicyRules({ rules: [{ selector: ".ad-banner", action: "ignore" }] });
    const html = [change(".ad-banner", "replace"), change(".ad-banner > p", "add"), change(".ad-banners", "add")];
    expect(applyPolicy(html, policy, { kind: "html" }).map((c) => c.path)).toEqual([".ad-banners"]);
    expect(applyPolicy([change("$.a", "add")], policy)).toHaveLength(1);
  });
});

describe("diffJson with a policy", () => {
  it("applies rules and array keys, and returns null when every change is ignored", () => {
    const policy = validatePolicyRules({
      rules: [
        { path: "$..updatedAt", action: "ignore" },
        { path: "$.items[*]", op: "remove", severity: "high" },
      ],
      arrayKeys: { "$.items": "sku" },
    });
    const before = { updatedAt: 1, items: [{ sku: "a" }, { sku: "b" }] };
    const after = { updatedAt: 2, items: [{ sku: "b" }] };
    const diff = diffJson(before, after, { policy })!;
    expect(diff.changes).toEqual([{ path: "$.items[0]", category: "value", op: "remove", severity: "high", before: { sku: "a" } }]);
    expect(diff.topSeverity).toBe("high");
    expect(diffJson({ updatedAt: 1, n: { updatedAt: 1 } }, { updatedAt: 2, n: { updatedAt: 3 } }, { policy })).toBeNull();
  });

  it("evaluates filter rules against the old document for removals and the new one otherwise", () => {
    const policy = validatePolicyRules({ rules: [{ path: "$.users[?(@.role == 'bot')]", action: "ignore" }] });
    const before = { users: [{ id: 1, role: "bot" }, { id: 2, role: "human" }, { id: 3, role: "bot", n: 1 }] };
    const after = { users: [{ id: 2, role: "human", n: 1 }, { id: 3, role: "bot", n: 2 }, { id: 4, role: "bot" }] };
    const diff = diffJson(before, after, { policy })!;
    expect(diff.changes.map((c) => `${c.op} ${c.path}`)).toEqual(["add $.users[0].n"]);
  });
});

describe("validatePolicyRules", () => {
  function errorOf(input: unknown): DriftwatchError {
    try {
      validatePolicyRules(input);
    } catch (error) {
      if (isDriftwatchError(error)) return error as DriftwatchError;
      throw error;
    }
    throw new Error("expected invalid_policy_rules");
  }

  it("accepts the documented example and fills defaults", () => {
    const rules = validatePolicyRules({
      rules: [
        { path: "$..updatedAt", action: "ignore" },
        { path: "$.price", severity: "critical" },
        { path: "$.items[*]", op: "remove", severity: "high" },
        { selector: ".ad-banner", action: "ignore" },
      ],
      arrayKeys: { "$.items": "sku" },
      notify: { minSeverity: "medium" },
    });
    expect(rules.rules).toHaveLength(4);
    expect(validatePolicyRules({}).rules).toEqual([]);
  });

  it.each([
    [{ rules: [{ path: "$.a", action: "ignore" }, { action: "ignore" }] }, "rules[1]", "at least one"],
    [{ rules: [{ path: "$.a", action: "set" }] }, "rules[0].severity", "needs a severity"],
    [{ rules: [{ path: "$.a", action: "ignore", severity: "low" }] }, "rules[0].severity", "no severity"],
    [{ rules: [{ path: "$.a" }] }, "rules[0].action", "ignore"],
    [{ rules: [{ path: "$.a", action: "ignore" }, { path: "$.a", action: "ignore" }, { path: "$.a[", severity: "low" }] }, "rules[2].path", "JSONPath"],
    [{ rules: [{ path: "$.a[?(@.x ==)]", action: "ignore" }] }, "rules[0].path", "does not parse"],
    [{ rules: [{ path: "a.b", action: "ignore" }] }, "rules[0].path", "starts with $"],
    [{ rules: [{ path: "$.a", selector: "p", action: "ignore" }] }, "rules[0].selector", "not both"],
    [{ rules: [{ path: "$.a", severity: "urgent" }] }, "rules[0].severity", ""],
    [{ rules: [{ path: "$.a", action: "ignore", colour: "red" }] }, "rules[0]", ""],
    [{ rules: [], arrayKeys: { "$.items[?(@.x)]": "id" } }, 'arrayKeys["$.items[?(@.x)]"]', "no filters"],
    [{ rules: [], arrayKeys: { "$.items": "" } }, 'arrayKeys["$.items"]', ""],
    [{ rules: "nope" }, "rules", ""],
    [{ rules: [{ selector: ".ad", action: "ignore" }, { selector: "###", action: "ignore" }] }, "rules[1].selector", "not a valid CSS selector"],
    [{ rules: [{ selector: "div[", severity: "high" }] }, "rules[0].selector", "not a valid CSS selector"],
    [{ rules: [], volatile: [{ selector: "time" }, { selector: "[[[" }] }, "volatile[1].selector", "not a valid CSS selector"],
    [{ rules: [], visual: { mask: [".ad", "div:has("] } }, "visual.mask[1]", "not a valid CSS selector"],
  ])("refuses %j naming %s", (input, where, message) => {
    const error = errorOf(input);
    expect(error.code).toBe("invalid_policy_rules");
    const detail = error.details.find((d) => d.path === where);
    expect(detail, JSON.stringify(error.details)).toBeDefined();
    expect(detail!.message).toContain(message);
  });

  it("accepts valid CSS selectors in rules", () => {
    const rules = validatePolicyRules({ rules: [{ selector: "main > .price:nth-of-type(2), #a[data-x='1']", action: "ignore" }, { selector: "li:not(.ad)", severity: "low" }] });
    expect(rules.rules).toHaveLength(2);
  });

  it("reports every problem, not only the first", () => {
    const error = errorOf({ rules: [{ action: "ignore" }, { path: "$.a", action: "set" }] });
    expect(error.details.map((d) => d.path)).toEqual(["rules[0]", "rules[1].severity"]);
  });
});

describe("compilePolicy cache", () => {
  it("is keyed by content: equal rules in another object, or with keys in another order, share one compiled policy", () => {
    const rules = { rules: [{ path: "$.cache.a", action: "ignore" as const }, { path: "$.cache.b", severity: "critical" as const }], arrayKeys: { "$.items": "sku" } };
    const first = compilePolicy(validatePolicyRules(rules));
    // what a check gets: the policy read again from the store, or copied into a worker thread
    expect(compilePolicy(validatePolicyRules(structuredClone(rules)))).toBe(first);
    const reordered = { arrayKeys: { "$.items": "sku" }, rules: [{ severity: "critical" as const, path: "$.cache.b" }, { action: "ignore" as const, path: "$.cache.a" }].reverse() };
    expect(policyContentKey(validatePolicyRules(reordered))).toBe(policyContentKey(validatePolicyRules(rules)));
    expect(compilePolicy(validatePolicyRules(reordered))).toBe(first);
  });

  it("compiles other content anew", () => {
    const a = compilePolicy(validatePolicyRules({ rules: [{ path: "$.cache.c", action: "ignore" }] }));
    const b = compilePolicy(validatePolicyRules({ rules: [{ path: "$.cache.d", action: "ignore" }] }));
    expect(b).not.toBe(a);
    expect(b.rules[0]?.path).not.toEqual(a.rules[0]?.path);
    // rule order is content: a different order is a different policy
    const ab = validatePolicyRules({ rules: [{ path: "$.x", action: "ignore" }, { path: "$.y", action: "ignore" }] });
    const ba = validatePolicyRules({ rules: [{ path: "$.y", action: "ignore" }, { path: "$.x", action: "ignore" }] });
    expect(policyContentKey(ab)).not.toBe(policyContentKey(ba));
  });
});

describe("ratesValueAt (the diff's key inference skips a member whose value changes the policy rates)", () => {
  it("finds a replace rule above low by the member name its path ends with, a wildcard's for any name, whatever rules come before it", () => {
    const unrelated = Array.from({ length: 300 }, (_, i) => ({ path: `$.other${i}[*].field${i}`, op: "replace" as const, severity: "medium" as const }));
    const policy = compilePolicy(
      validatePolicyRules({
        rules: [
          ...unrelated,
          { path: "$.rows[*].state", op: "replace", severity: "medium" },
          { path: "$..status", op: "replace", severity: "high" },
          { path: "$.grid[*].*", op: "replace", severity: "medium" },
          { path: "$.rows[*].level", op: "replace", severity: "low" },
          { path: "$.rows[*].kind", severity: "high" },
          { path: "$.rows[0:2]", op: "replace", severity: "high" },
          { path: "$.rows[?@.n > 1].tier", op: "replace", severity: "high" },
          { path: "$.other7[*].field7", op: "replace", severity: "info" },
        ],
      }),
    );
    expect(ratesValueAt(policy, ["rows", 0, "state"])).toBe(true);
    expect(ratesValueAt(policy, ["rows", 0, "other"])).toBe(false);
    expect(ratesValueAt(policy, ["deep", "list", 0, "status"])).toBe(true);
    expect(ratesValueAt(policy, ["grid", 0, "anything"])).toBe(true);
    expect(ratesValueAt(policy, ["grid", 0, "anything", "below"])).toBe(false);
    // a slice selects indexes; low, no op and a filter are not looked at
    expect(ratesValueAt(policy, ["rows", 1])).toBe(true);
    expect(ratesValueAt(policy, ["rows", 2])).toBe(false);
    expect(ratesValueAt(policy, ["rows", 0, "level"])).toBe(false);
    expect(ratesValueAt(policy, ["rows", 0, "kind"])).toBe(false);
    expect(ratesValueAt(policy, ["rows", 0, "tier"])).toBe(false);
    expect(ratesValueAt(policy, ["other7", 3, "field7"])).toBe(true);
    expect(ratesValueAt(policy, ["other7", 3, "field8"])).toBe(false);
    expect(ratesValueAt(policy, [])).toBe(false);
  });

  it("infers an identity key in arrays of objects quickly beside a policy of many rules (each array asks about each candidate member)", () => {
    const rules = Array.from({ length: 400 }, (_, i) => ({ path: `$.items[*].entries[*].f${i}`, op: "replace" as const, severity: "medium" as const }));
    const policy = validatePolicyRules({ rules });
    const doc = (bump: number) => ({ items: Array.from({ length: 2000 }, (_, i) => ({ code: `R${i}`, entries: Array.from({ length: 4 }, (_, j) => ({ kind: `k${j}`, status: j % 2 ? "ok" : "warn", qty: (i + j + (i % 50 === 0 && j === 1 ? bump : 0)) % 50 })) })) });
    const before = doc(0);
    const after = doc(1);
    diffJson(before, after, { policy });
    const started = performance.now();
    const diff = diffJson(before, after, { policy });
    const elapsed = performance.now() - started;
    expect(diff?.changes).toHaveLength(40);
    // about 10 ms; running every rule for every candidate took about 500 ms
    expect(elapsed).toBeLessThan(150);
  });
});
