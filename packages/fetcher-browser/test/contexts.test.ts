// Contexts are closed on success, error and timeout (checked on a browser the test owns and
// passes in with the `browser` option, which the fetcher must never close), and the Chromium
// binary comes from options or DRIFTWATCH_CHROMIUM_PATH, never from a download.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { createBrowserFetcher, DEFAULT_LAUNCH_ARGS } from "../src/index.js";
import { fetchError, html, options, startServer, waitFor, type TestServer } from "./helpers.js";

let site: TestServer;
let browser: Browser;
let tmpDir: string;

beforeAll(async () => {
  site = await startServer((req, res) => {
    if (req.url === "/poll") {
      res.writeHead(200, { "content-type": "text/html" }).end(html(`<script>setInterval(() => fetch("/ping"), 100);</script>`));
    } else if (req.url === "/ping") {
      res.end("pong");
    } else {
      res.writeHead(200, { "content-type": "text/html" }).end(html(`<p id="ok">ok</p>`));
    }
  });
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-own-browser-"));
  browser = await chromium.launch({
    executablePath: process.env.DRIFTWATCH_CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [...DEFAULT_LAUNCH_ARGS, inject("runMarker"), ...(process.getuid?.() === 0 ? ["--no-sandbox"] : [])],
    env: { ...process.env, TMPDIR: tmpDir },
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
});

afterAll(async () => {
  await browser.close();
  fs.rmSync(tmpDir, { recursive: true, force: true });
  await site.close();
});

describe("a browser passed in options.browser", () => {
  it("gets a fresh context per render, closed on success, error and timeout, and is never closed by the fetcher", async () => {
    const fetcher = createBrowserFetcher({ browser, allowPrivateNetworks: true });
    const ok = await fetcher.fetch({ url: `${site.url}/`, browserOptions: options({ waitStrategy: "load" }) });
    expect(ok.body).toContain(`<p id="ok">ok</p>`);
    expect(browser.contexts()).toHaveLength(0);

    const timedOut = await fetchError(fetcher.fetch({ url: `${site.url}/poll`, browserOptions: options({ waitStrategy: "networkidle", timeoutMs: 1000 }) }));
    expect(timedOut.code).toBe("timeout");
    expect(browser.contexts()).toHaveLength(0);

    const missing = await fetchError(fetcher.fetch({ url: `${site.url}/`, browserOptions: options({ waitStrategy: "load", waitForSelector: "#never", timeoutMs: 1000 }) }));
    expect(missing.code).toBe("timeout");
    expect(browser.contexts()).toHaveLength(0);

    // A caller's abort at any moment (before launch, while the context or page is being made,
    // while loading) ends the render with the caller's reason and closes its context. The render
    // would otherwise run until its 60 s timeoutMs, past this test's own timeout.
    for (const delayMs of [0, 20, 50, 100, 200, 400]) {
      const aborted = new AbortController();
      const pending = fetcher.fetch({ url: `${site.url}/poll`, signal: aborted.signal, browserOptions: options({ waitStrategy: "networkidle", timeoutMs: 60_000 }) });
      setTimeout(() => aborted.abort(new Error(`caller gave up after ${String(delayMs)} ms`)), delayMs);
      await expect(pending).rejects.toThrow(`caller gave up after ${String(delayMs)} ms`);
      await waitFor(() => browser.contexts().length === 0, "the aborted render's context to close");
    }

    // Two renders at once use two contexts; both are gone afterwards.
    await Promise.all([1, 2].map(() => fetcher.fetch({ url: `${site.url}/`, browserOptions: options({ waitStrategy: "load" }) })));
    expect(browser.contexts()).toHaveLength(0);

    await fetcher.close();
    expect(browser.isConnected()).toBe(true);
    expect(fetcher.browserProcessId()).toBeNull();
  });
});

describe("the Chromium binary", () => {
  it("comes from DRIFTWATCH_CHROMIUM_PATH when no executablePath is given, and a missing one is browser_failed", async () => {
    const previous = process.env.DRIFTWATCH_CHROMIUM_PATH;
    process.env.DRIFTWATCH_CHROMIUM_PATH = "/nonexistent/chromium-for-driftwatch-test";
    try {
      const fetcher = createBrowserFetcher({ allowPrivateNetworks: true });
      const error = await fetchError(fetcher.fetch({ url: `${site.url}/`, browserOptions: options({ waitStrategy: "load" }) }));
      expect(error.code).toBe("browser_failed");
      expect(error.message).toContain("/nonexistent/chromium-for-driftwatch-test");
      await fetcher.close();
    } finally {
      if (previous === undefined) delete process.env.DRIFTWATCH_CHROMIUM_PATH;
      else process.env.DRIFTWATCH_CHROMIUM_PATH = previous;
    }
  });

  it("prefers executablePath over the environment", async () => {
    const fetcher = createBrowserFetcher({ allowPrivateNetworks: true, executablePath: "/nonexistent/explicit-chromium" });
    const error = await fetchError(fetcher.fetch({ url: `${site.url}/`, browserOptions: options({ waitStrategy: "load" }) }));
    expect(error).toMatchObject({ code: "browser_failed", message: expect.stringContaining("/nonexistent/explicit-chromium") as unknown });
    await fetcher.close();
  });
});
