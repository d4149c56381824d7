import type { AlertInput, TrackedValueSpec } from "@driftwatch/schema";
import { describe, expect, it } from "vitest";
import { evaluateAlert, evaluateFailedCheck, isDriftwatchError, previewAlert, validateAlert, type AlertState, type CheckObservation } from "../../src/index.js";

const TRACK: TrackedValueSpec[] = [
  { name: "price", extract: "price" },
  { name: "stock", extract: "availability" },
  { name: "errors", path: "$.errorRate", extract: "number" },
  { name: "status", path: "$.status" },
  { name: "title", selector: "h1" },
];

function problems(alert: unknown, track: TrackedValueSpec[] = TRACK): { path: string; message: string }[] {
  try {
    validateAlert(alert, track);
    return [];
  } catch (error) {
    if (!isDriftwatchError(error)) throw error;
    expect(error.code).toBe("invalid_conditions");
    return error.details;
  }
}

function paths(alert: unknown): string[] {
  return problems(alert).map((p) => p.path);
}

/** Evaluates one condition on a sequence of checks; returns each check's result. */
function run(alert: AlertInput, checks: CheckObservation[]): { matched: boolean; reason: string }[] {
  const compiled = validateAlert(alert, TRACK);
  let state: AlertState | null = null;
  return checks.map((check) => {
    const evaluation = evaluateAlert(compiled, check, state);
    state = evaluation.state;
    return { matched: evaluation.matched, reason: evaluation.results.map((r) => r.reason).join(" | ") };
  });
}

const price = (amount: number, currency: string | null = "EUR"): CheckObservation => ({ values: { price: { amount, currency } } });

describe("validateAlert: errors name their place", () => {
  it("accepts the common wishes", () => {
    expect(paths({ conditions: [{ value: "price", op: "lt", to: 200 }] })).toEqual([]);
    expect(paths({ conditions: [{ value: "stock", op: "changed_to", to: "in_stock" }] })).toEqual([]);
    expect(paths({ conditions: [{ value: "status", op: "ne", to: "operational", forChecks: 2 }] })).toEqual([]);
    expect(paths({ when: "any", conditions: [{ value: "errors", op: "gt", to: 2 }, { value: "diff.topSeverity", op: "gte", to: "high" }] })).toEqual([]);
    expect(paths({ conditions: [{ value: "text", op: "matches", to: "(?i)back in stock" }] })).toEqual([]);
  });

  it("refuses bad shapes, unknown values, operands that do not fit the op", () => {
    expect(paths(null)).toEqual(["alert"]);
    expect(paths({ conditions: [] })).toEqual(["alert.conditions"]);
    expect(paths({ when: "most", conditions: [{ value: "price", op: "lt", to: 1 }] })).toEqual(["alert.when"]);
    expect(paths({ conditions: [{ value: "price", op: "below", to: 1 }] })).toEqual(["alert.conditions[0].op"]);
    expect(paths({ conditions: [{ value: "price", op: "lt", to: 1, extra: true }] })).toEqual(["alert.conditions[0]"]);
    expect(paths({ conditions: [{ value: "price", op: "lt", to: 1, forChecks: 0 }] })).toEqual(["alert.conditions[0].forChecks"]);
    const unknown = problems({ conditions: [{ value: "price", op: "lt", to: 1 }, { value: "cost", op: "lt", to: 1 }] });
    expect(unknown).toEqual([{ path: "alert.conditions[1].value", message: expect.stringContaining('"cost" is not a tracked value') }]);
    expect(paths({ conditions: [{ value: "price", op: "lt", to: "cheap" }] })).toEqual(["alert.conditions[0].to"]);
    expect(paths({ conditions: [{ value: "price", op: "lt" }] })).toEqual(["alert.conditions[0].to"]);
    expect(paths({ conditions: [{ value: "price", op: "changed", to: 3 }] })).toEqual(["alert.conditions[0].to"]);
    expect(paths({ conditions: [{ value: "stock", op: "eq", to: "available" }] })).toEqual(["alert.conditions[0].to"]);
    expect(paths({ conditions: [{ value: "stock", op: "gt", to: 1 }] })).toEqual(["alert.conditions[0].op"]);
    expect(paths({ conditions: [{ value: "title", op: "dropped_by_percent", to: 10 }] })).toEqual(["alert.conditions[0].op"]);
    expect(paths({ conditions: [{ value: "price", op: "dropped_by_percent", to: 0 }] })).toEqual(["alert.conditions[0].to"]);
    expect(paths({ conditions: [{ value: "price", op: "contains", to: "1" }] })).toEqual(["alert.conditions[0].op"]);
    expect(paths({ conditions: [{ value: "title", op: "contains", to: "" }] })).toEqual(["alert.conditions[0].to"]);
    expect(paths({ conditions: [{ value: "diff.topSeverity", op: "gte", to: "severe" }] })).toEqual(["alert.conditions[0].to"]);
    expect(paths({ conditions: [{ value: "errors", op: "gt", to: Number.NaN }] })).toEqual(["alert.conditions[0].to"]);
  });

  it("refuses patterns that do not compile or are too long, and compiles catastrophic ones to linear-time matchers", () => {
    expect(paths({ conditions: [{ value: "text", op: "matches", to: "(unclosed" }] })).toEqual(["alert.conditions[0].to"]);
    expect(paths({ conditions: [{ value: "text", op: "matches", to: "a".repeat(257) }] })).toEqual(["alert.conditions[0].to"]);
    // Backreferences and lookarounds are not RE2: refused, with the reason.
    expect(problems({ conditions: [{ value: "text", op: "matches", to: "(a)\\1" }] })[0]?.message).toContain("RE2");
    // Nested counted repetitions that would make a huge program are refused by RE2's limits.
    expect(problems({ conditions: [{ value: "text", op: "matches", to: "(a{1000}){1000}" }] })[0]?.message).toContain("invalid repeat count");
    // A pattern that backtracks exponentially in JavaScript runs in linear time on re2js.
    const [result] = run({ conditions: [{ value: "text", op: "matches", to: "^(a+)+$" }] }, [{ text: `${"a".repeat(50_000)}!` }]);
    expect(result).toEqual({ matched: false, reason: 'text does not match "^(a+)+$"' });
  });

  it("reports every problem at once", () => {
    expect(
      paths({
        conditions: [
          { value: "nope", op: "lt", to: 1 },
          { value: "price", op: "lt", to: 1 },
          { value: "text", op: "matches", to: "[" },
        ],
      }),
    ).toEqual(["alert.conditions[0].value", "alert.conditions[2].to"]);
  });
});

