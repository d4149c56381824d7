export {
  createBrowserFetcher,
  DEFAULT_LAUNCH_ARGS,
  DEFAULT_MAX_HEAP_MB,
  DEFAULT_MAX_SCREENSHOT_BYTES,
  DEFAULT_MAX_SCREENSHOT_HEIGHT,
  type BrowserFetcher,
  type BrowserFetcherOptions,
  type InspectExtras,
  type RenderExtras,
} from "./browser-fetcher.js";
export { acceptCookies, CONSENT_ACCEPT_SELECTORS, CONSENT_ACCEPT_TEXTS } from "./consent.js";
export { inspectPage, MAX_INSPECTED_ELEMENTS, type InspectedElement, type InspectResult } from "./inspect.js";
export { stepsBudgetMs, type ResolveSecret, type StepOutcome } from "./steps.js";
export { findBrowserProcess, killProcessTree, listProcesses, processTree, type ProcessInfo } from "./processes.js";
export { createSemaphore, type Semaphore } from "./semaphore.js";
export { startGuardProxy, type GuardProxy, type GuardProxyOptions, type ProxyScope } from "./proxy.js";
export { cleanStaleBrowserTmpDirs, TMP_PREFIX } from "./tmpdirs.js";
