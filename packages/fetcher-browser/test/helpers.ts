import fs from "node:fs";
import { BrowserOptionsSchema, type BrowserOptions, type BrowserOptionsInput } from "@driftwatch/core";
import { inject } from "vitest";
import { createBrowserFetcher, type BrowserFetcher, type BrowserFetcherOptions } from "../src/index.js";

export { html, startServer, type TestServer } from "./site.js";

/** A browser fetcher whose Chromium carries this run's marker and whose PIDs the teardown checks. */
export function createTestFetcher(options: BrowserFetcherOptions = {}): BrowserFetcher {
  const fetcher = createBrowserFetcher({ ...options, launchArgs: [...(options.launchArgs ?? []), inject("runMarker")] });
  const record = (): void => {
    const pid = fetcher.browserProcessId();
    if (pid !== null) fs.appendFileSync(inject("pidFile"), `${String(pid)}\n`);
  };
  const recorded = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } finally {
      record();
    }
  };
  return {
    fetch: (request) => recorded(() => fetcher.fetch(request)),
    fetchWith: (request, extras) => recorded(() => fetcher.fetchWith(request, extras)),
    inspect: (url, browserOptions, extras) => recorded(() => fetcher.inspect(url, browserOptions, extras)),
    close: () => fetcher.close(),
    browserProcessId: () => fetcher.browserProcessId(),
  };
}

export async function fetchError(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if ((error as Error).name !== "FetchError") throw error;
    return error as { code: string; message: string };
  }
  throw new Error("expected a FetchError");
}

export async function waitFor(check: () => boolean, what: string, limitMs = 20_000): Promise<void> {
  const until = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Browser options with the schema's defaults applied, as the port's type wants them. */
export function options(input: BrowserOptionsInput = {}): BrowserOptions {
  return BrowserOptionsSchema.parse(input);
}
