import { loadHtml as load } from "../html/cheerio.js";
import type { PolicyRule, VolatileRule } from "@driftwatch/schema";
import { htmlTextBlocks } from "../html/index.js";
import { cssEscapeIdentifier, isElement, PageSelectors } from "../html/selectors.js";
import type { AnyNode, Element } from "domhandler";
import { describeShape, hasCurrencyAmount, meaningfulShape, sameSkeleton, seenKey, skeletonShape, textSkeleton } from "./shapes.js";
import type { PolicyEvidence, PolicySuggestion } from "./types.js";
import { skeletonKey } from "../policy/volatile.js";

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
  /** Pairs (index of the older sample) where the block's text only shifted to a sibling (see shiftedPairs). */
  shifted?: Set<number>;
}

/** Scripts written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer, Burmese). */
const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

let wordSegmenter: Intl.Segmenter | null | undefined;

/**
 * How many words a text has, counted up to `cap`: split on spaces, or, for a text in a script
 * written without spaces ("2019年02月11日", "今週のおすすめ記事"), its word-like segments
 * (Intl.Segmenter; without it, about two characters of such a script a word).
 */
function wordCount(text: string, cap = Number.POSITIVE_INFINITY): number {
  if (!SPACELESS.test(text)) return Math.min(cap, text.split(" ").length);
  if (wordSegmenter === undefined) wordSegmenter = typeof Intl.Segmenter === "function" ? new Intl.Segmenter(undefined, { granularity: "word" }) : null;
  if (wordSegmenter === null) return Math.min(cap, Math.ceil(text.replace(/\s+/g, "").length / 2));
  let n = 0;
  for (const segment of wordSegmenter.segment(text.length > 2000 ? text.slice(0, 2000) : text)) if (segment.isWordLike === true && ++n >= cap) break;
  return n;
}

/** At least three words of prose: enum-like one- or two-word texts ("Operational") are not promos. */
function isProse(text: string): boolean {
  return wordCount(text, 3) >= 3;
}

/** Words a state is written in: a short text holding one reads as a status, not as a teaser. */
const STATE_WORDS =
  /\b(?:operat(?:ional|ing)|degraded|outages?|down|online|offline|up and running|running|stopped|maintenance|incidents?|disrupt\w*|interrupt\w*|unavailable|available|healthy|unhealthy|ok|errors?|fail\w*|passing|pending|restored|recovered|resolved|investigating|identified|monitoring|active|inactive|suspended|open|closed|(?:in|out of|low) stock|sold out|backorder(?:ed)?|normal(?:ly)?|issues?|delayed|cancell?ed|on time)\b/i;

/**
 * Words a state is written in, in other languages (status pages, shops and stock lines of targets
 * nobody here has seen): German, French, Spanish, Portuguese, and, without spaces between words,
 * Japanese, Chinese and Korean.
 */
const OTHER_STATE_WORDS =
  /(?<![\p{L}\p{M}])(?:störung(?:en)?|wartung\w*|betriebsbereit|ausfall|ausgefallen|(?:nicht )?verfügbar|ausverkauft|vorrätig|behoben|panne|opérationnel\w*|perturb\w*|(?:in)?disponibles?|rupture de stock|résolu|operativo|operacional|interrupci[oó]n|interrupção|caída|mantenimiento|manutenção|agotado|disponível|resuelto|resolvido)(?![\p{L}\p{M}])|障害|停止|復旧|メンテナンス|稼働|正常|遅延|品切れ|売り切れ|在庫|故障|中断|調査中|解決済|维护|維護|停机|宕机|缺货|有货|장애|점검|정상|중단|품절|재고/iu;

/** Whether a text holds a word a state is written in (STATE_WORDS, OTHER_STATE_WORDS). */
function stateWords(text: string): boolean {
  return STATE_WORDS.test(text) || OTHER_STATE_WORDS.test(text);
}

/**
 * Whether a text reads as a status rather than content: one or two words of letters only
 * ("Operational", "Major outage", "稼働中"), or a short line (six words at most) with a word a
 * state is written in ("All Systems Operational", "Partial System Outage", "Out of stock").
 */
