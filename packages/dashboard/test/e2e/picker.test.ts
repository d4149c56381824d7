/**
 * The point-and-click selector (issue 28) in real Chromium at 360 px, against the real server and
 * its browser fetcher: the monitor form renders the target page, a click on a block's box previews
 * the text it selects now, "Use this selector" puts it in the form and the saved monitor has it.
 * The page does not scroll sideways and passes axe-core.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumSkipReason, expectNoAxeViolations, openBrowser, printPageOnFailure, signIn, startDriftwatch, startLocal, type Browsing, type LocalServer, type RunningDriftwatch } from "./support";

const PAGE = `<!doctype html><html><head><title>Grinder</title><style>
body { font: 16px sans-serif; margin: 0; }
header, main, footer { display: block; padding: 16px; }
#price { font-size: 40px; padding: 24px; background: #eee; }
</style></head><body>
<header><h1>Northwind grinder G-3</h1></header>
<main><p id="price">€ 199,00</p><p class="stock">In stock: 3</p></main>
<footer><p>Shipping in 2 days</p></footer>
</body></html>`;

let dw: RunningDriftwatch;
let target: LocalServer;
let b: Browsing;
let monitorId: string;

beforeAll(async () => {
  target = await startLocal((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(PAGE);
  });
  dw = await startDriftwatch();
  monitorId = (await dw.api<{ id: string }>("POST", "/api/monitors", { type: "website", name: "Grinder", url: `${target.url}/grinder`, intervalSeconds: 3600 })).id;
  b = await openBrowser({ width: 360, height: 780 });
});
afterAll(async () => {
  await b?.close();
  await dw?.close();
  await target?.close();
});

describe.skipIf(chromiumSkipReason() !== null)("the selector picker at 360 px, in Chromium", () => {
  printPageOnFailure(() => b);

  it("renders the page, previews the clicked block's text, and saves its selector", async () => {
    await signIn(b.page, dw.baseUrl, dw.token);
    await b.page.goto(`${dw.baseUrl}/monitors/${monitorId}/edit`);
    await b.page.getByRole("button", { name: "Pick on the page" }).click();
    const image = b.page.getByRole("img", { name: "The rendered page" });
    await image.waitFor({ timeout: 60_000 });
    // the boxes follow the image at this width: the price's box lies on the image, inside it
    const price = b.page.locator('.picks [data-selector="#price"]');
    const [imageBox, priceBox] = [await image.boundingBox(), await price.boundingBox()];
    expect(imageBox!.width).toBeLessThanOrEqual(360);
    expect(priceBox!.x).toBeGreaterThanOrEqual(imageBox!.x);
    expect(priceBox!.x + priceBox!.width).toBeLessThanOrEqual(imageBox!.x + imageBox!.width + 1);
    expect(priceBox!.height).toBeGreaterThan(10);
    await price.click();
    const picked = b.page.locator(".picked");
    await picked.waitFor();
    expect(await picked.locator("code").textContent()).toBe("#price");
    expect(await picked.locator("blockquote").textContent()).toBe("€ 199,00");
    expect(await b.page.getByLabel("Block to watch").inputValue()).toBe("#price");
    // nothing scrolls sideways at 360 px, with the rendered page shown
    expect(await b.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await expectNoAxeViolations(b.page, "the selector picker at 360 px");
    await b.page.getByRole("button", { name: "Use this selector" }).click();
    expect(await b.page.getByLabel("Only this part of the page (CSS selector)").inputValue()).toBe("#price");
    await b.page.getByRole("button", { name: "Save changes" }).click();
    await b.page.getByRole("heading", { name: "Grinder", level: 1 }).waitFor();
    const saved = await dw.api<{ selector: string | null }>("GET", `/api/monitors/${monitorId}`);
    expect(saved.selector).toBe("#price");
    expect(b.errors).toEqual([]);
  });
});
