/**
 * Values from targets and names people type are shown as text, never markup: XSS payloads go
 * through a JSON target, a web page, a monitor name and a header, and nothing runs (no dialog, no
 * injected element, no script). Also: the pages at 360 px and in the dark theme pass axe-core and
 * do not scroll sideways.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, chromiumSkipReason, openBrowser, signIn, startDriftwatch, startLocal, type Browsing, type LocalServer, type RunningDriftwatch } from "./support";

const PAYLOADS = [
  `<img src=x onerror="alert('img')">`,
  `<script>alert('script')</script>`,
  `<svg onload="alert('svg')"></svg>`,
  `javascript:alert('href')`,
  `"><iframe srcdoc="<script>alert(1)</script>">`,
];

let dw: RunningDriftwatch;
let target: LocalServer;
let b: Browsing;
const state = { json: JSON.stringify({ title: "safe", list: ["a"] }), html: "<html><body><main><p>Hello</p></main></body></html>" };
let apiMonitor: string;
let pageMonitor: string;
let apiDiff: string;
let pageDiff: string;

beforeAll(async () => {
  target = await startLocal((req, res) => {
    if (req.url?.startsWith("/page")) {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(state.html);
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(state.json);
  });
  dw = await startDriftwatch();
  const name = `${PAYLOADS[0]!} ${PAYLOADS[1]!}`;
  apiMonitor = (await dw.api("POST", "/api/monitors", { url: `${target.url}/api.json`, name, headers: { "x-note": PAYLOADS[2] }, intervalSeconds: 3600, tags: ["prod", `team:${"x".repeat(59)}`] })).id;
  pageMonitor = (await dw.api("POST", "/api/monitors", { type: "website", url: `${target.url}/page`, name: PAYLOADS[4], intervalSeconds: 3600 })).id;
  await dw.api("POST", `/api/monitors/${apiMonitor}/check`);
  await dw.api("POST", `/api/monitors/${pageMonitor}/check`);
  state.json = JSON.stringify({ title: PAYLOADS[0], list: ["a", PAYLOADS[1]], [PAYLOADS[2]!]: PAYLOADS[3], nested: { html: PAYLOADS[4] } });
  state.html = `<html><body><main><p>Hello ${PAYLOADS[0]!}</p><p>${PAYLOADS[1]!.replace(
    "<script>",
    "&lt;script&gt;",
  )}</p><a href="javascript:alert('a')">link</a></main></body></html>`;
  apiDiff = (await dw.api("POST", `/api/monitors/${apiMonitor}/check`)).diff.id;
  pageDiff = (await dw.api("POST", `/api/monitors/${pageMonitor}/check`)).diff.id;
  b = await openBrowser();
});
afterAll(async () => {
  await b?.close();
  await dw?.close();
  await target?.close();
});

/** Nothing the payloads could have injected is in the page, and nothing ran. */
async function expectNothingRan(where: string): Promise<void> {
  const injected = await b.page.evaluate(() => ({
    elements: document.querySelectorAll('img[src="x"], svg[onload], iframe, script:not([src]), [onerror], [onload], a[href^="javascript:"]').length,
    scripts: [...document.scripts].map((s) => s.src),
  }));
  expect(injected.elements, where).toBe(0);
  expect(
    injected.scripts.every((src) => src.startsWith(dw.baseUrl + "/assets/")),
    where,
  ).toBe(true);
  expect(b.dialogs, where).toEqual([]);
}

describe.skipIf(chromiumSkipReason() !== null)("hostile values in Chromium", () => {
  it("shows names, headers, JSON values and keys as text on every page", async () => {
    await signIn(b.page, dw.baseUrl, dw.token);
    await b.page.getByRole("link", { name: /<img src=x/ }).waitFor();
    await expectNothingRan("monitors list");

    await b.page.goto(`${dw.baseUrl}/monitors/${apiMonitor}`);
    await b.page.getByRole("heading", { level: 1, name: /<img src=x onerror=/ }).waitFor();
    await expectNothingRan("monitor detail");

    await b.page.goto(`${dw.baseUrl}/monitors/${apiMonitor}/diffs/${apiDiff}`);
    await b.page.getByText(PAYLOADS[0]!, { exact: true }).first().waitFor();
    // a member name full of markup is a path, shown as text
    expect(await b.page.locator("code.path").allTextContents()).toContain(`$['<svg onload="alert(\\'svg\\')"></svg>']`);
    await expectNothingRan("api diff");

    await b.page.goto(`${dw.baseUrl}/monitors/${apiMonitor}/edit`);
    await b.page.getByLabel("Name", { exact: true }).waitFor();
    expect(await b.page.getByLabel("Header value").inputValue()).toBe(PAYLOADS[2]);
    expect(await b.page.getByLabel("Name", { exact: true }).inputValue()).toBe(`${PAYLOADS[0]!} ${PAYLOADS[1]!}`);
    await expectNothingRan("edit form");

    await b.page.goto(`${dw.baseUrl}/monitors/${apiMonitor}/rules`);
    await b.page
      .getByText(/these rules would hide|No diffs yet/)
      .first()
      .waitFor();
    await expectNothingRan("rules");
  });

  it("shows website blocks (HTML fragments) as text, side by side and inline", async () => {
    await b.page.goto(`${dw.baseUrl}/monitors/${pageMonitor}/diffs/${pageDiff}`);
    await b.page.getByRole("heading", { name: /Change to/ }).waitFor();
    await b.page.locator(".values pre").first().waitFor();
    const shown = (await b.page.locator(".values pre").allTextContents()).join("\n");
    expect(shown).toContain("<script>alert('script')");
    await expectNothingRan("website diff, side by side");
    await b.page.getByRole("button", { name: "Inline" }).click();
    await expectNothingRan("website diff, inline");
    expect(await b.page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
  });

  it("at 360 px and in the dark theme: no sideways scrolling, no axe violations", async () => {
    await b.page.setViewportSize({ width: 360, height: 780 });
    for (const scheme of ["light", "dark"] as const) {
      await b.page.emulateMedia({ colorScheme: scheme });
      for (const path of [
        "/monitors",
        `/monitors/${apiMonitor}`,
        `/monitors/${apiMonitor}/diffs/${apiDiff}`,
        `/monitors/${pageMonitor}/diffs/${pageDiff}`,
        `/monitors/${apiMonitor}/rules`,
        "/monitors/new",
        "/webhooks",
        "/tokens",
        "/settings",
      ]) {
        await b.page.goto(`${dw.baseUrl}${path}`);
        await b.page.locator("h1").waitFor();
        // (the event stream keeps the network busy: wait for the page's own loading states instead)
        await expect.poll(() => b.page.getByText(/^Loading /).count()).toBe(0);
        const width = await b.page.evaluate(() => document.documentElement.scrollWidth);
        expect(width, `${scheme} ${path} scrolls sideways`).toBeLessThanOrEqual(360);
        const violations = await axeViolations(b.page);
        expect(violations, `${scheme} ${path}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
      }
    }
    await expectNothingRan("all pages at 360 px");
  });
});
