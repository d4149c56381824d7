import type { BrowserOptions, BrowserStepAction, WaitStrategy } from "@driftwatch/schema";
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
  /**
   * Browser renders with a screenshot: selectors painted over before the capture (the monitor's
   * `policyRules.visual.mask`). The HTTP fetcher ignores it.
   */
  screenshotMask?: readonly string[];
  /**
   * Browser renders with steps: resolves a step's `secret` (a stored secret's name, in the
   * monitor's organization) to its value when the step runs; the value is typed into the page
   * only. Takes precedence over the browser fetcher's own `resolveSecret`.
   */
  resolveSecret?: (name: string) => Promise<string | undefined>;
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
  /** The render's screenshot, when `browserOptions.screenshot` asked for one (browser fetcher only). */
  screenshot?: FetchScreenshot;
}

/** A PNG screenshot of a rendered page (the same shape as core's visual `Screenshot`). */
export interface FetchScreenshot {
  type: "image/png";
  data: Uint8Array;
  /** Pixels. */
  width: number;
  height: number;
}

/** The browser step that failed, on a `browser_step_failed` error. */
export interface FailedBrowserStep {
  /** Position in `browserOptions.steps`, from 0. */
  index: number;
  action: BrowserStepAction;
  selector: string | null;
}

export type FetchErrorCode =
  | "unsafe_url"
  | "invalid_url"
  | "dns_failure"
  | "connection_failed"
  | "timeout"
  | "too_large"
  | "too_many_redirects"
  | "browser_failed"
  | "browser_step_failed";

export interface FetchErrorOptions extends DriftwatchErrorOptions {
  step?: FailedBrowserStep;
  screenshot?: FetchScreenshot;
}

export class FetchError extends DriftwatchError<FetchErrorCode> {
  override readonly name = "FetchError";
  /** `browser_step_failed`: the step that failed. */
  readonly step?: FailedBrowserStep;
  /** `browser_step_failed`: the page when the step failed (when a screenshot could be taken). */
  readonly screenshot?: FetchScreenshot;
  constructor(code: FetchErrorCode, message: string, options?: FetchErrorOptions) {
    super(code, message, options);
    if (options?.step !== undefined) this.step = options.step;
    if (options?.screenshot !== undefined) this.screenshot = options.screenshot;
  }
  /** The machine-readable reason (the same as `code`), as checks record it. */
  get reason(): FetchErrorCode {
    return this.code;
  }
}
