import { ConnectionError, DriftwatchApiError, DriftwatchClientError, TimeoutError } from "./errors.js";

/**
 * The API version this client speaks (`driftwatch-version`). Kept here rather than imported from
 * @driftwatch/schema so the browser bundle carries no zod; a test keeps the two equal.
 */
export const API_VERSION = "2026-11-01";

/** `fetch`'s `credentials`: whether cookies are sent. */
export type FetchCredentials = "include" | "same-origin" | "omit";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Where the API lives, e.g. `http://127.0.0.1:8080` (without `/api`). */
  baseUrl: string;
  /**
   * A bearer token (`dw_...`). Leave it out in a browser signed in with a cookie session (then set
   * `credentials` and `csrfToken`), or to call only the public routes (setup, sign-in, invites).
   */
  token?: string;
  /** Passed to `fetch` as `credentials`: `"include"` or `"same-origin"` sends the session cookie. */
  credentials?: FetchCredentials;
  /**
   * The session's CSRF token (from sign-in, setup, invite acceptance or `auth.me()`), read before
   * each write: sent as `x-driftwatch-csrf` on every request other than GET and HEAD when no
   * bearer token is set. Return null when there is none (signed out).
   */
  csrfToken?: () => string | null;
  /** A `fetch` implementation; defaults to the global one. */
  fetch?: FetchLike;
  /** Per-attempt timeout. Default 60 s. */
  timeoutMs?: number;
  /** Retries of connection errors, 408, 429 and 5xx. Default 2. */
  maxRetries?: number;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Pins the API version (`driftwatch-version`). */
  apiVersion?: string;
}

export interface RequestOptions {
  /** Overrides the client's retries for this call. */
  maxRetries?: number;
  timeoutMs?: number;
  /** For POSTs: your own idempotency key (one is generated per call otherwise). */
  idempotencyKey?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** The header that carries the CSRF token of a cookie session on writes. */
export const CSRF_HEADER = "x-driftwatch-csrf";

export interface FinalRequest {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | boolean | undefined | null> | undefined;
  body?: unknown;
  options?: RequestOptions | undefined;
  /** `bytes`: the answer is an image or other binary body, resolved as `{ type, data }` (default: JSON). */
  responseType?: "json" | "bytes";
}

/** A binary answer (a screenshot): its content type and bytes. */
export interface BinaryBody {
  type: string;
  data: Uint8Array;
}

/** What `withResponse()` gives besides the data. */
export interface ResponseMeta {
  response: Response;
  requestId: string | null;
}

/**
 * A promise of the parsed body that can also give the raw response and its request id:
 * `const { data, requestId } = await client.monitors.get(id).withResponse()`.
 */
export class APIPromise<T> implements PromiseLike<T> {
  readonly #result: Promise<{ data: T } & ResponseMeta>;

  constructor(result: Promise<{ data: T } & ResponseMeta>) {
    this.#result = result;
    // the caller may only use withResponse(): keep an unobserved rejection from crashing
    this.#result.catch(() => undefined);
  }

  withResponse(): Promise<{ data: T } & ResponseMeta> {
    return this.#result;
  }

  then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#result.then((r) => r.data).then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.then(undefined, onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally ?? undefined);
  }
}

const RETRYABLE_STATUS = (status: number): boolean => status === 408 || status === 429 || status >= 500;
const MAX_BACKOFF_MS = 8_000;
const INITIAL_BACKOFF_MS = 500;

function newIdempotencyKey(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
}

