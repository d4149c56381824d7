import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import { OpenApiError } from "./errors.js";
import { type OpenApiLimits, resolveLimits } from "./limits.js";

/** A JSON object as parsed from a document. */
export type JsonObject = { [key: string]: unknown };

/**
 * An OpenAPI 3.0 or 3.1 document, with every document its external `$ref`s reach. `$ref`s are
 * not replaced (cycles stay cheap and renamed targets stay recognisable); `resolveRef` follows them.
 */
export interface OpenApiDocument {
  /** "3.0" or "3.1" (3.2 documents are read as 3.1). */
  readonly version: "3.0" | "3.1";
  /** The `openapi` field as written. */
  readonly openapi: string;
  /** Where the root document was read from (a `file:`, `http(s):` or `memory:` URL). */
  readonly url: string;
  /** The root document. */
  readonly root: JsonObject;
  /** Every document by URL (without fragment), the root included. */
  readonly documents: ReadonlyMap<string, unknown>;
  readonly limits: OpenApiLimits;
}

/** Reads the text of a document that a `$ref` points to (a file, or a URL behind an SSRF guard). */
export type DocumentLoader = (url: URL, maxBytes: number) => Promise<string>;

export interface ParseOptions {
  /** The URL the document was read from, used to resolve relative `$ref`s (default `memory:/openapi`). */
  readonly url?: string;
  readonly limits?: Partial<OpenApiLimits>;
  /**
   * `parseOpenApi` only: the texts of other documents, by URL (without fragment), that external
   * `$ref`s may point to (read earlier, e.g. a bundle kept by a monitor); a `$ref` to any other
   * document is refused. The limits on documents and bytes apply to them too.
   */
  readonly documents?: Readonly<Record<string, string>>;
}

export interface LoadOptions extends ParseOptions {
  /** Reads documents that external `$ref`s point to. Without it, an external `$ref` is refused. */
  readonly loader?: DocumentLoader;
}

const DEFAULT_URL = "memory:/openapi";

/** Parses one document's text (JSON or YAML) into data, within the limits. */
export function parseDocumentText(text: string, where: string, limits: OpenApiLimits): unknown {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > limits.maxDocumentBytes) {
    throw new OpenApiError("too_large", `${where} is ${bytes} bytes, more than the limit of ${limits.maxDocumentBytes}`);
  }
  const trimmed = text.trimStart();
  let data: unknown;
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      data = JSON.parse(text) as unknown;
    } catch (jsonError) {
      data = parseYamlText(text, where, limits, jsonError);
    }
  } else data = parseYamlText(text, where, limits, undefined);
  checkDepth(data, where, limits);
  return data;
}

// yaml is loaded on the first YAML document (about 7 MB of a process's memory that a server whose
// monitors never read YAML should not pay; issue 26). `require` keeps parsing synchronous; yaml
// ships CommonJS. The CommonJS build has `__filename`; the ESM build (and the sources) `import.meta.url`.
let yaml: typeof Yaml | undefined;
function loadYaml(): typeof Yaml {
  yaml ??= createRequire(typeof __filename === "string" ? __filename : import.meta.url)("yaml") as typeof Yaml;
  return yaml;
}

// `yaml.parse`, in two steps, so that the work of building the data can be bounded before it is
// done: merge keys (`<<: *a`) copy the merged map, deeply, at every place (yaml's `maxAliasCount`
// counts them, but not their size; issue 30).
function parseYamlText(text: string, where: string, limits: OpenApiLimits, jsonError: unknown): unknown {
  const refuse = (error: unknown): OpenApiError => {
    const reason = jsonError instanceof Error ? jsonError.message : (error as Error).message;
    return new OpenApiError("invalid_document", `${where} is neither JSON nor YAML: ${firstLine(reason)}`, { cause: error });
  };
  const y = loadYaml();
  countYamlNodes(y, text, where, limits);
  let doc: Yaml.Document;
  try {
    doc = y.parseDocument(text, { uniqueKeys: false, merge: true });
  } catch (error) {
    throw refuse(error);
  }
  if (doc.errors.length > 0) throw refuse(doc.errors[0]);
  checkYamlWork(y, doc, where, limits);
  try {
    return doc.toJS({ maxAliasCount: limits.maxAliases }) as unknown;
  } catch (error) {
    throw refuse(error);
  }
}

