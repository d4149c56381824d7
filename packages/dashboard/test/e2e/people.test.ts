/**
 * People in Chromium against `driftwatch serve` (the built CLI, SQLite): first-run setup from the
 * link the server printed, a monitor on a local target, an invited viewer in a second browser who
 * sees no edit controls and whose forced write the server refuses, names full of markup shown as
 * text; axe-core and 360 px on the new pages.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from "vitest";
import { axeViolations, chromiumSkipReason, openBrowser, startLocal, startServe, type Browsing, type LocalServer, type ServeProcess } from "./support";

const OWNER = { name: `Ada <img src=x onerror="alert('owner')">`, email: "ada@example.com", password: "correct horse battery staple" };
const ORG = `Acme <script>alert('org')</script>`;
const VIEWER = { name: `Bob <svg onload="alert('viewer')"></svg>`, email: "bob@example.com", password: "another long passphrase 42" };

let dw: ServeProcess;
let target: LocalServer;
let owner: Browsing;
let viewer: Browsing;
let inviteUrl = "";
let monitorId = "";

beforeAll(async () => {
  target = await startLocal((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ price: 10, currency: "EUR" }));
  });
  dw = await startServe();
  owner = await openBrowser();
  viewer = await openBrowser();
});
afterAll(async () => {
  await owner?.close();
  await viewer?.close();
  await dw?.close();
  await target?.close();
});

async function expectAccessible(b: Browsing, what: string): Promise<void> {
  const violations = await axeViolations(b.page);
  expect(violations, `${what}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
}

/** No dialog opened, no element or script came from a name. */
async function expectNothingRan(b: Browsing, where: string): Promise<void> {
  const injected = await b.page.evaluate(() => document.querySelectorAll('img[src="x"], svg[onload], iframe, script:not([src]), [onerror], [onload]').length);
  expect(injected, where).toBe(0);
  expect(b.dialogs.filter((d) => !d.startsWith("confirm:")), where).toEqual([]);
}

