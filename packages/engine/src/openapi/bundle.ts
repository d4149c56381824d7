import type { Fetcher, FetchResponse } from "@driftwatch/core";
import { type DocumentLoader, isOpenApiError, loadOpenApi, type OpenApiDocument, OpenApiError, parseOpenApi } from "@driftwatch/openapi";
import type { ComparePool } from "../workers/compare-pool.js";

/**
 * What an `openapi` monitor stores as a snapshot's content: the document as fetched when it has
 * no `$ref` to another document (the common case, readable as is), else a bundle of every
 * document its `$ref`s reach, by URL, so that a later diff compares the versions that were
 * fetched together (and a change in a referenced document alone is a new version).
 */
export interface OpenApiBundle {
  readonly root: string;
  /** The text of every document by URL (without fragment), the root included. */
  readonly documents: Readonly<Record<string, string>>;
}

const BUNDLE_KEY = "x-driftwatch-openapi-bundle";
const BUNDLE_PREFIX = `{"${BUNDLE_KEY}":`;

export function encodeBundle(bundle: OpenApiBundle): string {
  const urls = Object.keys(bundle.documents);
  if (urls.length === 1 && urls[0] === bundle.root) return bundle.documents[bundle.root]!;
  return JSON.stringify({ [BUNDLE_KEY]: 1, root: bundle.root, documents: bundle.documents });
}

/** The bundle a snapshot's content holds (`url`: where a plain document was read from). */
export function decodeBundle(body: string, url: string): OpenApiBundle {
  if (body.startsWith(BUNDLE_PREFIX)) {
    const parsed = JSON.parse(body) as { root: string; documents: Record<string, string> };
    return { root: parsed.root, documents: parsed.documents };
  }
  return { root: url, documents: { [url]: body } };
}

/** Parses a stored snapshot's content (a document or a bundle) into a document, synchronously. */
export function parseStoredDocument(body: string, url: string): OpenApiDocument {
  return parseBundle(decodeBundle(body, url));
}

/** Parses a bundle's documents into a document, synchronously. */
export function parseBundle(bundle: OpenApiBundle): OpenApiDocument {
  const { [bundle.root]: rootText, ...others } = bundle.documents;
  if (rootText === undefined) throw new OpenApiError("invalid_document", "the stored bundle has no root document");
  return parseOpenApi(rootText, { url: bundle.root, documents: others });
}

export interface LoadBundleOptions {
  /** The document's URL (the monitor's, or the response's final URL after redirects). */
  url: string;
  /** The root document as fetched. */
  body: string;
  /** Fetches the documents external `$ref`s point to (the HTTP fetcher, behind its SSRF guard). */
  fetcher: Fetcher;
  /** Sent with requests to the root document's origin only (credentials stay with their host). */
  headers: Record<string, string>;
  signal?: AbortSignal | undefined;
  /**
   * Reads the documents (the compare pool's `readOpenApi`: in a worker thread unless they are
   * small). Without it they are read on the calling thread, whatever their size.
   */
  reader?: Pick<ComparePool, "readOpenApi"> | undefined;
  /** With a reader: keep a document read in a worker thread there (a contract's), under its version key. */
  keep?: boolean;
}

/**
 * Loads an OpenAPI document and the documents its `$ref`s reach within the package's limits:
 * relative `$ref`s (and absolute ones to the same origin) are fetched through `fetcher`, one
 * request per document; a `$ref` to another origin is refused (`external_ref_refused`).
 * Throws an `OpenApiError` with the reason when the document cannot be read.
 */
export async function loadBundle(options: LoadBundleOptions): Promise<{ document: OpenApiDocument | null; key: string | null; bundle: OpenApiBundle }> {
  const root = new URL(options.url);
  root.hash = "";
  const rootUrl = root.href;
  const texts: Record<string, string> = {};
  const loader: DocumentLoader = async (target, maxBytes) => {
    let text: string;
    if (target.href === rootUrl) text = options.body;
    else {
      if (target.origin !== root.origin) {
        throw new OpenApiError("external_ref_refused", `${rootUrl} refers to ${target.href}: only documents of the same origin (${root.origin}) are read`);
      }
      const response = await options.fetcher.fetch({
        url: target.href,
        method: "GET",
        headers: options.headers,
        body: null,
        browserOptions: null,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (response.status < 200 || response.status >= 300) throw new Error(`HTTP ${String(response.status)}`);
      text = response.body;
    }
    if (Buffer.byteLength(text, "utf8") > maxBytes) throw new OpenApiError("too_large", `${target.href} is larger than the ${String(maxBytes)} bytes left for it`);
    texts[target.href] = text;
    return text;
  };
  if (options.reader === undefined) {
    const document = await loadOpenApi(rootUrl, { loader });
    return { document, key: null, bundle: { root: rootUrl, documents: texts } };
  }
  const read = await options.reader.readOpenApi({ url: rootUrl, loader, keep: options.keep === true, signal: options.signal });
  if (!read.ok) throw read.error;
  return { document: read.document, key: read.key, bundle: { root: rootUrl, documents: texts } };
}

/** A reader's sentence for why a document could not be read. */
export function openApiFailure(error: unknown): string {
  if (isOpenApiError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * An `openapi` monitor's response with its body replaced by what the snapshot keeps (the document,
 * or the bundle with the documents its `$ref`s reach), or why the document cannot be read.
 */
export async function bundleResponse(
  response: FetchResponse,
  options: { url: string; fetcher: Fetcher; headers: Record<string, string>; signal?: AbortSignal | undefined; reader?: Pick<ComparePool, "readOpenApi"> | undefined },
): Promise<{ ok: true; response: FetchResponse } | { ok: false; message: string; cause: unknown }> {
  try {
    const { bundle } = await loadBundle({ ...options, url: response.finalUrl === "" ? options.url : response.finalUrl, body: response.body });
    const body = encodeBundle(bundle);
    return { ok: true, response: body === response.body ? response : { ...response, body, size: Buffer.byteLength(body, "utf8") } };
  } catch (cause) {
    if (options.signal?.aborted === true) throw cause;
    return { ok: false, message: `The OpenAPI document cannot be read: ${openApiFailure(cause)}`, cause };
  }
}