// Tokens that open a node of yaml's syntax tree (a scalar, a collection, an entry, an alias).
const YAML_NODE_TOKENS = new Set<string>([
  "scalar", "single-quoted-scalar", "double-quoted-scalar", "block-scalar-header",
  "flow-map-start", "flow-seq-start", "seq-item-ind", "map-value-ind", "explicit-key-ind", "alias",
]);

/**
 * Counts the nodes of a YAML text with yaml's lexer (streaming, a fraction of the parser's time,
 * no syntax tree kept) and refuses beyond `maxYamlNodes` (`too_complex`) before the parser builds
 * its tree: about 800 bytes of heap per node, so 32 MiB of `- {a: 1}` lines would need several
 * GB (issue 30).
 */
function countYamlNodes(y: typeof Yaml, text: string, where: string, limits: OpenApiLimits): void {
  let nodes = 0;
  for (const token of new y.Lexer().lex(text)) {
    const type = y.CST.tokenType(token);
    if (type !== null && YAML_NODE_TOKENS.has(type) && ++nodes > limits.maxYamlNodes) {
      throw new OpenApiError("too_complex", `${where} has more than ${limits.maxYamlNodes} YAML nodes`);
    }
  }
}

/**
 * The values `toJS` will create for a YAML document, counted on its syntax tree before they are
 * created, and refused beyond `maxNodes` (`too_complex`). Counted as `checkDepth` counts them (one
 * per collection and one per entry); a plain alias is shared, not copied, so it costs nothing; a
 * merge key costs twice its source (yaml converts the source again, then copies its keys). Each
 * node's cost is computed once, so this is linear in the size of the tree.
 */
function checkYamlWork(y: typeof Yaml, doc: Yaml.Document, where: string, limits: OpenApiLimits): void {
  const anchors = new Map<string, Yaml.Node>();
  const costs = new Map<Yaml.Node, number>();
  const tooComplex = (): OpenApiError =>
    new OpenApiError("too_complex", `${where} would build more than ${limits.maxNodes} values (YAML merge keys copy their source at every use)`);
  const tooDeep = (): OpenApiError => new OpenApiError("too_deep", `${where} nests deeper than ${limits.maxDepth} levels (merge keys included)`);
  // in document order, so that an alias finds the anchor written last before it, as yaml does
  const cost = (node: unknown, depth: number): number => {
    if (!y.isNode(node)) return 0;
    if (node.anchor !== undefined && node.anchor !== null) anchors.set(node.anchor, node);
    if (!y.isCollection(node)) return 0; // scalars and aliases
    const known = costs.get(node);
    if (known !== undefined) return known;
    if (depth > limits.maxDepth) throw tooDeep();
    costs.set(node, 0); // a merge of a map into itself: yaml refuses it
    let total = 1;
    for (const item of node.items) {
      total += 1;
      if (y.isPair(item)) {
        total += cost(item.key, depth + 1);
        if (isMergeKey(y, item.key)) {
          const sources = y.isSeq(item.value) ? item.value.items : [item.value];
          for (const source of sources) {
            const target = y.isAlias(source) ? anchors.get(source.source) : source;
            total += 2 * (y.isAlias(source) ? (costs.get(target as Yaml.Node) ?? cost(target, depth + 1)) : cost(source, depth + 1));
          }
        } else total += cost(item.value, depth + 1);
      } else total += cost(item, depth + 1);
      if (total > limits.maxNodes) throw tooComplex();
    }
    costs.set(node, total);
    return total;
  };
  if (cost(doc.contents, 0) > limits.maxNodes) throw tooComplex();
}

function isMergeKey(y: typeof Yaml, key: unknown): boolean {
  return y.isScalar(key) && (key.value === "<<" || (typeof key.value === "symbol" && key.value.description === "<<"));
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? text;
  return line.length > 200 ? `${line.slice(0, 200)}...` : line;
}

interface Frame {
  readonly value: object;
  readonly children: unknown[];
  index: number;
  height: number;
}

