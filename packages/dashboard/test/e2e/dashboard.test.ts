/**
 * The dashboard end to end in real Chromium against the real server (SQLite, scheduler, delivery
 * worker): sign in, create a monitor on a local target, see a diff arrive live, turn a change into
 * a rule and see it applied, replay a webhook delivery; axe-core (WCAG 2 A/AA) on every page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumSkipReason, expectNoAxeViolations, printPageOnFailure, openBrowser, openTokenForm, signIn, startDriftwatch, startLocal, type Browsing, type LocalServer, type RunningDriftwatch } from "./support";

let dw: RunningDriftwatch;
let target: LocalServer;
let receiver: LocalServer;
let b: Browsing;
const doc = { body: JSON.stringify({ price: 10, currency: "EUR", updatedAt: "2026-01-01T00:00:00Z" }) };
const received: number[] = [];

beforeAll(async () => {
  target = await startLocal((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(doc.body);
  });
  // refuses each event's first attempt for an hour (the worker leaves it pending), accepts the rest
  const seen = new Set<string>();
  receiver = await startLocal((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["webhook-id"]);
      const first = !seen.has(id);
      seen.add(id);
      received.push(first ? 503 : 204);
      if (first) res.writeHead(503, { "retry-after": "3600" }).end();
      else res.writeHead(204).end();
    });
  });
  dw = await startDriftwatch();
  b = await openBrowser();
});
afterAll(async () => {
  await b?.close();
  await dw?.close();
  await target?.close();
  await receiver?.close();
});

async function expectAccessible(page: string): Promise<void> {
  await expectNoAxeViolations(b.page, page);
}

describe.skipIf(chromiumSkipReason() !== null)("the dashboard in Chromium", () => {
  printPageOnFailure(() => b);
  let monitorId: string;

  it("signs in with a token and shows the empty state", async () => {
    await b.page.goto(dw.baseUrl);
    await b.page.getByRole("heading", { name: "Sign in" }).waitFor();
    await expectAccessible("sign in");
    await openTokenForm(b.page);
    await b.page.getByLabel("API token").fill("dw_not-a-real-token-at-all-000000");
    await b.page.getByRole("button", { name: "Sign in with token" }).click();
    await b.page.getByText("The server does not know this token").waitFor();
    expect(await b.page.getByText(/Request id: req_/).count()).toBe(1);
    // the refused sign-in's 401 is the only console error this test expects
    b.errors.length = 0;
    await signIn(b.page, dw.baseUrl, dw.token);
    await b.page.getByText("No monitors yet").waitFor();
    // keyboard: the first Tab reaches the skip link, which moves focus to the page's content
    await b.page.keyboard.press("Tab");
    expect(await b.page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await b.page.keyboard.press("Enter");
    expect(await b.page.evaluate(() => document.activeElement?.id)).toBe("main");
    await b.page.keyboard.press("Tab");
    expect(await b.page.evaluate(() => document.activeElement?.textContent)).toBe("New monitor");
    await expectAccessible("monitors (empty)");
  });

  it("creates a monitor on a local target and sees a diff appear live", async () => {
    await b.page.getByRole("link", { name: "New monitor" }).click();
    await b.page.getByLabel("URL").fill(`${target.url}/prices.json`);
    await b.page.getByLabel("Name").fill("Prices");
    await b.page.getByLabel("Tags").fill("Prod, team:pricing");
    await expectAccessible("new monitor");
    await b.page.getByRole("button", { name: "Create monitor" }).click();
    await b.page.getByRole("heading", { name: "Prices", level: 1 }).waitFor();
    monitorId = new URL(b.page.url()).pathname.split("/")[2]!;
    expect(monitorId).toMatch(/^mon_/);
    // this test follows every change of the target into the diff viewer: learning (on for a new
    // monitor) would silence `updatedAt` moving forward, a clock by its name
    await dw.api("PATCH", `/api/monitors/${monitorId}/settings`, { autoApplySuggestions: false });
    expect(await b.page.getByRole("list", { name: "Tags" }).getByRole("listitem").allTextContents()).toEqual(["prod", "team:pricing"]);
    await b.page.getByRole("button", { name: "Check now" }).click();
    await b.page.getByText(/New content, HTTP 200/).waitFor();
    await expectAccessible("monitor detail");

    // a marker that a reload would lose
    await b.page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
    doc.body = JSON.stringify({ price: "10.50", currency: "EUR", updatedAt: "2026-01-02T00:00:00Z" });
    await dw.api("POST", `/api/monitors/${monitorId}/check`);
    await b.page.getByRole("link", { name: "1 schema change and 1 value change", exact: true }).waitFor({ timeout: 30_000 });
    expect(await b.page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
  });

  it("creates an ignore rule from the diff viewer and sees it applied to the next diff", async () => {
    await b.page.getByRole("link", { name: "1 schema change and 1 value change", exact: true }).click();
    await b.page.getByRole("heading", { name: "Change to Prices" }).waitFor();
    await expectAccessible("diff viewer");
    const updated = b.page.getByRole("listitem").filter({ has: b.page.getByText("$.updatedAt", { exact: true }) });
    await updated.getByRole("button", { name: "Ignore this path" }).click();
    await b.page.getByText("Rule added: ignore $.updatedAt.").waitFor();
    const settings = await dw.api("GET", `/api/monitors/${monitorId}/settings`);
    expect(settings.policyRulesJson.rules).toEqual([{ path: "$.updatedAt", action: "ignore" }]);

    // the rules editor shows it, and its preview says what it hides
    await b.page.getByRole("link", { name: "Rules" }).click();
    await b.page.getByRole("heading", { name: "Rules of Prices" }).waitFor();
    await expect.poll(() => b.page.getByLabel("JSONPath").first().inputValue()).toBe("$.updatedAt");
    await b.page.getByText(/these rules would hide/).waitFor();
    expect(await b.page.locator(".totals").textContent()).toMatch(/would hide 1 change/);
    await expectAccessible("rules editor");

    await b.page.getByRole("link", { name: "← Prices" }).click();
    doc.body = JSON.stringify({ price: "11.00", currency: "EUR", updatedAt: "2026-01-03T00:00:00Z" });
    await dw.api("POST", `/api/monitors/${monitorId}/check`);
    const newest = b.page.getByRole("link", { name: "1 value change", exact: true });
    await newest.waitFor({ timeout: 30_000 });
    await newest.click();
    await b.page.getByText("$.price", { exact: true }).waitFor();
    expect(await b.page.getByText("$.updatedAt", { exact: true }).count()).toBe(0);
  });

  it("adds a webhook, shows its secret once, and replays a refused delivery", async () => {
    await b.page.getByRole("link", { name: "Webhooks" }).click();
    await b.page.getByText("No webhooks yet").waitFor();
    await b.page.getByLabel("Endpoint URL").fill(`${receiver.url}/hook`);
    await b.page.getByLabel("Description").fill("Receiver");
    await b.page.getByRole("button", { name: "Add webhook" }).click();
    await b.page.getByText(/It is shown only this once/).waitFor();
    expect(await b.page.locator(".secret code").textContent()).toMatch(/^whsec_/);
    await expectAccessible("webhooks");
    await b.page.getByRole("button", { name: "Done" }).click();
    await b.page.getByRole("link", { name: "Receiver" }).click();
    await b.page.getByText("Nothing delivered yet").waitFor();

    doc.body = JSON.stringify({ price: 12, currency: "EUR", updatedAt: "2026-01-04T00:00:00Z" });
    await dw.api("POST", `/api/monitors/${monitorId}/check`);
    // the delivery appears live, refused with 503
    await b.page.getByRole("definition").filter({ hasText: "HTTP 503" }).waitFor({ timeout: 30_000 });
    await expectAccessible("webhook detail");
    await b.page.getByRole("button", { name: /^Replay/ }).click();
    await b.page.locator(".tag.state-succeeded").waitFor({ timeout: 30_000 });
    await b.page.getByRole("definition").filter({ hasText: "HTTP 204" }).waitFor();
    expect(received).toEqual([503, 204]);
  });

  it("creates a token shown once and revokes it; settings and tokens pages pass axe", async () => {
    await b.page.getByRole("link", { name: "Tokens" }).click();
    await b.page.getByLabel("Name").fill("ci");
    await b.page.getByRole("button", { name: "Create token" }).click();
    await b.page.getByText(/It is shown only this once/).waitFor();
    const secret = await b.page.locator(".secret code").textContent();
    expect(secret).toMatch(/^dw_/);
    await expectAccessible("tokens");
    await b.page.getByRole("button", { name: "Done" }).click();
    await b.page.getByRole("button", { name: "Revoke ci" }).click();
    await expect.poll(() => b.page.getByRole("button", { name: "Revoke ci" }).count()).toBe(0);
    const check = await fetch(`${dw.baseUrl}/api/monitors`, { headers: { authorization: `Bearer ${secret!}` } });
    expect(check.status).toBe(401);
    await b.page.getByRole("link", { name: "Settings" }).click();
    await b.page.getByText("can manage (admin)").waitFor();
    await expectAccessible("settings");
    expect(b.errors).toEqual([]);
    expect(b.dialogs.every((d) => d.startsWith("confirm:"))).toBe(true);
  });
});