/** Milliseconds the server asked us to wait (`retry-after-ms`, `Retry-After` seconds or date), if any. */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get("retry-after");
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Exponential back-off with full jitter between 75 % and 100 % of the step. */
export function backoffDelay(retry: number, random: () => number = Math.random): number {
  const step = Math.min(INITIAL_BACKOFF_MS * 2 ** retry, MAX_BACKOFF_MS);
  return step * (0.75 + random() * 0.25);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export class HttpCore {
  readonly baseUrl: string;
  readonly #token: string | undefined;
  readonly #credentials: FetchCredentials | undefined;
  readonly #csrfToken: (() => string | null) | undefined;
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #headers: Record<string, string>;
  /** Injectable for tests. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void> = sleep;

  constructor(options: ClientOptions) {
    if (!options || typeof options.baseUrl !== "string" || options.baseUrl === "") {
      throw new DriftwatchClientError("invalid_options", "new Driftwatch({ baseUrl, token }): baseUrl is required");
    }
    if (options.token !== undefined && (typeof options.token !== "string" || options.token === "")) {
      throw new DriftwatchClientError("invalid_options", "new Driftwatch({ baseUrl, token }): token must be a non-empty string (or left out for a cookie session)");
    }
    if (options.csrfToken !== undefined && typeof options.csrfToken !== "function") {
      throw new DriftwatchClientError("invalid_options", "new Driftwatch({ csrfToken }): csrfToken must be a function returning the token or null");
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#token = options.token;
    this.#credentials = options.credentials;
    this.#csrfToken = options.csrfToken;
    const f = options.fetch ?? (globalThis.fetch as FetchLike | undefined);
    if (!f) throw new DriftwatchClientError("invalid_options", "no fetch implementation: pass options.fetch");
    // Called unbound: a browser's fetch throws "Illegal invocation" when called as a method of
    // another object (here, this class).
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#maxRetries = options.maxRetries ?? 2;
    this.#headers = { ...(options.headers ?? {}) };
    if (options.apiVersion) this.#headers["driftwatch-version"] = options.apiVersion;
  }

  request<T>(req: FinalRequest): APIPromise<T> {
    return new APIPromise(this.#run<T>(req));
  }

  buildUrl(path: string, query?: FinalRequest["query"]): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  async #run<T>(req: FinalRequest): Promise<{ data: T } & ResponseMeta> {
    const options = req.options ?? {};
    const maxRetries = options.maxRetries ?? this.#maxRetries;
    const url = this.buildUrl(req.path, req.query);
    const headers: Record<string, string> = {
      accept: req.responseType === "bytes" ? "image/png, image/webp, application/problem+json" : "application/json",
      ...this.#authHeaders(req.method),
      "driftwatch-version": API_VERSION,
      ...this.#headers,
      ...(options.headers ?? {}),
    };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers["content-type"] = "application/json";
    }
    // one key per call, reused by every retry, so a retried create never creates twice
    if (req.method === "POST") headers["idempotency-key"] = options.idempotencyKey ?? newIdempotencyKey();

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.#fetchOnce(
          url,
          { method: req.method, headers, body, signal: options.signal, ...this.#credentialsInit() },
          options.timeoutMs ?? this.#timeoutMs,
        );
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (attempt < maxRetries && (error instanceof ConnectionError || error instanceof TimeoutError)) {
          await this.sleep(backoffDelay(attempt), options.signal);
          continue;
        }
        throw error;
      }
      if (response.ok) {
        const requestId = response.headers.get("x-request-id");
        const data =
          response.status === 204
            ? (undefined as T)
            : req.responseType === "bytes"
              ? ({ type: response.headers.get("content-type") ?? "application/octet-stream", data: new Uint8Array(await response.arrayBuffer()) } satisfies BinaryBody as T)
              : ((await this.#readJson(response)) as T);
        return { data, response, requestId };
      }
      if (attempt < maxRetries && RETRYABLE_STATUS(response.status)) {
        const wait = parseRetryAfter(response.headers);
        // a server asking for more than a minute gets the error instead of a hung call
        if (wait === null || wait <= 60_000) {
          await response.body?.cancel().catch(() => undefined);
          await this.sleep(wait ?? backoffDelay(attempt), options.signal);
          continue;
        }
      }
      throw await this.#toApiError(response);
    }
  }

  /**
   * Opens a long-lived GET (an event stream): no timeout and no retries, the caller reads the body.
   * A non-2xx answer is thrown as `DriftwatchApiError`.
   */
  async openStream(path: string, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = {
      accept: "text/event-stream",
      ...this.#authHeaders("GET"),
      "driftwatch-version": API_VERSION,
      ...this.#headers,
    };
    let response: Response;
    try {
      response = await this.#fetch(this.buildUrl(path), { method: "GET", headers, signal: signal ?? null, ...this.#credentialsInit() });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ConnectionError(`Could not reach ${this.baseUrl}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
    }
    if (!response.ok) throw await this.#toApiError(response);
    return response;
  }

  /**
   * A bearer token when there is one (the server then ignores any cookie); otherwise, on writes,
   * the cookie session's CSRF token.
   */
  #authHeaders(method: string): Record<string, string> {
    if (this.#token !== undefined) return { authorization: `Bearer ${this.#token}` };
    if (method === "GET" || method === "HEAD") return {};
    const csrf = this.#csrfToken?.() ?? null;
    return csrf === null || csrf === "" ? {} : { [CSRF_HEADER]: csrf };
  }

  #credentialsInit(): { credentials?: FetchCredentials } {
    return this.#credentials === undefined ? {} : { credentials: this.#credentials };
  }

  async #fetchOnce(url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
    const controller = new AbortController();
    const outer = init.signal;
    const onAbort = (): void => controller.abort(outer?.reason);
    outer?.addEventListener("abort", onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      return await this.#fetch(url, { ...init, signal: controller.signal });
    } catch (error) {
      if (timedOut) throw new TimeoutError(`No answer from ${url} within ${timeoutMs} ms`, { cause: error });
      if (outer?.aborted) throw error;
      throw new ConnectionError(`Could not reach ${url}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    }
  }

  async #readJson(response: Response): Promise<unknown> {
    const text = await response.text();
    if (text === "") return undefined;
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new DriftwatchClientError("invalid_response", `The server answered ${response.status} with a body that is not JSON`, { cause: error });
    }
  }

  async #toApiError(response: Response): Promise<DriftwatchApiError> {
    const text = await response.text().catch(() => "");
    let problem: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === "object") problem = parsed as Record<string, unknown>;
    } catch {
      // not a problem body: keep the text as the detail
    }
    return DriftwatchApiError.from(response.status, problem, response.headers, problem ? undefined : text.slice(0, 500));
  }
}
