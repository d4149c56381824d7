// HTML histories from a real saved page: the page is the target at fetch 0; noise is applied the
// way real sites produce it, found by RULES on the page (never picked per page):
// - a list of 3 to 15 plain items (the first such `<ul>`/`<ol>`, headline-like items preferred)
//   is a ranked list that reorders;
// - numbers in sentences next to counting words ("12 comments", "340 shares", "5 people") move;
//   relative times ("3 minutes ago") tick;
// - a rotating block (promo bar, testimonial) cycles over texts taken from the page's own
//   headings and links, so its texts recur;
// - by the history's hash, some of: a footer with an RFC 1123 time and a request id, a sentence
//   with a percentage that moves ("86% of readers found this helpful"), a session UUID in visible
//   text, a coarse "Updated HH:MM" clock that moves every k fetches.
// Meaningful changes: the first heading changed (info) and, later, corrected (info) - a block
// that changed once while learning and again later; a paragraph edited once without recurring
// (info); a paragraph removed (info); an item added to a list (info); a price in the text
// changed (medium) when the page shows one.
import type { Label } from "./corpus.js";
import type { WorldHistory } from "./world.js";
import { between, choose, type Rng, rngFor, shuffle, token, uuidOf } from "./world-rng.js";

export const WORLD_HTML_FETCHES = 10;
const STEP_MS = 5 * 60_000;
const T0 = Date.UTC(2026, 10, 20, 8, 0, 0);

