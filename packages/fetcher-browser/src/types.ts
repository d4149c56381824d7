// The types the fetcher and the inspection share (a module of its own, so neither imports the other).
import type { Box, BrowserOptionsInput, Fetcher, FetchRequest, FetchResponse, FetchScreenshot } from "@driftwatch/core";
import type { StepOutcome } from "./steps.js";

/** A visible block element of an inspected page. */
export interface InspectedElement {
  /**
   * A selector that matches this element only: `#id` when the id is unique, else a chain of
   * `tag:nth-of-type(n)` steps from the nearest ancestor with a unique id (or from `body`), the
   * same form core's `PageSelectors` gives the changes of a website diff.
   */
  selector: string;
  /** Where it is on the screenshot (document coordinates, CSS pixels). */
  box: Box;
  /** Its visible text, whitespace collapsed, at most 200 characters. */
  text: string;
}

export interface InspectResult {
  /** The URL the page ended on (after steps). */
  url: string;
  /** The full page (down to the fetcher's `maxScreenshotHeight`). */
  screenshot: FetchScreenshot;
  width: number;
  height: number;
  /** Visible block elements with text, in document order, at most 2,000. */
  elements: InspectedElement[];
}

/** Options of one render beyond the request's. */
export interface RenderExtras {
  /** Selectors painted over (a solid box) before any screenshot: ads, clocks, carousels (`policyRules.visual.mask`). */
  screenshotMask?: readonly string[];
  /** Called after each browser step, with how it went. */
  onStep?: (outcome: StepOutcome) => void;
}

/** Options of an inspection beyond the render's: a signal, and how steps' secrets resolve (see `FetchRequest.resolveSecret`). */
export type InspectExtras = RenderExtras & { signal?: AbortSignal; resolveSecret?: FetchRequest["resolveSecret"] };

/** A `Fetcher` that renders pages in Chromium, with a handle on the browser process. */
export interface BrowserFetcher extends Fetcher {
  /** PID of the launched browser process, or null when none is running (or the browser is yours). */
  browserProcessId(): number | null;
  /** Renders like `fetch`, with masks for the screenshot and a report of each browser step. */
  fetchWith(request: FetchRequest, extras: RenderExtras): Promise<FetchResponse>;
  /**
   * Renders `url` (steps included) and lists its visible block elements, each with a unique
   * selector and its box on the returned full-page screenshot (for a point-and-click selector).
   */
  inspect(url: string, browserOptions?: BrowserOptionsInput | null, extras?: InspectExtras): Promise<InspectResult>;
}
