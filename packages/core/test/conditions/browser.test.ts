import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { SEVERITIES, type TrackedValueSpec } from "@driftwatch/schema";
import { describe, expect, it } from "vitest";
import { compileValidatedAlert, previewAlert as previewInBrowser, SEVERITY_ORDER } from "../../src/conditions/browser.js";
import { previewAlert, validateAlert, type CheckObservation } from "../../src/index.js";

const src = join(import.meta.dirname, "../../src");

/** The modules a file imports at run time (`import type` and `export type` left out), followed through relative imports. */
function runtimeGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, "utf8");
    const statements = text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^;]*?\sfrom\s+)?"([^"]+)";/gms);
    for (const [, typeOnly, specifier] of statements) {
      if (typeOnly !== undefined) continue;
      if (specifier!.startsWith(".")) visit(join(dirname(file), specifier!.replace(/\.js$/, ".ts")));
      else packages.add(specifier!);
    }
  };
  visit(entry);
  return { files: [...files].map((file) => relative(src, file)).sort(), packages: [...packages].sort() };
}

describe("@driftwatch/core/conditions (the browser entry)", () => {
  it("imports no Node module, no zod and no re2js at run time: only the evaluator", () => {
    expect(runtimeGraph(join(src, "conditions/browser.ts"))).toEqual({ files: ["conditions/browser.ts", "conditions/evaluate.ts"], packages: [] });
    // The scan sees runtime imports: the main entry's validation has them.
    expect(runtimeGraph(join(src, "conditions/validate.ts")).packages).toEqual(expect.arrayContaining(["@driftwatch/schema", "re2js"]));
  });

  it("keeps the severity order of @driftwatch/schema", () => {
    expect(SEVERITY_ORDER).toEqual(SEVERITIES);
  });

  it("evaluates an alert validated elsewhere as validateAlert's does, with the pattern compiler it is given", () => {
    const track: TrackedValueSpec[] = [{ name: "status", path: "$.status" }, { name: "price", extract: "price" }];
    const alert = {
      when: "any" as const,
      conditions: [
        { value: "status", op: "matches" as const, to: "^degr", forChecks: 2 },
        { value: "price", op: "dropped_by_percent" as const, to: 10 },
      ],
    };
    const history: CheckObservation[] = [
      { values: { status: "degraded", price: { amount: 100, currency: "EUR" } } },
      { values: { status: "degraded", price: { amount: 95, currency: "EUR" } } },
      { values: { status: "fine", price: { status: "missing", reason: "the page shows no price" } } },
      { values: { status: "fine", price: { amount: 80, currency: "EUR" } } },
    ];
    const regex = (pattern: string) => {
      const compiled = new RegExp(pattern, "u");
      return { matcher: (input: string) => ({ find: () => compiled.test(input) }) };
    };
    const inBrowser = previewInBrowser(compileValidatedAlert(alert, regex), history);
    expect(inBrowser).toEqual(previewAlert(validateAlert(alert, track), history));
    expect(inBrowser.map((entry) => entry.alerted)).toEqual([false, true, false, false]);
    // A pattern that does not compile makes its condition false, with the reason.
    const broken = previewInBrowser(compileValidatedAlert({ conditions: [{ value: "status", op: "matches", to: "(" }] }, () => undefined), history);
    expect(broken[0]!.results[0]).toMatchObject({ matched: false, reason: expect.stringContaining("pattern") });
  });
});
