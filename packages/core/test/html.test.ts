import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { diffHtml, htmlTextBlocks, isDriftwatchError, type Change, type HtmlDiffResult } from "../src/index.js";

function page(body: string, head = "<title>Shop</title>"): string {
  return `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
}

/** `$(path)` selects exactly one element, in the new page (old page for removals), with the change's text. */
function expectResolvable(before: string, after: string, result: HtmlDiffResult, options: Parameters<typeof diffHtml>[2] = {}): void {
  const $old = load(before);
  const $new = load(after);
  const oldBlocks = htmlTextBlocks(before, options);
  const newBlocks = htmlTextBlocks(after, options);
  for (const change of result.changes) {
    const $ = change.op === "remove" ? $old : $new;
    const selected = $(change.path);
    expect(selected.length, `${change.path} in the ${change.op === "remove" ? "old" : "new"} page`).toBe(1);
    const own = (change.op === "remove" ? oldBlocks : newBlocks).find((block) => block.selector === change.path);
    expect(own?.text).toBe(change.op === "remove" ? change.before : change.after);
  }
  expect(result.changedTargets).toEqual([...new Set(result.changes.map((c) => c.path))]);
}

function codeOf(fn: () => unknown): { code: string; details: { path: string }[] } {
  try {
    fn();
  } catch (error) {
    expect(isDriftwatchError(error)).toBe(true);
    return error as { code: string; details: { path: string }[] };
  }
  throw new Error("expected an error");
}

function diffOrFail(before: string, after: string, options?: Parameters<typeof diffHtml>[2]): HtmlDiffResult {
  const result = diffHtml(before, after, options);
  if (result === null) throw new Error("expected a diff");
  expectResolvable(before, after, result, options);
  return result;
}

const shop = page(`
  <header><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav></header>
  <main id="main">
    <h1>Products</h1>
    <p class="price">Price: <b>$10</b></p>
    <ul><li>Apples</li><li>Bananas</li><li>Cherries</li></ul>
    <div class="ad">Buy now! Offer 17</div>
  </main>
  <footer><p>© 2026 Shop</p></footer>`);

describe("diffHtml: what counts as a change", () => {
  it("returns null for identical pages", () => {
    expect(diffHtml(shop, shop)).toBeNull();
    expect(diffHtml("", "")).toBeNull();
  });

  it("ignores whitespace noise: runs, NBSP, newlines, leading and trailing space, markup reformatting", () => {
    const noisy = shop
      .replace("<h1>Products</h1>", "<h1>\n   Products&nbsp;  </h1>")
      .replace("Price: <b>$10</b>", "Price:&nbsp;\t<b>$10</b>  ")
      .replace("<li>Apples</li>", "<li>   Apples\u200b</li>\n\n");
    expect(diffHtml(shop, noisy)).toBeNull();
  });

  it("ignores script, style, noscript, template and comments", () => {
    const decorated = shop
      .replace("<h1>", "<script>window.x = 1</script><style>h1{color:red}</style><!-- build 42 --><h1>")
      .replace("</main>", "<noscript>Enable JavaScript</noscript><template><p>Later</p></template></main>");
    const redecorated = decorated
      .replace("window.x = 1", "window.x = 2")
      .replace("color:red", "color:blue")
      .replace("build 42", "build 43")
      .replace("Enable JavaScript", "Please enable JavaScript")
      .replace("<p>Later</p>", "<p>Much later</p>");
    expect(diffHtml(shop, decorated)).toBeNull();
    expect(diffHtml(decorated, redecorated)).toBeNull();
  });

  it("ignores markup changes that keep the text (attributes, inline wrappers)", () => {
    const restyled = shop.replace('<p class="price">Price: <b>$10</b></p>', '<p class="price big" data-x="1">Price: <strong><em>$10</em></strong></p>');
    expect(diffHtml(shop, restyled)).toBeNull();
  });

  it("reports a text edit in place as one modification with before and after", () => {
    const after = shop.replace("$10", "$12");
    const result = diffOrFail(shop, after);
    expect(result).toMatchObject({
      classification: "content_change",
      summary: { additions: 0, removals: 0, modifications: 1 },
      changedTargets: ["#main > p:nth-of-type(1)"],
      topSeverity: "info",
    });
    expect(result.changes).toEqual<Change[]>([
      { path: "#main > p:nth-of-type(1)", category: "value", op: "replace", severity: "info", detail: "text changed in <p>", before: "Price: $10", after: "Price: $12" },
    ]);
    expect(result.diffFingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("reports an inserted block as an add, resolving in the new page", () => {
    const after = shop.replace("<li>Bananas</li>", "<li>Blueberries</li><li>Bananas</li>");
    const result = diffOrFail(shop, after);
    expect(result.summary).toEqual({ additions: 1, removals: 0, modifications: 0 });
    expect(result.changes).toEqual([
      expect.objectContaining({ op: "add", path: "#main > ul:nth-of-type(1) > li:nth-of-type(2)", after: "Blueberries" }),
    ]);
    expect(result.changes[0]).not.toHaveProperty("before");
  });

  it("reports a deleted block as a remove, resolving in the old page", () => {
    const after = shop.replace("<li>Cherries</li>", "");
    const result = diffOrFail(shop, after);
    expect(result.summary).toEqual({ additions: 0, removals: 1, modifications: 0 });
    expect(result.changes).toEqual([
      expect.objectContaining({ op: "remove", path: "#main > ul:nth-of-type(1) > li:nth-of-type(3)", before: "Cherries" }),
    ]);
    expect(load(after)(result.changes[0]!.path).length).toBe(0);
  });

  it("pairs removed and added blocks of one hunk by similarity, the rest are adds or removes", () => {
    const before = page("<p>Intro</p><p>The quick brown fox</p><p>Outro</p>");
    const after = page("<p>Intro</p><h2>Breaking news</h2><p>The quick brown cat</p><p>Outro</p>");
    const result = diffOrFail(before, after);
    expect(result.summary).toEqual({ additions: 1, removals: 0, modifications: 1 });
    expect(result.changes.map((c) => [c.op, c.before, c.after])).toEqual([
      ["add", undefined, "Breaking news"],
      ["replace", "The quick brown fox", "The quick brown cat"],
    ]);
  });

  it("treats a moved block as a removal and an addition", () => {
    const before = page("<p>One</p><p>Two</p><p>Three</p><p>Four</p>");
    const after = page("<p>Two</p><p>Three</p><p>Four</p><p>One</p>");
    const result = diffOrFail(before, after);
    expect(result.summary).toEqual({ additions: 1, removals: 1, modifications: 0 });
  });

  it("compares the own text of a block: text inside nested blocks belongs to them", () => {
    const before = page('<div id="box">Intro <p>Inner</p> outro</div>');
    expect(htmlTextBlocks(before).filter((b) => b.tag !== "title")).toEqual([
      { selector: "#box", tag: "div", text: "Intro outro" },
      { selector: "#box > p:nth-of-type(1)", tag: "p", text: "Inner" },
    ]);
    const result = diffOrFail(before, before.replace("Inner", "Changed"));
    expect(result.changedTargets).toEqual(["#box > p:nth-of-type(1)"]);
    const result2 = diffOrFail(before, before.replace("outro", "ending"));
    expect(result2.changedTargets).toEqual(["#box"]);
  });

  it("reports a title change in the head", () => {
    const result = diffOrFail(shop, shop.replace("<title>Shop</title>", "<title>Shop - Sale</title>"));
    expect(result.changes).toEqual([expect.objectContaining({ path: "head > title:nth-of-type(1)", before: "Shop", after: "Shop - Sale" })]);
  });

  it("gives the same fingerprint for the same changes and a different one for different changes", () => {
    const a = diffOrFail(shop, shop.replace("$10", "$12"));
    const b = diffOrFail(shop.replace("<h1>", "<h1 class='x'>"), shop.replace("$10", "$12"));
    const c = diffOrFail(shop, shop.replace("$10", "$13"));
    expect(a.diffFingerprint).toBe(b.diffFingerprint);
    expect(a.diffFingerprint).not.toBe(c.diffFingerprint);
  });
});

describe("diffHtml: selectors of changed elements", () => {
  it("uses #id when the id is unique, a nth-of-type chain when it is not", () => {
    const before = page('<p id="a">one</p><p id="dup">two</p><div><p id="dup">three</p></div>');
    const after = before.replace("one", "ONE").replace("two", "TWO").replace("three", "THREE");
    const result = diffOrFail(before, after);
    expect(result.changedTargets).toEqual(["#a", "body > p:nth-of-type(2)", "body > div:nth-of-type(1) > p:nth-of-type(1)"]);
  });

  it("escapes ids that are not plain identifiers", () => {
    const ids = ["123", "a.b", "with space", "x:y", "-1", "über", "a#b[c]", "'quote\""];
    const before = page(ids.map((id, i) => `<p id="${id.replace(/"/g, "&quot;")}">text ${i}</p>`).join(""));
    const after = page(ids.map((id, i) => `<p id="${id.replace(/"/g, "&quot;")}">changed ${i}</p>`).join(""));
    const result = diffOrFail(before, after);
    expect(result.changes).toHaveLength(ids.length);
    const $ = load(after);
    result.changes.forEach((change, i) => expect($(change.path).attr("id")).toBe(ids[i]));
  });

  it("counts nth-of-type per tag and anchors on the nearest unique ancestor id", () => {
    const before = page('<section id="s"><h2>T</h2><div>a</div><p>x</p><div><span>b</span><p>y</p></div></section>');
    const after = before.replace("<p>y</p>", "<p>z</p>");
    expect(diffOrFail(before, after).changedTargets).toEqual(["#s > div:nth-of-type(2) > p:nth-of-type(1)"]);
  });

  it("selects elements the parser inserted (tbody) and SVG elements with camelCase names", () => {
    const before = page('<table><tr><td>1</td><td>2</td></tr></table><svg><foreignObject><div>in svg</div></foreignObject></svg>');
    const after = before.replace("<td>2</td>", "<td>3</td>").replace("in svg", "still in svg");
    const result = diffOrFail(before, after);
    expect(result.changedTargets[0]).toBe("body > table:nth-of-type(1) > tbody:nth-of-type(1) > tr:nth-of-type(1) > td:nth-of-type(2)");
    expect(result.changedTargets[1]).toContain(":nth-child(1)");
  });
});

