import { load } from "cheerio";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffHtml, htmlTextBlocks } from "../src/index.js";
import { longestCommonSubsequence } from "../src/html/lcs.js";

// Random pages (nested blocks and inline elements, repeated texts, unique and duplicated ids,
// ids that need escaping) and random edits of them. The parser may restructure invalid nesting;
// every selector is checked against the page as cheerio parses it.

interface Node {
  tag: string;
  id: string | undefined;
  children: Array<Node | string>;
}

const TAGS = ["div", "p", "span", "ul", "li", "section", "b", "em", "h2", "article", "td"];
const IDS = ["a", "b", "main", "x.y", "1st", "with space"];
const TEXTS = ["alpha", "beta", "gamma", "alpha beta", " delta ", "\u00a0", "epsilon\nzeta"];

const nodeArb: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.record({
    tag: fc.constantFrom(...TAGS),
    id: fc.option(fc.constantFrom(...IDS), { nil: undefined, freq: 3 }),
    children: fc.array(fc.oneof({ depthSize: "small", withCrossShrink: true }, fc.constantFrom(...TEXTS), tie("node")), { maxLength: 4 }),
  }),
})).node;

const editArb = fc.tuple(fc.integer({ min: 0, max: 2 }), fc.nat(), fc.constantFrom(...TEXTS, "new text", "other"));

function render(node: Node | string): string {
  if (typeof node === "string") return node.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const id = node.id === undefined ? "" : ` id="${node.id}"`;
  return `<${node.tag}${id}>${node.children.map(render).join("")}</${node.tag}>`;
}

function page(nodes: Node[]): string {
  return `<!doctype html><html><head><title>t</title></head><body>${nodes.map(render).join("")}</body></html>`;
}

function clone(node: Node): Node {
  return { tag: node.tag, id: node.id, children: node.children.map((c) => (typeof c === "string" ? c : clone(c))) };
}

/** Applies edits to a copy: change a text, remove a child, insert a paragraph. */
function edit(nodes: Node[], edits: Array<[number, number, string]>): Node[] {
  const root: Node = { tag: "body", id: undefined, children: nodes.map(clone) };
  for (const [kind, at, text] of edits) {
    const parents: Node[] = [];
    const stack = [root];
    while (stack.length > 0) {
      const n = stack.pop()!;
      parents.push(n);
      for (const c of n.children) if (typeof c !== "string") stack.push(c);
    }
    const parent = parents[at % parents.length]!;
    const i = parent.children.length === 0 ? 0 : at % parent.children.length;
    if (kind === 0 && typeof parent.children[i] === "string") parent.children[i] = text;
    else if (kind === 1 && parent.children.length > 0) parent.children.splice(i, 1);
    else parent.children.splice(i, 0, { tag: "p", id: undefined, children: [text] });
  }
  return root.children.filter((c): c is Node => typeof c !== "string");
}

/** LCS length of two text sequences (the LCS itself is checked against the O(nm) programme in html-lcs.test.ts). */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  const ids = new Map<string, number>();
  const intern = (texts: readonly string[]): number[] =>
    texts.map((t) => {
      if (!ids.has(t)) ids.set(t, ids.size);
      return ids.get(t)!;
    });
  return longestCommonSubsequence(intern(a), intern(b)).length / 2;
}

describe("diffHtml properties", () => {
  it("diffHtml(a, a) is null and every block selector selects exactly its element", () => {
    fc.assert(
      fc.property(fc.array(nodeArb, { maxLength: 5 }), (nodes) => {
        const html = page(nodes);
        expect(diffHtml(html, html)).toBeNull();
        const $ = load(html);
        for (const block of htmlTextBlocks(html)) {
          const selected = $(block.selector);
          expect(selected.length, block.selector).toBe(1);
          expect((selected[0] as { name?: string }).name).toBe(block.tag);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("changes resolve in the right page, counts add up, and the unchanged blocks are a longest common subsequence", () => {
    fc.assert(
      fc.property(fc.array(nodeArb, { minLength: 1, maxLength: 5 }), fc.array(editArb, { minLength: 1, maxLength: 4 }), (nodes, edits) => {
        const before = page(nodes);
        const after = page(edit(nodes, edits));
        const oldBlocks = htmlTextBlocks(before);
        const newBlocks = htmlTextBlocks(after);
        const oldTexts = oldBlocks.map((b) => b.text);
        const newTexts = newBlocks.map((b) => b.text);
        // the blocks compared in order (a list whose items changed places, which two text edits can
        // make, is otherwise compared as a set: html-noise.test.ts)
        const inOrder = { policy: { normalize: { listOrder: false } } };
        const result = diffHtml(before, after, inOrder);
        if (result === null) {
          expect(newTexts).toEqual(oldTexts);
          return;
        }
        const { additions, removals, modifications } = result.summary;
        expect(additions + removals + modifications).toBe(result.changes.length);
        expect(oldTexts.length - removals - modifications).toBe(lcsLength(oldTexts, newTexts));
        expect(oldTexts.length - removals + additions).toBe(newTexts.length);
        expect(result.changedTargets).toEqual([...new Set(result.changes.map((c) => c.path))]);
        const $old = load(before);
        const $new = load(after);
        for (const change of result.changes) {
          const [$, blocks, text] = change.op === "remove" ? [$old, oldBlocks, change.before] : [$new, newBlocks, change.after];
          expect($(change.path).length, change.path).toBe(1);
          expect(blocks.find((b) => b.selector === change.path)?.text).toBe(text);
          if (change.op === "replace") expect(change.before).not.toBe(change.after);
        }
        expect(diffHtml(before, after, inOrder)?.diffFingerprint).toBe(result.diffFingerprint);
      }),
      { numRuns: 400 },
    );
  });
});