/**
 * Checks a parsed document's nesting depth and bounds the work of walking it. Each distinct object
 * is walked once and its height memoised: an object shared through YAML aliases (one wide object
 * aliased hundreds of times) costs once, not at every place it appears (issue 30). The work, the
 * entries of every distinct object, is bounded by `maxNodes` (`too_complex`). Iterative, so a
 * hostile nesting cannot overflow the stack before the limit says no; an alias that contains
 * itself (a cyclic document) ends as too deep.
 */
function checkDepth(data: unknown, where: string, limits: Pick<OpenApiLimits, "maxDepth" | "maxNodes">): void {
  if (data === null || typeof data !== "object") return;
  const { maxDepth, maxNodes } = limits;
  const tooDeep = (): OpenApiError => new OpenApiError("too_deep", `${where} nests deeper than ${maxDepth} levels (or an alias contains itself)`);
  const heights = new WeakMap<object, number>();
  const onPath = new WeakSet<object>();
  const stack: Frame[] = [];
  let nodes = 0;
  // `stack.length` is the depth of the value entered (the root is at depth 0)
  const enter = (value: object): void => {
    if (stack.length > maxDepth) throw tooDeep();
    const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
    nodes += 1 + children.length;
    if (nodes > maxNodes) {
      throw new OpenApiError("too_complex", `${where} has more than ${maxNodes} values (objects shared through YAML aliases count once)`);
    }
    onPath.add(value);
    stack.push({ value, children, index: 0, height: 0 });
  };
  enter(data);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.index < frame.children.length) {
      const child = frame.children[frame.index++];
      if (child === null || typeof child !== "object") continue;
      const known = heights.get(child);
      if (known === undefined) {
        if (onPath.has(child)) throw tooDeep();
        enter(child);
        continue;
      }
      // the child sits at depth `stack.length`; its deepest value `known` levels below
      if (stack.length + known > maxDepth) throw tooDeep();
      if (known + 1 > frame.height) frame.height = known + 1;
      continue;
    }
    stack.pop();
    onPath.delete(frame.value);
    heights.set(frame.value, frame.height);
    const parent = stack[stack.length - 1];
    if (parent !== undefined && frame.height + 1 > parent.height) parent.height = frame.height + 1;
  }
}

/** Reads the version of a parsed root document, refusing Swagger 2.0 and anything but 3.0/3.1. */
export function openApiVersion(data: unknown, where: string): { version: "3.0" | "3.1"; openapi: string } {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new OpenApiError("invalid_document", `${where} is not an OpenAPI document (not an object)`);
  }
  const doc = data as JsonObject;
  if (typeof doc.swagger === "string" || typeof doc.swagger === "number") {
    throw new OpenApiError(
      "swagger_2_unsupported",
      `${where} is Swagger ${String(doc.swagger)}; only OpenAPI 3.0 and 3.1 are read: convert it first (e.g. with swagger2openapi)`,
    );
  }
  // `openapi: 3.1` without quotes is a YAML number
  const openapi = typeof doc.openapi === "number" ? (Number.isInteger(doc.openapi) ? `${doc.openapi}.0` : String(doc.openapi)) : doc.openapi;
  if (typeof openapi !== "string") {
    throw new OpenApiError("invalid_document", `${where} has no "openapi" version field`);
  }
  if (/^3\.0(\.|$)/.test(openapi)) return { version: "3.0", openapi };
  if (/^3\.[12](\.|$)/.test(openapi)) return { version: "3.1", openapi };
  throw new OpenApiError("unsupported_version", `${where} is OpenAPI ${openapi}; only 3.0 and 3.1 are read`);
}

