/**
 * Learning settings end to end in real Chromium against the real server (SQLite): an admin sets
 * the organization's defaults for new monitors, a monitor created afterwards starts with them, and
 * its own learning settings are edited on its rules page; both read back through the API. axe-core
 * (WCAG 2 A/AA) on both pages, and neither scrolls sideways at 360 px.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumSkipReason, expectNoAxeViolations, openBrowser, printPageOnFailure, signIn, startDriftwatch, startLocal, type Browsing, type LocalServer, type RunningDriftwatch } from "./support";

let dw: RunningDriftwatch;
let target: LocalServer;
let b: Browsing;

beforeAll(async () => {
  target = await startLocal((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "ok" })));
  dw = await startDriftwatch();
  b = await openBrowser();
});
afterAll(async () => {
  await b?.close();
  await dw?.close();
  await target?.close();
});

describe.skipIf(chromiumSkipReason() !== null)("learning settings in Chromium", () => {
  printPageOnFailure(() => b);
  let orgId: string;

  it("an admin sets what new monitors start with on the organization page; a new monitor starts with it", async () => {
    await signIn(b.page, dw.baseUrl, dw.token);
    orgId = (await dw.api<{ org: { id: string } }>("GET", "/api/auth/me")).org.id;
    await b.page.goto(`${dw.baseUrl}/org`);
    const form = b.page.getByRole("form", { name: "New monitors" });
    await form.waitFor();
    await expectNoAxeViolations(b.page, "organization");
    const samples = form.getByRole("spinbutton", { name: /Learning samples/ });
    await samples.fill("12");
    await form.getByText("must be from 2 to 10").waitFor();
    expect(await form.getByRole("button", { name: "Save defaults" }).isDisabled()).toBe(true);
    await expectNoAxeViolations(b.page, "organization with an error at a field");
    await samples.fill("4");
    await form.getByRole("spinbutton", { name: /Warm-up fetches/ }).fill("0");
    await form.getByRole("checkbox", { name: /New monitors learn their noise/ }).uncheck();
    await form.getByRole("button", { name: "Save defaults" }).click();
    await form.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const org = await dw.api("GET", `/api/orgs/${orgId}`);
    expect(org).toMatchObject({ learnNoiseByDefault: false, learningDefaults: { warmupSamples: 0, learningSamples: 4 } });
    // the facts above the form follow
    await b.page.getByRole("definition").filter({ hasText: "0 warm-up fetches, 4 learning samples" }).waitFor();

    const created = await dw.api<{ id: string }>("POST", "/api/monitors", { name: "Status", url: `${target.url}/status.json`, intervalSeconds: 3600, state: "paused" });
    expect(await dw.api("GET", `/api/monitors/${created.id}/settings`)).toMatchObject({ autoApplySuggestions: false, learning: { warmupSamples: 0, learningSamples: 4 } });
  });

  it("a monitor's learning settings are edited on its rules page and persist", async () => {
    const created = await dw.api<{ id: string }>("POST", "/api/monitors", { name: "Prices", url: `${target.url}/prices.json`, intervalSeconds: 3600, state: "paused" });
    await dw.api("PATCH", `/api/monitors/${created.id}/settings`, { learning: null });
    await b.page.goto(`${dw.baseUrl}/monitors/${created.id}/rules`);
    const form = b.page.getByRole("form", { name: "How this monitor learns" });
    await form.waitFor();
    await form.getByText("This monitor uses the service’s defaults").waitFor();
    expect(await form.innerText()).toContain("New monitors of");
    expect(await form.innerText()).toContain("0 warm-up fetches, 4 learning samples");
    await expectNoAxeViolations(b.page, "rules with learning settings");
    const learns = form.getByRole("checkbox", { name: /Learn this monitor’s noise/ });
    expect(await learns.isChecked()).toBe(false);
    await learns.check();
    await form.getByRole("spinbutton", { name: /Warm-up fetches/ }).fill("3");
    await form.getByRole("spinbutton", { name: /Learning samples/ }).fill("6");
    await form.getByRole("button", { name: "Save learning settings" }).click();
    await form.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect(await dw.api("GET", `/api/monitors/${created.id}/settings`)).toMatchObject({ autoApplySuggestions: true, learning: { warmupSamples: 3, learningSamples: 6 } });

    // after a reload the page shows what the server stored
    await b.page.reload();
    await form.getByText("This monitor has its own settings: 3 warm-up fetches, 6 learning samples").waitFor();
    expect(await form.getByRole("spinbutton", { name: /Learning samples/ }).inputValue()).toBe("6");
    // back to the defaults: learning null
    await form.getByRole("button", { name: "Use the service’s defaults" }).click();
    await form.getByRole("button", { name: "Save learning settings" }).click();
    await form.getByText("This monitor uses the service’s defaults").waitFor();
    expect(await dw.api("GET", `/api/monitors/${created.id}/settings`)).toMatchObject({ learning: null });

    await b.page.setViewportSize({ width: 360, height: 780 });
    for (const path of [`/monitors/${created.id}/rules`, "/org"]) {
      await b.page.goto(`${dw.baseUrl}${path}`);
      await b.page.locator("h1").waitFor();
      await expect.poll(() => b.page.getByText(/^Loading /).count()).toBe(0);
      const width = await b.page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${path} scrolls sideways at 360 px`).toBeLessThanOrEqual(360);
      await expectNoAxeViolations(b.page, `${path} at 360 px`);
    }
    expect(b.errors).toEqual([]);
    expect(b.dialogs).toEqual([]);
  });
});
