import type { IncomingMessage } from "node:http";
import { BrowserOptionsSchema, type FetchError } from "@driftwatch/core";
import { load } from "cheerio";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StepOutcome } from "../src/index.js";
import { createTestFetcher, fetchError, html, options, startServer, type TestServer } from "./helpers.js";

const PASSWORD = "correct horse 7!";

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString()));
    req.on("end", () => resolve(text));
  });
}

const forms = html(`
  <main id="main">
    <h1>Sign in</h1>
    <form method="post" action="/login">
      <input id="user" name="user"><input id="password" name="password" type="password">
      <select id="plan" name="plan"><option value="basic">Basic</option><option value="pro">Pro</option></select>
      <label><input id="terms" type="checkbox" name="terms"> Terms</label>
      <button type="submit">Sign in</button>
    </form>
    <p id="hint">Long page below</p><div style="height:3000px"></div><p id="bottom">Bottom</p>
  </main>`);

let server: TestServer;
let lastLoginBody = "";
beforeAll(async () => {
  server = await startServer((req, res) => {
    const url = req.url ?? "/";
    if (url === "/login" && req.method === "POST") {
      void body(req).then((text) => {
        lastLoginBody = text;
        const form = new URLSearchParams(text);
        if (form.get("user") === "alice" && form.get("password") === PASSWORD) {
          // POST, then 302 with the session cookie: the classic login.
          res.writeHead(302, { location: "/account", "set-cookie": "session=tok-123; HttpOnly; Path=/" }).end();
        } else res.writeHead(401, { "content-type": "text/html" }).end(html("<p>Wrong password</p>"));
      });
      return;
    }
    if (url === "/account") {
      if (/(^|; )session=tok-123(;|$)/.test(req.headers.cookie ?? "")) {
        res.writeHead(200, { "content-type": "text/html" }).end(html(`<h1 id="welcome">Welcome alice</h1><p id="balance">Balance: 42 EUR</p>`));
      } else res.writeHead(302, { location: "/login" }).end();
      return;
    }
    if (url === "/login") {
      res.writeHead(200, { "content-type": "text/html" }).end(forms);
      return;
    }
    if (url === "/popups") {
      res.writeHead(200, { "content-type": "text/html" }).end(
        html(`<p id="content">Popup page</p>
          <button id="open" onclick="window.open('/popup-target'); window.open('http://169.254.169.254/latest/meta-data/')">Open</button>
          <a id="dl" href="/download">Download</a>
          <a id="local" href="file:///etc/passwd">Local</a>
          <a id="metadata" href="http://169.254.169.254/latest/meta-data/">Metadata</a>`),
      );
      return;
    }
    if (url === "/download") {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": 'attachment; filename="x.bin"' }).end("MZ-binary");
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end(html(`<p>Other: ${url}</p>`));
  });
});
afterAll(() => server.close());

function isPng(shot: { data: Uint8Array; width: number; height: number } | undefined): boolean {
  if (shot === undefined) return false;
  const png = PNG.sync.read(Buffer.from(shot.data));
  return png.width === shot.width && png.height === shot.height && shot.width > 0;
}

describe("browser steps", () => {
  // The guard is on: only the test server's own address is exempted.
  const fetcher = createTestFetcher({ allowAddresses: ["127.0.0.1"], resolveSecret: (name) => (name === "site-password" ? PASSWORD : undefined) });
  afterAll(() => fetcher.close());

  it("logs in with a secret and captures the content behind the session cookie", async () => {
    const outcomes: StepOutcome[] = [];
    const response = await fetcher.fetchWith(
      {
        url: `${server.url}/login`,
        browserOptions: options({
          waitStrategy: "load",
          screenshot: "viewport",
          steps: [
            { action: "fill", selector: "#user", value: "alice" },
            { action: "fill", selector: "#password", secret: "site-password" },
            { action: "click", selector: "button[type=submit]" },
            { action: "waitForSelector", selector: "#balance" },
          ],
        }),
      },
      { onStep: (outcome) => outcomes.push(outcome) },
    );
    expect(response.body).toContain("Balance: 42 EUR");
    expect(response.finalUrl).toBe(`${server.url}/account`);
    expect(new URLSearchParams(lastLoginBody).get("password")).toBe(PASSWORD);
    expect(outcomes.map((o) => [o.index, o.action, o.ok])).toEqual([
      [0, "fill", true],
      [1, "fill", true],
      [2, "click", true],
      [3, "waitForSelector", true],
    ]);
    expect(isPng(response.screenshot)).toBe(true);
    // Without the steps, the account page is not reachable.
    const anonymous = await fetcher.fetch({ url: `${server.url}/account`, browserOptions: options({ waitStrategy: "load" }) });
    expect(anonymous.body).not.toContain("Balance");
  });

  it("fails a step naming an unknown secret, without the value of any secret in the error", async () => {
    const error = (await fetchError(
      fetcher.fetch({
        url: `${server.url}/login`,
        browserOptions: options({
          waitStrategy: "load",
          steps: [
            { action: "fill", selector: "#password", secret: "site-password" },
            { action: "fill", selector: "#user", secret: "nope" },
          ],
        }),
      }),
    )) as FetchError;
    expect(error.code).toBe("browser_step_failed");
    expect(error.step).toEqual({ index: 1, action: "fill", selector: "#user" });
    expect(error.message).toContain('unknown secret "nope"');
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(PASSWORD);
  });

  it("fails at each kind of step with the step's index, action, selector and a screenshot", async () => {
    const failing = [
      { action: "click", selector: "#missing" },
      { action: "fill", selector: "#missing", value: "x" },
      { action: "select", selector: "#plan", value: "enterprise" },
      { action: "check", selector: "#missing" },
      { action: "press", selector: "#missing", key: "Enter" },
      { action: "waitForSelector", selector: "#missing" },
      { action: "scroll", selector: "#missing" },
      { action: "goto", url: "http://127.0.0.2:9/private" },
    ] as const;
    for (const step of failing) {
      const error = (await fetchError(
        fetcher.fetch({
          url: `${server.url}/login`,
          browserOptions: options({
            waitStrategy: "load",
            steps: [{ action: "scroll" }, { action: "check", selector: "#terms" }, { ...step, timeoutMs: 700 }],
          }),
        }),
      )) as FetchError;
      expect(error.code, step.action).toBe("browser_step_failed");
      expect(error.reason).toBe("browser_step_failed");
      expect(error.step, step.action).toEqual({ index: 2, action: step.action, selector: "selector" in step ? step.selector : null });
      expect(error.message).toContain(`Browser step 2 (${step.action}`);
      expect(isPng(error.screenshot), step.action).toBe(true);
    }
  });

  it("keeps every step behind the SSRF guard: a goto or a link to a private address fails its step", async () => {
    const gotoPrivate = (await fetchError(
      fetcher.fetch({ url: `${server.url}/popups`, browserOptions: options({ waitStrategy: "load", steps: [{ action: "goto", url: "http://10.0.0.1/admin" }] }) }),
    )) as FetchError;
    expect(gotoPrivate.step).toEqual({ index: 0, action: "goto", selector: null });
    expect(gotoPrivate.details[0]?.message).toMatch(/^unsafe_url: /);
    const clickMetadata = (await fetchError(
      fetcher.fetch({
        url: `${server.url}/popups`,
        browserOptions: options({ waitStrategy: "load", steps: [{ action: "click", selector: "#metadata" }, { action: "waitForTimeout", ms: 300 }] }),
      }),
    )) as FetchError;
    expect(clickMetadata.code).toBe("browser_step_failed");
    expect(clickMetadata.details[0]?.message).toMatch(/^unsafe_url: /);
  });

  it("refuses steps to file:, chrome:, data: and javascript: URLs, and more than 50 steps or too much time", async () => {
    for (const url of ["file:///etc/passwd", "chrome://settings", "data:text/html,hi", "javascript:alert(1)"]) {
      const error = await fetchError(fetcher.fetch({ url: `${server.url}/popups`, browserOptions: { steps: [{ action: "goto", url }] } as never }));
      expect(error.code, url).toBe("browser_failed");
      expect(error.message).toBe("Invalid browserOptions");
    }
    expect(BrowserOptionsSchema.safeParse({ steps: Array.from({ length: 51 }, () => ({ action: "scroll" })) }).success).toBe(false);
    expect(BrowserOptionsSchema.safeParse({ steps: Array.from({ length: 5 }, () => ({ action: "waitForTimeout", ms: 30_000 })) }).success).toBe(false);
    expect(BrowserOptionsSchema.safeParse({ steps: [{ action: "click" }] }).success).toBe(false);
    expect(BrowserOptionsSchema.safeParse({ steps: [{ action: "fill", selector: "#a", value: "x", secret: "y" }] }).success).toBe(false);
  });

  it("blocks popups, downloads and file: links opened during steps", async () => {
    const before = server.paths.length;
    const response = await fetcher.fetch({
      url: `${server.url}/popups`,
      browserOptions: options({
        waitStrategy: "load",
        steps: [
          { action: "click", selector: "#open" },
          { action: "click", selector: "#dl" },
          { action: "waitForTimeout", ms: 500 },
        ],
      }),
    });
    expect(response.finalUrl).toBe(`${server.url}/popups`);
    expect(load(response.body)("#content").text()).toBe("Popup page");
    expect(response.body).not.toContain("root:");
    const requested = server.paths.slice(before);
    expect(requested).not.toContain("/popup-target");
    // A link to a file: URL goes nowhere (Chromium refuses it from a web page; the route never sees it).
    const local = await fetcher.fetch({
      url: `${server.url}/popups`,
      browserOptions: options({ waitStrategy: "load", steps: [{ action: "click", selector: "#local", timeoutMs: 2000 }, { action: "waitForTimeout", ms: 300 }] }),
    });
    expect(local.finalUrl).toBe(`${server.url}/popups`);
    expect(load(local.body)("#content").text()).toBe("Popup page");
    expect(local.body).not.toContain("root:");
  });

  it("inspects a page: unique selectors, boxes on the full-page screenshot, texts", async () => {
    const result = await fetcher.inspect(`${server.url}/login`, { waitStrategy: "load", viewport: { width: 360, height: 640 } });
    expect(result.width).toBe(360);
    expect(result.height).toBeGreaterThan(3000);
    expect(isPng(result.screenshot)).toBe(true);
    const $ = load(forms);
    const bySelector = new Map(result.elements.map((e) => [e.selector, e]));
    expect(bySelector.get("#hint")?.text).toBe("Long page below");
    expect(bySelector.get("#bottom")!.box.y).toBeGreaterThan(3000);
    expect(result.elements.find((e) => e.text === "Sign in" && e.selector.endsWith("h1:nth-of-type(1)"))?.selector).toBe("#main > h1:nth-of-type(1)");
    for (const element of result.elements) {
      expect($(element.selector).length, element.selector).toBe(1);
      expect(element.box.x + element.box.width).toBeLessThanOrEqual(result.width + 1);
      expect(element.box.y + element.box.height).toBeLessThanOrEqual(result.height + 1);
    }
  });
});
