import type { BrowserOptionsInput } from "@driftwatch/core";
import type { BrowserFetcher, InspectExtras, InspectResult } from "./types.js";

export type { InspectedElement, InspectResult } from "./types.js";

/** Most elements an inspection lists. */
export const MAX_INSPECTED_ELEMENTS = 2000;

/**
 * Evaluated in the page: the visible block-level elements that have text, with a unique selector
 * each (built like core's PageSelectors: unique `#id`, else `tag:nth-of-type(n)` steps, or
 * `:nth-child(n)` for tag names a type selector cannot spell), their document box and text.
 */
export const INSPECT_ELEMENTS = `(() => {
  const MAX = ${String(MAX_INSPECTED_ELEMENTS)};
  const SIMPLE_TAG = /^[a-z][a-z0-9-]*$/;
  const BLOCK = new Set(["block", "flex", "grid", "list-item", "table", "flow-root", "table-row", "table-cell", "table-caption"]);
  const SKIP = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "title", "svg", "iframe", "html"]);
  const idCounts = new Map();
  for (const el of document.querySelectorAll("[id]")) idCounts.set(el.id, (idCounts.get(el.id) || 0) + 1);
  const cache = new Map();
  const stepOf = (el) => {
    const name = el.localName;
    const parent = el.parentElement;
    if (parent === null) return name;
    let nth = 0, ofType = 0;
    for (const sibling of parent.children) {
      nth++;
      if (sibling.localName === name) ofType++;
      if (sibling === el) break;
    }
    return SIMPLE_TAG.test(name) ? name + ":nth-of-type(" + ofType + ")" : ":nth-child(" + nth + ")";
  };
  const anchorOf = (el) => {
    if (el.id !== "" && idCounts.get(el.id) === 1) return "#" + CSS.escape(el.id);
    if (el === document.body || el === document.documentElement || el === document.head) return el.localName;
    return null;
  };
  const selectorOf = (el) => {
    const steps = [];
    for (let current = el; current !== null; current = current.parentElement) {
      const cached = cache.get(current);
      if (cached !== undefined) { steps.push(cached); break; }
      const anchor = anchorOf(current);
      if (anchor !== null) { steps.push(anchor); break; }
      steps.push(stepOf(current));
    }
    const selector = steps.reverse().join(" > ");
    cache.set(el, selector);
    return selector;
  };
  const out = [];
  if (document.body === null) return out;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT);
  for (let el = walker.currentNode; el !== null && out.length < MAX; el = walker.nextNode()) {
    if (SKIP.has(el.localName)) continue;
    const style = getComputedStyle(el);
    if (!BLOCK.has(style.display) || style.visibility !== "visible" || Number(style.opacity) === 0) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) continue;
    const text = (el.innerText || "").replace(/\\s+/g, " ").trim();
    if (text === "") continue;
    const selector = selectorOf(el);
    if (document.querySelectorAll(selector).length !== 1) continue;
    out.push({
      selector,
      box: { x: Math.round(rect.left + scrollX), y: Math.round(rect.top + scrollY), width: Math.round(rect.width), height: Math.round(rect.height) },
      text: text.length > 200 ? text.slice(0, 199) + "\\u2026" : text,
    });
  }
  return out;
})()`;

/**
 * Renders `url` in the fetcher's browser (its steps included) and lists its visible block
 * elements with unique selectors and their boxes on the full-page screenshot.
 */
export function inspectPage(
  fetcher: BrowserFetcher,
  url: string,
  browserOptions?: BrowserOptionsInput | null,
  extras?: InspectExtras,
): Promise<InspectResult> {
  return fetcher.inspect(url, browserOptions, extras);
}