const ENTITIES: Record<string, string> = { nbsp: " ", amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", rsquo: "\u2019", lsquo: "\u2018", rdquo: "\u201d", ldquo: "\u201c", mdash: "\u2014", ndash: "\u2013", hellip: "\u2026" };

const textOf = (html: string): string =>
  html
    .replace(/<[^>]*>/g, " ")
    .replace(/&#x([0-9a-f]+);/gi, (_m, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&([a-z]+);/gi, (m, n: string) => ENTITIES[n.toLowerCase()] ?? m)
    .replace(/[\s\u00a0]+/g, " ")
    .trim();

/** A few plain consecutive words of a text: what `where` looks for in a block's text. */
function phraseOf(text: string): string {
  const words = text.split(" ");
  const plain = (w: string | undefined): boolean => w !== undefined && /^[\p{L}\p{N}]+[,.]?$/u.test(w);
  for (let i = 0; i + 4 <= words.length; i++) if (words.slice(i, i + 4).every(plain)) return words.slice(i, i + 4).join(" ");
  return words.filter(plain).sort((a, b) => b.length - a.length)[0] ?? text;
}

interface PageState {
  /** The page with `\u0000LIST\u0000` where the ranked list's items go. */
  html: string;
  items: string[];
  counters: { at: string; value: number }[];
}

type Meaningful = Extract<Label, { kind: "meaningful" }>;

interface Event {
  label: Meaningful;
  apply: (s: PageState) => boolean;
}

const LIST = "\u0000LIST\u0000";
const COUNTING = /\b(\d{1,3}(?:,\d{3})*|\d+)(\s+(?:comments?|shares?|views?|likes?|reads?|responses?|replies|points?|followers?|people|readers?|votes?|reviews?))\b/gi;

function firstMatch(re: RegExp, html: string, accept: (m: RegExpExecArray) => boolean): RegExpExecArray | null {
  const g = new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`);
  for (let m = g.exec(html); m !== null; m = g.exec(html)) if (accept(m)) return m;
  return null;
}

function replaceAt(html: string, m: RegExpExecArray, replacement: string): string {
  return html.slice(0, m.index) + replacement + html.slice(m.index + m[0].length);
}

export function htmlWorldHistory(name: string, page: string, origin: "real" | "generated", fetches = WORLD_HTML_FETCHES): WorldHistory {
  const rng = rngFor(name);
  let html = page;
  // The ranked list: the first list of 3..15 items without nested lists.
  let items: string[] = [];
  // The ranked list: the first list of 3..15 distinct items without nested lists, preferring one
  // whose items read like headlines (25+ characters on average: "Most read", related stories).
  const rankable = (long: boolean) => (m: RegExpExecArray): boolean => {
    const inner = m[2]!;
    if (/<(ul|ol)\b/i.test(inner)) return false;
    const lis = inner.match(/<li\b[\s\S]*?<\/li>/gi) ?? [];
    const texts = lis.map(textOf);
    const ok = lis.length >= 3 && lis.length <= 15 && new Set(texts).size === lis.length && texts.every((text) => text.length > 0);
    return ok && (!long || texts.join("").length / texts.length >= 25);
  };
  const LISTS = /<(ul|ol)\b[^>]*>([\s\S]*?)<\/\1>/i;
  const list = firstMatch(LISTS, html, rankable(true)) ?? firstMatch(LISTS, html, rankable(false));
  if (list) {
    items = list[2]!.match(/<li\b[\s\S]*?<\/li>/gi)!;
    html = replaceAt(html, list, list[0].replace(list[2]!, LIST));
  }
  // Counters in sentences.
  const counters: PageState["counters"] = [];
  html = html.replace(COUNTING, (_m, n: string, rest: string) => {
    const at = `\u0000C${counters.length}\u0000`;
    counters.push({ at, value: Number(n.replaceAll(",", "")) });
    return `${at}${rest}`;
  });

  // A page without counts of its own may show some under its headline (a site's template).
  if (counters.length === 0 && rng() < 0.5) {
    const m = /<\/h1>|<\/h2>/i.exec(html);
    if (m) {
      counters.push({ at: "\u0000C0\u0000", value: between(rng, 3, 400) }, { at: "\u0000C1\u0000", value: between(rng, 10, 9000) });
      html = `${html.slice(0, m.index + m[0].length)}<p class="social">\u0000C0\u0000 comments · \u0000C1\u0000 shares</p>${html.slice(m.index + m[0].length)}`;
    }
  }
  // Injected by the site's templates, chosen by the hash.
  const rotatingTexts = [...new Set((html.match(/<(h2|h3|a)\b[^>]*>([^<]{12,80})<\/\1>/gi) ?? []).map(textOf))].slice(0, 12);
  const pool = rotatingTexts.length >= 3 ? shuffle(rng, rotatingTexts).slice(0, between(rng, 3, 4)) : ["Free shipping on every order this week", "Subscribe and save ten percent today", "Download our app for the full experience"];
  const footer = rng() < 0.7;
  const helpful = rng() < 0.5;
  const session = rng() < 0.35;
  const coarse = choose(rng, [1, 2, 3]);
  const clockLine = rng() < 0.5;
  const rotating = rng() < 0.8;

  const state: PageState = { html, items, counters };
  const events = new Map<number, Event>();

  // Headline: changed while learning, corrected later.
  const HEADLINE = /<(h1|h2|title)\b([^>]*)>([\s\S]*?)<\/\1>/i;
  const headline = (m: RegExpExecArray): boolean => {
    const text = textOf(m[3]!);
    return text.length >= 8 && text.length <= 200 && !m[3]!.includes("\u0000");
  };
  const h = firstMatch(/<(h1|h2)\b([^>]*)>([\s\S]*?)<\/\1>/i, html, headline) ?? firstMatch(/<(title)\b([^>]*)>([\s\S]*?)<\/\1>/i, html, headline);
  if (h) {
    const original = textOf(h[3]!);
    const changed = `${phraseOf(original)}: ${choose(rng, ["what we know so far", "live updates", "an update"])}`;
    const corrected = `${changed.replace(/: /, " - ")} (corrected)`;
    const setHeadline = (s: PageState, from: string, to: string): boolean => {
      const m = firstMatch(HEADLINE, s.html, (x) => textOf(x[3]!) === from);
      if (!m) return false;
      s.html = replaceAt(s.html, m, `<${m[1]}${m[2]}>${to}</${m[1]}>`);
      return true;
    };
    events.set(3, { label: { kind: "meaningful", what: "headline changed (while learning)", minSeverity: "info", where: changed }, apply: (s) => setHeadline(s, original, changed) });
    events.set(fetches - 3, { label: { kind: "meaningful", what: "headline corrected", minSeverity: "info", where: "(corrected)" }, apply: (s) => setHeadline(s, changed, corrected) });
  }
  // The main change.
  const paragraphs = [...html.matchAll(/<p\b[^>]*>([^<\u0000]{60,600})<\/p>/gi)];
  const price = firstMatch(/([$€£])(\d{1,5})(\.\d{2})\b/, html, (m) => !html.slice(Math.max(0, m.index - 1), m.index).includes("\u0000"));
  const mains: (() => Event | null)[] = [
    () => {
      const p = paragraphs[Math.floor(paragraphs.length / 2)];
      if (!p) return null;
      const text = textOf(p[1]!);
      const phrase = phraseOf(text);
      return { label: { kind: "meaningful", what: "paragraph removed", minSeverity: "info", where: phrase }, apply: (s) => (s.html.includes(p[0]) ? ((s.html = s.html.replace(p[0], "")), true) : false) };
    },
    () => {
      const p = paragraphs[Math.floor(paragraphs.length / 3)];
      if (!p) return null;
      const added = `This paragraph was revised on ${choose(rng, ["Monday", "Tuesday", "Friday"])} to add a clarification`;
      return { label: { kind: "meaningful", what: "paragraph edited once", minSeverity: "info", where: "was revised on" }, apply: (s) => (s.html.includes(p[0]) ? ((s.html = s.html.replace(p[0], p[0].replace("</p>", ` ${added}.</p>`))), true) : false) };
    },
    () => {
      if (items.length === 0) return null;
      const text = `New entry ${token(rng, "lower36", 4)} added to the list`;
      return { label: { kind: "meaningful", what: "list item added", minSeverity: "info", where: text }, apply: (s) => (s.items.push(`<li>${text}</li>`), true) };
    },
    () => {
      if (!price) return null;
      const next = `${price[1]}${Number(price[2]) + between(rng, 1, 9)}${price[3] ?? ""}`;
      return {
        label: { kind: "meaningful", what: "price changed", minSeverity: "medium", where: next },
        apply: (s) => {
          const at = s.html.indexOf(price[0]);
          if (at < 0) return false;
          s.html = s.html.slice(0, at) + next + s.html.slice(at + price[0].length);
          return true;
        },
      };
    },
  ];
  // Every page can get a notice: added near the top (info), removed at the end (info).
  const notice = `Notice: our opening hours change from ${choose(rng, ["March", "June", "October"])} ${between(rng, 1, 28)}`;
  const noticeAt = (s: PageState): number => {
    const m = /<\/h1>|<\/header>|<body\b[^>]*>/i.exec(s.html);
    return m ? m.index + m[0].length : -1;
  };
  mains.push(() => ({
    label: { kind: "meaningful", what: "notice added", minSeverity: "info", where: notice },
    apply: (s) => {
      const at = noticeAt(s);
      if (at < 0) return false;
      s.html = `${s.html.slice(0, at)}<p class="notice">${notice}</p>${s.html.slice(at)}`;
      return true;
    },
  }));
  const start = Math.floor(rng() * (mains.length - 1));
  for (let k = 0; k < mains.length; k++) {
    const event = mains[(start + k) % mains.length]!();
    if (event) {
      events.set(6, event);
      break;
    }
  }
  // A second change late in the history: another kind than the main one.
  for (let k = 1; k < mains.length; k++) {
    const event = mains[(start + k + 1) % mains.length]!();
    if (event && event.label.where !== events.get(6)?.label.where) {
      events.set(fetches - 1, event);
      break;
    }
  }

  const sessionId = uuidOf(rng);
  const snapshots: unknown[] = [];
  const labels: Label[] = [];
  let promo = between(rng, 0, pool.length - 1);
  let percent = between(rng, 60, 95);
  for (let t = 0; t < fetches; t++) {
    const now = T0 + t * STEP_MS;
    for (const c of state.counters) c.value += rng() < 0.7 ? between(rng, 1, 12) : 0;
    const event = events.get(t);
    if (t > 0) labels.push(event && event.apply(state) ? event.label : { kind: "noise" });
    promo = (promo + between(rng, 1, pool.length - 1)) % pool.length;
    percent = Math.min(99, Math.max(50, percent + choose(rng, [-2, -1, 1, 2, 3])));
    const listed = [...state.items];
    if (rng() < 0.5) shuffle(rng, listed);
    let out = state.html.replace(LIST, listed.join(""));
    for (const c of state.counters) out = out.replace(c.at, c.value.toLocaleString("en-US"));
    const top: string[] = [];
    if (rotating) top.push(`<div class="promo-bar"><p>${pool[promo]}</p></div>`);
    if (clockLine) top.push(`<p class="updated">Updated ${new Date(T0 + Math.floor(t / coarse) * coarse * STEP_MS).toISOString().slice(11, 16)} UTC</p>`);
    if (session) top.push(`<p class="session">Your session: ${t === 0 ? sessionId : uuidOf(rng)}</p>`);
    const bottom: string[] = [];
    if (helpful) bottom.push(`<p class="helpful">${percent}% of readers found this helpful</p>`);
    if (footer) bottom.push(`<footer class="page-footer"><p>Served ${new Date(now + between(rng, 0, 9) * 1000).toUTCString()} · request ${token(rng, "hex", 16)}</p></footer>`);
    out = out.replace(/<body\b[^>]*>/i, (b) => `${b}${top.join("")}`);
    out = /<\/body>/i.test(out) ? out.replace(/<\/body>/i, `${bottom.join("")}</body>`) : `${out}${bottom.join("")}`;
    snapshots.push(out);
  }
  const classes = [items.length > 0 && "ranked-list", counters.length > 0 && "numbers-in-sentences", rotating && "rotating-block", clockLine && (coarse > 1 ? "coarse-clock" : "clock"), session && "session-uuid", helpful && "percent-in-sentence", footer && "footer-time-and-request-id"];
  return { name, kind: "html", origin, noise: classes.filter((c): c is string => typeof c === "string").sort(), snapshots, labels };
}
