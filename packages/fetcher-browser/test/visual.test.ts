import { classifyWebsiteChanges, diffHtml, diffScreenshots, PolicyRulesSchema, visualDiffOptions } from "@driftwatch/core";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestFetcher, html, options, startServer, type TestServer } from "./helpers.js";

const article = html(
  `<header><h1>Release notes</h1></header>
   <main><article><h2>Version 2.4</h2><p>Faster checks and fewer false alarms.</p></article>
   <aside class="ad"><span id="ad-text">Ad</span></aside>
   <p class="footer">Published weekly.</p></main>`,
  `<link rel="stylesheet" href="/style.css">`,
);
const goodCss = `body{margin:0;font:16px sans-serif} main{display:grid;grid-template-columns:2fr 1fr;gap:16px;padding:16px}
  .ad{width:300px;height:100px} .footer{grid-column:1/3}`;
// The same text, the layout broken: the grid is gone, the header collapses onto the content.
const brokenCss = `body{margin:0;font:16px sans-serif} main{display:block;padding:200px 0 0 400px} header{position:absolute;top:120px;left:0}
  .ad{width:300px;height:100px} .footer{font-size:40px}`;

let css = goodCss;
let adVersion = 0;
const adColours = ["#e53935", "#1e88e5", "#43a047"];

