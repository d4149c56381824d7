// Website noise (issue 11, point 2): volatile selectors and the built-in normalisations of
// diffHtml, each shown hiding noise, and each shown NOT hiding a real change or when switched off.
import { describe, expect, it } from "vitest";
import { diffHtml, explainDiffHtml, htmlTextBlocks, isDriftwatchError } from "../src/index.js";

function page(body: string): string {
  return `<!doctype html><html><head><title>Shop</title></head><body>${body}</body></html>`;
}

function ops(html1: string, html2: string, options = {}): string[] {
  return (diffHtml(html1, html2, options)?.changes ?? []).map((c) => `${c.op} ${c.path} ${JSON.stringify(c.before ?? null)} ${JSON.stringify(c.after ?? null)}`);
}

describe("volatile selectors", () => {
  const policy = { volatile: [{ selector: ".promo" }, { selector: "time" }] };

  it("hide text changes inside the matched elements", () => {
    const before = page(`<div class="promo"><p>Spring sale: 10 % off</p></div><p>Kettle 25 EUR</p>`);
    const after = page(`<div class="promo"><p>Free shipping this week</p></div><p>Kettle 25 EUR</p>`);
    expect(diffHtml(before, after, { policy })).toBeNull();
    expect(ops(before, after)).toHaveLength(1);
  });

  it("hide inline volatile text while the rest of the block still counts", () => {
    const before = page(`<p>Updated <time>06:00</time> by Ana</p>`);
    const same = page(`<p>Updated <time>06:05</time> by Ana</p>`);
    const edited = page(`<p>Updated <time>06:05</time> by Ben</p>`);
    expect(diffHtml(before, same, { policy })).toBeNull();
    expect(ops(before, edited, { policy })).toEqual([`replace body > p:nth-of-type(1) "Updated 06:00 by Ana" "Updated 06:05 by Ben"`]);
  });

  it("still report a volatile element that appears or disappears", () => {
    const before = page(`<p>Kettle 25 EUR</p>`);
    const after = page(`<div class="promo"><p>Spring sale</p></div><p>Kettle 25 EUR</p>`);
    expect(ops(before, after, { policy })).toEqual([`add body > div:nth-of-type(1) > p:nth-of-type(1) null "Spring sale"`]);
    expect(ops(after, before, { policy })).toEqual([`remove body > div:nth-of-type(1) > p:nth-of-type(1) "Spring sale" null`]);
    // An inline volatile element that disappears changes its block.
    expect(diffHtml(page(`<p>Updated <time>06:00</time></p>`), page(`<p>Updated</p>`), { policy })).not.toBeNull();
  });

  it("refuse an invalid volatile selector, naming the entry", () => {
    try {
      diffHtml(page(""), page(""), { policy: { volatile: [{ selector: "p[[" }] } });
      expect.unreachable();
    } catch (error) {
      expect(isDriftwatchError(error) && error.code).toBe("invalid_policy_rules");
      expect((error as { details: { path: string }[] }).details[0]!.path).toBe("volatile[0].selector");
    }
  });
});

describe("relative times", () => {
  const cases: Array<[string, string]> = [
    ["Posted 3 minutes ago", "Posted 7 minutes ago"],
    ["Posted just now", "Posted an hour ago"],
    ["Updated 5m ago", "Updated 12m ago"],
    ["Comment from yesterday", "Comment from 2 days ago"],
    ["Aktualisiert vor 3 Minuten", "Aktualisiert vor einer Stunde"],
    ["Beitrag von gestern", "Beitrag von vorgestern"],
    ["Gerade eben gepostet", "vor 2 Tagen gepostet"],
    ["Publié il y a 2 heures", "Publié il y a 3 heures"],
  ];
  it.each(cases)("%s -> %s is no change by default", (a, b) => {
    expect(diffHtml(page(`<p>${a}</p>`), page(`<p>${b}</p>`))).toBeNull();
  });
  it("show the change when switched off", () => {
    expect(ops(page("<p>Posted 3 minutes ago</p>"), page("<p>Posted 7 minutes ago</p>"), { policy: { normalize: { relativeTimes: false } } })).toHaveLength(1);
  });
  it("never hide the words around them", () => {
    expect(ops(page("<p>Price 25 EUR, posted 3 minutes ago</p>"), page("<p>Price 27 EUR, posted 4 minutes ago</p>"))).toHaveLength(1);
    // "hier" is German for "here": not a relative time.
    expect(ops(page("<p>Klicken Sie hier</p>"), page("<p>Klicken Sie dort</p>"))).toHaveLength(1);
  });
});