describe("evaluateAlert: every operator", () => {
  it("lt, lte, gt, gte compare numbers and a price's amount", () => {
    expect(run({ conditions: [{ value: "price", op: "lt", to: 200 }] }, [price(199.99), price(200)]).map((r) => r.matched)).toEqual([true, false]);
    expect(run({ conditions: [{ value: "price", op: "lte", to: 200 }] }, [price(200)])[0]).toEqual({ matched: true, reason: "price is 200 EUR, at most 200" });
    expect(run({ conditions: [{ value: "errors", op: "gt", to: 2 }] }, [{ values: { errors: 2.5 } }, { values: { errors: 2 } }]).map((r) => r.matched)).toEqual([true, false]);
    expect(run({ conditions: [{ value: "errors", op: "gte", to: 2 }] }, [{ values: { errors: 2 } }])[0]!.matched).toBe(true);
  });

  it("compares diff.topSeverity by severity order; no diff is missing", () => {
    const alert: AlertInput = { conditions: [{ value: "diff.topSeverity", op: "gte", to: "high" }] };
    expect(run(alert, [{ topSeverity: "critical" }, { topSeverity: "medium" }, { topSeverity: null }])).toEqual([
      { matched: true, reason: "diff.topSeverity is \"critical\", at least high" },
      { matched: false, reason: "diff.topSeverity is \"medium\", not at least high" },
      { matched: false, reason: "the check found no change, so there is no diff severity" },
    ]);
    expect(run({ conditions: [{ value: "diff.topSeverity", op: "eq", to: "info" }] }, [{ topSeverity: "info" }])[0]!.matched).toBe(true);
  });

  it("eq and ne compare texts, availabilities, numbers (a price by amount) and booleans", () => {
    expect(run({ conditions: [{ value: "status", op: "ne", to: "operational" }] }, [{ values: { status: "degraded" } }, { values: { status: "operational" } }]).map((r) => r.matched)).toEqual([true, false]);
    expect(run({ conditions: [{ value: "stock", op: "eq", to: "in_stock" }] }, [{ values: { stock: "in_stock" } }])[0]!.matched).toBe(true);
    expect(run({ conditions: [{ value: "price", op: "eq", to: 0.3 }] }, [price(0.1 + 0.2)])[0]!.matched).toBe(true);
    expect(run({ conditions: [{ value: "status", op: "eq", to: true }] }, [{ values: { status: true } }])[0]!.matched).toBe(true);
  });

  it("contains and matches read texts", () => {
    expect(run({ conditions: [{ value: "title", op: "contains", to: "Sale" }] }, [{ values: { title: "Winter Sale now" } }, { values: { title: "winter sale" } }]).map((r) => r.matched)).toEqual([true, false]);
    expect(run({ conditions: [{ value: "text", op: "matches", to: "(?i)back\\s+in\\s+stock" }] }, [{ text: "Good news: BACK in stock" }, { text: "Sold out" }]).map((r) => r.matched)).toEqual([true, false]);
  });

  it("changed and changed_to compare with the previous check; the first check has nothing to compare with", () => {
    const changed = run({ conditions: [{ value: "status", op: "changed" }] }, [{ values: { status: "a" } }, { values: { status: "a" } }, { values: { status: "b" } }]);
    expect(changed).toEqual([
      { matched: false, reason: "first check: no previous value of status to compare with" },
      { matched: false, reason: 'status is unchanged ("a")' },
      { matched: true, reason: 'status changed from "a" to "b"' },
    ]);
    const restock = run({ conditions: [{ value: "stock", op: "changed_to", to: "in_stock" }] }, [
      { values: { stock: "out_of_stock" } },
      { values: { stock: "in_stock" } },
      { values: { stock: "in_stock" } },
      { values: { stock: null } },
      { values: { stock: "in_stock" } },
    ]);
    expect(restock.map((r) => r.matched)).toEqual([false, true, false, false, true]);
    expect(restock[1]!.reason).toBe('stock changed to "in_stock" (was "out_of_stock")');
    expect(restock[4]!.reason).toBe('stock changed to "in_stock" (was missing)');
    // A price that changes currency has changed.
    expect(run({ conditions: [{ value: "price", op: "changed" }] }, [price(10, "EUR"), price(10, "CHF")])[1]!.matched).toBe(true);
  });

  it("dropped_by_percent and rose_by_percent", () => {
    const drop = run({ conditions: [{ value: "price", op: "dropped_by_percent", to: 10 }] }, [price(200), price(185), price(160), price(170)]);
    expect(drop.map((r) => r.matched)).toEqual([false, false, true, false]);
    expect(drop[2]!.reason).toBe("price dropped by 13.51 % (185 EUR to 160 EUR), at least 10 %");
    const rise = run({ conditions: [{ value: "errors", op: "rose_by_percent", to: 50 }] }, [{ values: { errors: 2 } }, { values: { errors: 3 } }]);
    expect(rise[1]).toEqual({ matched: true, reason: "errors rose by 50 % (2 to 3), at least 50 %" });
    expect(run({ conditions: [{ value: "price", op: "dropped_by_percent", to: 10 }] }, [price(200, "EUR"), price(100, "USD")])[1]!.reason).toContain("changed currency");
    expect(run({ conditions: [{ value: "errors", op: "rose_by_percent", to: 10 }] }, [{ values: { errors: 0 } }, { values: { errors: 5 } }])[1]!.matched).toBe(false);
  });

  it("appeared and disappeared", () => {
    const appeared = run({ conditions: [{ value: "price", op: "appeared" }] }, [{ values: {} }, price(5), price(6)]);
    expect(appeared.map((r) => r.matched)).toEqual([false, true, false]);
    const disappeared = run({ conditions: [{ value: "price", op: "disappeared" }] }, [price(5), { values: { price: { status: "missing", reason: "no price on the page" } } }, { values: {} }]);
    expect(disappeared).toEqual([
      { matched: false, reason: "first check: no previous value of price to compare with" },
      { matched: true, reason: "price disappeared (was 5 EUR)" },
      { matched: false, reason: "price was already missing" },
    ]);
  });
});

