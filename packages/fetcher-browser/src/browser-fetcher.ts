import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import {
  BrowserOptionsSchema,
  FetchError,
  type BrowserOptions,
  type FetchRequest,
  type FetchResponse,
  type FetchScreenshot,
} from "@driftwatch/core";
import {
  createGuardedDispatcher,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_USER_AGENT,
  followRedirects,
  isFetchError,
  parseFetchUrl,
  requestHop,
  resolveGuarded,
  toFetchError,
  type GuardOptions,
  type HopResponse,
} from "@driftwatch/fetcher-http";
import type { Browser, BrowserContext, Page, Route } from "playwright-core";
import { findBrowserProcess, killProcessTree } from "./processes.js";
import { redirectMethod, startGuardProxy, type GuardProxy, type ProxyScope } from "./proxy.js";
import { INSPECT_ELEMENTS } from "./inspect.js";
import { createSemaphore } from "./semaphore.js";
import { runSteps, stepsBudgetMs, type ResolveSecret } from "./steps.js";
import { cleanStaleBrowserTmpDirs, makeBrowserTmpDir, recordOwned, removeBrowserTmpDir } from "./tmpdirs.js";
import type { BrowserFetcher, InspectedElement, InspectResult, RenderExtras } from "./types.js";

export type { BrowserFetcher, InspectExtras, RenderExtras } from "./types.js";

export interface BrowserFetcherOptions extends GuardOptions {
  /** Chromium binary. Default `DRIFTWATCH_CHROMIUM_PATH`, else `/usr/bin/chromium`. Never a downloaded browser. */
  executablePath?: string;
  /** Renders at once (each in its own context). Default 2. */
  concurrency?: number;
  /** Extra Chromium switches, appended to {@link DEFAULT_LAUNCH_ARGS}. */
  launchArgs?: readonly string[];
  /**
   * A browser you launched and manage: used as is, never closed or relaunched by the fetcher.
   * Launch it with {@link DEFAULT_LAUNCH_ARGS} so nothing escapes the guard (it has no guard proxy:
   * Chromium then resolves nothing itself and WebRTC sends no UDP).
   */
  browser?: Browser;
  /** Cap on each response the page receives (document and every subresource). Default 10 MB. */
  maxBodyBytes?: number;
  /** Redirects followed per request the page makes. Default 5. */
  maxRedirects?: number;
  /**
   * Cap on the JavaScript heap of each page's renderer, in MB (`--js-flags=--max-old-space-size`).
   * A page that allocates past it crashes alone and the render fails with `browser_failed`.
   * Default 512.
   */
  maxHeapMb?: number;
  /** Cap on the rendered HTML returned, in bytes; a larger DOM fails with `too_large`. Default `maxBodyBytes`. */
  maxHtmlBytes?: number;
  /** Cap on a screenshot's PNG, in bytes; a larger one fails the render with `too_large`. Default 8 MB. */
  maxScreenshotBytes?: number;
  /** Tallest full-page screenshot, in CSS pixels: a taller page is captured down to that height. Default 16384. */
  maxScreenshotHeight?: number;
  /**
   * Resolves a step's `secret` (a stored secret's name) to its value when the step runs. Without it
   * a step naming a secret fails. The value is typed into the page only, never logged or returned.
   */
  resolveSecret?: ResolveSecret;
}

/** Default cap on each renderer's JavaScript heap, in MB. */
export const DEFAULT_MAX_HEAP_MB = 512;

const NO_RESOLVER = "--host-resolver-rules=MAP * ~NOTFOUND";

/**
 * Switches every launch gets (use them for a browser you pass in `options.browser`). The host
 * resolver rule makes Chromium unable to resolve or reach any host by itself (IP literals
 * included): every request is fetched by the fetcher through the guard and handed to the page
 * with `route.fulfill`, so anything that bypasses request interception fails. WebRTC may only
 * use proxied transports, so it sends no UDP at all.
 *
 * A browser the fetcher launches itself also gets `--proxy-server` pointing at its guard proxy
 * (loopback not bypassed), and the resolver rule then exempts only the proxy's address. Each
 * render's context has proxy credentials of its own, and the proxy lets through only the requests
 * the fetcher handed to Chromium for that render (a navigation's redirect, see
 * fulfillThroughGuard) and the next hops of their redirects: whatever else Chromium would send by
 * itself (a request Playwright lets through unrouted, one released when a popup's or a closing
 * page's session detaches, a preconnect) is refused, and nothing of a render passes once it
 * closes.
 */
