import { createHash } from "node:crypto";
import type { Fetcher, FetchResponse, MonitorRecord, NewDiff, SnapshotRecord, Store } from "@driftwatch/core";
import { isOpenApiError, type OpenApiDocument } from "@driftwatch/openapi";
import { type Change, maxSeverity } from "@driftwatch/schema";
import { DEFAULT_COMPARE_LIMITS } from "../limits.js";
import { truncateChanges } from "../workers/compare.js";
import type { ComparePool } from "../workers/compare-pool.js";
import { encodeBundle, loadBundle, openApiFailure, parseStoredDocument } from "./bundle.js";
import { ContractCompiler, documentKey, shareExcerpts, type Violation } from "./contract.js";
import { type ContractValidation, contractViolations } from "./offload.js";

/** How long a contract document read from a URL is used before it is fetched again. */
export const CONTRACT_DOCUMENT_TTL_MS = 5 * 60_000;
/** Parsed contract documents kept (by URL or stored version), most recently used. */
export const CONTRACT_DOCUMENTS_KEPT = 32;
/** Monitors whose last contract version is remembered (the oldest forgotten first: they report all their violations again once). */
export const CONTRACT_MONITORS_KEPT = 10_000;
/** Bytes of a response validated at most: a bigger body is not validated (the check says so). */
export const MAX_VALIDATED_BYTES = 8 * 1024 * 1024;

interface LoadedDocument {
  /** The parsed document, or null when it is too big to read on this thread (then checks run in the pool). */
  readonly doc: OpenApiDocument | null;
  /** The document as stored (a document or a bundle) and where it was read from: a worker thread reads it again. */
  readonly content: string;
  readonly url: string;
  /** A hash of the version (the compiled schemas' cache key). */
  readonly key: string;
  readonly at: number;
}

export interface ContractCheckerOptions {
  store: Store;
  /** Reads contract documents given by URL (the HTTP fetcher: its SSRF guard applies). */
  fetcher: Fetcher;
  now?: () => Date;
  /** Compiled response schemas kept (default 64). */
  maxCompiled?: number;
  /**
   * The compare pool: documents too big to read on the calling thread are read, and checks
   * against them run, in its worker threads. Without it everything runs on the calling thread.
   */
  compare?: Pick<ComparePool, "readOpenApi" | "contract" | "readsInline"> | undefined;
}

/** The violations of one response, or why its contract could not be applied. */
export type ContractOutcome = { ok: true; violations: Violation[]; count: number } | { ok: false; message: string };

/**
 * Validates an `api` monitor's responses against its contract. Documents are read once per
 * `CONTRACT_DOCUMENT_TTL_MS` (URL) or once per stored version (`openapi` monitor); response
 * schemas are compiled once per document version, operation and status, within bounds.
 */
export class ContractChecker {
  readonly #options: ContractCheckerOptions;
  readonly #documents = new Map<string, LoadedDocument>();
  /** The contract (document version, operation, status) each monitor's last response was validated against. */
  readonly #lastContract = new Map<string, string>();
  readonly compiler: ContractCompiler;

  constructor(options: ContractCheckerOptions) {
    this.#options = options;
    this.compiler = new ContractCompiler(options.maxCompiled === undefined ? {} : { maxEntries: options.maxCompiled });
  }

  #remember(key: string, loaded: LoadedDocument): void {
    this.#documents.delete(key);
    this.#documents.set(key, loaded);
    while (this.#documents.size > CONTRACT_DOCUMENTS_KEPT) this.#documents.delete(this.#documents.keys().next().value!);
  }

