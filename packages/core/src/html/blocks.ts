import { seenKey, textSkeleton } from "../learn/shapes.js";
import { ANY_VALUE, isPlain, type VolatileMode, volatileSelects } from "../policy/volatile.js";
import type { AnyNode, Element } from "domhandler";
import { isElement } from "./selectors.js";

/**
 * Elements that start a text block of their own: the HTML block-level and table elements, list
 * items, options and the title. Everything else (span, a, b, em, label, button, custom
 * elements...) is inline: its text belongs to the block around it.
 */
export const BLOCK_TAGS: ReadonlySet<string> = new Set([
  "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog",
  "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
  "h4", "h5", "h6", "head", "header", "hgroup", "hr", "html", "legend", "li", "listing", "main",
  "menu", "nav", "ol", "optgroup", "option", "p", "plaintext", "pre", "search", "section", "summary",
  "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "ul", "xmp",
]);

/** Elements whose content is not page text: dropped with everything inside them. */
export const DROPPED_TAGS: ReadonlySet<string> = new Set(["script", "style", "noscript", "template", "iframe"]);

const INLINE = 0;
const BLOCK = 1;
const DROPPED = 2;
const BREAK = 3;
const kinds = new Map<string, number>();

/** How a tag takes part in the text: one map lookup per element instead of several set lookups. */
function tagKind(name: string): number {
  let kind = kinds.get(name);
  if (kind === undefined) {
    kind = DROPPED_TAGS.has(name) ? DROPPED : BLOCK_TAGS.has(name) ? BLOCK : name === "br" || name === "wbr" ? BREAK : INLINE;
    // Tag names come from pages; keep the cache bounded.
    if (kinds.size < 10_000) kinds.set(name, kind);
  }
  return kind;
}

export interface TextBlock {
  /** The block element (the scope root for text directly inside it). */
  element: Element;
  /** Its own text, whitespace-normalised: text inside nested blocks is not part of it. */
  text: string;
  /**
   * What the diff compares: the text with volatile parts replaced by a marker and the built-in
   * normalisations applied (the text itself when there are none).
   */
  key: string;
  /** Index of the `volatile` entry that covers the block or part of its text, or -1. */
  volatile: number;
}

/** How `collectTextBlocks` derives comparison keys. */
export interface BlockKeyOptions {
  /** Elements matched by `volatile` selectors, with the entry's index. */
  volatile?: ReadonlyMap<AnyNode, number>;
  /** How each `volatile` entry (by index) hides a block's text; a plain entry hides any text. */
  modes?: ReadonlyMap<number, VolatileMode>;
  /**
   * For an element whose first entry lists `skeletons`: the entries after it that select the
   * element, in order, tried when an entry does not select the block's text (see `volatileSelects`).
   */
  later?: ReadonlyMap<AnyNode, readonly number[]>;
  /** Applied to every key (linear-time normalisation of obviously volatile text). */
  normalize?: (text: string) => string;
}

/**
 * The comparison key of a block inside a volatile element: the marker alone for a plain entry; the
 * marker and the text's skeleton for `parts`; for `seen`, the marker when the text was seen before
 * (a rotation), else the text itself, which differs from any other and so is reported.
 */
function volatileKey(index: number, text: string, mode: VolatileMode | undefined): string {
  if (mode === undefined || mode === ANY_VALUE || isPlain(mode)) return volatileMarker(index);
  if (mode.seen !== undefined && mode.seen.has(seenKey(text))) return volatileMarker(index);
  if (mode.parts) return `${volatileMarker(index)}${textSkeleton(text)}`;
  return text;
}

/** The comparison key of a block whose element is inside a volatile element. */
function volatileMarker(index: number): string {
  return `\u0001volatile[${index}]\u0001`;
}

// Runs of white space (with NBSP and the other Unicode spaces that `\s` covers) and zero-width
// spaces collapse to one space, as a browser renders them.
const WHITESPACE = /[\s\u200b]+/g;

// Text that already reads as rendered: no white space but single inner spaces.
const NEEDS_NORMALIZING = /[^\S ]|\u200b| {2}|^ | $/;
const HAS_CONTENT = /[^\s\u200b]/;

export function normalizeText(text: string): string {
  if (!HAS_CONTENT.test(text)) return "";
  return NEEDS_NORMALIZING.test(text) ? text.replace(WHITESPACE, " ").trim() : text;
}

/**
 * The text blocks under `roots`, in document order (of the blocks' opening tags). Each root is a
 * block itself whatever its tag; `ignored` elements are dropped with their content. Iterative,
 * so documents nested thousands of levels deep do not overflow the stack.
 */