export const DEFAULT_LAUNCH_ARGS: readonly string[] = [
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
  NO_RESOLVER,
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
];

const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * playwright-core, loaded on the first launch: importing it costs a process about 80 MB of RSS,
 * which a server that never checks a website (or not yet) should not pay.
 */
let chromiumModule: Promise<typeof import("playwright-core").chromium> | undefined;
function loadChromium(): Promise<typeof import("playwright-core").chromium> {
  chromiumModule ??= import("playwright-core").then((m) => m.chromium);
  return chromiumModule;
}
/** Default cap on a screenshot's PNG, and on a full page's height. */
export const DEFAULT_MAX_SCREENSHOT_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_SCREENSHOT_HEIGHT = 16_384;
/** Time allowed for taking a screenshot. */
const SCREENSHOT_TIMEOUT_MS = 15_000;
/** Colour of masked regions (a solid colour, so a masked region never differs). */
const MASK_COLOR = "#FF00FF";
const LAUNCH_TIMEOUT_MS = 30_000;
/** Time allowed after the load deadline for reading the DOM and closing the context. */
const GRACE_MS = 5_000;
/** Request headers Chromium reports that the fetcher sets itself (or that are hop-by-hop). */
const DROPPED_REQUEST_HEADERS = new Set(["host", "connection", "content-length", "accept-encoding", "keep-alive", "transfer-encoding", "upgrade"]);
/** Response headers that no longer describe the decoded body handed to the page. */
const DROPPED_RESPONSE_HEADERS = new Set(["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"]);

function fulfilledHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !DROPPED_RESPONSE_HEADERS.has(name)));
}

/**
 * Settles like `promise`, or rejects with the signal's reason as soon as it aborts (the promise
 * is left to settle on its own, its rejection handled).
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error as Error);
      },
    );
  });
}

/** Waits at most `ms` for a promise (never rejects): a render never hangs on a context that will not close. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * Ends a render's context. First, synchronously: the render's proxy scope closes (the guard
 * proxy refuses all of its requests from now on and ends its tunnels), every further route is
 * refused (`state.closing`) and the fetches still in flight for the page are aborted (no redirect
 * hop of theirs leaves either). Then the context goes offline, its pages close (the render's
 * page, the opener, first: no new popups), and only then the context. Chromium releases the
 * requests paused for a route when a page's session detaches (Playwright stalls the routes of a
 * closing page or context), so such a request, a popup's navigation say, reaches Chromium's own
 * network stack: the closed scope is what stops it, whatever the timing; the order only makes
 * fewer requests get that far. Runs once per render; each step is bounded by `ms`.
 */
function closeRender(context: BrowserContext, state: RenderState, ms: number): Promise<void> {
  state.scope?.close();
  state.closing = true;
  state.stop.abort(new Error("The render is closing"));
  state.closed ??= (async () => {
    const deadline = performance.now() + ms;
    const left = (): number => Math.max(1, deadline - performance.now());
    await within(context.setOffline(true), left());
    const pages = context.pages();
    const first = state.page === null ? [] : pages.filter((p) => p === state.page);
    await within(Promise.all(first.map((p) => p.close({ runBeforeUnload: false }))), left());
    await within(Promise.all(context.pages().map((p) => p.close({ runBeforeUnload: false }))), left());
    await within(context.close(), left());
  })();
  return state.closed;
}

function parseBrowserOptions(input: FetchRequest["browserOptions"]): BrowserOptions {
  const parsed = BrowserOptionsSchema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw new FetchError("browser_failed", "Invalid browserOptions", {
    details: parsed.error.issues.map((issue) => ({ path: ["browserOptions", ...issue.path.map(String)].join("."), message: issue.message })),
  });
}

/** The launched browser; `pid` is known once it runs. */
interface Launch {
  browser: Promise<Browser>;
  pid: number | null;
  /**
   * The browser's own TMPDIR (`driftwatch-chromium-<pid>-*`, see tmpdirs.ts), also Playwright's
   * artifacts directory, listing Playwright's profile directory as owned. Chromium leaves its
   * process-singleton socket directories (`org.chromium.Chromium.*`) there even on a clean
   * exit, and more after a crash; the whole directory is removed once the browser is gone, and
   * by the next start when the process died first.
   */
  tmpDir: string;
  /** The guard proxy this browser is pointed at (see DEFAULT_LAUNCH_ARGS). */
  proxy: GuardProxy | null;
}

