import { diffHtml, WebsiteDiffSchema } from "@driftwatch/core";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { load } from "cheerio";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestFetcher, html, options, startServer, type TestServer } from "./helpers.js";

// A page whose content arrives by script 300 ms after load: the HTML is the same in every
// version, only the data behind it changes.
const shell = html(
  `<h1>Price list</h1><ul id="prices"></ul><p class="note">Prices include VAT.</p>`,
  `<script>
    addEventListener("load", () => setTimeout(async () => {
      const items = await (await fetch("/data.json")).json();
      const list = document.getElementById("prices");
      for (const item of items) {
        const li = document.createElement("li");
        li.className = "price";
        li.textContent = item.name + ": " + item.price + " EUR";
        list.append(li);
      }
    }, 300));
  </script>`,
);
let data = [
  { name: "Widget", price: 10 },
  { name: "Gadget", price: 25 },
  { name: "Gizmo", price: 40 },
];

let server: TestServer;
beforeAll(async () => {
  server = await startServer((req, res) => {
    if (req.url === "/data.json") res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(data));
    else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(shell);
  });
});
afterAll(() => server.close());

it("sees script-inserted content and its changes only when rendered", async () => {
  const http = createHttpFetcher({ allowPrivateNetworks: true });
  const browser = createTestFetcher({ allowPrivateNetworks: true });
  const browserOptions = options({ waitStrategy: "networkidle" });
  const url = `${server.url}/prices`;
  try {
    const plainBefore = await http.fetch({ url });
    const renderedBefore = await browser.fetch({ url, browserOptions });
    data = [
      { name: "Widget", price: 10 },
      { name: "Gadget", price: 29 },
      { name: "Gizmo", price: 40 },
      { name: "Doohickey", price: 5 },
    ];
    const plainAfter = await http.fetch({ url });
    const renderedAfter = await browser.fetch({ url, browserOptions });

    // Without a browser the content never appears, so no change is seen.
    expect(plainBefore.body).not.toContain("Widget");
    expect(diffHtml(plainBefore.body, plainAfter.body)).toBeNull();

    expect(renderedBefore).toMatchObject({ browserRender: true, waitStrategy: "networkidle" });
    expect(renderedBefore.body).toContain("Gadget: 25 EUR");
    expect(renderedAfter.body).toContain("Gadget: 29 EUR");

    const selector = "#prices";
    const diff = diffHtml(renderedBefore.body, renderedAfter.body, { selector });
    expect(diff?.classification).toBe("content_change");
    expect(diff?.summary).toEqual({ additions: 1, removals: 0, modifications: 1 });
    // Each changed target selects exactly the changed element of the rendered new page.
    const $ = load(renderedAfter.body);
    const selected = (diff?.changedTargets ?? []).map((target) => {
      const matches = $(target);
      expect(matches.length).toBe(1);
      return matches.text();
    });
    expect(selected).toEqual(["Gadget: 29 EUR", "Doohickey: 5 EUR"]);
    // Outside the selector nothing changed: the whole-page diff finds the same elements.
    expect(diffHtml(renderedBefore.body, renderedAfter.body)?.changedTargets.length).toBe(2);

    // The website diff a monitor records: the engine's result plus the render
    // context that produced it, so a client can reproduce the conditions.
    const websiteDiff = WebsiteDiffSchema.parse({
      id: "dif_e2e",
      monitorId: "mon_e2e",
      snapshotId: "snp_after",
      previousSnapshotId: "snp_before",
      requestId: "req_e2e",
      status: renderedAfter.status,
      latencyMs: renderedAfter.latencyMs,
      createdAt: new Date(0).toISOString(),
      ...diff,
      browserRender: renderedAfter.browserRender,
      waitStrategy: renderedAfter.waitStrategy,
      selector,
    });
    expect(websiteDiff).toMatchObject({ classification: "content_change", browserRender: true, waitStrategy: "networkidle", selector: "#prices" });
    // The HTTP fetcher's responses carry the other render context.
    expect(plainAfter).toMatchObject({ browserRender: false, waitStrategy: null });
  } finally {
    await http.close();
    await browser.close();
  }
});