describe("evaluateAlert: missing values and type mismatches are false, with the reason", () => {
  it("a missing value", () => {
    expect(run({ conditions: [{ value: "price", op: "lt", to: 200 }] }, [{ values: {} }])[0]).toEqual({ matched: false, reason: "price is missing on this check" });
    expect(run({ conditions: [{ value: "price", op: "lt", to: 200 }] }, [{ values: { price: { status: "missing", reason: "the page shows no price" } } }])[0]).toEqual({
      matched: false,
      reason: "price is missing: the page shows no price",
    });
    expect(run({ conditions: [{ value: "text", op: "contains", to: "x" }] }, [{}])[0]!.reason).toBe("the check has no selected text");
    // ne on a missing value is false too: nothing is known about it.
    expect(run({ conditions: [{ value: "status", op: "ne", to: "operational" }] }, [{ values: { status: null } }])[0]!.matched).toBe(false);
  });

  it("a value of the wrong type", () => {
    expect(run({ conditions: [{ value: "status", op: "gt", to: 2 }] }, [{ values: { status: "degraded" } }])[0]).toEqual({
      matched: false,
      reason: 'status is a text ("degraded"), not a number',
    });
    expect(run({ conditions: [{ value: "status", op: "eq", to: "operational" }] }, [{ values: { status: 3 } }])[0]).toEqual({
      matched: false,
      reason: 'status is a number (3); it does not compare with "operational"',
    });
    expect(run({ conditions: [{ value: "status", op: "ne", to: "operational" }] }, [{ values: { status: 3 } }])[0]!.matched).toBe(false);
    expect(run({ conditions: [{ value: "status", op: "contains", to: "x" }] }, [{ values: { status: { amount: 1, currency: null } } }])[0]!.reason).toBe("status is a price, not a text");
    expect(run({ conditions: [{ value: "status", op: "dropped_by_percent", to: 5 }] }, [{ values: { status: "a" } }, { values: { status: "b" } }])[1]!.reason).toBe("status is a text, not a number or a price");
  });
});