/** Parses a document without external `$ref`s (synchronous; an external `$ref` is refused). */
export function parseOpenApi(input: string | JsonObject, options: ParseOptions = {}): OpenApiDocument {
  const limits = resolveLimits(options.limits);
  const url = options.url ?? DEFAULT_URL;
  const data = typeof input === "string" ? parseDocumentText(input, url, limits) : input;
  if (typeof input !== "string") checkDepth(data, url, limits);
  const { version, openapi } = openApiVersion(data, url);
  const documents = new Map<string, unknown>([[url, data]]);
  const texts = options.documents ?? {};
  let totalBytes = typeof input === "string" ? Buffer.byteLength(input, "utf8") : 0;
  const queue: Array<[string, unknown]> = [[url, data]];
  const refs = new Map<string, Set<string>>();
  while (queue.length > 0) {
    const [from, value] = queue.shift()!;
    const seen = new Set<string>();
    refs.set(from, seen);
    for (const target of collectRefs(value, from, limits, seen)) {
      if (documents.has(target)) continue;
      const text = Object.hasOwn(texts, target) ? texts[target] : undefined;
      if (text === undefined) {
        throw new OpenApiError("external_ref_refused", `${from} refers to ${target}; give a loader to read other documents`);
      }
      if (documents.size >= limits.maxDocuments) {
        throw new OpenApiError("too_many_documents", `$refs reach more than ${limits.maxDocuments} documents`);
      }
      totalBytes += Buffer.byteLength(text, "utf8");
      if (totalBytes > limits.maxTotalBytes) throw new OpenApiError("too_large", `the documents together exceed ${limits.maxTotalBytes} bytes`);
      const parsed = parseDocumentText(text, target, limits);
      documents.set(target, parsed);
      queue.push([target, parsed]);
    }
  }
  const doc: OpenApiDocument = { version, openapi, url, root: data as JsonObject, documents, limits };
  checkRefs(doc, refs);
  return doc;
}

/**
 * Loads a document and every document its `$ref`s reach through `loader`, within the limits
 * (bytes per document and in total, number of documents); cycles between documents are fine.
 */
export async function loadOpenApi(url: string | URL, options: LoadOptions = {}): Promise<OpenApiDocument> {
  const limits = resolveLimits(options.limits);
  const loader = options.loader;
  if (loader === undefined) throw new OpenApiError("external_ref_refused", "loadOpenApi needs a loader");
  const rootUrl = stripFragment(String(url));
  const documents = new Map<string, unknown>();
  let totalBytes = 0;
  const queue = [rootUrl];
  const refs = new Map<string, Set<string>>();
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (documents.has(next)) continue;
    if (documents.size >= limits.maxDocuments) {
      throw new OpenApiError("too_many_documents", `$refs reach more than ${limits.maxDocuments} documents`);
    }
    let text: string;
    try {
      text = await loader(new URL(next), Math.min(limits.maxDocumentBytes, limits.maxTotalBytes - totalBytes));
    } catch (error) {
      if (error instanceof OpenApiError) throw error;
      throw new OpenApiError("load_failed", `cannot read ${next}: ${(error as Error).message}`, { cause: error });
    }
    totalBytes += Buffer.byteLength(text, "utf8");
    if (totalBytes > limits.maxTotalBytes) {
      throw new OpenApiError("too_large", `the documents together exceed ${limits.maxTotalBytes} bytes`);
    }
    const data = parseDocumentText(text, next, limits);
    documents.set(next, data);
    const seen = new Set<string>();
    refs.set(next, seen);
    for (const target of collectRefs(data, next, limits, seen)) if (!documents.has(target)) queue.push(target);
  }
  const root = documents.get(rootUrl);
  const { version, openapi } = openApiVersion(root, rootUrl);
  const doc: OpenApiDocument = { version, openapi, url: rootUrl, root: root as JsonObject, documents, limits };
  checkRefs(doc, refs);
  return doc;
}

function stripFragment(url: string): string {
  const hash = url.indexOf("#");
  return hash === -1 ? url : url.slice(0, hash);
}

/** Every `$ref` string in a document, each visited once. */
function forEachRef(data: unknown, visit: (ref: string, holder: JsonObject) => void): void {
  const stack: unknown[] = [data];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== "object" || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === "object") stack.push(item);
      continue;
    }
    const object = value as JsonObject;
    if (typeof object.$ref === "string") visit(object.$ref, object);
    for (const key of Object.keys(object)) {
      // examples and extensions are data, not schema: a "$ref" key inside them is a value
      if (key === "example" || key === "examples" || key.startsWith("x-")) continue;
      const child = object[key];
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
}

/**
 * The documents (URLs without fragment) that the `$ref`s of one document point to, itself
 * excluded; every distinct `$ref` string of the document is added to `refs` (for `checkRefs`).
 */