export function collectTextBlocks(roots: readonly AnyNode[], ignored: ReadonlySet<AnyNode>, keyOptions: BlockKeyOptions = {}): TextBlock[] {
  const checkIgnored = ignored.size > 0;
  const volatileElements = keyOptions.volatile !== undefined && keyOptions.volatile.size > 0 ? keyOptions.volatile : undefined;
  const elements: Element[] = [];
  const texts: string[] = [];
  // With volatile elements: the comparison text of each block (volatile inline text replaced by
  // a marker), the volatile entry covering each block, and each node's inherited entry.
  const keys: string[] = [];
  const blockVolatile: number[] = [];
  const partVolatile: number[] = [];
  const volatileStack: number[] = [];
  const nodeStack: AnyNode[] = [];
  const blockStack: number[] = [];
  for (let r = roots.length - 1; r >= 0; r--) {
    nodeStack.push(roots[r]!);
    blockStack.push(-2); // -2: a scope root, which opens a block if it is an element
    if (volatileElements) volatileStack.push(-1);
  }
  while (nodeStack.length > 0) {
    const node = nodeStack.pop()!;
    let block = blockStack.pop()!;
    let inVolatile = volatileElements ? volatileStack.pop()! : -1;
    if (node.type === "text") {
      if (block >= 0) {
        const data = (node as unknown as { data: string }).data;
        texts[block] += data;
        if (volatileElements && inVolatile < 0) keys[block] += data;
      }
      continue;
    }
    let children: AnyNode[];
    if (isElement(node)) {
      const kind = tagKind(node.name);
      if (kind === DROPPED || (checkIgnored && ignored.has(node))) continue;
      let entering = -1;
      if (volatileElements && inVolatile < 0) {
        const index = volatileElements.get(node);
        if (index !== undefined) entering = inVolatile = index;
      }
      if (block === -2 || kind === BLOCK) {
        // A nested block interrupts the text of the block around it, as a line break would.
        if (block >= 0) {
          texts[block] += " ";
          if (volatileElements) keys[block] += " ";
        }
        block = elements.length;
        elements.push(node);
        texts.push("");
        if (volatileElements) {
          keys.push("");
          blockVolatile.push(inVolatile);
          partVolatile.push(inVolatile);
        }
      } else if (kind === BREAK) {
        if (block >= 0) {
          texts[block] += " ";
          if (volatileElements) keys[block] += " ";
        }
        continue;
      } else if (entering >= 0 && block >= 0) {
        // Volatile inline text: its presence counts (the marker), its words do not.
        keys[block] += ` ${volatileMarker(entering)} `;
        if (partVolatile[block]! < 0) partVolatile[block] = entering;
      }
      children = node.children;
    } else if (node.type === "root") {
      children = (node as unknown as { children: AnyNode[] }).children;
      if (block === -2) block = -1;
    } else {
      continue; // comments, doctypes, processing instructions, CDATA
    }
    for (let c = children.length - 1; c >= 0; c--) {
      nodeStack.push(children[c]!);
      blockStack.push(block);
      if (volatileElements) volatileStack.push(inVolatile);
    }
  }
  const normalize = keyOptions.normalize;
  const blocks: TextBlock[] = [];
  for (let i = 0; i < elements.length; i++) {
    const own = texts[i]!;
    if (own === "") continue;
    const text = normalizeText(own);
    if (text === "") continue;
    let key = text;
    let volatile = -1;
    let covered = false;
    if (volatileElements) {
      volatile = partVolatile[i]!;
      let entry = blockVolatile[i]!;
      if (entry >= 0) {
        const modes = keyOptions.modes;
        // an entry with `skeletons` that does not select this text: the next entry selecting the
        // element itself does, or none (the text is compared as usual)
        if (modes?.get(entry)?.skeletons !== undefined && !volatileSelects(modes.get(entry)!, text)) {
          const next = volatileElements.get(elements[i]!) === entry ? keyOptions.later?.get(elements[i]!) : undefined;
          entry = next?.find((index) => volatileSelects(modes.get(index)!, text)) ?? -1;
          volatile = entry;
        }
      }
      if (entry >= 0) {
        key = volatileKey(entry, text, keyOptions.modes?.get(entry));
        covered = true;
      } else if (volatile >= 0 && blockVolatile[i]! < 0) key = normalizeText(keys[i]!);
    }
    if (normalize !== undefined && !covered) key = normalize(key);
    blocks.push({ element: elements[i]!, text, key, volatile });
  }
  return blocks;
}
