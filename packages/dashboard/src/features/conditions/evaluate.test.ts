// The preview's `matches`: a JavaScript RegExp that reads RE2's leading flag group as the service does.
import { describe, expect, it } from "vitest";
import { compileRegExp, mayBacktrack, previewAlert, type PastCheck } from "./evaluate";

const find = (pattern: string, input: string): boolean | undefined => compileRegExp(pattern)?.matcher(input).find();

describe("matches in the preview", () => {
  it("reads RE2's (?i), (?s) and (?m) as RegExp flags", () => {
    expect(find("(?i)registration (is )?open", "Registration is OPEN")).toBe(true);
    expect(find("registration (is )?open", "Registration is OPEN")).toBe(false);
    expect(find("(?s)a.b", "a\nb")).toBe(true);
    expect(find("a.b", "a\nb")).toBe(false);
    expect(find("(?im)^open$", "closed\nOPEN")).toBe(true);
  });

  it("makes a pattern that does not compile false, with the reason", () => {
    expect(compileRegExp("(")).toBeUndefined();
    const checks: PastCheck[] = [{ at: "2026-11-28T09:00:00.000Z", snapshotId: null, values: { title: "Registration is open" } }];
    const [entry] = previewAlert({ when: "all", conditions: [{ value: "title", op: "matches", to: "(" }] }, checks);
    expect(entry!.results[0]).toEqual({ index: 0, matched: false, reason: 'the pattern "(" is not valid (or the alert was not validated)' });
    const [open] = previewAlert({ when: "all", conditions: [{ value: "title", op: "matches", to: "(?i)REGISTRATION" }] }, checks);
    expect(open!.matched).toBe(true);
  });

  it("refuses patterns that could backtrack for exponential time in JavaScript, and only those", () => {
    for (const pattern of ["^(a+)+$", "(\\w+\\s?)*$", "(a|ab)*c", "((ab)*)+", "(x+x+){2,}y", "(?i)(\\d+,?)+€"]) expect(mayBacktrack(pattern), pattern).toBe(true);
    for (const pattern of ["(?i)registration (is )?open", "^(ab)+$", "(a|b)?c", "[(a+)+]", "\\(a+\\)+", "a+b*", "(\\d{3}){2,5}", "(?:foo|bar)baz"]) expect(mayBacktrack(pattern), pattern).toBe(false);
    // refused, it is false in the preview with the reason, and the page does not hang
    const checks: PastCheck[] = [{ at: "2026-11-28T09:00:00.000Z", snapshotId: null, values: { title: `${"a".repeat(40)}!` } }];
    const [entry] = previewAlert({ when: "all", conditions: [{ value: "title", op: "matches", to: "^(a+)+$" }] }, checks);
    expect(entry!.results[0]!.matched).toBe(false);
    expect(entry!.results[0]!.reason).toMatch(/not valid/);
  });
});