/** Per render: how the page's requests are answered and what went wrong with the document. */
interface RenderState {
  mainUrl: URL;
  /** The pre-fetched main document, served once to the navigation that asks for it. */
  mainResponse: HopResponse | null;
  mainHeaders: Record<string, string>;
  blocked: ReadonlySet<string>;
  /** Aborted when the render is aborted or starts closing: ends the fetches made for its page. */
  signal: AbortSignal;
  /** Aborts `signal` when the render starts closing. */
  stop: AbortController;
  /** The render's scope on the guard proxy (none for a browser passed in options.browser). */
  scope: ProxyScope | null;
  /** Why the main frame's navigation was refused, to report it instead of Chromium's error. */
  mainError: FetchError | null;
  /** The render's page, once created: the only page of its context allowed to stay open. */
  page: Page | null;
  /** Set when the page's renderer crashed (out of memory, typically). */
  crashed: boolean;
  /** Set once the render ends (done or aborted): every request of its context is refused. */
  closing: boolean;
  /** The context's closing, once started (see closeRender). */
  closed?: Promise<void>;
}

/** A route's frame, or null when it has none yet (a popup's first navigation) or none at all (a worker). */
function frameOf(route: Route): ReturnType<ReturnType<Route["request"]>["frame"]> | null {
  try {
    return route.request().frame();
  } catch {
    return null;
  }
}

/**
 * A browser `Fetcher` on playwright-core and the system Chromium: one shared browser launched on
 * first use (relaunched after a crash), a fresh context per render, bounded concurrency, every
 * context closed whatever happens, every request the page makes fetched through the SSRF guard
 * by the fetcher itself, and whatever Chromium sends on its own refused by a guard proxy unless
 * the fetcher handed it over.
 * Popups are closed at once, renderers have a heap cap, and every failure of a render is a
 * thrown `FetchError`.
 */