  async #document(monitor: MonitorRecord, signal: AbortSignal | undefined): Promise<LoadedDocument> {
    const contract = monitor.contract!;
    const now = (this.#options.now ?? (() => new Date()))().getTime();
    if (typeof contract.document === "string") {
      const url = contract.document;
      const cached = this.#documents.get(`url:${url}`);
      if (cached !== undefined && now - cached.at < CONTRACT_DOCUMENT_TTL_MS) return cached;
      const response = await this.#options.fetcher.fetch({ url, method: "GET", body: null, browserOptions: null, ...(signal ? { signal } : {}) });
      if (response.status < 200 || response.status >= 300) throw new Error(`the contract document ${url} answered HTTP ${String(response.status)}`);
      const pool = this.#options.compare;
      const { document, key, bundle } = await loadBundle({ url: response.finalUrl === "" ? url : response.finalUrl, body: response.body, fetcher: this.#options.fetcher, headers: {}, signal, reader: pool, keep: true });
      const content = encodeBundle(bundle);
      const loaded = { doc: document, content, url: bundle.root, key: key ?? documentKey(content), at: now };
      this.#remember(`url:${url}`, loaded);
      return loaded;
    }
    const source = await this.#options.store.getMonitor(monitor.orgId, contract.document.monitorId);
    if (source === null || source.type !== "openapi") throw new Error(`the contract's openapi monitor ${contract.document.monitorId} no longer exists`);
    const snapshot = await this.#options.store.getLatestSnapshot(monitor.orgId, source.id);
    if (snapshot?.body == null) throw new Error(`the contract's openapi monitor ${source.id} has no document yet (no successful check)`);
    const cacheKey = `snapshot:${snapshot.contentHash}:${source.url}`;
    const cached = this.#documents.get(cacheKey);
    if (cached !== undefined) return cached;
    const pool = this.#options.compare;
    const inline = pool === undefined || pool.readsInline([snapshot.body]);
    const loaded = { doc: inline ? parseStoredDocument(snapshot.body, source.url) : null, content: snapshot.body, url: source.url, key: snapshot.contentHash, at: now };
    this.#remember(cacheKey, loaded);
    return loaded;
  }

  /**
   * The contract violations of `response` that `previous` (the monitor's newest snapshot) did not
   * have: a violation is reported by the first check whose response has it.
   */
  async check(monitor: MonitorRecord, response: FetchResponse, previous: SnapshotRecord | null, signal?: AbortSignal): Promise<ContractOutcome> {
    if (monitor.contract == null) return { ok: true, violations: [], count: 0 };
    if (response.size > MAX_VALIDATED_BYTES) return { ok: true, violations: [], count: 0 };
    let loaded: LoadedDocument;
    try {
      loaded = await this.#document(monitor, signal);
    } catch (error) {
      if (signal?.aborted === true) throw error;
      return { ok: false, message: `The contract's OpenAPI document cannot be read: ${openApiFailure(error)}` };
    }
    // the previous response was validated against this same contract version (by this process):
    // only what it did not have is new. Otherwise (a new document version, a restart) all is reported.
    const contractKey = `${loaded.key}\u0000${JSON.stringify(monitor.contract)}`;
    const sameContract = this.#lastContract.get(monitor.id) === contractKey;
    const previousBody = sameContract && previous?.body != null && previous.status === response.status ? previous.body : null;
    let validation: ContractValidation;
    if (loaded.doc === null) {
      const result = await this.#options.compare!.contract({
        key: loaded.key,
        content: loaded.content,
        url: loaded.url,
        contract: monitor.contract,
        status: response.status,
        body: response.body,
        previousBody,
      });
      if (!result.ok) {
        return { ok: false, message: result.stage === "document" ? `The contract's OpenAPI document cannot be read: ${result.message}` : `The contract cannot be applied: ${result.message}` };
      }
      validation = result.validation;
    } else {
      const compiled = this.compiler.get(loaded.key, loaded.doc, monitor.contract, response.status);
      if (isOpenApiError(compiled)) return { ok: false, message: `The contract cannot be applied: ${compiled.message}` };
      validation = contractViolations(compiled, loaded.doc.url, response.body, previousBody);
    }
    if (!validation.validated) return { ok: true, violations: [], count: 0 }; // not JSON: the comparison reports it
    this.#lastContract.delete(monitor.id);
    this.#lastContract.set(monitor.id, contractKey);
    while (this.#lastContract.size > CONTRACT_MONITORS_KEPT) this.#lastContract.delete(this.#lastContract.keys().next().value!);
    return { ok: true, violations: validation.violations, count: validation.count };
  }
}

/**
 * A check's diff with the new contract violations added: appended to the content's diff (its
 * top severity and fingerprint cover them), or a diff of their own (`contract_violation`) when
 * the content's diff is empty, the first check's included. The stored diff's caps (`caps`, 1000
 * changes and 1 MB by default) apply to the whole: past them it lists the first changes that fit
 * (the violations first) and says `truncated: true`; counts, fingerprint and top severity cover all.
 */
export function withViolations(
  diff: NewDiff | null,
  violations: readonly Violation[],
  base: { id: string; previousSnapshotId: string | null; requestId: string; status: number; latencyMs: number; createdAt: string },
  caps: { maxChanges: number; maxBytes: number } = { maxChanges: DEFAULT_COMPARE_LIMITS.maxDiffChanges, maxBytes: DEFAULT_COMPARE_LIMITS.maxDiffBytes },
): NewDiff | null {
  if (violations.length === 0) return diff;
  const changes: Change[] = shareExcerpts(violations.map((violation) => violation.change));
  const hash = createHash("sha256");
  hash.update(diff?.diffFingerprint ?? "");
  for (const violation of violations) hash.update(`\u0001${violation.key}`);
  const fingerprint = `sha256:${hash.digest("hex")}`;
  const top = maxSeverity(changes.map((change) => change.severity))!;
  if (diff === null) {
    const capped = truncateChanges(changes, caps.maxChanges, caps.maxBytes);
    return {
      ...base,
      classification: "contract_violation",
      schemaChanges: changes.length,
      valueChanges: 0,
      topSeverity: top,
      diffFingerprint: fingerprint,
      changes: capped.changes,
      ...(capped.truncated ? { truncated: true as const } : {}),
    };
  }
  if (diff.classification === "content_change") return diff;
  const capped = truncateChanges([...changes, ...diff.changes], caps.maxChanges, caps.maxBytes);
  return {
    ...diff,
    changes: capped.changes,
    ...(capped.truncated || diff.truncated === true ? { truncated: true as const } : {}),
    topSeverity: maxSeverity([diff.topSeverity, top])!,
    diffFingerprint: fingerprint,
  };
}
