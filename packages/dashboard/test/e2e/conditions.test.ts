/**
 * Tracked values and alert conditions in the dashboard, in real Chromium against the real server
 * (SQLite, delivery worker): a local shop page whose price and stock change, a monitor made in the
 * form with the "when the price falls below" preset, a webhook receiver that gets only the checks
 * whose conditions hold, and the monitor's page charting the recorded history (a line with min,
 * max and last for the price, a band for the availability), the Alerts page's preview saying which
 * past checks would have alerted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumSkipReason, expectNoAxeViolations, printPageOnFailure, openBrowser, signIn, startDriftwatch, startLocal, type Browsing, type LocalServer, type RunningDriftwatch } from "./support";

let dw: RunningDriftwatch;
let shop: LocalServer;
let receiver: LocalServer;
let b: Browsing;

/** The shop page as it is now: the price and stock in JSON-LD, and on the page. */
const product = { price: "219.00", availability: "OutOfStock" as "InStock" | "OutOfStock" };
const page = (): string => `<!doctype html><html lang="de"><head><title>Kettle</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Kettle",
"offers":{"@type":"Offer","price":"${product.price}","priceCurrency":"EUR","availability":"https://schema.org/${product.availability}"}}</script></head>
<body><main><h1>Kettle</h1><p class="price">${product.price.replace(".", ",")} €</p><p>${product.availability === "InStock" ? "In den Warenkorb" : "Ausverkauft"}</p></main></body></html>`;

/** The events the receiver got: each delivery's `data.alert` (webhook-id deduplicated). */
const events = new Map<string, { matched: boolean } | undefined>();

beforeAll(async () => {
  shop = await startLocal((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(page());
  });
  receiver = await startLocal((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data?: { alert?: { matched: boolean } } };
      events.set(String(req.headers["webhook-id"]), body.data?.alert);
      res.writeHead(204).end();
    });
  });
  dw = await startDriftwatch();
  b = await openBrowser();
});
afterAll(async () => {
  await b?.close();
  await dw?.close();
  await shop?.close();
  await receiver?.close();
});

describe.skipIf(chromiumSkipReason() !== null)("tracked values and conditions in the dashboard, in Chromium", () => {
  printPageOnFailure(() => b);
  let monitorId: string;

  it("makes a shop page's monitor with the price preset; only the checks whose conditions hold reach the webhook", async () => {
    await dw.api("POST", "/api/webhooks", { url: receiver.url, description: "alerts", minSeverity: "info" });
    await signIn(b.page, dw.baseUrl, dw.token);
    await b.page.getByRole("link", { name: "New monitor" }).click();
    await b.page.getByLabel("A web page").check();
    await b.page.getByLabel("URL").fill(`${shop.url}/kettle`);
    await b.page.getByLabel("Name").fill("Kettle");
    await b.page.getByLabel("When the price falls below…").check();
    await b.page.getByLabel("Price below").fill("200");
    await b.page.getByRole("button", { name: "Create monitor" }).click();
    await b.page.getByRole("heading", { name: "Kettle", level: 1 }).waitFor();
    monitorId = new URL(b.page.url()).pathname.split("/")[2]!;
    // only the test's checks from now on, each change compared as it is; the preset's price plus the availability
    await dw.api("PATCH", `/api/monitors/${monitorId}`, { state: "paused" });
    const saved = await dw.api<{ track: unknown[]; alert: unknown }>("GET", `/api/monitors/${monitorId}/settings`);
    expect(saved.track).toEqual([{ name: "price", extract: "price" }]);
    expect(saved.alert).toEqual({ when: "all", conditions: [{ value: "price", op: "lt", to: 200 }] });
    await dw.api("PATCH", `/api/monitors/${monitorId}/settings`, { autoApplySuggestions: false, track: [...saved.track, { name: "stock", extract: "availability" }] });

    // 219 out of stock (as created), 249, 189 in stock, 179, 229 out of stock: the conditions hold on 189 and 179
    const steps: Array<[string, "InStock" | "OutOfStock"]> = [
      ["219.00", "OutOfStock"],
      ["249.00", "OutOfStock"],
      ["189.00", "InStock"],
      ["179.00", "InStock"],
      ["229.00", "OutOfStock"],
    ];
    for (const [price, availability] of steps) {
      product.price = price;
      product.availability = availability;
      await dw.api("POST", `/api/monitors/${monitorId}/check`);
    }
    const diffs = await dw.api<{ data: Array<{ alert?: { matched: boolean } }> }>("GET", `/api/monitors/${monitorId}/diffs`);
    // every change is recorded, alerting or not
    expect(diffs.data.map((d) => d.alert?.matched)).toEqual([false, true, true, false]);
    await expect.poll(() => events.size, { timeout: 30_000 }).toBe(2);
    // nothing more arrives: the other diffs were not for the webhook
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect([...events.values()].map((alert) => alert?.matched)).toEqual([true, true]);
  });

  it("charts the price as a line with min, max and last, and the availability as a band", async () => {
    await b.page.goto(`${dw.baseUrl}/monitors/${monitorId}`);
    const price = b.page.getByRole("figure", { name: /price/ });
    await price.locator("path").first().waitFor();
    const facts = await price.getByRole("definition").allTextContents();
    expect(facts[0]).toMatch(/179/);
    expect(facts[1]).toMatch(/249/);
    expect(facts[2]).toMatch(/229/);
    // one point per check that read the price, oldest left; the lowest (179) drawn lowest
    const d = (await price.locator("path").first().getAttribute("d"))!;
    const ys = [...d.matchAll(/[ML][\d.]+,([\d.]+)/g)].map((m) => Number(m[1]));
    const readings = await dw.api<{ data: unknown[] }>("GET", `/api/monitors/${monitorId}/values?name=price`);
    expect(ys).toHaveLength(readings.data.length);
    expect(Math.max(...ys)).toBe(ys[ys.length - 2]);
    expect(Math.min(...ys)).toBe(ys[ys.length - 4]);
    const stock = b.page.getByRole("figure", { name: /stock/ });
    const bands = await stock.locator("rect").evaluateAll((rects) => rects.map((r) => r.getAttribute("class")));
    // consecutive checks with the same availability, collapsed
    expect(bands.filter((c, i) => c !== bands[i - 1])).toEqual(["band-out_of_stock", "band-in_stock", "band-out_of_stock"]);
    expect((await stock.getByRole("definition").allTextContents())[0]).toMatch(/^out of stock/);
    await expectNoAxeViolations(b.page, "tracked values");
    expect(b.errors).toEqual([]);
  });

  it("previews on the Alerts page which past checks would have alerted", async () => {
    await b.page.getByRole("link", { name: "Alerts" }).click();
    await b.page.getByText(/past checks/).waitFor();
    // alerted = the conditions hold now and did not on the previous check: 189 only
    expect(await b.page.getByText(/past checks/).locator("..").textContent()).toMatch(/^1 of \d+ past checks would have alerted\.$/);
    expect(b.errors).toEqual([]);
  });
});