export function createBrowserFetcher(options: BrowserFetcherOptions = {}): BrowserFetcher {
  const executablePath = options.executablePath ?? process.env.DRIFTWATCH_CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const maxHeapMb = options.maxHeapMb ?? DEFAULT_MAX_HEAP_MB;
  const maxHtmlBytes = options.maxHtmlBytes ?? maxBodyBytes;
  const maxScreenshotBytes = options.maxScreenshotBytes ?? DEFAULT_MAX_SCREENSHOT_BYTES;
  const maxScreenshotHeight = options.maxScreenshotHeight ?? DEFAULT_MAX_SCREENSHOT_HEIGHT;
  if (!Number.isInteger(maxHeapMb) || maxHeapMb < 16) throw new FetchError("browser_failed", "maxHeapMb must be an integer of at least 16");
  if (!Number.isInteger(maxHtmlBytes) || maxHtmlBytes < 1) throw new FetchError("browser_failed", "maxHtmlBytes must be a positive integer");
  const semaphore = createSemaphore(options.concurrency ?? 2);
  const dispatcher = createGuardedDispatcher(options);
  const marker = `--driftwatch-browser=${randomUUID()}`;
  const contexts = new Set<BrowserContext>();
  /** The guard proxy of each browser the fetcher launched. */
  const proxies = new WeakMap<Browser, GuardProxy>();
  let launched: Launch | null = null;
  let closed = false;
  let cleanedStale = false;

  function launchArgs(proxy: GuardProxy): string[] {
    const defaults = DEFAULT_LAUNCH_ARGS.map((arg) => (arg === NO_RESOLVER ? `${NO_RESOLVER}, EXCLUDE 127.0.0.1` : arg));
    const args = [
      ...defaults,
      `--proxy-server=${proxy.url}`,
      // Chromium sends loopback destinations around a proxy unless told not to.
      "--proxy-bypass-list=<-loopback>",
      `--js-flags=--max-old-space-size=${String(maxHeapMb)}`,
      ...(options.launchArgs ?? []),
      marker,
    ];
    // Chromium's sandbox cannot start as root (containers); it stays on otherwise.
    if (process.getuid?.() === 0) args.unshift("--no-sandbox");
    return args;
  }

  function forget(entry: Launch): void {
    if (launched === entry) launched = null;
    // Renderers orphaned by a crashed browser keep its process group: end them too.
    if (entry.pid !== null) killProcessTree(entry.pid);
    removeBrowserTmpDir(entry.tmpDir);
    void entry.proxy?.close().catch(() => undefined);
  }

  async function getBrowser(): Promise<Browser> {
    if (options.browser !== undefined) {
      if (!options.browser.isConnected()) throw new FetchError("browser_failed", "The browser passed in options.browser is disconnected");
      return options.browser;
    }
    if (launched !== null) {
      const current = launched;
      const browser = await current.browser.catch(() => null);
      if (browser?.isConnected() === true) return browser;
      forget(current);
    }
    // Checked first: Playwright leaves its temporary directories behind when the spawn fails.
    try {
      fs.accessSync(executablePath, fs.constants.X_OK);
    } catch (cause) {
      throw new FetchError("browser_failed", `Could not launch Chromium at ${executablePath}: not found or not executable (set DRIFTWATCH_CHROMIUM_PATH)`, { cause });
    }
    if (!cleanedStale) {
      cleanedStale = true;
      cleanStaleBrowserTmpDirs();
    }
    const tmpDir = makeBrowserTmpDir();
    const entry: Launch = {
      pid: null,
      tmpDir,
      proxy: null,
      // Scoped: a render's context sends through it only what the fetcher let through.
      browser: startGuardProxy({ ...options, scoped: true })
        .then((proxy) => {
          entry.proxy = proxy;
          return loadChromium().then((chromium) => ({ proxy, chromium }));
        })
        .then(({ proxy, chromium }) => {
          if (closed) throw new FetchError("browser_failed", "The browser fetcher is closed");
          return chromium.launch({
            executablePath,
            args: launchArgs(proxy),
            env: { ...process.env, TMPDIR: tmpDir },
            // Playwright's own scratch directory, inside ours (its profile directory cannot be).
            artifactsDir: tmpDir,
            timeout: LAUNCH_TIMEOUT_MS,
            // Playwright's signal handlers would close the browser behind the embedder's back.
            handleSIGINT: false,
            handleSIGTERM: false,
            handleSIGHUP: false,
          });
        })
        .then((browser) => {
          const found = findBrowserProcess(marker);
          entry.pid = found?.pid ?? null;
          const profile = /--user-data-dir=(\S+)/.exec(found?.cmdline ?? "")?.[1];
          try {
            if (profile !== undefined) recordOwned(tmpDir, profile);
          } catch {
            // the profile is still removed by Playwright on a clean close
          }
          browser.on("disconnected", () => forget(entry));
          if (entry.proxy !== null) proxies.set(browser, entry.proxy);
          return browser;
        })
        .catch((cause: unknown) => {
          if (launched === entry) launched = null;
          removeBrowserTmpDir(tmpDir);
          void entry.proxy?.close().catch(() => undefined);
          throw isFetchError(cause) ? cause : new FetchError("browser_failed", `Could not launch Chromium at ${executablePath}`, { cause });
        }),
    };
    launched = entry;
    return entry.browser;
  }

  /**
   * Answers one request of any page of the render's context. Never rejects: every failure ends
   * as an aborted request (the route may already be gone with its page, so that is caught too).
   */
  async function fulfillThroughGuard(route: Route, state: RenderState): Promise<void> {
    const request = route.request();
    const frame = frameOf(route);
    const isMainNavigation = request.isNavigationRequest() && state.page !== null && frame === state.page.mainFrame();
    // Only the render's page is fetched for: a popup or other page of the context (closed at
    // once) and a request of no known frame get nothing.
    const ofRenderPage = frame !== null && state.page !== null && frame.page() === state.page;
    if (state.closing || !ofRenderPage || state.blocked.has(request.resourceType())) {
      await route.abort("blockedbyclient").catch(() => undefined);
      return;
    }
    try {
      const url = parseFetchUrl(request.url());
      let response: HopResponse;
      if (isMainNavigation && state.mainResponse !== null && url.href === state.mainUrl.href) {
        response = state.mainResponse;
        state.mainResponse = null;
      } else {
        const headers: Record<string, string> = { "accept-encoding": "gzip, deflate, br" };
        for (const [name, value] of Object.entries(await request.allHeaders())) {
          if (!DROPPED_REQUEST_HEADERS.has(name) && !name.startsWith(":")) headers[name] = value;
        }
        // The monitor's own headers (credentials, say) go to the monitored origin only.
        if (url.origin === state.mainUrl.origin) Object.assign(headers, state.mainHeaders);
        // (A browser passed in options.browser has no guard proxy: there redirects are followed here.)
        if (request.isNavigationRequest() && options.browser === undefined) {
          // A navigation's redirect goes back to Chromium, so that the page ends at the right URL
          // and cookies set by the redirect (a login's POST, then 302) are kept, as in a browser.
          // The target is checked against the guard first (a refused one fails the render or
          // step with unsafe_url); Chromium then requests it through the guard proxy.
          response = await requestHop(dispatcher, url, { method: request.method(), headers, body: request.postDataBuffer(), signal: state.signal, maxBodyBytes });
          const location = response.headers.location;
          if (location !== undefined && response.status >= 300 && response.status < 400) {
            const next = parseFetchUrl(new URL(location, url).href);
            await resolveGuarded(next.hostname, options);
            // Chromium requests the next hop itself, unrouted (Playwright routes only the first
            // request of a redirect chain): the render's proxy scope lets that one request through.
            if (state.closing) throw new FetchError("browser_failed", "The render is closing");
            state.scope?.allow(redirectMethod(response.status, request.method()), next.href);
            await route.fulfill({ status: response.status, headers: { ...fulfilledHeaders(response.headers), location: next.href }, body: "" });
            return;
          }
          // Downloads are never handed to the browser (no file is written, whatever the page
          // asks): a 204 instead, which leaves the page where it was.
          if (/^\s*attachment/i.test(response.headers["content-disposition"] ?? "")) {
            await route.fulfill({ status: 204, body: "" });
            return;
          }
          await route.fulfill({ status: response.status, headers: fulfilledHeaders(response.headers), body: response.body });
          return;
        }
        ({ response } = await followRedirects(dispatcher, url, {
          method: request.method(),
          headers,
          body: request.postDataBuffer(),
          signal: state.signal,
          maxBodyBytes,
          maxRedirects,
        }));
      }
      await route.fulfill({ status: response.status, headers: fulfilledHeaders(response.headers), body: response.body });
    } catch (error) {
      if (state.signal.aborted) {
        await route.abort("aborted").catch(() => undefined);
        return;
      }
      if (isMainNavigation) state.mainError = toFetchError(error, request.url());
      const refused = isFetchError(error) && (error.code === "unsafe_url" || error.code === "invalid_url");
      await route.abort(refused ? "blockedbyclient" : "failed").catch(() => undefined);
    }
  }

  /**
   * A PNG of the viewport, the full page (down to `maxScreenshotHeight`) or the first element
   * `selector` matches, `mask` selectors painted over in a solid colour, animations stopped, in
   * CSS pixels; over `maxScreenshotBytes` it fails with `too_large`.
   */
  async function capture(page: Page, what: "viewport" | "fullPage" | "selector", selector: string | undefined, mask: readonly string[]): Promise<FetchScreenshot> {
    const shotOptions = {
      type: "png" as const,
      mask: mask.map((each) => page.locator(each)),
      maskColor: MASK_COLOR,
      animations: "disabled" as const,
      caret: "hide" as const,
      scale: "css" as const,
      timeout: SCREENSHOT_TIMEOUT_MS,
    };
    let png: Buffer;
    if (what === "selector") {
      png = await page.locator(selector ?? ":root").first().screenshot(shotOptions);
    } else if (what === "fullPage") {
      const size = (await page.evaluate("[Math.max(document.documentElement.scrollWidth, innerWidth), Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)]")) as [number, number];
      const clip = size[1] > maxScreenshotHeight ? { x: 0, y: 0, width: Math.min(size[0], page.viewportSize()?.width ?? size[0]), height: maxScreenshotHeight } : undefined;
      png = await page.screenshot({ ...shotOptions, fullPage: true, ...(clip === undefined ? {} : { clip }) });
    } else {
      png = await page.screenshot(shotOptions);
    }
    if (png.byteLength > maxScreenshotBytes) {
      throw new FetchError("too_large", `The screenshot of ${page.url()} exceeds ${String(maxScreenshotBytes)} bytes`, {
        details: [{ path: "screenshot", message: `${String(png.byteLength)} bytes, cap ${String(maxScreenshotBytes)}` }],
      });
    }
    return { type: "image/png", data: new Uint8Array(png.buffer, png.byteOffset, png.byteLength), width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
  }

  async function render(request: FetchRequest, browserOptions: BrowserOptions, started: number, signal: AbortSignal, extras: RenderExtras, mode: "fetch"): Promise<FetchResponse>;
  async function render(request: FetchRequest, browserOptions: BrowserOptions, started: number, signal: AbortSignal, extras: RenderExtras, mode: "inspect"): Promise<InspectResult>;
  async function render(
    request: FetchRequest,
    browserOptions: BrowserOptions,
    started: number,
    signal: AbortSignal,
    extras: RenderExtras,
    mode: "fetch" | "inspect",
  ): Promise<FetchResponse | InspectResult> {
    const mainUrl = parseFetchUrl(request.url);
    const mainHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers ?? {})) mainHeaders[name.toLowerCase()] = value;
    const documentHeaders: Record<string, string> = {
      "user-agent": browserOptions.userAgent ?? DEFAULT_USER_AGENT,
      accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
      "accept-encoding": "gzip, deflate, br",
      ...(browserOptions.locale === undefined ? {} : { "accept-language": browserOptions.locale }),
      ...mainHeaders,
    };
    if (request.etag) documentHeaders["if-none-match"] = request.etag;
    if (request.lastModified) documentHeaders["if-modified-since"] = request.lastModified;
    // The document is fetched (redirects followed, each hop guarded) before Chromium is involved:
    // the page then loads at its final URL, so relative links resolve as they would without us.
    const { url: finalUrl, response: document } = await followRedirects(dispatcher, mainUrl, {
      method: request.method ?? "GET",
      headers: documentHeaders,
      body: request.body ?? null,
      signal,
      maxBodyBytes,
      maxRedirects,
    }).catch((error: unknown) => {
      throw signal.aborted ? error : toFetchError(error, mainUrl.href);
    });
    const base = { headers: document.headers, contentType: document.headers["content-type"] ?? null, browserRender: true, waitStrategy: browserOptions.waitStrategy };
    if (document.status === 304 && mode === "fetch") {
      return { ...base, status: 304, body: "", size: 0, latencyMs: Math.round(performance.now() - started), finalUrl: finalUrl.href, notModified: true };
    }
    const browser = await untilAborted(getBrowser(), signal);
    const proxy = proxies.get(browser) ?? null;
    const scope = proxy?.openScope() ?? null;
    const stop = new AbortController();
    const state: RenderState = {
      mainUrl: finalUrl,
      mainResponse: document,
      mainHeaders,
      blocked: new Set(browserOptions.blockResources ?? []),
      signal: AbortSignal.any([signal, stop.signal]),
      stop,
      scope,
      mainError: null,
      page: null,
      crashed: false,
      closing: false,
    };
    const creating = browser.newContext({
      // Proxy credentials of the render's own: the proxy passes only what this render let through.
      ...(proxy === null || scope === null ? {} : { proxy: { server: proxy.url, username: scope.username, password: scope.password } }),
      serviceWorkers: "block",
      acceptDownloads: false,
      ...(browserOptions.viewport === undefined ? {} : { viewport: browserOptions.viewport }),
      ...(browserOptions.userAgent === undefined ? {} : { userAgent: browserOptions.userAgent }),
      ...(browserOptions.locale === undefined ? {} : { locale: browserOptions.locale }),
    });
    let context: BrowserContext;
    try {
      context = await untilAborted(creating, signal);
    } catch (error) {
      scope?.close();
      // Aborted while Chromium was still creating it: close it once it exists.
      void creating.then((late) => late.close()).catch(() => undefined);
      throw error;
    }
    contexts.add(context);
    // Closing the context on abort ends what runs inside it; every step below also races the
    // signal, because a Playwright call can stay pending forever when its context closes under
    // it (newPage does).
    const closeContext = (): void => void closeRender(context, state, GRACE_MS);
    signal.addEventListener("abort", closeContext, { once: true });
    try {
      signal.throwIfAborted();
      await untilAborted(
        context.routeWebSocket(/.*/, (ws) => void ws.close({ code: 1008, reason: "WebSockets are not fetched by driftwatch" }).catch(() => undefined)),
        signal,
      );
      await untilAborted(
        context.route("**/*", (route) => fulfillThroughGuard(route, state).catch(() => route.abort("failed").catch(() => undefined))),
        signal,
      );
      // Popups (window.open, target=_blank) and any other page of the context are closed at
      // once; until then the context's route guards their requests like the main page's.
      context.on("page", (other) => {
        if (state.page !== null && other !== state.page) void other.close().catch(() => undefined);
      });
      const page = await untilAborted(context.newPage(), signal);
      state.page = page;
      for (const other of context.pages()) if (other !== page) void other.close().catch(() => undefined);
      page.on("crash", () => {
        state.crashed = true;
      });
      const crashedError = (): FetchError =>
        new FetchError("browser_failed", `Rendering ${finalUrl.href} failed: the page crashed (it may have run out of memory; the JavaScript heap cap is ${String(maxHeapMb)} MB)`);
      const remaining = (): number => Math.max(1, browserOptions.timeoutMs - (performance.now() - started));
      let response;
      const steps = browserOptions.steps ?? [];
      try {
        response = await untilAborted(page.goto(finalUrl.href, { waitUntil: browserOptions.waitStrategy, timeout: remaining() }), signal);
        if (steps.length > 0) {
          if (state.mainError !== null) throw state.mainError;
          await runSteps({
            page,
            steps,
            resolveSecret: request.resolveSecret ?? options.resolveSecret,
            navigationError: () => (state.crashed ? crashedError() : state.mainError),
            clearNavigationError: () => {
              state.mainError = null;
            },
            guard: (promise) => untilAborted(promise, signal),
            snapshot: async () => {
              const mask = extras.screenshotMask ?? request.screenshotMask ?? [];
              const shot = await untilAborted(capture(page, "viewport", undefined, mask), signal).catch(() => null);
              if (shot !== null || signal.aborted) return shot;
              // A navigation the step started (or the guard refused) may still be settling: once more, after it.
              await untilAborted(page.waitForLoadState("domcontentloaded", { timeout: 3_000 }), signal).catch(() => undefined);
              return untilAborted(capture(page, "viewport", undefined, mask), signal).catch(() => null);
            },
            ...(extras.onStep === undefined ? {} : { onStep: extras.onStep }),
          });
          // After the steps, the page settles as the monitor's wait strategy says (bounded).
          if (browserOptions.waitStrategy !== "commit") {
            await untilAborted(page.waitForLoadState(browserOptions.waitStrategy, { timeout: Math.min(remaining(), 10_000) }), signal).catch(() => undefined);
          }
        }
        if (browserOptions.waitForSelector !== undefined) {
          await untilAborted(page.waitForSelector(browserOptions.waitForSelector, { state: "attached", timeout: remaining() }), signal);
        }
        if (browserOptions.extraWaitMs !== undefined && browserOptions.extraWaitMs > 0) await untilAborted(page.waitForTimeout(browserOptions.extraWaitMs), signal);
      } catch (error) {
        if (signal.aborted) throw error;
        // A failed step carries its own cause (a refused navigation included).
        if (isFetchError(error) && error.code === "browser_step_failed") throw error;
        if (state.crashed) throw crashedError();
        if (state.mainError !== null) throw state.mainError;
        throw error;
      }
      // The main frame navigated to somewhere refused or unreachable (a script's redirect, say):
      // what is showing is Chromium's error page, never a snapshot of the target.
      if (state.mainError !== null) throw state.mainError;
      if (state.crashed) throw crashedError();
      if (page.url().startsWith("chrome-error:")) {
        throw new FetchError("connection_failed", `Rendering ${finalUrl.href} failed: the page's navigation ended on the browser's error page`);
      }
      if (mode === "inspect") {
        const shot = await untilAborted(capture(page, "fullPage", undefined, extras.screenshotMask ?? request.screenshotMask ?? []), signal);
        const elements = (await untilAborted(page.evaluate(INSPECT_ELEMENTS), signal)) as InspectedElement[];
        return { url: page.url(), screenshot: shot, width: shot.width, height: shot.height, elements };
      }
      const shotMode = browserOptions.screenshot ?? "off";
      const screenshot =
        shotMode === "off" ? undefined : await untilAborted(capture(page, shotMode, browserOptions.waitForSelector, extras.screenshotMask ?? request.screenshotMask ?? []), signal);
      // The DOM's size is measured inside the page first: a huge DOM is never copied to this process.
      const units = await untilAborted(
        page.evaluate("document.documentElement === null ? 0 : document.documentElement.outerHTML.length").then(Number).catch((error: unknown) => {
          if (state.crashed) throw crashedError();
          throw error;
        }),
        signal,
      );
      // UTF-8 takes at least one byte per UTF-16 code unit.
      if (units > maxHtmlBytes) throw tooLarge(finalUrl.href, units, maxHtmlBytes);
      const html = await untilAborted(page.content(), signal);
      const htmlBytes = Buffer.byteLength(html);
      if (htmlBytes > maxHtmlBytes) throw tooLarge(finalUrl.href, htmlBytes, maxHtmlBytes);
      if (page.url().startsWith("chrome-error:") || state.mainError !== null) {
        throw state.mainError ?? new FetchError("connection_failed", `Rendering ${finalUrl.href} failed: the page's navigation ended on the browser's error page`);
      }
      return {
        ...base,
        status: response?.status() ?? document.status,
        body: html,
        size: htmlBytes,
        latencyMs: Math.round(performance.now() - started),
        finalUrl: page.url(),
        notModified: false,
        ...(screenshot === undefined ? {} : { screenshot }),
      };
    } finally {
      signal.removeEventListener("abort", closeContext);
      contexts.delete(context);
      await closeRender(context, state, GRACE_MS);
    }
  }

  function fetchRendered(request: FetchRequest, extras: RenderExtras = {}): Promise<FetchResponse> {
    return guarded(request, extras, "fetch") as Promise<FetchResponse>;
  }

  async function guarded(request: FetchRequest, extras: RenderExtras, mode: "fetch" | "inspect"): Promise<FetchResponse | InspectResult> {
    if (closed) throw new FetchError("browser_failed", "The browser fetcher is closed");
    const browserOptions = parseBrowserOptions(request.browserOptions);
    await semaphore.acquire(request.signal);
    const started = performance.now();
    const deadline = new AbortController();
    // Loading gets timeoutMs; extraWaitMs, the steps (each bounded), the screenshot and reading
    // the DOM come on top, with a grace period.
    const steps = browserOptions.steps ?? [];
    const hardStopMs =
      browserOptions.timeoutMs +
      (browserOptions.extraWaitMs ?? 0) +
      (steps.length === 0 ? 0 : stepsBudgetMs(steps) + 10_000 + SCREENSHOT_TIMEOUT_MS) +
      ((browserOptions.screenshot ?? "off") === "off" && mode === "fetch" ? 0 : SCREENSHOT_TIMEOUT_MS) +
      GRACE_MS;
    const timer = setTimeout(() => deadline.abort(new FetchError("timeout", `Rendering ${request.url} did not finish within ${String(hardStopMs)} ms`)), hardStopMs);
    const signal = request.signal ? AbortSignal.any([deadline.signal, request.signal]) : deadline.signal;
    try {
      return mode === "fetch"
        ? await render(request, browserOptions, started, signal, extras, "fetch")
        : await render(request, browserOptions, started, signal, extras, "inspect");
    } catch (error) {
      if (request.signal?.aborted === true) throw request.signal.reason;
      if (deadline.signal.aborted) throw deadline.signal.reason as FetchError;
      if (isFetchError(error)) throw error;
      if (error instanceof Error && error.name === "TimeoutError") {
        throw new FetchError("timeout", `Rendering ${request.url} timed out (${browserOptions.waitStrategy}, ${String(browserOptions.timeoutMs)} ms)`, { cause: error });
      }
      // What is left comes from Playwright: a crashed or killed browser, a closed target.
      const message = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
      throw new FetchError("browser_failed", `Rendering ${request.url} failed: ${message}`, { cause: error });
    } finally {
      clearTimeout(timer);
      semaphore.release();
    }
  }

  return {
    fetch: (request) => fetchRendered(request),
    fetchWith: fetchRendered,
    inspect: (url, browserOptions, extras = {}) =>
      guarded(
        {
          url,
          browserOptions: (browserOptions ?? {}) as BrowserOptions,
          ...(extras.signal === undefined ? {} : { signal: extras.signal }),
          ...(extras.resolveSecret === undefined ? {} : { resolveSecret: extras.resolveSecret }),
        },
        extras,
        "inspect",
      ) as Promise<InspectResult>,
    browserProcessId(): number | null {
      return launched?.pid ?? null;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all([...contexts].map((context) => context.close().catch(() => undefined)));
      const entry = launched;
      if (entry !== null) {
        const browser = await entry.browser.catch(() => null);
        await browser?.close().catch(() => undefined);
        forget(entry);
      }
      await dispatcher.close();
    },
  };
}

function tooLarge(url: string, size: number, cap: number): FetchError {
  return new FetchError("too_large", `The rendered HTML of ${url} exceeds ${String(cap)} bytes`, {
    details: [{ path: "body", message: `at least ${String(size)} bytes rendered, cap ${String(cap)}` }],
  });
}