describe("diffHtml: scope selector", () => {
  it("compares only the matched element", () => {
    const after = shop.replace("© 2026", "© 2027").replace("$10", "$11");
    const result = diffOrFail(shop, after, { selector: "#main" });
    expect(result.changedTargets).toEqual(["#main > p:nth-of-type(1)"]);
    expect(diffHtml(shop, shop.replace("© 2026", "© 2027"), { selector: "#main" })).toBeNull();
  });

  it("compares every match in order, an inline scope root being a block itself", () => {
    const before = page('<span class="p">$1</span><i>x</i><span class="p">$2</span>');
    const after = page('<span class="p">$1</span><i>y</i><span class="p">$3</span>');
    const result = diffOrFail(before, after, { selector: "span.p" });
    expect(result.changes).toEqual([expect.objectContaining({ path: "body > span:nth-of-type(2)", before: "$2", after: "$3" })]);
  });

  it("reports everything as added or removed when the scope appears or disappears", () => {
    const without = page("<p>nothing here</p>");
    const withMain = page('<div id="main"><p>a</p><p>b</p></div>');
    expect(diffOrFail(without, withMain, { selector: "#main" }).summary).toEqual({ additions: 2, removals: 0, modifications: 0 });
    expect(diffOrFail(withMain, without, { selector: "#main" }).summary).toEqual({ additions: 0, removals: 2, modifications: 0 });
    expect(diffHtml(without, without.replace("nothing", "still nothing"), { selector: "#main" })).toBeNull();
  });

  it("refuses an invalid scope selector with invalid_input", () => {
    for (const selector of ["div[", ">>>", "p:no-such-pseudo", "", "  "]) {
      expect(codeOf(() => diffHtml(shop, shop, { selector })).code).toBe("invalid_input");
    }
  });
});

