// OpenAPI work that a tenant's or a target's document makes expensive (reading YAML, compiling a
// contract's response schema), as plain data in and out, so that it runs on the calling thread for
// small documents and in a comparison worker thread for the others (issue 30: "nothing a target or
// a tenant sends may block the event loop"). The worker side keeps its own caches.
import type { MessagePort } from "node:worker_threads";
import { type DocumentLoader, isOpenApiError, loadOpenApi, type OpenApiDocument, OpenApiError, type OpenApiErrorCode } from "@driftwatch/openapi";
import type { Contract } from "@driftwatch/schema";
import { OPENAPI_INLINE_YAML_BYTES } from "../limits.js";
import { encodeBundle, openApiFailure, parseStoredDocument } from "./bundle.js";
import { ContractCompiler, documentKey, validateAgainst, type CompiledContract, type Violation, withExcerpts } from "./contract.js";

/**
 * Tells whether OpenAPI texts are cheap enough to read on the calling thread: all of them together
 * up to `OPENAPI_INLINE_YAML_BYTES` (16 KiB), and never over `workerThresholdBytes`. JSON is no
 * exception: reading it is fast, but a diff of two 250 KB JSON documents (1,400 operations whose
 * responses share a changed schema) takes 3 s, and compiling a big response schema is slow too.
 */
export class InlineBudget {
  #bytes = 0;
  readonly #limit: number;
  constructor(workerThresholdBytes: number) {
    this.#limit = Math.min(OPENAPI_INLINE_YAML_BYTES, workerThresholdBytes);
  }

  /** Adds a document's text; false once the texts added so far are to be read in a worker thread. */
  add(text: string): boolean {
    // UTF-16 length: a bound within a factor of 3 of the UTF-8 size, and free to compute
    this.#bytes += text.length;
    return this.inline;
  }

  get inline(): boolean {
    return this.#bytes <= this.#limit;
  }
}

/**
 * Whether stored OpenAPI contents (documents or bundles, `null` for none) are read, compared and
 * checked against on the calling thread (`InlineBudget`; a bundle counts with its wrapping).
 */
export function openApiContentsInline(bodies: readonly (string | null)[], workerThresholdBytes: number): boolean {
  const budget = new InlineBudget(workerThresholdBytes);
  for (const body of bodies) if (body !== null) budget.add(body);
  return budget.inline;
}

/** A request of the worker thread for a document's text (the main thread fetches it, behind the SSRF guard). */
export interface LoaderRequest {
  id: number;
  url: string;
  maxBytes: number;
}
export type LoaderReply = { id: number; text: string } | { id: number; error: { code: OpenApiErrorCode | null; message: string } };

/** `loadOpenApi` in a worker thread: the documents are read through `port` (the main thread's loader). */
export interface ReadOpenApiTask {
  url: string;
  port: MessagePort;
  /** Keep the parsed document in the worker's cache under its version key (a contract's document). */
  keep: boolean;
}

export type ReadOpenApiTaskResult = { ok: true; key: string | null } | { ok: false; code: OpenApiErrorCode | null; message: string };

/** Answers a worker's `LoaderRequest`s on `port` with `loader` (the main thread's side of `readOpenApiTask`). */
export function serveLoader(port: MessagePort, loader: DocumentLoader): void {
  port.on("message", (request: LoaderRequest) => {
    loader(new URL(request.url), request.maxBytes).then(
      (text) => port.postMessage({ id: request.id, text } satisfies LoaderReply),
      (error: unknown) =>
        port.postMessage({
          id: request.id,
          error: { code: isOpenApiError(error) ? error.code : null, message: error instanceof Error ? error.message : String(error) },
        } satisfies LoaderReply),
    );
  });
}

/**
 * Parsed documents a worker thread keeps, by version key (contracts' documents): at most 8, and
 * at most 8 MiB of their texts (a parsed document takes about 8 times its text, more for compact
 * YAML), the newest always kept. The thread's heap is shared with the comparisons it runs.
 */
export const WORKER_DOCUMENTS_KEPT = 8;
export const WORKER_DOCUMENTS_BYTES = 8 * 1024 * 1024;
const documents = new Map<string, { doc: OpenApiDocument; bytes: number }>();
let keptBytes = 0;
const compiler = new ContractCompiler();

