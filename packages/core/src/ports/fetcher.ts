import type { BrowserOptions, WaitStrategy } from "@driftwatch/schema";
import { DriftwatchError, type DriftwatchErrorOptions } from "../errors.js";

/** The fetching port: `@driftwatch/fetcher-http` and `@driftwatch/fetcher-browser` implement it. */
export interface Fetcher {
  fetch(request: FetchRequest): Promise<FetchResponse>;
  /** Releases connections / browsers. Idempotent. */
  close(): Promise<void>;
}

export interface FetchRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | null;
  /** Present: render in a browser (browser fetcher); the HTTP fetcher ignores it. */
  browserOptions?: BrowserOptions | null;
  /** Validators from the previous response, for a conditional GET. */
  etag?: string | null;
  lastModified?: string | null;
  signal?: AbortSignal;
}

export interface FetchResponse {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** Decoded text (for a browser render: the rendered DOM's HTML). Empty when `notModified`. */
  body: string;
  contentType: string | null;
  /** Bytes of the (decoded) body. */
  size: number;
  latencyMs: number;
  finalUrl: string;
  /** True when the target answered 304 to a conditional GET. */
  notModified: boolean;
  browserRender: boolean;
  waitStrategy: WaitStrategy | null;
}

export type FetchErrorCode =
  | "unsafe_url"
  | "invalid_url"
  | "dns_failure"
  | "connection_failed"
  | "timeout"
  | "too_large"
  | "too_many_redirects"
  | "browser_failed";

export class FetchError extends DriftwatchError<FetchErrorCode> {
  override readonly name = "FetchError";
  constructor(code: FetchErrorCode, message: string, options?: DriftwatchErrorOptions) {
    super(code, message, options);
  }
}
