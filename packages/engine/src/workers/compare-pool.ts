import { MessageChannel } from "node:worker_threads";
import { type DocumentLoader, loadOpenApi, type OpenApiDocument, OpenApiError } from "@driftwatch/openapi";
import { Piscina } from "piscina";
import { type ContractTask, type ContractTaskResult, InlineBudget, openApiContentsInline, type ReadOpenApiTask, type ReadOpenApiTaskResult, serveLoader } from "../openapi/offload.js";
import { type CompareBatchTask, compareContent, compareScreenshots, type CompareResult, type CompareTask, learnContent, type LearnResult, type LearnTask, type VisualResult, type VisualTask } from "./compare.js";
import {
  COMPARE_WORKER_IDLE_MS,
  COMPARE_WORKER_STACK_MB,
  COMPARE_WORKER_YOUNG_GENERATION_MB,
  type CompareLimits,
  DEFAULT_COMPARE_LIMITS,
} from "../limits.js";

export { type CompareLimits, DEFAULT_COMPARE_LIMITS };

/** Codes the pool adds to those of `compareContent`. */
export type ComparePoolErrorCode = "target_too_large" | "analysis_timeout";

export type PooledCompareResult = CompareResult | { ok: false; code: ComparePoolErrorCode; message: string };

export type PooledBatchResult = { ok: true; results: CompareResult[] } | { ok: false; code: ComparePoolErrorCode | "diff_failed"; message: string };

export type PooledReadResult = { ok: true; document: OpenApiDocument | null; key: string | null } | { ok: false; error: Error };

export interface ComparePool {
  /** Compares inline, or in a worker thread for big contents and for rules with filters. Never rejects. */
  compare(task: Omit<CompareTask, "maxDiffChanges" | "maxDiffBytes">): Promise<PooledCompareResult>;
  /**
   * Compares a batch of pairs in one worker thread, never on the calling thread, all within
   * `timeoutMs` (waiting for a free worker included) and one rule step budget. Never rejects.
   */
  compareBatch(task: Omit<CompareBatchTask, "maxDiffChanges" | "maxDiffBytes">, options: { timeoutMs: number }): Promise<PooledBatchResult>;
  /**
   * Learns a noise profile from contents: inline for small ones, in a worker thread above the
   * size threshold (suggestPolicy over ten big documents would hold the event loop). Never rejects.
   */
  learn(task: LearnTask): Promise<LearnResult>;
  /**
   * Compares two PNG screenshots (`diffScreenshots`): inline for small ones, in a worker thread
   * above 1,000,000 pixels (decoding two full-page PNGs takes a second or more). Never rejects: a
   * comparison that fails (too large, not a PNG, out of time) is `ok: false` with its code.
   */
  visual(task: VisualTask): Promise<VisualResult>;
  /**
   * Reads an OpenAPI document and every document its `$ref`s reach (`loadOpenApi`), the texts
   * through `loader` on the calling thread (fetches, behind the SSRF guard): parsed on the calling
   * thread while they are small (`InlineBudget`: 16 KiB in all), else in a worker
   * thread within `compareTimeoutMs` (the fetches of the documents it reaches included). `document`
   * is the parsed document when it was read inline (null otherwise); `key` the version key
   * (`documentKey` of its bundle) when read in a worker with `keep`: the worker keeps the parsed
   * document for `contract` tasks. Never rejects: `ok: false` has the error (an `OpenApiError`
   * with its code when the document cannot be read).
   */
  readOpenApi(task: { url: string; loader: DocumentLoader; keep?: boolean; signal?: AbortSignal | undefined }): Promise<PooledReadResult>;
  /**
   * Checks a response against a contract in a worker thread (reading the document, compiling its
   * response schema, validating), within `compareTimeoutMs`. For contracts whose documents are too
   * big to read inline. Never rejects.
   */
  contract(task: ContractTask): Promise<ContractTaskResult>;
  /** Whether stored OpenAPI contents (documents or bundles) are small enough to read on the calling thread (16 KiB in all, `InlineBudget`). */
  readsInline(contents: readonly (string | null)[]): boolean;
  /** Tasks that ran in worker threads so far (for tests and metrics). */
  readonly offloaded: number;
  /** The caps of a stored diff this pool applies (a check applies them again after adding contract violations). */
  readonly diffCaps?: { readonly maxDiffChanges: number; readonly maxDiffBytes: number };
  close(): Promise<void>;
}

/**
 * The worker file next to this module: `compare-worker.ts` when running from the TypeScript
 * sources (tests), loaded through tsx with the workspace's source condition, or
 * `compare-worker.js` in the build (dist/compare-worker.js, an entry of the tsup build).
 */