describe.skipIf(chromiumSkipReason() !== null)("people in Chromium", () => {
  beforeEach(() => {
    onTestFailed(async () => {
      for (const [who, b] of [
        ["owner", owner],
        ["viewer", viewer],
      ] as const) {
        const text = await b.page
          .locator("#root")
          .innerText()
          .catch(() => "");
        console.error(`${who}: page ${b.page.url()}\nerrors ${JSON.stringify(b.errors)}\n${text.slice(0, 2000)}`);
      }
      console.error(dw.output().slice(-3000));
    });
  });

  it("first run: the printed setup link makes the owner, signed in", async () => {
    expect(dw.setupUrl).toMatch(/\/setup#token=/);
    await owner.page.goto(dw.setupUrl);
    await owner.page.getByLabel("Your name").waitFor();
    await expectAccessible(owner, "setup");
    await owner.page.getByLabel("Your name").fill(OWNER.name);
    await owner.page.getByLabel("Email").fill(OWNER.email);
    await owner.page.getByLabel("Password").fill(OWNER.password);
    await owner.page.getByLabel("Organization name (optional)").fill(ORG);
    await owner.page.getByRole("button", { name: "Create the owner account" }).click();
    await owner.page.getByRole("heading", { name: "Monitors", level: 1 }).waitFor();
    // the setup secret left the address bar
    expect(new URL(owner.page.url()).hash).toBe("");
    const cookies = await owner.context.cookies(dw.baseUrl);
    expect(cookies.find((c) => c.name === "dw_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" });
    // nothing of the session in storage
    expect(await owner.page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);

    // a reload keeps the session (cookie) and reads the CSRF token again
    await owner.page.reload();
    await owner.page.getByRole("heading", { name: "Monitors", level: 1 }).waitFor();

    // the link works once: setup is closed now
    await viewer.page.goto(dw.setupUrl);
    await viewer.page.getByText("Setup is already done.").waitFor();
    await expectAccessible(viewer, "setup closed");
  });

  it("the owner creates a monitor on a local target and checks it", async () => {
    await owner.page.getByRole("link", { name: "New monitor" }).click();
    await owner.page.getByLabel("URL").fill(`${target.url}/prices.json`);
    await owner.page.getByLabel("Name").fill("Prices");
    await owner.page.getByRole("button", { name: "Create monitor" }).click();
    await owner.page.getByRole("heading", { name: "Prices", level: 1 }).waitFor();
    monitorId = new URL(owner.page.url()).pathname.split("/")[2]!;
    expect(monitorId).toMatch(/^mon_/);
    await owner.page.getByRole("button", { name: "Check now" }).click();
    await owner.page.getByText(/New content, HTTP 200/).waitFor();
  });

  it("the owner invites a viewer: the link is shown once", async () => {
    await owner.page.getByRole("link", { name: "Members" }).click();
    await owner.page.getByRole("heading", { name: "Members", level: 1 }).waitFor();
    await owner.page.getByRole("heading", { name: `${OWNER.name} (you)` }).waitFor();
    await owner.page.getByLabel("Email").fill(VIEWER.email);
    await owner.page.getByRole("combobox", { name: "Role", exact: true }).selectOption("viewer");
    await owner.page.getByRole("button", { name: "Create invitation" }).click();
    await owner.page.getByText(/It is shown only this once/).waitFor();
    inviteUrl = (await owner.page.locator(".secret code").textContent()) ?? "";
    expect(inviteUrl).toMatch(new RegExp(`^${dw.baseUrl}/invite#token=`));
    await expectAccessible(owner, "members with a new invitation");
    await owner.page.getByRole("button", { name: "Done" }).click();
    await owner.page.getByText("pending").first().waitFor();
    await expectNothingRan(owner, "members");
  });

  it("the viewer accepts in a second browser, signs in again, and sees no edit controls", async () => {
    await viewer.page.goto(inviteUrl);
    await viewer.page.getByText(ORG, { exact: true }).waitFor();
    await expectAccessible(viewer, "invitation");
    await expectNothingRan(viewer, "invitation");
    await viewer.page.getByLabel("Your name").fill(VIEWER.name);
    await viewer.page.getByLabel("Choose a password").fill(VIEWER.password);
    await viewer.page.getByRole("button", { name: /^Join / }).click();
    await viewer.page.getByRole("heading", { name: "Monitors", level: 1 }).waitFor();

    // sign out, then in with email and password
    await viewer.page.getByRole("button", { name: "Sign out" }).click();
    await viewer.page.getByLabel("Email").fill(VIEWER.email);
    await viewer.page.getByLabel("Password").fill(VIEWER.password);
    await viewer.page.getByRole("button", { name: "Sign in", exact: true }).click();
    await viewer.page.getByRole("heading", { name: "Monitors", level: 1 }).waitFor();

    await viewer.page.getByRole("article", { name: "Prices" }).waitFor();
    expect(await viewer.page.getByRole("link", { name: "New monitor" }).count()).toBe(0);
    expect(await viewer.page.getByRole("button", { name: /Pause|Resume|Check now/ }).count()).toBe(0);
    for (const hidden of ["Members", "Tokens", "Audit log"]) expect(await viewer.page.getByRole("link", { name: hidden }).count(), hidden).toBe(0);
    await viewer.page.getByRole("link", { name: "Prices" }).click();
    await viewer.page.getByRole("heading", { name: "Prices", level: 1 }).waitFor();
    expect(await viewer.page.getByRole("button", { name: /Check now|Pause|Delete/ }).count()).toBe(0);
    expect(await viewer.page.getByRole("link", { name: "Edit" }).count()).toBe(0);
    await viewer.page.getByRole("link", { name: "Webhooks" }).click();
    await viewer.page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
    expect(await viewer.page.getByRole("button", { name: "Add webhook" }).count()).toBe(0);
    await expectNothingRan(viewer, "viewer pages");
  });

  it("the server refuses the viewer's forced writes (403), with a valid CSRF token", async () => {
    const answers = await viewer.page.evaluate(async (id) => {
      const me = (await (await fetch("/api/auth/me")).json()) as { csrfToken: string; role: string };
      const write = async (method: string, path: string, body: unknown) => {
        const r = await fetch(path, { method, headers: { "content-type": "application/json", "x-driftwatch-csrf": me.csrfToken }, body: JSON.stringify(body) });
        return { status: r.status, code: ((await r.json()) as { code?: string }).code };
      };
      return {
        role: me.role,
        create: await write("POST", "/api/monitors", { url: "http://127.0.0.1:9/x", name: "forced" }),
        pause: await write("PATCH", `/api/monitors/${id}`, { state: "paused" }),
        invite: await write("POST", "/api/invites", { email: "eve@example.com", role: "admin" }),
      };
    }, monitorId);
    expect(answers).toEqual({
      role: "viewer",
      create: { status: 403, code: "insufficient_scope" },
      pause: { status: 403, code: "insufficient_scope" },
      invite: { status: 403, code: "insufficient_scope" },
    });
    viewer.errors.length = 0;
  });

  it("the owner sees the viewer's name as text, the audit log, the organization and the account; 360 px and dark pass", async () => {
    await owner.page.reload();
    await owner.page.getByRole("heading", { name: VIEWER.name }).waitFor();
    await expectNothingRan(owner, "members with the viewer");
    await owner.page.getByRole("link", { name: "Audit log" }).click();
    await owner.page.getByText("invite.accepted").first().waitFor();
    await expectAccessible(owner, "audit log");
    await owner.page.getByRole("link", { name: "Organization" }).click();
    await owner.page.getByRole("heading", { name: ORG, level: 2 }).waitFor();
    await expectAccessible(owner, "organization");
    await owner.page.getByRole("link", { name: "Account" }).click();
    await owner.page.getByText(OWNER.email).waitFor();
    await expectAccessible(owner, "account");
    await expectNothingRan(owner, "owner pages");

    await owner.page.setViewportSize({ width: 360, height: 780 });
    for (const scheme of ["light", "dark"] as const) {
      await owner.page.emulateMedia({ colorScheme: scheme });
      for (const path of ["/members", "/audit", "/org", "/account"]) {
        await owner.page.goto(`${dw.baseUrl}${path}`);
        await owner.page.locator("h1").waitFor();
        await expect.poll(() => owner.page.getByText(/^Loading /).count()).toBe(0);
        const width = await owner.page.evaluate(() => document.documentElement.scrollWidth);
        expect(width, `${scheme} ${path} scrolls sideways`).toBeLessThanOrEqual(360);
        await expectAccessible(owner, `${scheme} ${path} at 360 px`);
      }
    }
    await owner.page.setViewportSize({ width: 1280, height: 900 });
    await owner.page.emulateMedia({ colorScheme: "light" });
    expect(owner.errors).toEqual([]);
  });

  it("signed out, the sign-in page passes axe in both ways", async () => {
    await owner.page.getByRole("banner").getByRole("button", { name: "Sign out" }).click();
    await owner.page.getByLabel("Email").waitFor();
    await expectAccessible(owner, "sign in");
    await owner.page.getByText("Sign in with an API token instead").click();
    await owner.page.getByLabel("API token").waitFor();
    await expectAccessible(owner, "sign in with a token");
    // the ended session is gone from the server too
    expect(await owner.page.evaluate(async () => (await fetch("/api/auth/me")).status)).toBe(401);
  });
});
