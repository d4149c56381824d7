// cheerio and the parse5 tree adapter, loaded on first use: the HTML stack (cheerio, parse5,
// htmlparser2, entities, encodings) costs a process about 20 MB of memory, which a server that
// checks only JSON APIs, or an embedder that never diffs a page, should not pay. `require` keeps
// the loading synchronous (diffHtml, learning and tracking are synchronous functions); both
// packages ship a CommonJS build.
import { createRequire } from "node:module";
import type * as Cheerio from "cheerio";
import type * as TreeAdapter from "parse5-htmlparser2-tree-adapter";

export type HtmlTreeAdapter = typeof TreeAdapter.adapter;

let requireHere: NodeJS.Require | undefined;
let cheerio: typeof Cheerio | undefined;
let treeAdapter: HtmlTreeAdapter | undefined;

function load<T>(name: string): T {
  // The CommonJS build has `__filename`; the ESM build (and the sources) `import.meta.url`.
  requireHere ??= createRequire(typeof __filename === "string" ? __filename : import.meta.url);
  return requireHere(name) as T;
}

/** cheerio's `load`, the module loaded on the first call. */
export function loadHtml(...args: Parameters<typeof Cheerio.load>): ReturnType<typeof Cheerio.load> {
  cheerio ??= load<typeof Cheerio>("cheerio");
  return cheerio.load(...args);
}

/** parse5-htmlparser2-tree-adapter's adapter, the module loaded on the first call. */
export function htmlparser2Adapter(): HtmlTreeAdapter {
  treeAdapter ??= load<typeof TreeAdapter>("parse5-htmlparser2-tree-adapter").adapter;
  return treeAdapter;
}