function workerEntry(): { filename: string; execArgv: string[] } {
  const here = import.meta.url;
  if (/\.ts$/.test(new URL(here).pathname)) {
    return {
      filename: new URL("./compare-worker.ts", here).href,
      execArgv: ["--import", "tsx", "--conditions=@driftwatch/source"],
    };
  }
  return { filename: new URL("./compare-worker.js", here).href, execArgv: [] };
}

/** Screenshots up to this many pixels (a 1280 x 780 viewport) are compared on the calling thread. */
const VISUAL_INLINE_PIXELS = 1_000_000;

/** Width x height from a PNG's header (0 when it is not one: compared inline, where it fails fast). */
function pixelsOf(png: Uint8Array): number {
  if (png.byteLength < 24) return 0;
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return view.getUint32(16) * view.getUint32(20);
}

function byteSize(text: string | null): number {
  // UTF-16 length is a bound within a factor of 3 of the UTF-8 size, and free to compute.
  return text === null ? 0 : text.length;
}

function poolFailure(error: unknown, timeoutMs: number, memoryMb: number): { ok: false; code: ComparePoolErrorCode | "diff_failed"; message: string } {
  const name = (error as { name?: unknown } | null)?.name;
  const code = (error as { code?: unknown } | null)?.code;
  if (name === "AbortError" || name === "TimeoutError") {
    return { ok: false, code: "analysis_timeout", message: `Comparing the content took longer than ${String(timeoutMs)} ms and was stopped` };
  }
  if (code === "ERR_WORKER_OUT_OF_MEMORY") {
    return { ok: false, code: "target_too_large", message: `Comparing the content needs more than ${String(memoryMb)} MB of memory` };
  }
  return { ok: false, code: "diff_failed", message: `The comparison worker failed: ${error instanceof Error ? error.message : String(error)}` };
}