function keep(key: string, doc: OpenApiDocument, bytes: number): void {
  const known = documents.get(key);
  if (known !== undefined) {
    documents.delete(key);
    keptBytes -= known.bytes;
  }
  documents.set(key, { doc, bytes });
  keptBytes += bytes;
  while (documents.size > 1 && (documents.size > WORKER_DOCUMENTS_KEPT || keptBytes > WORKER_DOCUMENTS_BYTES)) {
    const [oldest, entry] = documents.entries().next().value!;
    documents.delete(oldest);
    keptBytes -= entry.bytes;
  }
}

/** The worker side of `ComparePool.readOpenApi`: `loadOpenApi` with the texts asked of the main thread. */
export async function readOpenApiTask(task: ReadOpenApiTask): Promise<ReadOpenApiTaskResult> {
  const { port } = task;
  const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  let next = 0;
  port.on("message", (reply: LoaderReply) => {
    const waiting = pending.get(reply.id);
    pending.delete(reply.id);
    if (waiting === undefined) return;
    if ("text" in reply) waiting.resolve(reply.text);
    else waiting.reject(reply.error.code === null ? new Error(reply.error.message) : new OpenApiError(reply.error.code, reply.error.message));
  });
  const texts: Record<string, string> = {};
  const loader: DocumentLoader = async (url, maxBytes) => {
    const text = await new Promise<string>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      port.postMessage({ id, url: url.href, maxBytes } satisfies LoaderRequest);
    });
    texts[url.href] = text;
    return text;
  };
  try {
    const doc = await loadOpenApi(task.url, { loader });
    if (!task.keep) return { ok: true, key: null };
    const content = encodeBundle({ root: task.url, documents: texts });
    const key = documentKey(content);
    keep(key, doc, content.length);
    return { ok: true, key };
  } catch (error) {
    return isOpenApiError(error) ? { ok: false, code: error.code, message: error.message } : { ok: false, code: null, message: openApiFailure(error) };
  } finally {
    port.close();
  }
}

/** What validating a response against a compiled contract found (`validated: false`: the body is not JSON). */
export type ContractValidation = { validated: false } | { validated: true; violations: Violation[]; count: number };

/**
 * A response's contract violations; with `previousBody` (the previous response, validated against
 * the same contract version), only those the previous response did not have.
 */
export function contractViolations(compiled: CompiledContract, docUrl: string, body: string, previousBody: string | null): ContractValidation {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return { validated: false }; // not JSON: the comparison reports it
  }
  const found = validateAgainst(compiled, data, docUrl);
  if (found.count === 0 || previousBody === null) return { validated: true, ...found };
  let before: unknown;
  try {
    before = JSON.parse(previousBody);
  } catch {
    return { validated: true, ...found };
  }
  // only the keys of the previous response's violations are compared: no excerpts made for them
  const had = new Set(validateAgainst(compiled, before, docUrl, { excerpts: false }).violations.map((violation) => violation.key));
  const fresh = withExcerpts(
    found.violations.filter((violation) => !had.has(violation.key)),
    found.violations,
  );
  return { validated: true, violations: fresh, count: fresh.length };
}

/** A contract check in a worker thread: the document (a bundle's texts), the contract and the response. */
export interface ContractTask {
  /** The document version's key (`documentKey`): the worker's caches are by it. */
  key: string;
  /** The document as stored (a document or a bundle, `encodeBundle`) and where it was read from. */
  content: string;
  url: string;
  contract: Contract;
  status: number;
  body: string;
  /** The previous response's body when it was validated against the same contract version. */
  previousBody: string | null;
}

export type ContractTaskResult =
  | { ok: true; validation: ContractValidation }
  /** `document`: the document cannot be read; `contract`: the contract cannot be applied to it. */
  | { ok: false; stage: "document" | "contract"; message: string };

/** Reads (or finds in this thread's cache) the document, compiles the response schema, validates. */
export function contractTask(task: ContractTask): ContractTaskResult {
  let doc = documents.get(task.key)?.doc;
  if (doc === undefined) {
    try {
      doc = parseStoredDocument(task.content, task.url);
    } catch (error) {
      return { ok: false, stage: "document", message: openApiFailure(error) };
    }
  }
  keep(task.key, doc, task.content.length);
  const compiled = compiler.get(task.key, doc, task.contract, task.status);
  if (isOpenApiError(compiled)) return { ok: false, stage: "contract", message: compiled.message };
  return { ok: true, validation: contractViolations(compiled, doc.url, task.body, task.previousBody) };
}
