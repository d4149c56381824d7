import http from "node:http";
import type { AddressInfo } from "node:net";
import { createSecretBox, createSecretResolver, generateSecretKey, parseSecretKeys } from "@driftwatch/core";
import { createBrowserFetcher, type BrowserFetcher } from "@driftwatch/fetcher-browser";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckService } from "../../src/index.js";
import type { UrlGuard } from "../../src/types.js";
import { createHarness, expectProblem, json, type Harness } from "./harness.js";

const CHROMIUM = process.env.DRIFTWATCH_CHROMIUM_PATH ?? "/usr/bin/chromium";
const PASSWORD = "Corr3ct-horse-battery";

/**
 * A shop on loopback: /login (a form posting to /login, which sets a session cookie), /account
 * (the content, only with the cookie), /consent (the content behind a OneTrust-style banner that
 * sets a consent cookie), /hostile (a page that opens a popup, starts a download and links to a
 * private address and to file:).
 */
async function startShop() {
  const state = { balance: "42" };
  const server = http.createServer((req, res) => {
    const cookie = req.headers.cookie ?? "";
    if (req.method === "POST" && req.url === "/login") {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      req.on("end", () => {
        const form = new URLSearchParams(body);
        const ok = form.get("user") === "alice" && form.get("pass") === PASSWORD;
        res.writeHead(302, ok ? { location: "/account", "set-cookie": "session=ok; Path=/; HttpOnly" } : { location: "/login?failed=1" });
        res.end();
      });
      return;
    }
    if (req.url === "/account" && !cookie.includes("session=ok")) {
      res.writeHead(302, { location: "/login" });
      res.end();
      return;
    }
    if (req.url === "/download") {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": "attachment; filename=x.bin" });
      res.end("binary");
      return;
    }
    let page: string;
    if (req.url === "/account") page = `<main><h1>Account</h1><p id="balance">Balance ${state.balance}</p></main>`;
    else if (req.url === "/consent")
      page = `<main><h1>News</h1><p id="story">Today's story</p></main>
        <div id="onetrust-banner-sdk" style="position:fixed;inset:0;background:#000c;color:#fff">We use cookies
          <button id="onetrust-accept-btn-handler" onclick="document.getElementById('onetrust-banner-sdk').remove()">Accept all</button></div>`;
    else if (req.url === "/hostile")
      page = `<main><h1>Hostile</h1><a id="popup" href="#" onclick="window.open('/account');return false">popup</a>
        <a id="download" href="/download">download</a><a id="private" href="http://10.0.0.1/">private</a><a id="file" href="file:///etc/passwd">file</a></main>`;
    else
      page = `<form method="post" action="/login"><label>User <input id="user" name="user"></label><input id="pass" name="pass" type="password"><button id="go">Sign in</button></form>`;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>shop</title></head><body>${page}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const openGuard: UrlGuard = { async assertSafeUrl() {} };

describe("website monitors with steps, end to end (SQLite, the engine's checks, real Chromium)", () => {
  let h: Harness;
  let shop: Awaited<ReturnType<typeof startShop>>;
  let browser: BrowserFetcher;
  const httpFetcher = createHttpFetcher({ allowAddresses: ["127.0.0.1"] });
  const box = createSecretBox(parseSecretKeys(generateSecretKey()));

  beforeAll(async () => {
    shop = await startShop();
    // The guard is lifted for the shop's loopback address only: private addresses stay refused.
    browser = createBrowserFetcher({ allowAddresses: ["127.0.0.1"], executablePath: CHROMIUM, concurrency: 1, launchArgs: ["--no-sandbox"] });
    h = await createHarness({
      urlGuard: openGuard,
      extra: { secrets: { box, source: "env" }, browser },
      checks: (store, now) => createCheckService({ store, httpFetcher, browserFetcher: browser, now, resolveSecret: createSecretResolver(store, box) }),
    });
  });
  afterAll(async () => {
    await h?.close();
    await browser?.close();
    await httpFetcher.close();
    await shop?.close();
  });

  async function monitorWith(path: string, browserOptions: Record<string, unknown>): Promise<string> {
    const created = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { type: "website", url: `${shop.url}${path}`, browserOptions } });
    expect(created.statusCode, created.body).toBe(201);
    return json(created).id as string;
  }

  it("signs in with a stored secret and watches the content behind the session cookie, with its screenshot", async () => {
    expect((await h.request(h.a.admin, { method: "POST", url: "/api/secrets", payload: { name: "shop.password", value: PASSWORD } })).statusCode).toBe(201);
    const id = await monitorWith("/login", {
      waitStrategy: "load",
      screenshot: "viewport",
      viewport: { width: 800, height: 600 },
      steps: [
        { action: "fill", selector: "#user", value: "alice" },
        { action: "fill", selector: "#pass", secret: "shop.password" },
        { action: "click", selector: "#go" },
        { action: "waitForSelector", selector: "#balance" },
      ],
    });
    const first = await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${id}/check` });
    expect(first.statusCode, first.body).toBe(200);
    const snapshotId = json(first).snapshot.id as string;
    const stored = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/snapshots/${snapshotId}` }));
    expect(stored.body).toContain("Balance 42");
    expect(stored.body).not.toContain(PASSWORD);
    const shot = await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/snapshots/${snapshotId}/screenshot` });
    expect(shot.statusCode).toBe(200);
    expect(shot.headers["content-type"]).toBe("image/png");
    expect(shot.rawPayload.readUInt32BE(16)).toBe(800);

    shop.state.balance = "7";
    const second = json(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${id}/check` }));
    expect(second.diff.classification).toBe("content_change");
    expect(second.diff.changes.some((c: { before?: unknown; after?: unknown }) => JSON.stringify(c).includes("Balance 7"))).toBe(true);
    expect(second.diff.visual.changedPercent).toBeGreaterThan(0);
    expect(JSON.stringify(h.logLines)).not.toContain(PASSWORD);
  });

  it("a failed step fails the check with browser_step_failed and the step; lastError names it, lastFailure carries it structured", async () => {
    const cases: Array<{ steps: Record<string, unknown>[]; index: number; action: string; selector: string | null }> = [
      { steps: [{ action: "click", selector: "#nope", timeoutMs: 400 }], index: 0, action: "click", selector: "#nope" },
      { steps: [{ action: "fill", selector: "#user", value: "a" }, { action: "fill", selector: "#nope", value: "x", timeoutMs: 400 }], index: 1, action: "fill", selector: "#nope" },
      { steps: [{ action: "select", selector: "#user", value: "x", timeoutMs: 400 }], index: 0, action: "select", selector: "#user" },
      { steps: [{ action: "check", selector: "#nope", timeoutMs: 400 }], index: 0, action: "check", selector: "#nope" },
      { steps: [{ action: "press", selector: "#nope", key: "Enter", timeoutMs: 400 }], index: 0, action: "press", selector: "#nope" },
      { steps: [{ action: "waitForSelector", selector: "#nope", timeoutMs: 400 }], index: 0, action: "waitForSelector", selector: "#nope" },
      { steps: [{ action: "scroll", selector: "#nope", timeoutMs: 400 }], index: 0, action: "scroll", selector: "#nope" },
      { steps: [{ action: "waitForTimeout", ms: 10 }, { action: "goto", url: "http://10.0.0.1/" }], index: 1, action: "goto", selector: null },
    ];
    for (const item of cases) {
      const id = await monitorWith("/login", { waitStrategy: "load", steps: item.steps });
      const answer = expectProblem(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${id}/check` }), 502, "unavailable");
      expect(answer.reason, `${item.action}: ${JSON.stringify(answer)}`).toBe("browser_step_failed");
      expect(answer.step, item.action).toEqual({ index: item.index, action: item.action, selector: item.selector });
      const monitor = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}` }));
      expect(monitor.lastError).toMatch(new RegExp(`^browser_step_failed: Browser step ${String(item.index)} \\(${item.action}`));
      // ... and structured, as the 502 answer gives it
      expect(monitor.lastFailure, item.action).toEqual({ reason: "browser_step_failed", message: expect.stringContaining(`Browser step ${String(item.index)}`), step: answer.step });
      expect(monitor.consecutiveFailures).toBe(1);
      // The page at the failure is kept, with the step.
      const failure = await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/failure-screenshot` });
      expect(failure.statusCode, item.action).toBe(200);
      expect(failure.headers["content-type"]).toBe("image/png");
      expect(failure.headers["x-failed-step-index"]).toBe(String(item.index));
      expect(failure.headers["x-failed-step-action"]).toBe(item.action);
      expect(failure.rawPayload.subarray(1, 4).toString("latin1")).toBe("PNG");
      expectProblem(await h.request(h.b.admin, { method: "GET", url: `/api/monitors/${id}/failure-screenshot` }), 404, "not_found");
    }
  });

  it("accepts a cookie banner before the capture: the content without the banner", async () => {
    // (acceptCookies on a page without a banner is no failure: returning visitors get none.)
    const id = await monitorWith("/consent", { waitStrategy: "load", screenshot: "viewport", steps: [{ action: "acceptCookies" }] });
    const first = json(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${id}/check` }));
    const stored = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/snapshots/${String(first.snapshot.id)}` }));
    expect(stored.body).toContain("Today's story");
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/failure-screenshot` }), 404, "not_found");
    expect(stored.body).not.toContain("onetrust-banner-sdk");
  });

  it("hostile steps: a popup and a download change nothing, a private address and file: fail their step", async () => {
    const id = await monitorWith("/hostile", {
      waitStrategy: "load",
      steps: [
        { action: "click", selector: "#popup" },
        { action: "click", selector: "#download" },
        { action: "waitForTimeout", ms: 200 },
      ],
    });
    const ok = await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${id}/check` });
    expect(ok.statusCode, ok.body).toBe(200);
    const stored = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/snapshots/${String(json(ok).snapshot.id)}` }));
    expect(stored.body).toContain("Hostile");
    expect(stored.body).not.toContain("Balance");

    const privateLink = await monitorWith("/hostile", { waitStrategy: "load", steps: [{ action: "click", selector: "#private" }, { action: "waitForTimeout", ms: 100 }] });
    const refused = expectProblem(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${privateLink}/check` }), 502, "unavailable");
    expect(refused.reason).toBe("browser_step_failed");
    expect(refused.step).toMatchObject({ index: 0, action: "click" });
    expect(String(refused.detail)).toMatch(/unsafe_url|refused|private/i);

    // A goto to file: is refused when the monitor is saved; a link to file: stays on the page.
    expectProblem(
      await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { type: "website", url: `${shop.url}/hostile`, browserOptions: { steps: [{ action: "goto", url: "file:///etc/passwd" }] } } }),
      422,
      "invalid_browser_options",
    );
    const fileLink = await monitorWith("/hostile", { waitStrategy: "load", steps: [{ action: "click", selector: "#file" }, { action: "waitForTimeout", ms: 100 }] });
    const after = await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${fileLink}/check` });
    expect(after.statusCode, after.body).toBe(200);
    const page = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${fileLink}/snapshots/${String(json(after).snapshot.id)}` }));
    expect(page.body).not.toContain("root:");
  });
});