export function createComparePool(limits: Partial<CompareLimits> = {}): ComparePool {
  const l: CompareLimits = { ...DEFAULT_COMPARE_LIMITS, ...limits };
  let pool: Piscina | undefined;
  let offloaded = 0;

  function getPool(): Piscina {
    if (pool === undefined) {
      const entry = workerEntry();
      pool = new Piscina({
        filename: entry.filename,
        execArgv: entry.execArgv,
        minThreads: 0,
        maxThreads: l.workers,
        idleTimeout: COMPARE_WORKER_IDLE_MS,
        resourceLimits: { maxOldGenerationSizeMb: l.workerMemoryMb, maxYoungGenerationSizeMb: COMPARE_WORKER_YOUNG_GENERATION_MB, stackSizeMb: COMPARE_WORKER_STACK_MB },
      });
      // An error of the pool itself (a worker that failed to start) must not crash the process:
      // the task that needed it rejects and is recorded.
      pool.on("error", () => undefined);
    }
    return pool;
  }

  return {
    diffCaps: { maxDiffChanges: l.maxDiffChanges, maxDiffBytes: l.maxDiffBytes },
    get offloaded() {
      return offloaded;
    },
    async compare(input): Promise<PooledCompareResult> {
      const task: CompareTask = { ...input, maxDiffChanges: l.maxDiffChanges, maxDiffBytes: l.maxDiffBytes };
      const size = Math.max(byteSize(task.body), byteSize(task.previousBody));
      const bodyBytes = Buffer.byteLength(task.body, "utf8");
      if (bodyBytes > l.maxTargetBytes) {
        return { ok: false, code: "target_too_large", message: `The content (${String(bodyBytes)} bytes) is larger than the comparison limit (${String(l.maxTargetBytes)} bytes)` };
      }
      // Filter expressions cost up to their step budget whatever the document's size, so rules
      // with one (a `?` in the path: conservative, a quoted name may hold one too) run off the loop.
      const filters = task.policy.rules.some((rule) => rule.path?.includes("?") === true);
      // OpenAPI documents: read and diffed inline only while small (`InlineBudget`)
      const inline = task.type === "openapi" ? openApiContentsInline([task.body, task.previousBody], l.workerThresholdBytes) : size <= l.workerThresholdBytes;
      if (inline && !filters) return compareContent(task);
      offloaded++;
      try {
        return (await getPool().run(task, { signal: AbortSignal.timeout(l.compareTimeoutMs) })) as CompareResult;
      } catch (error) {
        return poolFailure(error, l.compareTimeoutMs, l.workerMemoryMb);
      }
    },
    async compareBatch(input, options): Promise<PooledBatchResult> {
      const task: CompareBatchTask = { ...input, maxDiffChanges: l.maxDiffChanges, maxDiffBytes: l.maxDiffBytes };
      if (task.pairs.length === 0) return { ok: true, results: [] };
      offloaded++;
      try {
        const results = (await getPool().run(task, { name: "compareBatch", signal: AbortSignal.timeout(options.timeoutMs) })) as CompareResult[];
        return { ok: true, results };
      } catch (error) {
        return poolFailure(error, options.timeoutMs, l.workerMemoryMb);
      }
    },
    async learn(task): Promise<LearnResult> {
      const bytes = task.bodies.reduce((sum, body) => sum + byteSize(body), 0);
      if (bytes <= l.workerThresholdBytes) return learnContent(task);
      offloaded++;
      try {
        return (await getPool().run(task, { name: "learn", signal: AbortSignal.timeout(l.compareTimeoutMs) })) as LearnResult;
      } catch (error) {
        const name = (error as { name?: unknown } | null)?.name;
        const timedOut = name === "AbortError" || name === "TimeoutError";
        // nothing learned: the check goes on with the user's policy
        return { ok: false, samples: task.bodies.length, message: timedOut ? "learning took too long and was stopped" : `the learning worker failed: ${error instanceof Error ? error.message : String(error)}`, expected: timedOut };
      }
    },
    async visual(task): Promise<VisualResult> {
      if (pixelsOf(task.before) <= VISUAL_INLINE_PIXELS && pixelsOf(task.after) <= VISUAL_INLINE_PIXELS) return compareScreenshots(task);
      offloaded++;
      try {
        return (await getPool().run(task, { name: "visual", signal: AbortSignal.timeout(l.compareTimeoutMs) })) as VisualResult;
      } catch (error) {
        const failure = poolFailure(error, l.compareTimeoutMs, l.workerMemoryMb);
        return { ok: false, code: failure.code, message: failure.message };
      }
    },
    async readOpenApi(input): Promise<PooledReadResult> {
      const texts = new Map<string, string>();
      // each document is fetched once, whether it is parsed inline, in a worker, or both
      const cached: DocumentLoader = async (url, maxBytes) => {
        const hit = texts.get(url.href);
        if (hit !== undefined) return hit;
        const text = await input.loader(url, maxBytes);
        texts.set(url.href, text);
        return text;
      };
      const budget = new InlineBudget(l.workerThresholdBytes);
      const tooBig = new Error("the documents are read in a worker thread");
      try {
        const document = await loadOpenApi(input.url, {
          loader: async (url, maxBytes) => {
            const text = await cached(url, maxBytes);
            if (!budget.add(text)) throw tooBig;
            return text;
          },
        });
        return { ok: true, document, key: null };
      } catch (error) {
        if (error !== tooBig && (error as { cause?: unknown } | null)?.cause !== tooBig) return { ok: false, error: error as Error };
      }
      offloaded++;
      const { port1, port2 } = new MessageChannel();
      serveLoader(port1, cached);
      const timeout = AbortSignal.timeout(l.compareTimeoutMs);
      const signal = input.signal === undefined ? timeout : AbortSignal.any([timeout, input.signal]);
      try {
        const task: ReadOpenApiTask = { url: input.url, port: port2, keep: input.keep === true };
        const result = (await getPool().run(task, { name: "readOpenApi", transferList: [port2], signal })) as ReadOpenApiTaskResult;
        if (result.ok) return { ok: true, document: null, key: result.key };
        return { ok: false, error: result.code === null ? new Error(result.message) : new OpenApiError(result.code, result.message) };
      } catch (error) {
        if (input.signal?.aborted === true) return { ok: false, error: error as Error };
        const failure = poolFailure(error, l.compareTimeoutMs, l.workerMemoryMb);
        const message = failure.code === "analysis_timeout" ? `Reading the OpenAPI document took longer than ${String(l.compareTimeoutMs)} ms and was stopped` : failure.message.replace("Comparing the content", "Reading the OpenAPI document");
        return { ok: false, error: new Error(`${failure.code}: ${message}`) };
      } finally {
        port1.close();
      }
    },
    readsInline(contents): boolean {
      return openApiContentsInline(contents, l.workerThresholdBytes);
    },
    async contract(task): Promise<ContractTaskResult> {
      offloaded++;
      try {
        return (await getPool().run(task, { name: "contract", signal: AbortSignal.timeout(l.compareTimeoutMs) })) as ContractTaskResult;
      } catch (error) {
        const failure = poolFailure(error, l.compareTimeoutMs, l.workerMemoryMb);
        const message = failure.code === "analysis_timeout" ? `checking the response took longer than ${String(l.compareTimeoutMs)} ms and was stopped` : failure.message;
        return { ok: false, stage: "contract", message: `${failure.code}: ${message}` };
      }
    },
    async close(): Promise<void> {
      const current = pool;
      pool = undefined;
      if (current !== undefined) await current.destroy();
    },
  };
}
