import http from "node:http";
import type { AddressInfo } from "node:net";
import { BrowserOptionsSchema, type MonitorRecord, type PolicyRulesInput, type Store } from "@driftwatch/core";
import { createBrowserFetcher, type BrowserFetcher } from "@driftwatch/fetcher-browser";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckService, type EngineCheckService } from "../src/index.js";
import { createMonitor, openTempStore } from "./fixtures.js";

const CHROMIUM = process.env.DRIFTWATCH_CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * /layout: the same HTML every time, its stylesheet from /style.css (`state.broken` swaps the
 * columns' layout for a broken one: the text stays, the page looks different). /ad: a page whose
 * rotating ad is painted by a script from /ad.json (a colour), the text around it unchanged.
 */
async function startSite() {
  const state = { broken: false, adColor: "#d00000", heading: "Plans" };
  const server = http.createServer((req, res) => {
    if (req.url === "/style.css") {
      res.writeHead(200, { "content-type": "text/css", "cache-control": "no-store" });
      res.end(
        state.broken
          ? "body{margin:0;font:16px sans-serif} .cols{display:block} .col{width:100%;height:120px;background:#8fb3ff;margin:0}"
          : "body{margin:0;font:16px sans-serif} .cols{display:flex;gap:20px} .col{width:300px;height:120px;background:#8fb3ff}",
      );
      return;
    }
    if (req.url === "/ad.json") {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify({ color: state.adColor }));
      return;
    }
    const body =
      req.url === "/ad"
        ? `<main><h1>${state.heading}</h1><p>Our plans, unchanged.</p><div id="ad" style="width:400px;height:200px"></div></main>
           <script>fetch("/ad.json").then(r => r.json()).then(d => { document.getElementById("ad").style.background = d.color; })</script>`
        : `<main><h1>Pricing</h1><div class="cols"><div class="col">Basic</div><div class="col">Pro</div><div class="col">Team</div></div></main>`;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>t</title><link rel="stylesheet" href="/style.css"></head><body>${body}</body></html>`);
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

describe("visual diffs of website checks (SQLite, real Chromium)", () => {
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
    await browser.close();
    await httpFetcher.close();
    await site.close();
    await cleanup();
  });

  async function websiteMonitor(path: string, policy: PolicyRulesInput | null): Promise<MonitorRecord> {
    const monitor = await createMonitor(store, orgId, {
      type: "website",
      url: `${site.url}${path}`,
      browserOptionsJson: BrowserOptionsSchema.parse({ waitStrategy: "load", screenshot: "viewport", viewport: { width: 800, height: 600 }, extraWaitMs: 200 }),
    });
    if (policy !== null) await store.updateSettings(orgId, monitor.id, { policyRulesJson: { rules: [], ...policy }, updatedAt: new Date().toISOString() });
    return monitor;
  }

  it("reports a layout that broke while the text stayed: a visual_change diff with the policy's severity", async () => {
    site.state.broken = false;
    const monitor = await websiteMonitor("/layout", { visual: { severity: "high", minChangedPercent: 1 } });
    const first = await checks.runCheck(monitor, { requestId: "req_v1" });
    expect(first.error).toBeNull();
    expect(first.result).toBe("new_snapshot");
    const stored = await store.getScreenshot(orgId, monitor.id, first.snapshot!.id);
    expect(stored).toMatchObject({ type: "image/png", width: 800, height: 600 });
    expect(stored!.bytes).toBeGreaterThan(100);

    // The same render again: unchanged, no new snapshot.
    const again = await checks.runCheck(first.monitor, { requestId: "req_v2" });
    expect(again.result).toBe("unchanged");

    site.state.broken = true;
    const broken = await checks.runCheck(again.monitor, { requestId: "req_v3" });
    expect(broken.result).toBe("changed");
    expect(broken.snapshot!.contentHash).toBe(first.snapshot!.contentHash);
    const diff = broken.diff!;
    expect(diff.classification).toBe("visual_change");
    expect(diff.topSeverity).toBe("high");
    expect(diff.changes).toEqual([expect.objectContaining({ category: "visual", path: "visual", severity: "high" })]);
    expect(diff.previousSnapshotId).toBe(first.snapshot!.id);
    if (diff.classification !== "visual_change") throw new Error("unreachable");
    expect(diff.visual!.changedPercent).toBeGreaterThan(1);
    expect(diff.visual!.regions.length).toBeGreaterThan(0);
    for (const region of diff.visual!.regions) {
      expect(region.x + region.width).toBeLessThanOrEqual(800);
      expect(region.y + region.height).toBeLessThanOrEqual(600);
    }
    // The new snapshot has its own screenshot, the baseline of the next check.
    expect(await store.getScreenshot(orgId, monitor.id, broken.snapshot!.id)).not.toBeNull();
    const stable = await checks.runCheck(broken.monitor, { requestId: "req_v4" });
    expect(stable.result).toBe("unchanged");
  });

  it("a text change carries the visual comparison too; below the threshold there is no visual change", async () => {
    site.state.broken = false;
    site.state.adColor = "#d00000";
    site.state.heading = "Plans";
    const monitor = await websiteMonitor("/ad", { visual: { minChangedPercent: 50 } });
    const first = await checks.runCheck(monitor, { requestId: "req_t1" });
    site.state.heading = "Plans and prices";
    const second = await checks.runCheck(first.monitor, { requestId: "req_t2" });
    expect(second.result).toBe("changed");
    expect(second.diff!.classification).toBe("content_change");
    expect(second.diff!.changes.some((change) => change.category === "visual")).toBe(false);
    if (second.diff!.classification !== "content_change") throw new Error("unreachable");
    expect(second.diff!.visual!.changedPercent).toBeGreaterThan(0);
    expect(second.diff!.visual!.changedPercent).toBeLessThan(50);
  });

  it("a rotating ad: reported without a mask, no change with the ad masked", async () => {
    site.state.heading = "Plans";
    site.state.adColor = "#d00000";
    const unmasked = await websiteMonitor("/ad", null);
    const masked = await websiteMonitor("/ad", { visual: { mask: ["#ad"] } });
    const u1 = await checks.runCheck(unmasked, { requestId: "req_a1" });
    const m1 = await checks.runCheck(masked, { requestId: "req_a2" });
    site.state.adColor = "#0000d0";
    const u2 = await checks.runCheck(u1.monitor, { requestId: "req_a3" });
    const m2 = await checks.runCheck(m1.monitor, { requestId: "req_a4" });
    expect(u2.result).toBe("changed");
    expect(u2.diff!.classification).toBe("visual_change");
    expect(u2.diff!.topSeverity).toBe("medium");
    expect(m2.diff).toBeNull();
    expect(["unchanged", "new_snapshot"]).toContain(m2.result);
  });

  it("turning screenshots on for a monitor with snapshots takes the next render as the baseline", async () => {
    site.state.broken = false;
    const monitor = await createMonitor(store, orgId, { type: "website", url: `${site.url}/layout`, browserOptionsJson: BrowserOptionsSchema.parse({ waitStrategy: "load" }) });
    const first = await checks.runCheck(monitor, { requestId: "req_b1" });
    expect(await store.getScreenshot(orgId, monitor.id, first.snapshot!.id)).toBeNull();
    const on = await store.updateMonitor(orgId, monitor.id, {
      browserOptionsJson: BrowserOptionsSchema.parse({ waitStrategy: "load", screenshot: "viewport", viewport: { width: 800, height: 600 } }),
    });
    const second = await checks.runCheck(on!, { requestId: "req_b2" });
    expect(second.result).toBe("unchanged");
    expect(await store.getScreenshot(orgId, monitor.id, first.snapshot!.id)).not.toBeNull();
    site.state.broken = true;
    const third = await checks.runCheck(second.monitor, { requestId: "req_b3" });
    expect(third.diff?.classification).toBe("visual_change");
    site.state.broken = false;
  });
});
