export {
  createBrowserFetcher,
  DEFAULT_LAUNCH_ARGS,
  type BrowserFetcher,
  type BrowserFetcherOptions,
} from "./browser-fetcher.js";
export { findBrowserProcess, killProcessTree, listProcesses, processTree, type ProcessInfo } from "./processes.js";
export { createSemaphore, type Semaphore } from "./semaphore.js";