function readsAsStatus(text: string): boolean {
  const words = wordCount(text, 7);
  if (words <= 2 && /^[\p{L}\p{M}][\p{L}\p{M}\s'\u2019-]*$/u.test(text)) return true;
  return words <= 6 && stateWords(text);
}

/**
 * Whether a text may be a state, read narrowly: one word of letters only ("Operational", "稼働中",
 * "Shipped"), or a short line (six words at most) with a word a state is written in ("Major
 * outage", "In stock", "All Systems Operational"). Two words of letters without such a word
 * ("Customer Reviews", "Twitter Lite") are not, unlike `readsAsStatus`.
 */
function mayBeState(text: string): boolean {
  const words = wordCount(text, 7);
  if (words <= 1 && /^[\p{L}\p{M}][\p{L}\p{M}'\u2019-]*$/u.test(text)) return true;
  return words <= 6 && stateWords(text);
}

/**
 * Whether the texts a block showed may be states, for the rotation rules of any length (prose
 * included): one of them a short line (six words at most) with a word a state is written in ("All
 * Systems Operational", "Partial System Outage", "Investigating elevated API errors"; see shortLine), or every one
 * of them one word of letters ("Green", "Yellow", "Red"). A block that went through states while
 * learning is no rotation: a return to a state seen, or a state never seen, is reported. (One word
 * among content, a category such as "社会" in a teaser slot, is no state by itself.)
 */
function mayBeStates(texts: readonly string[]): boolean {
  return texts.some((t) => shortLine(t) && stateWords(t)) || texts.every(mayBeState);
}

/**
 * A short line: six words at most, or, in a script written without spaces, 24 characters at most
 * (a segmenter counts particles as words: "全てのシステムが正常に稼働しています" is ten).
 */
function shortLine(text: string): boolean {
  return wordCount(text, 7) <= 6 || (SPACELESS.test(text) && text.length <= 24);
}

/**
 * Recurrence memory from three samples: a block that showed three texts in three fetches (another
 * on each, none twice), none of which may be a state (`mayBeState`) or shows an amount of money,
 * and not a page's `h1` or `title`. The samples cannot tell a slot from a text changed twice, so
 * only the texts seen are remembered (`seen`): a text coming back is noise, a new text is reported.
 * Prose already is a rotation after two changes (`rotates`); this is the same for short content
 * (link texts, names, dates, "Login/Register", "4th generation").
 */
function threeTextsInThreeFetches(tag: string, texts: readonly string[], changed: number, pairs: number, recurred: boolean): boolean {
  if (pairs !== 2 || changed !== 2 || recurred || texts.length !== 3 || HEADLINE_TAGS.has(tag.toLowerCase())) return false;
  return texts.every((t) => t.length >= 2 && !mayBeState(t) && !hasCurrencyAmount(t)) && !mayBeStates(texts);
}

/** The page's own heading and title: what the page is about, never a slot whose any text is noise. */
const HEADLINE_TAGS = new Set(["h1", "title"]);

/**
 * A block that rotates through texts (promos, testimonials, "related" teasers): prose that came back
 * or changed on most fetches, or any texts (two words or more) once three or more of them took
 * turns on most fetches. Two texts taking turns may be a status that flaps: not a rotation.
 */
function rotates(texts: readonly string[], changed: number, pairs: number, recurred: boolean, often: boolean): boolean {
  // a status written as a line ("All Systems Operational", "Partial System Outage") that went
  // through states while learning: a return to a state seen is reported, as for short texts
  if (mayBeStates(texts)) return false;
  if (texts.every(isProse) && (recurred || (changed >= 2 && often))) return true;
  const distinct = new Set(texts).size;
  return distinct >= 3 && often && recurred && texts.every((t) => t.length >= 2);
}

/**
 * A rotation whose pool is larger than what was seen: the block showed another text on every
 * fetch of at least three, and either
 * - at least three texts, one came back (a headline that is new on every fetch, or changed and
 *   then corrected, did not come back) and one did not yet (the pool is larger than what was
 *   seen), or
 * - two texts taking turns on every fetch (A B A B), neither of which reads as a status: a slot
 *   the server fills per request (a teaser, an ad, a promo), whose pool the samples do not show
 *   whole. Two statuses taking turns ("Operational", "Degraded") are a status that flaps: a third
 *   ("Major outage") is reported.
 * A page's h1 or title is never one (a headline that takes turns is an A/B test: its texts are
 * remembered, a new headline is reported), nor a block that showed an amount of money (a price
 * tested per request: a new price is reported).
 */
function openRotation(tag: string, texts: readonly string[], changed: number, pairs: number, recurred: boolean): boolean {
  if (HEADLINE_TAGS.has(tag.toLowerCase())) return false;
  if (pairs < 3 || changed !== pairs || !recurred || !texts.every((t) => t.length >= 2)) return false;
  // an amount of money is never noise: a slot that quotes prices (a price tested per request) keeps its texts
  if (texts.some(hasCurrencyAmount)) return false;
  const counts = new Map<string, number>();
  for (const t of texts) counts.set(t, (counts.get(t) ?? 0) + 1);
  // two texts, changed on every fetch: they took turns
  if (counts.size === 2) return [...counts.keys()].every((t) => !readsAsStatus(t));
  // every text came back: the pool was seen whole, and `seen` lists it (a text never seen is reported)
  // (a status that flapped over three states or more is no slot: a state never seen is reported)
  return counts.size >= 3 && [...counts.values()].some((n) => n === 1) && !mayBeStates([...counts.keys()]);
}

/** A positional selector without its own position and its parent's (`ul > li:nth-of-type(2) > p:nth-of-type(1)`: `ul > li > p`). */
function templateOf(selector: string): string | undefined {
  const m = /^(.*):nth-of-type\(\d+\)([^()]*)$/.exec(selector.replace(/:nth-of-type\(\d+\)$/, ""));
  return m === null ? undefined : `${m[1]}${m[2]}`;
}

/** Price blocks rated medium, at most. */
const MAX_PRICE_RULES = 50;

/** A block that shows an amount of money is rated medium up to this length (a paragraph that quotes a price, not a whole page). */
const MAX_PRICE_BLOCK = 2000;

/** A rotation's `seen` list holds at most this many texts (the schema allows 64). */
const MAX_SEEN = 48;

interface RankedList {
  /** Selects every item of the list (the items' positional selector without its position). */
  selector: string;
  seen: string[];
  changed: number;
}

/**
 * Lists whose items change places: sibling blocks (one positional selector but for the last
 * position) whose texts, taken as a set, stay mostly the same while their order changes. Keyed by
 * each item's selector.
 */
function rankedLists(stats: ReadonlyMap<string, BlockStat>, samples: number): Map<string, RankedList> {
  const groups = new Map<string, BlockStat[]>();
  for (const stat of stats.values()) {
    // the items of a list: the position of the deepest list item (li, tr, dt, dd, article) left out,
    // else the block's own position
    const item = /^(.*\b(?:li|tr|dt|dd|article))(?::nth-of-type\(\d+\))(.*)$/.exec(stat.selector);
    let key: string;
    if (item !== null) key = `${item[1]}${item[2]}`;
    else {
      const match = /^(.*?)(?::nth-of-type|:nth-child)\(\d+\)$/.exec(stat.selector);
      if (match === null) continue;
      key = match[1]!;
      if (key === "" || key.endsWith(" ")) key = `${key}*`;
    }
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(stat);
  }
  const out = new Map<string, RankedList>();
  for (const [selector, items] of groups) {
    if (items.length < 3 || !items.some((i) => i.changed > 0)) continue;
    let changed = 0;
    const seen = new Set<string>();
    let ok = true;
    for (let s = 0; s < samples && ok; s++) {
      for (const item of items) if (item.texts[s] !== undefined) seen.add(item.texts[s]!);
      if (s === 0) continue;
      const before = items.map((i) => i.texts[s - 1]).filter((t): t is string => t !== undefined);
      const after = items.map((i) => i.texts[s]).filter((t): t is string => t !== undefined);
      if (before.join("\u0000") === after.join("\u0000")) continue;
      const set = new Set(before);
      const common = after.filter((t) => set.has(t)).length;
      // a reorder keeps most items (at least half of the list is the same set) and moves some
      if (common * 2 < Math.max(before.length, after.length)) ok = false;
      else {
        const moved = shiftedChecker(before, after);
        if (after.some((t, i) => set.has(t) && moved.indexBefore.get(t) !== i && !moved.shifted(t, i))) changed++;
      }
    }
    if (!ok || changed === 0 || seen.size > MAX_SEEN) continue;
    const list: RankedList = { selector, seen: [...seen].map(seenKey), changed };
    for (const item of items) out.set(item.selector, list);
  }
  return out;
}

/** The amounts of money and numbers of a text, in order. */
function amounts(text: string): string {
  return (text.match(/\d+(?:[.,]\d+)*/g) ?? []).join(" ");
}

/**
 * For one pair of a list's texts: each text's first place in `before`, and whether `t` is at `i`
 * in `after` only because items before it were added or removed (the items kept on both sides
 * that precede it are the same, in the same order, on both sides), not because the list was
 * reordered. Linear in the items per pair; each question is answered in constant time.
 */
function shiftedChecker(before: readonly string[], after: readonly string[]): { indexBefore: Map<string, number>; shifted: (t: string, i: number) => boolean } {
  const inAfter = new Set(after);
  const inBefore = new Set(before);
  const indexBefore = new Map<string, number>();
  // the number of kept items before each text's first place in `before`
  const rankBefore = new Map<string, number>();
  const keptBefore: string[] = [];
  before.forEach((x, k) => {
    if (!indexBefore.has(x)) {
      indexBefore.set(x, k);
      rankBefore.set(x, keptBefore.length);
    }
    if (inAfter.has(x)) keptBefore.push(x);
  });
  // the number of kept items before each place of `after`
  const rankAfter: number[] = [];
  const keptAfter: string[] = [];
  for (const x of after) {
    rankAfter.push(keptAfter.length);
    if (inBefore.has(x)) keptAfter.push(x);
  }
  rankedListsWork.comparisons += before.length + after.length;
  // how long the kept items agree from the start
  let common = 0;
  while (common < keptBefore.length && common < keptAfter.length && keptBefore[common] === keptAfter[common]) common++;
  return {
    indexBefore,
    shifted: (t, i) => {
      const r = rankBefore.get(t);
      return r !== undefined && r === rankAfter[i] && r <= common;
    },
  };
}

/** Items looked at by rankedLists' shift checks: linear in the items and samples (a test counts it; reset it to 0 before). */
export const rankedListsWork = { comparisons: 0 };

/** A line that states when the page was made or updated ("Updated 08:15 UTC", "Last updated: 20 Nov 2026"). */
const CLOCK_LINE = /^(?:(?:last|page|data|prices?|feed|site|list)\s+)?(?:updated|modified|generated|rendered|refreshed|fetched|synced|checked|built|as of|aktualisiert|stand|mis à jour|actualizado)\b/i;
/** A count that grows on its own, in a sentence: "178 comments", "7,129 shares". */
const COUNT_WORDS = /^\s*(?:comments?|shares?|views?|likes?|followers?|subscribers?|downloads?|stars?|forks?|watchers?|reactions?|replies|votes?|points?)\b/i;

/**
 * The prior of a block that did not change while learning: `clock_line` for a short line that
 * only states when the page was updated (its skeleton holds a time or date and nothing else but
 * the label), `counts` for a short line whose every number is a count that grows on its own
 * (comments, shares, views, ...). Prices never.
 */
function priorShape(text: string): string | undefined {
  if (text.length > 120 || hasCurrencyAmount(text)) return undefined;
  const skeleton = textSkeleton(text);
  if (CLOCK_LINE.test(text) && /<time>|<month>|<day>|<ago>/.test(skeleton)) {
    // the label and the time, nothing more: "Updated <time> UTC", "Last updated: <month> <n>, <n>"
    const rest = skeleton.replace(CLOCK_LINE, "").replace(/<\w+>/g, " ").replace(/\b(?:UTC|GMT|CET|CEST|EST|EDT|PST|PDT|at|on|am|pm)\b/gi, " ");
    if (!/\p{L}/u.test(rest)) return "clock_line";
    return undefined;
  }
  const numbers = [...text.matchAll(/\d+(?:[.,]\d+)*/g)];
  if (numbers.length === 0 || numbers.length > 4) return undefined;
  if (!numbers.every((m) => COUNT_WORDS.test(text.slice(m.index + m[0].length)))) return undefined;
  // nothing but the counts and their words, and separators
  const rest = text.replace(/\d+(?:[.,]\d+)*\s*\p{L}+/gu, " ");
  return /\p{L}/u.test(rest) ? undefined : "counts";
}

/** Class selectors tried per call, at most. */
const MAX_CANDIDATES = 200;

interface ParsedPage {
  $: ReturnType<typeof load>;
  selectors: PageSelectors;
  /** Each element by its positional selector (built on first use): a lookup, not a selector query. */
  byPlace?: Map<string, Element>;
}

/** The element a block's selector (as PageSelectors writes it) names in a page. */
function elementAt(page: ParsedPage, selector: string): Element | undefined {
  if (page.byPlace === undefined) {
    page.byPlace = new Map();
    const stack: AnyNode[] = [page.$.root()[0]!];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (isElement(node)) page.byPlace.set(page.selectors.selectorOf(node), node);
      if ("children" in node) for (const child of (node as { children: AnyNode[] }).children) stack.push(child);
    }
  }
  return page.byPlace.get(selector);
}

/** Selector queries stableSelector made (each costs a walk of a page): bounded by MAX_CANDIDATES per page, whatever the number of blocks (a test counts it). */
export const stableSelectorWork = { queries: 0 };

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
  const element = elementAt(last, selector);
  if (element === undefined) return selector;
  const tag = element.name.toLowerCase();
  const classes = (element.attribs["class"] ?? "").split(/\s+/).filter((c) => /^[A-Za-z_-][A-Za-z0-9_-]*$/.test(c));
  for (const cls of classes) {
    const candidate = `${tag}.${cssEscapeIdentifier(cls)}`;
    let ok = tried.get(candidate);
    if (ok === undefined) {
      ok = pages.every((p, index) => {
        stableSelectorWork.queries++;
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
/** A positional selector's parent and tag: the block's siblings of one tag share it. */
const siblingsOf = (selector: string): string => selector.replace(/:nth-of-type\(\d+\)$/, "");

/**
 * Marks the pairs where a block's text did not change but moved: a block was added or removed
 * before it among its siblings, so its positional selector now holds the text its previous
 * sibling held (exactly), and its own text is at a sibling (with the same skeleton: its numbers may
 * have moved too, "31 comments" -> "32 comments"). Such a pair is neither a change nor a pair of
 * the block; the added or removed sibling is judged as usual (a text never seen before is kept).
 */
function shiftedPairs(stats: ReadonlyMap<string, BlockStat>, samples: number): void {
  const groups = new Map<string, SiblingEntry[]>();
  for (const stat of stats.values()) {
    const position = /:nth-of-type\((\d+)\)$/.exec(stat.selector);
    // list items are followed as lists (rankedLists): a reorder there is not a shift
    if (position === null || /(?:^|[\s>])(?:li|tr|dt|dd)(?::nth-of-type\(\d+\))$/.test(stat.selector)) continue;
    const key = siblingsOf(stat.selector);
    const entry = { stat, index: Number(position[1]) };
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [entry]);
    else group.push(entry);
  }
  // Linear in the blocks: texts are looked up, and a text whose numbers moved is looked for among
  // the nearest siblings only (an insertion or a removal moves a block by one place, two at most).
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const byIndex = new Map(group.map((entry) => [entry.index, entry]));
    for (let p = 0; p + 1 < samples; p++) {
      const before = holders(group, p);
      const after = holders(group, p + 1);
      for (const { stat, index } of group) {
        const a = stat.texts[p];
        const b = stat.texts[p + 1];
        if (a === undefined || b === undefined || a === b) continue;
        // an insertion before the block moves texts down (from a lower place, to a higher one), a
        // removal up; texts that came from one side and went to the same side were reordered
        shiftedPairsWork.comparisons++;
        const from = otherThan(before.get(b), stat);
        if (from === undefined) continue;
        shiftedPairsWork.comparisons++;
        let to = otherThan(after.get(a), stat);
        for (const d of NEAR) {
          if (to !== undefined) break;
          const near = byIndex.get(index + d);
          const moved = near?.stat.texts[p + 1];
          if (near === undefined || moved === undefined) continue;
          shiftedPairsWork.comparisons++;
          if (sameSkeleton(a, moved)) to = near;
        }
        if (to !== undefined && (from.index < index) === (index < to.index)) (stat.shifted ??= new Set()).add(p);
      }
    }
  }
}

interface SiblingEntry {
  stat: BlockStat;
  index: number;
}

/** The places a shifted block's text is looked for when only its numbers moved: the nearest first. */
const NEAR = [-1, 1, -2, 2] as const;

/**
 * Texts compared by shiftedPairs (looked up, or by skeleton): grows linearly with the blocks and
 * the samples (a test counts it; reset it to 0 before).
 */
export const shiftedPairsWork = { comparisons: 0 };

/** Each text a group's blocks hold in sample `p`: its first two blocks (one may be the block asking). */
function holders(group: readonly SiblingEntry[], p: number): Map<string, SiblingEntry[]> {
  const map = new Map<string, SiblingEntry[]>();
  for (const entry of group) {
    const text = entry.stat.texts[p];
    if (text === undefined) continue;
    const list = map.get(text);
    if (list === undefined) map.set(text, [entry]);
    else if (list.length < 2) list.push(entry);
  }
  return map;
}

/** The skeletons (`skeletonKey`) of a block's texts in the pairs where it changed, shifts left out. */
function movedSkeletons(stat: BlockStat): Set<string> {
  const out = new Set<string>();
  for (let p = 0; p + 1 < stat.texts.length; p++) {
    const a = stat.texts[p];
    const b = stat.texts[p + 1];
    if (a === undefined || b === undefined || a === b || stat.shifted?.has(p) === true) continue;
    out.add(skeletonKey(a)).add(skeletonKey(b));
  }
  // a block learned before it moved (a prior): the skeleton of its texts
  if (out.size === 0) for (const text of stat.texts) if (text !== undefined) out.add(skeletonKey(text));
  return out;
}

const otherThan = (list: readonly SiblingEntry[] | undefined, stat: BlockStat): SiblingEntry | undefined => list?.find((entry) => entry.stat !== stat);

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
  shiftedPairs(stats, pages.length);
  for (const stat of stats.values()) {
    for (let p = 0; p + 1 < pages.length; p++) {
      const a = stat.texts[p];
      const b = stat.texts[p + 1];
      if (a === undefined || b === undefined || stat.shifted?.has(p) === true) continue;
      stat.pairs++;
      if (a !== b) stat.changed++;
    }
  }
  const decided: { stat: BlockStat; shape: string; changedIn: string; entry: Omit<VolatileRule, "selector"> }[] = [];
  const volatile: VolatileRule[] = [];
  const evidence: PolicyEvidence[] = [];
  const lists = rankedLists(stats, pages.length);
  const listSelectors = new Map([...lists.values()].map((l) => [l.selector, l]));
  for (const stat of stats.values()) {
    const { changed, pairs } = stat;
    if (changed === 0) {
      // Priors for what did not move yet, as for JSON clocks and counts: a line that only states
      // when the page was updated, or a count of comments and shares. Only their numbers and times
      // are noise (`parts`): a change of their words is reported.
      const text = stat.texts[stat.texts.length - 1];
      const prior = pairs === pages.length - 1 && pairs > 0 && text !== undefined ? priorShape(text) : undefined;
      if (prior !== undefined) decided.push({ stat, shape: prior, changedIn: `stable in all ${pages.length} samples, but`, entry: { parts: true } });
      continue;
    }
    const texts = stat.texts.filter((t): t is string => t !== undefined);
    const changedIn = `changed in ${changed} of ${pairs} fetches`;
    const often = changed >= Math.min(2, pairs) && changed * 2 >= pairs;
    let partsOnly = true;
    let replaced = true;
    let currency = false;
    let recurred = false;
    for (let p = 0; p + 1 < stat.texts.length; p++) {
      const a = stat.texts[p];
      const b = stat.texts[p + 1];
      if (a === undefined || b === undefined || a === b || stat.shifted?.has(p) === true) continue;
      if (partsOnly || replaced) {
        // replaced: every change so far put another text in place, none only moved its numbers
        if (sameSkeleton(a, b)) replaced = false;
        else partsOnly = false;
      }
      // an amount of money that changed is a price, not noise
      if (!currency && (hasCurrencyAmount(a) || hasCurrencyAmount(b)) && amounts(a) !== amounts(b)) currency = true;
      if (stat.texts.slice(0, p + 1).includes(b)) recurred = true;
    }
    // judged with its list, below; an item whose own numbers move ("233 comments") is also judged by itself
    if (lists.has(stat.selector) && !partsOnly) continue;
    const meaningful = texts.map((t) => meaningfulShape(t, undefined));
    const keptShape = (partsOnly && currency) || meaningful.every((m) => m === "price") ? "price" : undefined;
    let shape: string | undefined;
    let entry: Omit<VolatileRule, "selector"> = {};
    // Numbers, times and ids inside the text: only those parts are volatile, the rest is compared.
    if (partsOnly) {
      shape = skeletonShape(texts);
      entry = { parts: true };
    } else if (replaced && openRotation(stat.tag, texts, changed, pairs, recurred)) {
      // A slot that showed another text on every fetch, texts coming back (an ad slot, a promo bar
      // over a pool larger than the samples): its next text cannot be listed, any text is noise. A
      // block that changed once, on some fetches only, without a text coming back, or whose
      // numbers moved on some (a block another one took the place of), is never one; its removal
      // is still reported.
      shape = "rotating";
      entry = {};
    } else if (rotates(texts, changed, pairs, recurred, often) && new Set(texts).size <= MAX_SEEN) {
      // A rotation (promo bars, testimonials): the texts seen are noise, a new text is reported.
      shape = "rotating";
      entry = { seen: [...new Set(texts.map(seenKey))] };
    } else if (
      replaced &&
      ((changed === pairs && pairs >= 3 && !recurred && texts.length <= MAX_SEEN && texts.every((t) => t.length >= 2) && !mayBeStates(texts)) || threeTextsInThreeFetches(stat.tag, texts, changed, pairs, recurred))
    ) {
      // Recurrence memory: a block that showed another text on every fetch (three at least), none
      // yet twice, is a slot whose texts come and go: a text it showed before coming back is
      // noise; a text it never showed (a new headline) is reported. A block that changed on some
      // fetches only (a headline changed, then corrected) is kept. From three samples (two
      // pairs), only short content that cannot be a state (threeTextsInThreeFetches).
      shape = "rotating";
      entry = { seen: texts.map(seenKey) };
    }
    if (shape !== undefined && keptShape === undefined) {
      decided.push({ stat, shape, changedIn, entry });
      continue;
    }
    const kept: PolicyEvidence = { kind: "kept", selector: stat.selector, changed, pairs, reason: "" };
    if (keptShape !== undefined) {
      kept.shape = keptShape;
      kept.reason = `kept: ${changedIn} but looks like ${describeShape(keptShape)}`;
    } else {
      kept.shape = "text";
      // Say why a text that came back is kept: a rotation of states is a status that flaps.
      kept.reason = !recurred
        ? `kept: ${changedIn} but the text changed beyond numbers and times, and did not recur`
        : mayBeStates(texts)
          ? `kept: ${changedIn}; texts came back, but they may be states (single words, or a short line with a word a state is written in: "${texts.find((t) => shortLine(t) && stateWords(t)) ?? texts[0]!}"): a status that flaps is reported`
          : `kept: ${changedIn}; texts came back, but not as a rotation (on some fetches only, or with moving numbers)`;
    }
    evidence.push(kept);
  }
  if (decided.length > 0) {
    const parsed = pages.map((html): ParsedPage => {
      const $ = load(html);
      return { $, selectors: new PageSelectors($.root()[0]!) };
    });
    const volatilePerPage = perPage.map((_blocks, index) => new Set(decided.filter((d) => d.stat.texts[index] !== undefined).map((d) => d.stat.selector)));
    const tried = new Map<string, boolean>();
    // Blocks of one template at another position each (`#stories > li:nth-of-type(3) > p`), whose
    // numbers move: one entry for the template (`#stories > li > p`), so a story that moves or is
    // added is compared by its skeleton too.
    const template = new Map<string, number>();
    for (const d of decided) {
      const t = d.entry.parts === true ? templateOf(d.stat.selector) : undefined;
      if (t !== undefined) template.set(t, (template.get(t) ?? 0) + 1);
    }
    for (const { stat, shape, changedIn, entry: own } of decided) {
      let entry = own;
      let selector = stableSelector(stat.selector, volatilePerPage, parsed, tried);
      // Numbers in a sentence are noise wherever the paragraph ends up: the entry selects its
      // siblings of one tag (or its template's blocks), narrowed to the skeletons the block showed,
      // so it follows the block when a sibling added before it moves it, and a sibling of another
      // skeleton (a paragraph whose number is edited) is still compared as usual.
      const t = entry.parts === true && selector === stat.selector ? templateOf(selector) : undefined;
      let widened = true;
      if (t !== undefined && (template.get(t) ?? 0) >= 2 && !listSelectors.has(t)) selector = t;
      else if (entry.parts === true && selector === stat.selector && /:nth-of-type\(\d+\)$/.test(selector) && !listSelectors.has(selector.replace(/:nth-of-type\(\d+\)$/, "")))
        selector = selector.replace(/:nth-of-type\(\d+\)$/, "");
      else widened = false;
      if (widened) {
        // the skeletons of the texts that moved their numbers (not those a sibling's shift brought)
        const skeletons = [...movedSkeletons(stat)];
        // too many skeletons to list (a block whose skeleton moves with a token): it keeps its place
        if (skeletons.length <= MAX_SEEN) entry = { ...entry, skeletons };
        else selector = stat.selector;
      }
      const known = evidence.find((e) => e.kind === "volatile" && e.selector === selector);
      if (known) {
        known.changed = Math.max(known.changed, stat.changed);
        const rule = volatile.find((v) => v.selector === selector);
        const ownEntry = (): void => {
          // mixed kinds under one selector: this block keeps an entry of its own
          volatile.push({ selector: stat.selector, ...own });
          evidence.push({ kind: "volatile", rule: `volatile[${volatile.length - 1}]`, selector: stat.selector, changed: stat.changed, pairs: stat.pairs, shape, reason: `${changedIn}, ${describeShape(shape)}` });
        };
        if (rule !== undefined && rule.skeletons !== undefined) {
          // one entry for several blocks of one template: the skeletons any of them showed
          const merged = [...new Set([...rule.skeletons, ...(entry.skeletons ?? [])])];
          if (entry.skeletons !== undefined && merged.length <= MAX_SEEN) rule.skeletons = merged;
          else ownEntry();
        } else if (rule !== undefined && (rule.seen !== undefined || entry.seen !== undefined)) {
          const merged = [...new Set([...(rule.seen ?? []), ...(entry.seen ?? [])])];
          if (merged.length <= MAX_SEEN && rule.parts !== true && entry.parts !== true) rule.seen = merged;
          else ownEntry();
        }
        continue;
      }
      volatile.push({ selector, ...entry });
      evidence.push({ kind: "volatile", rule: `volatile[${volatile.length - 1}]`, selector, changed: stat.changed, pairs: stat.pairs, shape, reason: `${changedIn}, ${describeShape(shape)}` });
    }
  }
  // Ranked lists ("Most read"): items that change places are compared as a set. After the
  // blocks' own entries: the first entry that selects a block decides, so an item whose numbers
  // move ("233 comments") is compared by its skeleton.
  const seenLists = new Set<string>();
  for (const list of lists.values()) {
    if (seenLists.has(list.selector)) continue;
    seenLists.add(list.selector);
    // A block inside an item of this list (the headline in `li > div`) is compared under this
    // entry: the texts its own list saw count as seen here too.
    let seen = list.seen;
    for (const [inner, { seen: innerSeen }] of listSelectors) if (inner.startsWith(`${list.selector} `)) seen = [...new Set([...seen, ...innerSeen])];
    volatile.push({ selector: list.selector, seen: seen.length <= MAX_SEEN ? seen : list.seen });
    evidence.push({
      kind: "volatile",
      rule: `volatile[${volatile.length - 1}]`,
      selector: list.selector,
      changed: list.changed,
      pairs: pages.length - 1,
      shape: "ranked",
      reason: `items changed places in ${list.changed} of ${pages.length - 1} fetches: a ranked list, compared as a set (a new item is reported)`,
    });
  }
  // Severity by surprise, for pages: a block that shows an amount of money and did not change
  // while learning is rated medium when it does (a price change is never just info).
  const rules: PolicyRule[] = [];
  for (const stat of stats.values()) {
    if (rules.length >= MAX_PRICE_RULES) break;
    if (stat.changed !== 0 || stat.pairs !== pages.length - 1) continue;
    const text = stat.texts[stat.texts.length - 1];
    if (text === undefined || !hasCurrencyAmount(text) || text.length > MAX_PRICE_BLOCK) continue;
    rules.push({ selector: stat.selector, category: "value", op: "replace", severity: "medium" });
    evidence.push({
      kind: "severity",
      rule: `rules[${rules.length - 1}]`,
      selector: stat.selector,
      changed: 0,
      pairs: stat.pairs,
      shape: "price",
      reason: `stable in all ${pages.length} samples and shows a price: a change is rated medium`,
    });
  }
  const policy: PolicySuggestion["policy"] = { rules };
  if (volatile.length > 0) policy.volatile = volatile;
  return { policy, evidence };
}