let server: TestServer;
beforeAll(async () => {
  server = await startServer((req, res) => {
    const url = req.url ?? "/";
    if (url === "/style.css") {
      res.writeHead(200, { "content-type": "text/css" }).end(css);
      return;
    }
    if (url === "/ad.js") {
      // A rotating ad: another colour on each load.
      adVersion++;
      res.writeHead(200, { "content-type": "text/javascript" }).end(
        `document.querySelector(".ad").style.background = ${JSON.stringify(adColours[adVersion % adColours.length])};`,
      );
      return;
    }
    if (url === "/tall") {
      res.writeHead(200, { "content-type": "text/html" }).end(html(`<p>Top</p><div style="height:1500px"></div><p>Bottom</p>`));
      return;
    }
    if (url === "/onetrust") {
      res.writeHead(200, { "content-type": "text/html" }).end(
        html(`<p id="text">Article behind a banner</p>
          <div id="onetrust-banner-sdk" style="position:fixed;inset:0;background:#000c;color:#fff">We use cookies
            <button id="onetrust-pc-btn-handler">Settings</button>
            <button id="onetrust-accept-btn-handler" onclick="document.cookie='OptanonAlertBoxClosed=1';this.parentElement.remove();document.getElementById('text').dataset.consent='given'">Accept All Cookies</button>
          </div>`),
      );
      return;
    }
    if (url === "/generic-banner") {
      // A banner of no known platform, in German, added by script after load.
      res.writeHead(200, { "content-type": "text/html" }).end(
        html(
          `<p id="text">Artikel</p><a href="/impressum">Akzeptieren Sie unsere AGB</a>`,
          `<script>addEventListener("load", () => setTimeout(() => {
            const box = document.createElement("div");
            box.className = "cookie-notice";
            box.innerHTML = '<p>Wir verwenden Cookies.</p><button onclick="this.parentElement.remove();document.getElementById(\\'text\\').dataset.consent=\\'given\\'">Alle akzeptieren</button>';
            document.body.append(box);
          }, 200));</script>`,
        ),
      );
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end(url === "/ad" ? article.replace("</body>", `<script src="/ad.js"></script></body>`) : article);
  });
});
afterAll(() => server.close());

describe("screenshots and visual diffs", () => {
  const fetcher = createTestFetcher({ allowPrivateNetworks: true });
  afterAll(() => fetcher.close());
  const shot = options({ waitStrategy: "load", screenshot: "viewport", viewport: { width: 800, height: 600 } });

  it("reports a page whose layout broke while its text stayed: a visual change alone", async () => {
    css = goodCss;
    const before = await fetcher.fetch({ url: `${server.url}/notes`, browserOptions: shot });
    css = brokenCss;
    const after = await fetcher.fetch({ url: `${server.url}/notes`, browserOptions: shot });
    css = goodCss;
    // The text diff is quiet ...
    expect(diffHtml(before.body, after.body)).toBeNull();
    // ... the screenshots are not.
    expect(before.screenshot).toMatchObject({ type: "image/png", width: 800, height: 600 });
    const visual = diffScreenshots(before.screenshot!, after.screenshot!);
    expect(visual.changedPercent).toBeGreaterThan(1);
    expect(visual.regions.length).toBeGreaterThan(0);
    expect(visual.change).toMatchObject({ path: "visual", category: "visual", severity: "medium" });
    expect(classifyWebsiteChanges([visual.change!])).toBe("visual_change");
    // The same layout twice: no visual change (rendering is stable, anti-aliasing ignored).
    const again = await fetcher.fetch({ url: `${server.url}/notes`, browserOptions: shot });
    const stable = await fetcher.fetch({ url: `${server.url}/notes`, browserOptions: shot });
    expect(diffScreenshots(again.screenshot!, stable.screenshot!).change).toBeNull();
  });

  it("masks a rotating ad region: no visual change with the mask, a change without", async () => {
    const rules = PolicyRulesSchema.parse({ visual: { mask: [".ad"], minChangedPercent: 0.05, severity: "low" } });
    const mask = rules.visual?.mask ?? [];
    const first = await fetcher.fetchWith({ url: `${server.url}/ad`, browserOptions: shot }, { screenshotMask: mask });
    // The mask given on the request (the Fetcher port) works the same.
    const second = await fetcher.fetch({ url: `${server.url}/ad`, browserOptions: shot, screenshotMask: mask });
    expect(diffScreenshots(first.screenshot!, second.screenshot!, visualDiffOptions(rules.visual))).toEqual({ changedPercent: 0, regions: [], change: null });
    const third = await fetcher.fetch({ url: `${server.url}/ad`, browserOptions: shot });
    const fourth = await fetcher.fetch({ url: `${server.url}/ad`, browserOptions: shot });
    const unmasked = diffScreenshots(third.screenshot!, fourth.screenshot!, visualDiffOptions(rules.visual));
    expect(unmasked.change?.severity).toBe("low");
    // The change is the ad's box (300 x 100 in the right column), nothing else.
    expect(unmasked.regions).toHaveLength(1);
    expect(unmasked.regions[0]!.width).toBeLessThanOrEqual(310);
    expect(unmasked.regions[0]!.height).toBeLessThanOrEqual(110);
  });

  it("captures the full page and a selector's element", async () => {
    const full = await fetcher.fetch({ url: `${server.url}/tall`, browserOptions: options({ waitStrategy: "load", screenshot: "fullPage", viewport: { width: 800, height: 300 } }) });
    expect(full.screenshot!.height).toBeGreaterThan(1500);
    // A page taller than maxScreenshotHeight is captured down to that height.
    const capped = createTestFetcher({ allowPrivateNetworks: true, maxScreenshotHeight: 1000 });
    try {
      const cut = await capped.fetch({ url: `${server.url}/tall`, browserOptions: options({ waitStrategy: "load", screenshot: "fullPage", viewport: { width: 800, height: 300 } }) });
      expect(cut.screenshot).toMatchObject({ width: 800, height: 1000 });
      const tooBig = createTestFetcher({ allowPrivateNetworks: true, maxScreenshotBytes: 1000 });
      try {
        const error = await tooBig.fetch({ url: `${server.url}/tall`, browserOptions: options({ waitStrategy: "load", screenshot: "viewport" }) }).catch((e: unknown) => e as { code: string });
        expect(error).toMatchObject({ code: "too_large" });
      } finally {
        await tooBig.close();
      }
    } finally {
      await capped.close();
    }
    const element = await fetcher.fetch({
      url: `${server.url}/notes`,
      browserOptions: options({ waitStrategy: "load", screenshot: "selector", waitForSelector: ".ad", viewport: { width: 800, height: 600 } }),
    });
    // The element's box (300 x 100 at a fractional position: rounded out to whole pixels).
    expect(element.screenshot!.width).toBeGreaterThanOrEqual(300);
    expect(element.screenshot!.width).toBeLessThanOrEqual(301);
    expect(element.screenshot!.height).toBeGreaterThanOrEqual(100);
    expect(element.screenshot!.height).toBeLessThanOrEqual(101);
    const none = await fetcher.fetch({ url: `${server.url}/notes`, browserOptions: options({ waitStrategy: "load" }) });
    expect(none.screenshot).toBeUndefined();
  });

  it("accepts cookie banners: OneTrust and a generic German banner", async () => {
    const onetrust = await fetcher.fetch({ url: `${server.url}/onetrust`, browserOptions: options({ waitStrategy: "load", steps: [{ action: "acceptCookies" }] }) });
    const $ = load(onetrust.body);
    expect($("#onetrust-banner-sdk").length).toBe(0);
    expect($("#text").attr("data-consent")).toBe("given");
    const generic = await fetcher.fetch({
      url: `${server.url}/generic-banner`,
      browserOptions: options({ waitStrategy: "load", steps: [{ action: "acceptCookies", timeoutMs: 5000 }] }),
    });
    const $$ = load(generic.body);
    expect($$(".cookie-notice").length).toBe(0);
    expect($$("#text").attr("data-consent")).toBe("given");
    // The link whose text starts like an accept button was not clicked.
    expect(generic.finalUrl).toBe(`${server.url}/generic-banner`);
  });
});
