import { describe, expect, it } from "vitest";
import { DEFAULT_HTML_MAX_DEPTH, diffHtml, htmlTextBlocks, isDriftwatchError } from "../src/index.js";

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isDriftwatchError(error) ? error.code : `not a DriftwatchError: ${String(error)}`;
  }
  return undefined;
}

function nested(depth: number, text = "x"): string {
  let open = "";
  for (let i = 0; i < depth; i++) open += `<div>${text}${String(i)}`;
  return `<!doctype html><html><body>${open}${"</div>".repeat(depth)}</body></html>`;
}

describe("diffHtml limits (hostile pages)", () => {
  it("refuses a page nested past maxDepth with too_deep, before the parser's per-tag stack scans add up", () => {
    // 110,000 nested divs (1.3 MB): parse5 alone needs minutes for this (its open-element scans are
    // quadratic in the depth); the depth bound stops the parse at the first element too deep.
    const deep = `<!doctype html><html><body>${"<div>x".repeat(110_000)}${"</div>".repeat(110_000)}</body></html>`;
    expect(deep.length).toBeGreaterThan(1_300_000);
    expect(codeOf(() => diffHtml(deep, deep.replace("x", "y")))).toBe("too_deep");
    expect(codeOf(() => htmlTextBlocks(deep))).toBe("too_deep");
  });

  it("accepts nesting up to maxDepth and compares it as before", () => {
    // html and body take two levels.
    const limit = nested(DEFAULT_HTML_MAX_DEPTH - 2, "a");
    const result = diffHtml(limit, limit.replace("<div>a0", "<div>b0"));
    expect(result?.summary).toEqual({ additions: 0, removals: 0, modifications: 1 });
    expect(codeOf(() => diffHtml(nested(DEFAULT_HTML_MAX_DEPTH - 1), "<p>x</p>"))).toBe("too_deep");
    expect(codeOf(() => diffHtml(nested(50), nested(50), { maxDepth: 40 }))).toBe("too_deep");
    expect(diffHtml(nested(50), nested(50, "y"), { maxDepth: 60 })?.summary.modifications).toBe(50);
  });

  it("a long page of moderate depth is accepted (the bound is on depth, not size)", () => {
    const chunk = nested(200).replace(/^.*<body>|<\/body>.*$/g, "");
    const wide = `<!doctype html><html><body>${chunk.repeat(200)}<p>end</p></body></html>`;
    expect(wide.length).toBeGreaterThan(400_000);
    const result = diffHtml(wide, wide.replace("<p>end", "<p>fin"));
    expect(result?.changes).toEqual([expect.objectContaining({ op: "replace", before: "end", after: "fin" })]);
  });

  it("refuses selector matching over the work bound with rule_budget_exceeded", () => {
    const rules = Array.from({ length: 420 }, (_, i) => ({
      selector: Array.from({ length: 150 }, (_, j) => `.r${String(i)}c${String(j)}`).join(",").slice(0, 1000).replace(/,[^,]*$/, ""),
      action: "ignore" as const,
    }));
    const total = rules.reduce((sum, rule) => sum + rule.selector.length, 0);
    expect(total).toBeGreaterThan(400_000);
    const body = `<!doctype html><html><body>${"<p>x</p>".repeat(2000)}</body></html>`;
    expect(codeOf(() => diffHtml(body, body.replace("x", "y"), { policy: { rules } }))).toBe("rule_budget_exceeded");
    // The same rules on a small page are within the bound.
    expect(diffHtml("<p>a</p>", "<p>b</p>", { policy: { rules } })?.summary.modifications).toBe(1);
    expect(codeOf(() => diffHtml("<p>a</p>", "<p>b</p>", { policy: { rules }, maxSelectorWork: 1000 }))).toBe("rule_budget_exceeded");
  });

  it("counts volatile selectors in the selector work too", () => {
    const volatile = Array.from({ length: 300 }, (_, i) => ({ selector: Array.from({ length: 100 }, (_, j) => `.v${String(i)}c${String(j)}`).join(",").slice(0, 1000).replace(/,[^,]*$/, "") }));
    const body = `<!doctype html><html><body>${"<p>x</p>".repeat(2000)}</body></html>`;
    expect(codeOf(() => diffHtml(body, body.replace("x", "y"), { policy: { rules: [], volatile } }))).toBe("rule_budget_exceeded");
  });

  it("rejects invalid limits with invalid_input", () => {
    expect(codeOf(() => diffHtml("<p>a</p>", "<p>b</p>", { maxDepth: 0 }))).toBe("invalid_input");
    expect(codeOf(() => diffHtml("<p>a</p>", "<p>b</p>", { maxSelectorWork: 1.5 }))).toBe("invalid_input");
  });
});
