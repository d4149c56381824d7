import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Store } from "@driftwatch/core";
import { createBrowserFetcher, type BrowserFetcher } from "@driftwatch/fetcher-browser";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckService, type EngineCheckService } from "../src/index.js";
import { createMonitor, openTempStore } from "./fixtures.js";

const CHROMIUM = process.env.DRIFTWATCH_CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * A site whose page renders its price with JavaScript from /data.json: the HTML never changes, so
 * only a browser render sees a price change. /static is a plain page with an ad banner.
 */
async function startSite(): Promise<{ url: string; state: { price: string; banner: string; heading: string }; close(): Promise<void> }> {
  const state = { price: "10", banner: "ad one", heading: "Plans" };
  const server = http.createServer((req, res) => {
    if (req.url === "/data.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ price: state.price }));
      return;
    }
    const body =
      req.url === "/app"
        ? `<main><h1>Shop</h1><p id="price">loading</p></main><script>fetch("/data.json").then(r => r.json()).then(d => { document.getElementById("price").textContent = "Price: " + d.price; document.body.setAttribute("data-ready", "1"); });</script>`
        : `<main><h1>${state.heading}</h1><p class="plan">Basic</p><div class="ad-banner">${state.banner}</div></main>`;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`);
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

describe("website checks (SQLite; HTTP fetcher and real Chromium)", () => {
  let store: Store;
  let orgId: string;
  let cleanup: () => Promise<void>;
  let site: Awaited<ReturnType<typeof startSite>>;
  let browser: BrowserFetcher;
  let checks: EngineCheckService;
  const httpFetcher = createHttpFetcher({ allowPrivateNetworks: true });

  beforeAll(async () => {
    ({ store, orgId, cleanup } = await openTempStore());
    site = await startSite();
    browser = createBrowserFetcher({ allowPrivateNetworks: true, executablePath: CHROMIUM, concurrency: 1, launchArgs: ["--no-sandbox"] });
    checks = createCheckService({ store, httpFetcher, browserFetcher: browser });
  });
  afterAll(async () => {
    const pid = browser.browserProcessId();
    await browser.close();
    if (pid !== null) expect(() => process.kill(pid, 0)).toThrow();
    await httpFetcher.close();
    await site.close();
    await cleanup();
  });

  it("diffs a plain page over HTTP, scoped to the monitor's selector, with policy selector ignores", async () => {
    const monitor = await createMonitor(store, orgId, { type: "website", url: `${site.url}/static`, selector: "main" });
    await store.updateSettings(orgId, monitor.id, { policyRulesJson: { rules: [{ selector: ".ad-banner", action: "ignore" }] }, updatedAt: new Date().toISOString() });
    const first = await checks.runCheck(monitor, { requestId: "req_w1" });
    expect(first.result).toBe("new_snapshot");
    expect(first.snapshot?.browserRender).toBe(false);

    site.state.banner = "ad two"; // ignored by the policy: new content, no diff
    const second = await checks.runCheck(first.monitor, { requestId: "req_w2" });
    expect(second.result).toBe("new_snapshot");
    expect(second.diff).toBeNull();

    site.state.heading = "Pricing";
    const third = await checks.runCheck(second.monitor, { requestId: "req_w3" });
    expect(third.result).toBe("changed");
    expect(third.diff).toMatchObject({ classification: "content_change", browserRender: false, waitStrategy: null, selector: "main", status: 200 });
    if (third.diff?.classification !== "content_change") throw new Error("expected a website diff");
    expect(third.diff.summary.modifications + third.diff.summary.additions + third.diff.summary.removals).toBeGreaterThan(0);
    expect(third.diff.changedTargets.join(" ")).toContain("h1");
  });

  it("renders a JavaScript page in Chromium for a monitor with browserOptions", async () => {
    const monitor = await createMonitor(store, orgId, {
      type: "website",
      url: `${site.url}/app`,
      selector: "#price",
      browserOptionsJson: { waitStrategy: "load", waitForSelector: "body[data-ready]", timeoutMs: 20_000 },
    });
    site.state.price = "10";
    const first = await checks.runCheck(monitor, { requestId: "req_b1" });
    expect(first.error).toBeNull();
    expect(first.snapshot?.browserRender).toBe(true);
    expect((await store.getSnapshot(orgId, monitor.id, first.snapshot!.id))?.body).toContain("Price: 10");

    site.state.price = "12";
    const second = await checks.runCheck(first.monitor, { requestId: "req_b2" });
    expect(second.result).toBe("changed");
    expect(second.diff).toMatchObject({ classification: "content_change", browserRender: true, waitStrategy: "load", selector: "#price" });
    expect((await store.getSnapshot(orgId, monitor.id, second.snapshot!.id))?.body).toContain("Price: 12");

    // the same page fetched over HTTP never sees the price: its HTML is static
    const plain = await createMonitor(store, orgId, { type: "website", url: `${site.url}/app`, selector: "#price" });
    const a = await checks.runCheck(plain, { requestId: "req_h1" });
    site.state.price = "14";
    const b = await checks.runCheck(a.monitor, { requestId: "req_h2" });
    expect(b.result).toBe("unchanged");
  });
});
