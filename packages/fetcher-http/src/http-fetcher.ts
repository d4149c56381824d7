import { performance } from "node:perf_hooks";
import { FetchError, type Fetcher, type FetchRequest, type FetchResponse } from "@driftwatch/core";
import { request as undiciRequest, type Dispatcher } from "undici";
import { decodeText, readBody } from "./body.js";
import { toFetchError } from "./errors.js";
import { createGuardedDispatcher, parseFetchUrl, type GuardOptions } from "./guard.js";

export interface HttpFetcherOptions extends GuardOptions {
  /** Cap on the body, on the wire and decoded. Default 10 MB. */
  maxBodyBytes?: number;
  /** Whole-fetch deadline (connect, headers, body, every redirect hop). Default 30 s. */
  timeoutMs?: number;
  /** Redirect hops followed; one more is `too_many_redirects`. Default 5. */
  maxRedirects?: number;
  /** Sent unless the request carries its own `user-agent` header. */
  userAgent?: string;
}

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_USER_AGENT = "driftwatch/0.1 (+https://github.com/driftwatch/driftwatch)";

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Header names that always carry credentials. */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "x-api-key"]);

/**
 * True for a header that carries credentials and must not follow a redirect to another origin:
 * `authorization`, `proxy-authorization`, `cookie`, `x-api-key`, and any name containing
 * `token`, `secret` or `key` (the rule the API uses to mask header values in responses).
 */
export function isCredentialHeader(name: string): boolean {
  const n = name.toLowerCase();
  return CREDENTIAL_HEADERS.has(n) || /token|secret|key/.test(n);
}

/** One response of one hop: status, lower-cased headers and the decoded body bytes. */
export interface HopResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface HopRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer | null;
  signal: AbortSignal;
  maxBodyBytes: number;
}

export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function hasNoBody(method: string, status: number): boolean {
  return method === "HEAD" || status === 204 || status === 304 || (status >= 100 && status < 200);
}

/**
 * Performs one request through a dispatcher without following redirects, and reads the body
 * with the size cap (redirect and 304 bodies are discarded). Errors are raw; callers map them.
 */
export async function requestHop(dispatcher: Dispatcher, url: URL, hop: HopRequest): Promise<HopResponse> {
  const response = await undiciRequest(url, {
    dispatcher,
    method: hop.method as Dispatcher.HttpMethod,
    headers: hop.headers,
    body: hop.body ?? null,
    signal: hop.signal,
  });
  const headers = flattenHeaders(response.headers);
  const status = response.statusCode;
  if (hasNoBody(hop.method, status) || (REDIRECT_STATUSES.has(status) && headers.location !== undefined)) {
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    return { status, headers, body: Buffer.alloc(0) };
  }
  const encoding = headers["content-encoding"];
  const declared = Number(headers["content-length"]);
  if ((encoding === undefined || encoding === "identity") && Number.isFinite(declared) && declared > hop.maxBodyBytes) {
    response.body.destroy();
    throw new FetchError("too_large", `Response body of ${String(declared)} bytes exceeds ${String(hop.maxBodyBytes)} bytes`, {
      details: [{ path: "body", message: `content-length ${String(declared)}` }],
    });
  }
  return { status, headers, body: await readBody(response.body, encoding, hop.maxBodyBytes) };
}

export interface RedirectingRequest extends HopRequest {
  maxRedirects: number;
}

/**
 * Requests `url` and follows up to `maxRedirects` redirects by hand: each hop's URL is checked
 * (http/https, no credentials) and connects through the guarded dispatcher; 303 (and 301/302
 * after a POST) turn into a GET; credentials are dropped when the origin changes.
 */
export async function followRedirects(dispatcher: Dispatcher, start: URL, init: RedirectingRequest): Promise<{ url: URL; response: HopResponse }> {
  let url = start;
  let method = init.method.toUpperCase();
  let body = init.body ?? null;
  const headers = { ...init.headers };
  for (let hops = 0; ; hops++) {
    const response = await requestHop(dispatcher, url, { ...init, method, headers, body });
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.status) || location === undefined) return { url, response };
    if (hops >= init.maxRedirects) {
      throw new FetchError("too_many_redirects", `More than ${String(init.maxRedirects)} redirects from ${start.href}`);
    }
    const next = parseFetchUrl(new URL(location, url).href);
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
      method = "GET";
      body = null;
      delete headers["content-type"];
      delete headers["content-length"];
    }
    if (next.origin !== url.origin) {
      for (const name of Object.keys(headers)) if (isCredentialHeader(name)) delete headers[name];
    }
    url = next;
  }
}

function requestHeaders(request: FetchRequest, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = { "user-agent": userAgent, "accept-encoding": "gzip, deflate, br", accept: "*/*" };
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  const method = (request.method ?? "GET").toUpperCase();
  if (method === "GET" || method === "HEAD") {
    if (request.etag) headers["if-none-match"] = request.etag;
    if (request.lastModified) headers["if-modified-since"] = request.lastModified;
  }
  return headers;
}

/**
 * An HTTP `Fetcher` on undici with the SSRF guard on every connection, redirects followed by hand
 * (each hop's URL and resolved address checked; credential headers dropped when the origin changes), one deadline over the whole fetch, a streamed
 * size cap, gzip/deflate/br decoding and conditional GET.
 */
export function createHttpFetcher(options: HttpFetcherOptions = {}): Fetcher {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const dispatcher = createGuardedDispatcher({ ...options, connectTimeoutMs: timeoutMs });
  let closed = false;

  async function fetchUrl(request: FetchRequest): Promise<FetchResponse> {
    if (closed) throw new FetchError("connection_failed", "The fetcher is closed");
    const started = performance.now();
    const url = parseFetchUrl(request.url);
    // One controller for the timeout and the caller's signal. Not AbortSignal.any: the caller's
    // signal is often one that lives as long as the process (the scheduler's), and every signal
    // AbortSignal.any makes from it stays tied to it until a full GC, so a busy server's old
    // generation filled with them (issue 26, docs/benchmarks.md). A listener removed when the
    // fetch ends ties nothing.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new FetchError("timeout", `No complete response from ${request.url} within ${String(timeoutMs)} ms`)), timeoutMs);
    const outer = request.signal;
    const passAbort = (): void => deadline.abort(outer!.reason);
    if (outer !== undefined) {
      if (outer.aborted) passAbort();
      else outer.addEventListener("abort", passAbort, { once: true });
    }
    const signal = deadline.signal;
    try {
      const { url: finalUrl, response: hop } = await followRedirects(dispatcher, url, {
        method: request.method ?? "GET",
        headers: requestHeaders(request, userAgent),
        body: request.body ?? null,
        signal,
        maxBodyBytes,
        maxRedirects,
      });
      const contentType = hop.headers["content-type"] ?? null;
      return {
        status: hop.status,
        headers: hop.headers,
        body: decodeText(hop.body, contentType),
        contentType,
        size: hop.body.length,
        latencyMs: Math.round(performance.now() - started),
        finalUrl: finalUrl.href,
        notModified: hop.status === 304,
        browserRender: false,
        waitStrategy: null,
      };
    } catch (error) {
      // the timeout's FetchError, or the caller's reason, whichever came first
      if (deadline.signal.aborted) throw deadline.signal.reason;
      throw toFetchError(error, url.href);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", passAbort);
    }
  }

  return {
    fetch: fetchUrl,
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await dispatcher.close();
    },
  };
}