describe("diffHtml: policy rules", () => {
  const rotated = shop.replace("Offer 17", "Offer 18");

  it("drops elements matched by selector ignore rules before comparing", () => {
    expect(diffHtml(shop, rotated, { policy: { rules: [{ selector: ".ad", action: "ignore" }] } })).toBeNull();
    // Dropping the ad before comparing keeps its removal from disturbing the alignment.
    const adGone = shop.replace('<div class="ad">Buy now! Offer 17</div>', "").replace("Cherries", "Dates");
    const result = diffOrFail(rotated, adGone, { policy: { rules: [{ selector: ".ad", action: "ignore" }] } });
    expect(result.changes).toEqual([expect.objectContaining({ op: "replace", before: "Cherries", after: "Dates" })]);
  });

  it("sets the severity of changes inside elements a selector rule matches", () => {
    const after = rotated.replace("$10", "$12");
    const result = diffOrFail(shop, after, { policy: { rules: [{ selector: ".price", severity: "critical" }] } });
    expect(result.topSeverity).toBe("critical");
    expect(result.changes.map((c) => [c.path, c.severity])).toEqual([
      ["#main > p:nth-of-type(1)", "critical"],
      ["#main > div:nth-of-type(1)", "info"],
    ]);
    // "inside": the rule names an ancestor of the changed block.
    const nested = diffOrFail(shop, after, { policy: { rules: [{ selector: "main", action: "set", severity: "medium" }] } });
    expect(nested.changes.every((c) => c.severity === "medium")).toBe(true);
  });

  it("applies op and category rules, first match wins, and ignores JSONPath rules", () => {
    const after = shop.replace("<li>Apples</li>", "").replace("$10", "$12");
    const result = diffOrFail(shop, after, {
      policy: {
        rules: [
          { path: "$.price", action: "ignore" },
          { op: "remove", severity: "high" },
          { selector: ".price", severity: "critical" },
          { category: "value", severity: "low" },
          { op: "replace", action: "ignore" },
        ],
      },
    });
    expect(result.changes.map((c) => [c.op, c.severity])).toEqual([
      ["replace", "critical"],
      ["remove", "high"],
    ]);
    const first = diffOrFail(shop, after, { policy: { rules: [{ category: "value", severity: "low" }, { op: "remove", severity: "high" }] } });
    expect(first.changes.map((c) => c.severity)).toEqual(["low", "low"]);
    expect(first.topSeverity).toBe("low");
  });

  it("returns null when every change is ignored, and counts only what remains", () => {
    const after = shop.replace("<li>Apples</li>", "").replace("$10", "$12");
    expect(diffHtml(shop, after, { policy: { rules: [{ op: "remove", action: "ignore" }, { op: "replace", action: "ignore" }] } })).toBeNull();
    const kept = diffOrFail(shop, after, { policy: { rules: [{ op: "remove", action: "ignore" }] } });
    expect(kept.summary).toEqual({ additions: 0, removals: 0, modifications: 1 });
  });

  it("refuses invalid rules with invalid_policy_rules naming the rule", () => {
    const bad = codeOf(() => diffHtml(shop, rotated, { policy: { rules: [{ selector: ".a" , action: "ignore"}, { severity: "urgent" } as never] } }));
    expect(bad.code).toBe("invalid_policy_rules");
    expect(bad.details[0]?.path).toBe("rules[1].severity");
    const badSelector = codeOf(() => diffHtml(shop, rotated, { policy: { rules: [{ op: "add", severity: "low" }, { selector: "div[", action: "ignore" }] } }));
    expect(badSelector).toMatchObject({ code: "invalid_policy_rules", details: [{ path: "rules[1].selector" }] });
    const badSetSelector = codeOf(() => diffHtml(shop, rotated, { policy: { rules: [{ selector: "p:unknown-pseudo", severity: "low" }] } }));
    expect(badSetSelector).toMatchObject({ code: "invalid_policy_rules", details: [{ path: "rules[0].selector" }] });
    // Refused even when no change would reach the rule.
    const unused = codeOf(() => diffHtml(shop, shop, { policy: { rules: [{ op: "add", severity: "low" }, { selector: "a:::b", severity: "low" }] } }));
    expect(unused).toMatchObject({ code: "invalid_policy_rules", details: [{ path: "rules[1].selector" }] });
    expect(codeOf(() => diffHtml(shop, shop, { selector: "div[" })).code).toBe("invalid_input");
  });
});