function collectRefs(data: unknown, base: string, limits: OpenApiLimits, refs: Set<string>): Set<string> {
  const targets = new Set<string>();
  forEachRef(data, (ref) => {
    refs.add(ref);
    if (ref.startsWith("#")) return;
    let target: string;
    try {
      target = stripFragment(new URL(ref, base).href);
    } catch {
      throw new OpenApiError("unresolved_ref", `${base}: $ref ${JSON.stringify(ref)} is not a valid URL`);
    }
    if (target !== base) targets.add(target);
    if (targets.size > limits.maxDocuments) {
      throw new OpenApiError("too_many_documents", `${base} refers to more than ${limits.maxDocuments} documents`);
    }
  });
  return targets;
}

// Every $ref must point somewhere: a diff over a dangling reference would silently compare nothing.
// `refs`: the distinct `$ref` strings of each document, in the order of `doc.documents`.
function checkRefs(doc: OpenApiDocument, refs: ReadonlyMap<string, ReadonlySet<string>>): void {
  for (const url of doc.documents.keys()) {
    for (const ref of refs.get(url) ?? []) {
      deref(doc, resolveRef(doc, url, ref)); // also refuses a chain of $refs that loops
    }
  }
}

/** Where a value lives: the document URL and the JSON pointer inside it. */
export interface Location {
  readonly doc: string;
  readonly pointer: string;
  readonly value: unknown;
}

/**
 * Resolved `$ref`s by document, base and `$ref` string: a document does not change once read,
 * and a diff follows the same few hundred `$ref`s many thousand times.
 */
const resolved = new WeakMap<OpenApiDocument, Map<string, Map<string, Location>>>();

/** Follows one `$ref` from the document at `base`; throws `unresolved_ref` when it points nowhere. */
export function resolveRef(doc: OpenApiDocument, base: string, ref: string): Location {
  let byBase = resolved.get(doc);
  if (byBase === undefined) resolved.set(doc, (byBase = new Map()));
  let byRef = byBase.get(base);
  if (byRef === undefined) byBase.set(base, (byRef = new Map()));
  let location = byRef.get(ref);
  if (location === undefined) {
    location = resolveRefUncached(doc, base, ref);
    byRef.set(ref, location);
  }
  return location;
}

function resolveRefUncached(doc: OpenApiDocument, base: string, ref: string): Location {
  let target: string;
  let fragment: string;
  if (ref.startsWith("#")) {
    target = base;
    fragment = ref.slice(1);
  } else {
    const url = new URL(ref, base);
    fragment = url.hash.startsWith("#") ? url.hash.slice(1) : "";
    target = stripFragment(url.href);
  }
  fragment = safeDecode(fragment);
  const document = doc.documents.get(target);
  if (document === undefined) throw new OpenApiError("unresolved_ref", `$ref ${JSON.stringify(ref)} in ${base}: ${target} was not loaded`);
  if (fragment !== "" && !fragment.startsWith("/")) {
    throw new OpenApiError("unresolved_ref", `$ref ${JSON.stringify(ref)} in ${base}: only JSON pointer fragments are supported`);
  }
  let value: unknown = document;
  for (const raw of fragment === "" ? [] : fragment.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (value !== null && typeof value === "object" && Object.hasOwn(value, token)) {
      value = (value as Record<string, unknown>)[token];
    } else {
      throw new OpenApiError("unresolved_ref", `$ref ${JSON.stringify(ref)} in ${base} points nowhere`);
    }
  }
  return { doc: target, pointer: fragment, value };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a malformed escape: keep the fragment as written
  }
}

/** Follows `$ref` chains from a location until a value without `$ref`, within `maxDepth` hops. */
export function deref(doc: OpenApiDocument, location: Location): Location {
  let current = location;
  for (let hops = 0; ; hops++) {
    const value = current.value;
    if (value === null || typeof value !== "object" || typeof (value as JsonObject).$ref !== "string") return current;
    if (hops >= doc.limits.maxDepth) {
      throw new OpenApiError("too_deep", `a $ref chain from ${location.doc}#${location.pointer} is longer than ${doc.limits.maxDepth} hops (or a cycle)`);
    }
    current = resolveRef(doc, current.doc, (value as JsonObject).$ref as string);
  }
}

/** Appends a token to a JSON pointer. */
export function childPointer(pointer: string, token: string | number): string {
  return `${pointer}/${String(token).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}