describe("tokens and nonces", () => {
  it("never change a diff from attributes: hidden inputs, nonce attributes and csrf meta tags are not page text", () => {
    const form = (token: string): string =>
      `<!doctype html><html><head><meta name="csrf-token" content="${token}"><script nonce="${token}">var a=1</script></head>` +
      `<body><form><input type="hidden" name="_token" value="${token}"><input type="hidden" name="authenticity_token" value="${token}">` +
      `<input name="csrf_test" value="${token}"><p>Sign in</p></form></body></html>`;
    for (const normalize of [{}, { csrfTokens: false }]) expect(diffHtml(form("a1b2c3d4e5f6"), form("z9y8x7w6v5u4"), { policy: { normalize } })).toBeNull();
  });
  it("hide tokens a page shows as text next to their name, unless switched off", () => {
    const before = page("<pre>csrf_token: 8f2b9c1d7e6a5f40</pre><pre>authenticity_token=Qm9vb2JzZWNyZXQx</pre>");
    const after = page("<pre>csrf_token: 11aa22bb33cc44dd</pre><pre>authenticity_token=U2Vjb25kU2VjcmV0</pre>");
    expect(diffHtml(before, after)).toBeNull();
    expect(ops(before, after, { policy: { normalize: { csrfTokens: false } } })).toHaveLength(2);
    // A short value next to the name is no token.
    expect(ops(page("<p>nonce: abc</p>"), page("<p>nonce: abd</p>"))).toHaveLength(1);
  });
});

describe("cache-busting queries", () => {
  it("hide ?v=, ?_= and timestamp queries on asset URLs shown as text, unless switched off", () => {
    const before = page("<pre>/static/app.js?v=123 /static/site.css?1699999999 /img/logo.png?_=17</pre>");
    const after = page("<pre>/static/app.js?v=124 /static/site.css?1700000042 /img/logo.png?_=18</pre>");
    expect(diffHtml(before, after)).toBeNull();
    expect(ops(before, after, { policy: { normalize: { cacheBusters: false } } })).toHaveLength(1);
  });
  it("do not touch hashed file names or other queries", () => {
    expect(ops(page("<pre>/static/app.3f9a1c.js</pre>"), page("<pre>/static/app.77b0e2.js</pre>"))).toHaveLength(1);
    expect(ops(page("<pre>/api/items?page=1</pre>"), page("<pre>/api/items?page=2</pre>"))).toHaveLength(1);
    expect(ops(page("<pre>/app.js?v=1 build 7</pre>"), page("<pre>/app.js?v=2 build 8</pre>"))).toHaveLength(1);
  });
  it("do not touch attributes at all (asset URLs in src and href are not page text)", () => {
    expect(diffHtml(page(`<script src="/app.js?v=1"></script><p>x</p>`), page(`<script src="/app.js?v=2"></script><p>x</p>`), { policy: { normalize: { cacheBusters: false } } })).toBeNull();
  });
});

describe("lists whose items only changed places", () => {
  const stories = ["Council approves the new tram line", "Storm closes the coast road", "Local team wins the cup final", "Library opens on Sundays"];
  const list = (items: readonly string[], after = "") =>
    page(`<h1>News</h1><p>Intro</p><ol class="most-read">${items.map((s) => `<li><a href="/s">${s}</a><span> · 3 minutes ago</span></li>`).join("")}</ol>${after}`);
  const reordered = [stories[2]!, stories[0]!, stories[3]!, stories[1]!];
  it("are no change: the items are compared as a set (the moves explained as normalize.listOrder), unless switched off", () => {
    expect(diffHtml(list(stories), list(reordered))).toBeNull();
    // an item whose relative time ticked while it moved is still the same item
    expect(diffHtml(list(stories), list(reordered).replace("3 minutes ago", "5 minutes ago"))).toBeNull();
    const { diff, explanations } = explainDiffHtml(list(stories), list(reordered));
    expect(diff).toBeNull();
    expect(explanations.length).toBeGreaterThan(0);
    expect(explanations.every((e) => e.outcome === "unordered" && e.rule === "normalize.listOrder" && e.path.includes("ol:nth-of-type(1) > li:nth-of-type("))).toBe(true);
    expect(ops(list(stories), list(reordered), { policy: { normalize: { listOrder: false } } }).length).toBeGreaterThan(0);
  });
  it("still report an item added, removed or edited, alone, with its rule's severity", () => {
    expect(ops(list(stories), list([reordered[0]!, "A new story about the harbour", ...reordered.slice(1)]))).toEqual([
      `add body > ol:nth-of-type(1) > li:nth-of-type(2) null "A new story about the harbour · 3 minutes ago"`,
    ]);
    expect(ops(list(stories), list(reordered.filter((s) => s !== stories[1])))).toEqual([
      `remove body > ol:nth-of-type(1) > li:nth-of-type(2) "${stories[1]} · 3 minutes ago" null`,
    ]);
    const edited = reordered.map((s) => (s === stories[3] ? "Library opens on Sundays from May" : s));
    const diff = diffHtml(list(stories), list(edited), { policy: { rules: [{ selector: "ol > li", op: "replace", severity: "medium" }] } });
    expect(diff!.changes.map((c) => [c.op, c.before, c.after, c.severity])).toEqual([
      ["replace", `${stories[3]} · 3 minutes ago`, "Library opens on Sundays from May · 3 minutes ago", "medium"],
    ]);
    // a change elsewhere on the page is reported as usual next to the reorder
    expect(ops(list(stories), list(reordered, "<p>Corrected</p>"))).toEqual([`add body > p:nth-of-type(2) null "Corrected"`]);
  });
  it("identify an item by all the text inside it: values swapped between table rows, or a definition list's terms and definitions, are changes", () => {
    const table = (rows: readonly (readonly [string, string])[]) => page(`<table><tbody>${rows.map(([a, b]) => `<tr><td>${a}</td><td>${b}</td></tr>`).join("")}</tbody></table>`);
    expect(diffHtml(table([["API", "Operational"], ["Web", "Degraded"], ["CDN", "Operational"]]), table([["Web", "Degraded"], ["CDN", "Operational"], ["API", "Operational"]]))).toBeNull();
    // reported exactly as with the list order compared
    const off = { policy: { normalize: { listOrder: false } } };
    const [statusBefore, statusAfter] = [table([["API", "Operational"], ["Web", "Degraded"]]), table([["API", "Degraded"], ["Web", "Operational"]])];
    expect(ops(statusBefore, statusAfter).length).toBeGreaterThan(0);
    expect(ops(statusBefore, statusAfter)).toEqual(ops(statusBefore, statusAfter, off));
    const dl = (a: string, b: string) => page(`<dl><dt>Basic</dt><dd>${a}</dd><dt>Pro</dt><dd>${b}</dd></dl>`);
    expect(ops(dl("$10", "$20"), dl("$20", "$10")).length).toBeGreaterThan(0);
    expect(ops(dl("$10", "$20"), dl("$20", "$10"))).toEqual(ops(dl("$10", "$20"), dl("$20", "$10"), off));
    // sibling paragraphs are not list items: their order is compared
    expect(diffHtml(page("<p>First step here</p><p>Second step here</p><p>Third step here</p>"), page("<p>Second step here</p><p>First step here</p><p>Third step here</p>"))).not.toBeNull();
  });
});