describe("diffHtml: bad and odd input", () => {
  it("refuses non-string pages with invalid_input", () => {
    for (const bad of [undefined, null, 42, {}, Buffer.from("<p>x</p>"), ["<p>"]]) {
      expect(codeOf(() => diffHtml(bad as never, shop)).code).toBe("invalid_input");
      expect(codeOf(() => diffHtml(shop, bad as never)).code).toBe("invalid_input");
    }
    expect(codeOf(() => diffHtml(shop, shop, 5 as never)).code).toBe("invalid_input");
  });

  it("tolerates malformed HTML: unclosed tags, stray end tags, garbage", () => {
    const before = "<div><p>Hello <b>world</div></div></span><p>Second<li>item";
    const after = "<div><p>Hello <b>there</div></div></span><p>Second<li>item</ul>\u0000\uFFFF<<>>&&&;";
    const result = diffOrFail(before, after);
    expect(result.changes[0]).toMatchObject({ op: "replace", before: "Hello world", after: "Hello there" });
    expect(diffHtml("\u0000<<<>>>", "plain text, no tags")).toMatchObject({ summary: { modifications: 1 }, changedTargets: ["body"] });
    expect(diffHtml("<!doctype html><html", "<html><head></head>")).toBeNull();
  });

  it("diffs a document nested 10,000 levels deep without overflowing the stack (with maxDepth raised)", () => {
    const deep = (leaf: string): string => `${"<div>".repeat(10_000)}<p>${leaf}</p>${"</div>".repeat(10_000)}`;
    // Past the default maxDepth (512) such a page is refused: see html-limits.test.ts.
    expect(() => diffHtml(deep("old"), deep("new"))).toThrow(expect.objectContaining({ code: "too_deep" }));
    const result = diffHtml(deep("old"), deep("new"), { maxDepth: 10_010 });
    expect(result?.changes).toEqual([expect.objectContaining({ op: "replace", before: "old", after: "new" })]);
    expect(result!.changes[0]!.path.split(" > ")).toHaveLength(10_002); // body > 10,000 divs > p
  });

  it("handles a 200 KB page with changes spread over it", () => {
    const rows = Array.from({ length: 2_000 }, (_, i) => `<tr><td>Item ${i}</td><td>${(i * 1.5).toFixed(2)} EUR</td><td><a href="/i/${i}">details</a></td></tr>`);
    const before = page(`<table id="t">${rows.join("")}</table>`);
    const changed = rows.slice();
    changed[10] = changed[10]!.replace("15.00 EUR", "16.00 EUR");
    changed[1_000] = "";
    changed.splice(1_990, 0, "<tr><td>New item</td><td>1.00 EUR</td><td>-</td></tr>");
    const after = page(`<table id="t">${changed.join("")}</table>`);
    expect(before.length).toBeGreaterThan(150_000);
    const result = diffOrFail(before, after);
    expect(result.summary).toEqual({ additions: 3, removals: 3, modifications: 1 });
  });
});

describe("htmlTextBlocks", () => {
  it("lists the blocks a page reduces to, honouring scope and ignore rules", () => {
    expect(htmlTextBlocks(shop, { selector: "#main", policy: { rules: [{ selector: ".ad", action: "ignore" }] } })).toEqual([
      { selector: "#main", tag: "main", text: "" },
    ].filter(() => false).concat([
      { selector: "#main > h1:nth-of-type(1)", tag: "h1", text: "Products" },
      { selector: "#main > p:nth-of-type(1)", tag: "p", text: "Price: $10" },
      { selector: "#main > ul:nth-of-type(1) > li:nth-of-type(1)", tag: "li", text: "Apples" },
      { selector: "#main > ul:nth-of-type(1) > li:nth-of-type(2)", tag: "li", text: "Bananas" },
      { selector: "#main > ul:nth-of-type(1) > li:nth-of-type(3)", tag: "li", text: "Cherries" },
    ]));
  });
});
