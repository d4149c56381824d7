import type { CheerioAPI } from "cheerio";
import { loadHtml } from "./cheerio.js";

let probe: CheerioAPI | undefined;
const valid = new Set<string>();

/**
 * Why a CSS selector cannot select anything in a page (it does not parse, or names a pseudo-class
 * the selector engine does not know), or null when it is valid. Checked the way a website diff
 * uses it (cheerio's `find` on an empty document), so a selector accepted here compiles there.
 * Loads the HTML stack on the first call.
 */
export function cssSelectorError(selector: string): string | null {
  if (valid.has(selector)) return null;
  probe ??= loadHtml("");
  try {
    probe.root().find(selector);
  } catch {
    return `not a valid CSS selector: ${JSON.stringify(selector)}`;
  }
  if (valid.size >= 1000) valid.clear();
  valid.add(selector);
  return null;
}