describe("when, forChecks and state", () => {
  it("all needs every condition, any needs one", () => {
    const both = [{ value: "price", op: "lt", to: 200 } as const, { value: "stock", op: "eq", to: "in_stock" } as const];
    const check: CheckObservation = { values: { price: { amount: 150, currency: "EUR" }, stock: "out_of_stock" } };
    expect(run({ when: "all", conditions: both }, [check])[0]!.matched).toBe(false);
    expect(run({ when: "any", conditions: both }, [check])[0]!.matched).toBe(true);
    expect(run({ conditions: both }, [check])[0]!.matched).toBe(false);
  });

  it("forChecks rides out flaps: true only after N consecutive checks, reset by one miss", () => {
    const statuses = ["degraded", "operational", "degraded", "degraded", "degraded", "degraded", "operational", "degraded"];
    const results = run({ conditions: [{ value: "status", op: "ne", to: "operational", forChecks: 3 }] }, statuses.map((status) => ({ values: { status } })));
    expect(results.map((r) => r.matched)).toEqual([false, false, false, false, true, true, false, false]);
    expect(results[3]!.reason).toBe('status is "degraded", not equal to "operational"; held 2 of 3 consecutive checks');
    expect(results[4]!.reason).toBe('status is "degraded", not equal to "operational"; held 3 consecutive checks (3 needed)');
  });

  it("a failed check breaks a forChecks streak: flapping between values and failures never reaches N consecutive checks", () => {
    const compiled = validateAlert({ conditions: [{ value: "status", op: "ne", to: "operational", forChecks: 3 }] }, TRACK);
    // degraded, degraded, (failed), degraded, degraded, (failed), degraded, degraded, degraded
    const sequence: (string | null)[] = ["degraded", "degraded", null, "degraded", "degraded", null, "degraded", "degraded", "degraded"];
    let state: AlertState | null = null;
    const seen = sequence.map((status) => {
      const evaluation = status === null ? evaluateFailedCheck(compiled, "the target answered 503", state) : evaluateAlert(compiled, { values: { status } }, state);
      state = JSON.parse(JSON.stringify(evaluation.state)) as AlertState;
      return { matched: evaluation.matched, newly: evaluation.newlyMatched, reason: evaluation.results[0]!.reason, streak: evaluation.state.streaks[0] };
    });
    expect(seen.map((s) => s.matched)).toEqual([false, false, false, false, false, false, false, false, true]);
    expect(seen.map((s) => s.streak)).toEqual([1, 2, 0, 1, 2, 0, 1, 2, 3]);
    expect(seen[8]!.newly).toBe(true);
    expect(seen[2]!.reason).toBe("the check failed (the target answered 503), so status has no value; the streak of 2 consecutive checks starts again");
    expect(seen[4]!.reason).toBe('status is "degraded", not equal to "operational"; held 2 of 3 consecutive checks');
  });

  it("a failed check keeps the last values for changed and percentages, and does not alert twice for a transient failure", () => {
    const compiled = validateAlert({ conditions: [{ value: "price", op: "lt", to: 100 }] }, TRACK);
    const a = evaluateAlert(compiled, price(90));
    expect(a.newlyMatched).toBe(true);
    const failed = evaluateFailedCheck(compiled, "timeout", a.state);
    expect(failed).toMatchObject({ matched: false, newlyMatched: false, results: [{ index: 0, matched: false, reason: "the check failed (timeout), so price has no value" }] });
    // still under 100 after the failure: the same episode, no second alert
    const b = evaluateAlert(compiled, price(95), failed.state);
    expect(b).toMatchObject({ matched: true, newlyMatched: false });
    const drop = validateAlert({ conditions: [{ value: "price", op: "dropped_by_percent", to: 10 }] }, TRACK);
    const before = evaluateAlert(drop, price(100));
    const gap = evaluateFailedCheck(drop, "timeout", before.state);
    expect(evaluateAlert(drop, price(80), gap.state).results[0]!.reason).toBe("price dropped by 20 % (100 EUR to 80 EUR), at least 10 %");
    // a failure before any check, or with a state of other conditions, starts from nothing
    expect(evaluateFailedCheck(drop, "timeout").state).toEqual({ key: before.state.key, previous: null, streaks: [0], matched: false });
  });

  it("is pure: the same input and state give the same output, and the state is plain JSON", () => {
    const compiled = validateAlert({ conditions: [{ value: "price", op: "dropped_by_percent", to: 5, forChecks: 2 }] }, TRACK);
    const first = evaluateAlert(compiled, price(100));
    const state = JSON.parse(JSON.stringify(first.state)) as AlertState;
    const a = evaluateAlert(compiled, price(90), state);
    const b = evaluateAlert(compiled, price(90), state);
    expect(a).toEqual(b);
    expect(state).toEqual(JSON.parse(JSON.stringify(first.state)));
    expect(a.results[0]!.reason).toContain("held 1 of 2");
  });

  it("restarts streaks when the conditions change, keeping the previous values", () => {
    const one = validateAlert({ conditions: [{ value: "price", op: "lt", to: 100, forChecks: 2 }] }, TRACK);
    const other = validateAlert({ conditions: [{ value: "price", op: "lt", to: 120, forChecks: 2 }] }, TRACK);
    const s1 = evaluateAlert(one, price(90)).state;
    expect(evaluateAlert(one, price(90), s1).matched).toBe(true);
    expect(evaluateAlert(other, price(90), s1).matched).toBe(false);
  });

  it("newlyMatched is true only when the alert turns true", () => {
    const compiled = validateAlert({ conditions: [{ value: "price", op: "lt", to: 100 }] }, TRACK);
    let state: AlertState | null = null;
    const turned = [120, 90, 80, 130, 70].map((amount) => {
      const evaluation = evaluateAlert(compiled, price(amount), state);
      state = evaluation.state;
      return evaluation.newlyMatched;
    });
    expect(turned).toEqual([false, true, false, false, true]);
  });
});

describe("previewAlert", () => {
  it("says which past checks would have alerted", () => {
    const compiled = validateAlert({ conditions: [{ value: "stock", op: "eq", to: "in_stock", forChecks: 2 }] }, TRACK);
    const history = ["out_of_stock", "in_stock", "out_of_stock", "in_stock", "in_stock", "in_stock", "unknown", "in_stock", "in_stock"].map((stock, i) => ({
      at: `2026-11-0${(i % 9) + 1}T00:00:00.000Z`,
      values: { stock },
    }));
    const preview = previewAlert(compiled, history);
    expect(preview.map((entry) => entry.matched)).toEqual([false, false, false, false, true, true, false, false, true]);
    expect(preview.filter((entry) => entry.alerted).map((entry) => entry.index)).toEqual([4, 8]);
    expect(preview[4]!.at).toBe("2026-11-05T00:00:00.000Z");
    expect(previewAlert(compiled, [])).toEqual([]);
  });
});