describe("normalisation stays linear", () => {
  it("handles adversarial text of 200 KB without super-linear backtracking", () => {
    const hostile = [
      "csrf-".repeat(40_000),
      `${"1 ".repeat(50_000)}`,
      `.js?v=${"a".repeat(100_000)}`,
      `vor ${"3 ".repeat(50_000)}`,
      "nonce=".repeat(30_000),
    ];
    for (const text of hostile) {
      const diff = diffHtml(page(`<p>${text}</p>`), page(`<p>${text}!</p>`));
      expect(diff?.changes).toHaveLength(1);
    }
  });
});

describe("explanations of website diffs", () => {
  it("name the volatile selector or normalisation that hid a change, and rate what survived", () => {
    const before = page(`<div class="promo"><p>Sale</p></div><p>Posted 3 minutes ago</p><p>Kettle 25 EUR</p>`);
    const after = page(`<div class="promo"><p>New sale</p></div><p>Posted 9 minutes ago</p><p>Kettle 27 EUR</p>`);
    const { diff, explanations } = explainDiffHtml(before, after, { policy: { volatile: [{ selector: ".promo" }], rules: [{ selector: "body > p", severity: "medium" }] } });
    expect(diff!.changes).toHaveLength(1);
    expect(explanations).toEqual([
      expect.objectContaining({ path: "body > div:nth-of-type(1) > p:nth-of-type(1)", outcome: "volatile", rule: "volatile[0]" }),
      expect.objectContaining({ path: "body > p:nth-of-type(1)", outcome: "volatile", rule: "normalize.relativeTimes" }),
      expect.objectContaining({ path: "body > p:nth-of-type(2)", outcome: "rated", rule: "rules[0]", severity: "medium" }),
    ]);
  });
  it("are attached by diffHtml with explain: true, and returned by explainDiffHtml when nothing survived", () => {
    expect(diffHtml(page("<p>a</p>"), page("<p>b</p>"), { explain: true })!.explanations).toEqual([
      expect.objectContaining({ outcome: "rated", severity: "info" }),
    ]);
    expect(diffHtml(page("<p>a</p>"), page("<p>b</p>"))).not.toHaveProperty("explanations");
    const { diff, explanations } = explainDiffHtml(page("<p>a</p>"), page("<p>b</p>"), { policy: { rules: [{ selector: "p", action: "ignore", op: "replace" }] } });
    expect(diff).toBeNull();
    expect(explanations).toEqual([expect.objectContaining({ outcome: "ignored", rule: "rules[0]" })]);
  });
});

describe("htmlTextBlocks", () => {
  it("shows the page's own text, not the normalised keys", () => {
    expect(htmlTextBlocks(page("<p>Posted 3 minutes ago</p>"), { policy: { volatile: [{ selector: "p" }] } })).toContainEqual(
      expect.objectContaining({ text: "Posted 3 minutes ago" }),
    );
  });
});
