// Every public function, called the way a JavaScript caller (or `as any`) might call it: wrong
// types, null, cycles, non-JSON values, very deep values. Each call returns normally or throws a
// DriftwatchError with a code; never a TypeError or RangeError from deep inside.
import { describe, expect, it } from "vitest";
import * as core from "../src/index.js";

function nest(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? { k: value } : [value];
  return value;
}
const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;

const badValues: [string, unknown][] = [
  ["undefined", undefined],
  ["null", null],
  ["a function", () => 1],
  ["a BigInt", 1n],
  ["NaN", Number.NaN],
  ["Infinity", Number.POSITIVE_INFINITY],
  ["a symbol", Symbol("s")],
  ["a cyclic object", cyclic],
  ["10,000 levels of nesting", nest(10_000)],
  ["a number", 5],
  ["a string", "x"],
  ["100,000 open brackets", "[".repeat(100_000)],
  ["an object", { a: 1 }],
  ["a mixed array", [1, "a", null]],
  ["an array of BigInt", [1n]],
];

const secret = core.generateWebhookSecret();
const change = { path: "$.a", category: "value", op: "replace", severity: "info", before: 1, after: 2 } as const;
const calls: [string, (x: unknown) => unknown][] = [
  ["diffJson(x, {})", (x) => core.diffJson(x, {})],
  ["diffJson({}, x)", (x) => core.diffJson({}, x)],
  ["diffJson options", (x) => core.diffJson({}, { a: 1 }, x as core.DiffJsonOptions)],
  ["diffJson policy", (x) => core.diffJson({}, { a: 1 }, { policy: x as core.PolicyRules })],
  ["diffJson arrayKeys", (x) => core.diffJson({}, { a: 1 }, { arrayKeys: x as Record<string, string> })],
  ["diffHtml(x, html)", (x) => core.diffHtml(x as string, "<p>a</p>")],
  ["diffHtml options", (x) => core.diffHtml("<p>a</p>", "<p>b</p>", x as core.DiffHtmlOptions)],
  ["diffHtml selector", (x) => core.diffHtml("<p>a</p>", "<p>b</p>", { selector: x as string })],
  ["diffHtml policy", (x) => core.diffHtml("<p>a</p>", "<p>b</p>", { policy: x as core.PolicyRules })],
  ["toJsonPatch(x)", (x) => core.toJsonPatch(x as core.Change[])],
  ["toJsonPatch([x])", (x) => core.toJsonPatch([x] as core.Change[])],
  ["formatPath(x)", (x) => core.formatPath(x as string[])],
  ["formatPath([x])", (x) => core.formatPath([x] as string[])],
  ["parsePath(x)", (x) => core.parsePath(x as string)],
  ["toNormalizedPath(x)", (x) => core.toNormalizedPath(x as string)],
  ["toNormalizedPath([x])", (x) => core.toNormalizedPath([x] as string[])],
  ["classifySeverity(x)", (x) => core.classifySeverity(x as "member_added")],
  ["applyPolicy(x, rules)", (x) => core.applyPolicy(x as core.Change[], { rules: [] })],
  ["applyPolicy(changes, x)", (x) => core.applyPolicy([change], x as core.PolicyRules)],
  ["validatePolicyRules(x)", (x) => core.validatePolicyRules(x)],
  ["fingerprintChanges(x)", (x) => core.fingerprintChanges(x as core.Change[])],
  ["fingerprintChanges([x])", (x) => core.fingerprintChanges([x] as core.Change[])],
  ["fingerprintChanges before: x", (x) => core.fingerprintChanges([{ ...change, before: x }])],
  ["buildDiffDetectedEvent(x)", (x) => core.buildDiffDetectedEvent(x as core.ApiDiff, { snapshotId: "snp_1", occurredAt: new Date(0), deliveredAt: new Date(0) })],
  ["buildDiffDetectedEvent options", (x) => core.buildDiffDetectedEvent({} as core.ApiDiff, x as never)],
  ["signWebhook(x)", (x) => core.signWebhook(x as string, { id: "evt_1", timestamp: 1, secrets: [secret] })],
  ["signWebhook options", (x) => core.signWebhook("{}", x as never)],
  ["verifyWebhook(x)", (x) => core.verifyWebhook(x as string, {}, secret)],
  ["verifyWebhook headers", (x) => core.verifyWebhook("{}", x as Record<string, string>, secret)],
  ["verifyWebhook secret", (x) => core.verifyWebhook("{}", { "webhook-id": "a", "webhook-timestamp": "1", "webhook-signature": "v1,xx" }, x as string)],
];

describe("public functions refuse bad arguments with a coded DriftwatchError", () => {
  it.each(calls)("%s", (_name, call) => {
    for (const [label, value] of badValues) {
      try {
        call(value);
      } catch (error) {
        expect(core.isDriftwatchError(error), `${label}: ${String(error)}`).toBe(true);
        expect((error as core.DriftwatchError).code, label).toMatch(/^[a-z_]+$/);
      }
    }
  });
});

describe("specific codes", () => {
  const codeOf = (fn: () => unknown): string | undefined => {
    try {
      fn();
    } catch (error) {
      return (error as core.DriftwatchError).code;
    }
    return undefined;
  };
  it("names wrong argument types invalid_input, naming the argument", () => {
    expect(codeOf(() => core.toJsonPatch(null as never))).toBe("invalid_input");
    expect(codeOf(() => core.fingerprintChanges([{ ...change, op: "copy" }] as never))).toBe("invalid_input");
    expect(() => core.fingerprintChanges([change, { ...change, after: 1n }])).toThrow(
      expect.objectContaining({ code: "invalid_input", details: [expect.objectContaining({ path: "changes[1].after" })] }) as Error,
    );
    expect(codeOf(() => core.diffJson({}, {}, 5 as never))).toBe("invalid_input");
    expect(codeOf(() => core.signWebhook("{}", null as never))).toBe("invalid_input");
  });
  it("validates policy rules passed to diffJson and applyPolicy: invalid_policy_rules with the rule index", () => {
    const rules = { rules: [{ path: "$.a", action: "ignore" }, { path: "$[", severity: "high" }] } as never;
    expect(() => core.diffJson({ a: 1 }, { a: 2 }, { policy: rules })).toThrow(
      expect.objectContaining({ code: "invalid_policy_rules", details: [expect.objectContaining({ path: "rules[1].path" })] }) as Error,
    );
    expect(codeOf(() => core.applyPolicy([change], { rules: [{ path: "$.a", action: "set" }] } as never))).toBe("invalid_policy_rules");
    expect(codeOf(() => core.diffJson({ a: 1 }, { a: 2 }, { policy: "ignore everything" as never }))).toBe("invalid_policy_rules");
  });
  it("treats null options as no options", () => {
    expect(core.diffJson({ a: 1 }, { a: 2 }, null as never)?.changes).toHaveLength(1);
  });
  it("refuses path segments that are neither names nor indexes with invalid_path", () => {
    expect(codeOf(() => core.formatPath([Symbol("x")] as never))).toBe("invalid_path");
    expect(codeOf(() => core.formatPath([-1]))).toBe("invalid_path");
    expect(codeOf(() => core.toNormalizedPath({} as never))).toBe("invalid_path");
  });
});
