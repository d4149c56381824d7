import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { BrowserOptionsSchema, type BrowserOptions, type BrowserOptionsInput } from "@driftwatch/core";
import { inject } from "vitest";
import { createBrowserFetcher, type BrowserFetcher, type BrowserFetcherOptions } from "../src/index.js";

export interface TestServer {
  url: string;
  port: number;
  connections: number;
  /** Paths requested so far, in order. */
  paths: string[];
  close(): Promise<void>;
}

export async function startServer(handler: http.RequestListener, host = "127.0.0.1"): Promise<TestServer> {
  const server = http.createServer();
  const state: TestServer = {
    url: "",
    port: 0,
    connections: 0,
    paths: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on("connection", () => (state.connections += 1));
  server.on("upgrade", (_req, socket) => socket.destroy());
  server.on("request", (req, res) => {
    state.paths.push(req.url ?? "");
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://${host}:${String(state.port)}`;
  return state;
}

export function html(body: string, head = ""): string {
  return `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
}

/** A browser fetcher whose Chromium carries this run's marker and whose PIDs the teardown checks. */
export function createTestFetcher(options: BrowserFetcherOptions = {}): BrowserFetcher {
  const fetcher = createBrowserFetcher({ ...options, launchArgs: [...(options.launchArgs ?? []), inject("runMarker")] });
  const record = (): void => {
    const pid = fetcher.browserProcessId();
    if (pid !== null) fs.appendFileSync(inject("pidFile"), `${String(pid)}\n`);
  };
  return {
    fetch: async (request) => {
      try {
        return await fetcher.fetch(request);
      } finally {
        record();
      }
    },
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
