import { load } from "cheerio";
import type { VolatileRule } from "@driftwatch/schema";
import { htmlTextBlocks } from "../html/index.js";
import { cssEscapeIdentifier, PageSelectors } from "../html/selectors.js";
import { describeShape, meaningfulShape, textSkeleton, skeletonShape } from "./shapes.js";
import type { PolicyEvidence, PolicySuggestion } from "./types.js";

// A website's text blocks (as diffHtml sees them) are followed across samples by selector. A
// block whose text changes on most fetches is volatile when what changes has a volatile shape:
// the text keeps its skeleton and only numbers, times or relative times change, or it rotates
// through a few texts that recur (promo blocks). Anything else that changes is kept.

interface BlockStat {
  selector: string;
  tag: string;
  texts: string[];
  pairs: number;
  changed: number;
}

/** At least two words of prose: enum-like one-word texts ("Operational") are not promos. */
function isProse(text: string): boolean {
  return text.split(" ").length >= 3;
}

/** Class selectors tried per call, at most. */
const MAX_CANDIDATES = 200;

interface ParsedPage {
  $: ReturnType<typeof load>;
  selectors: PageSelectors;
}

/**
 * A selector that survives blocks being added before the element: `#id` as is, else `tag.class`
 * when, in every sample, it matches at least one element and only volatile blocks (so one entry
 * covers every story's `p.meta`), else the positional selector diffHtml reports.
 */
function stableSelector(selector: string, volatilePerPage: readonly ReadonlySet<string>[], pages: readonly ParsedPage[], tried: Map<string, boolean>): string {
  if (/^#[^\s>]+$/.test(selector)) return selector;
  // Each candidate costs a query per page: bounded, and answered once per candidate.
  if (tried.size >= MAX_CANDIDATES) return selector;
  const last = pages[pages.length - 1]!;
  const element = last.$(selector).first();
  const tag = element.prop("tagName")?.toLowerCase();
  if (tag === undefined) return selector;
  const classes = (element.attr("class") ?? "").split(/\s+/).filter((c) => /^[A-Za-z_-][A-Za-z0-9_-]*$/.test(c));
  for (const cls of classes) {
    const candidate = `${tag}.${cssEscapeIdentifier(cls)}`;
    let ok = tried.get(candidate);
    if (ok === undefined) {
      ok = pages.every((p, index) => {
        const matched = p.$(candidate).toArray();
        return matched.length > 0 && matched.every((el) => el.type === "tag" && volatilePerPage[index]!.has(p.selectors.selectorOf(el)));
      });
      tried.set(candidate, ok);
    }
    if (ok) return candidate;
  }
  return selector;
}

/** Suggests a policy for a website monitor from its pages, oldest first. */
export function suggestHtmlPolicy(pages: readonly string[], scope: string | null): PolicySuggestion {
  const perPage = pages.map((html) => htmlTextBlocks(html, scope === null ? {} : { selector: scope }));
  const stats = new Map<string, BlockStat>();
  perPage.forEach((blocks, index) => {
    for (const block of blocks) {
      let stat = stats.get(block.selector);
      if (!stat) stats.set(block.selector, (stat = { selector: block.selector, tag: block.tag, texts: [], pairs: 0, changed: 0 }));
      stat.texts[index] = block.text;
    }
  });
  for (const stat of stats.values()) {
    for (let p = 0; p + 1 < pages.length; p++) {
      const a = stat.texts[p];
      const b = stat.texts[p + 1];
      if (a === undefined || b === undefined) continue;
      stat.pairs++;
      if (a !== b) stat.changed++;
    }
  }
  const decided: { stat: BlockStat; shape: string; changedIn: string }[] = [];
  const volatile: VolatileRule[] = [];
  const evidence: PolicyEvidence[] = [];
  for (const stat of stats.values()) {
    const { changed, pairs } = stat;
    if (changed === 0) continue;
    const texts = stat.texts.filter((t): t is string => t !== undefined);
    const changedIn = `changed in ${changed} of ${pairs} fetches`;
    const often = changed >= Math.min(2, pairs) && changed * 2 >= pairs;
    const skeletons = new Set(texts.map(textSkeleton));
    const distinct = new Set(texts).size;
    let shape: string | undefined;
    if (skeletons.size === 1) shape = skeletonShape(texts);
    else if (distinct < texts.length && distinct >= 2 && texts.every(isProse) && changed * 4 >= pairs * 3) shape = "rotating";
    const meaningful = texts.map((t) => meaningfulShape(t, undefined));
    const keptShape = meaningful.every((m) => m === "price") ? "price" : undefined;
    if (shape !== undefined && often && keptShape === undefined) {
      decided.push({ stat, shape, changedIn });
      continue;
    }
    const entry: PolicyEvidence = { kind: "kept", selector: stat.selector, changed, pairs, reason: "" };
    if (keptShape !== undefined) {
      entry.shape = keptShape;
      entry.reason = `kept: ${changedIn} but looks like ${describeShape(keptShape)}`;
    } else if (shape !== undefined) {
      entry.shape = shape;
      entry.reason = `kept: ${changedIn} only; ${describeShape(shape)}, but too rarely to call it noise`;
    } else {
      entry.shape = "text";
      entry.reason = `kept: ${changedIn} but the text changed beyond numbers and times, and did not recur`;
    }
    evidence.push(entry);
  }
  if (decided.length > 0) {
    const parsed = pages.map((html): ParsedPage => {
      const $ = load(html);
      return { $, selectors: new PageSelectors($.root()[0]!) };
    });
    const volatilePerPage = perPage.map((_blocks, index) => new Set(decided.filter((d) => d.stat.texts[index] !== undefined).map((d) => d.stat.selector)));
    const tried = new Map<string, boolean>();
    for (const { stat, shape, changedIn } of decided) {
      const selector = stableSelector(stat.selector, volatilePerPage, parsed, tried);
      const known = evidence.find((e) => e.kind === "volatile" && e.selector === selector);
      if (known) {
        known.changed = Math.max(known.changed, stat.changed);
        continue;
      }
      volatile.push({ selector });
      evidence.push({ kind: "volatile", rule: `volatile[${volatile.length - 1}]`, selector, changed: stat.changed, pairs: stat.pairs, shape, reason: `${changedIn}, ${describeShape(shape)}` });
    }
  }
  const policy: PolicySuggestion["policy"] = { rules: [] };
  if (volatile.length > 0) policy.volatile = volatile;
  return { policy, evidence };
}
