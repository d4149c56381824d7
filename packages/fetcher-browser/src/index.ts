export {
  createBrowserFetcher,
  DEFAULT_LAUNCH_ARGS,
  DEFAULT_MAX_HEAP_MB,
  type BrowserFetcher,
  type BrowserFetcherOptions,
} from "./browser-fetcher.js";
export { findBrowserProcess, killProcessTree, listProcesses, processTree, type ProcessInfo } from "./processes.js";
export { createSemaphore, type Semaphore } from "./semaphore.js";
export { startGuardProxy, type GuardProxy, type GuardProxyOptions } from "./proxy.js";
export { cleanStaleBrowserTmpDirs, TMP_PREFIX } from "./tmpdirs.js";
