// Screenshots of the dashboard's main pages for the docs (docs/images/dashboard-*.png), desktop and
// 360 px wide: the built server (packages/server/dist) serving the built dashboard, with monitors,
// diffs, rules, a webhook and members made through the API against local targets; and, where the
// server has their routes, notification channels (with local stand-ins for Slack and Discord), a
// website monitor with screenshots, browser steps and the selector picker, tracked values and alert
// conditions. The message preview needs no server. Run after a build:
//   npm run build -w @driftwatch/dashboard && npm run screenshots -w @driftwatch/dashboard
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createDriftwatchServer, generateTokenSecret } from "@driftwatch/server";
import { pino } from "pino";
import { chromium } from "playwright-core";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
// DRIFTWATCH_SCREENSHOTS_DIR: somewhere else than docs/images (to look before replacing them)
const out = process.env.DRIFTWATCH_SCREENSHOTS_DIR ?? path.join(root, "docs", "images");
mkdirSync(out, { recursive: true });

let version = 0;
const catalogue = () => ({
  store: "Northwind",
  updatedAt: new Date(Date.UTC(2026, 10, 25, 9, version)).toISOString(),
  currency: version >= 2 ? "USD" : "EUR",
  items: [
    { sku: "A-1", name: "Espresso beans", price: version >= 1 ? 12.5 : 11.9, stock: 40 - version },
    { sku: "B-7", name: "Milk frother", price: 39, stock: 3, ...(version >= 2 ? {} : { discontinued: false }) },
    ...(version >= 1 ? [{ sku: "C-3", name: "Grinder", price: 89, stock: 5 }] : []),
  ],
});
const page = () =>
  `<!doctype html><html><body><main><h1>Status</h1><p class="state">All systems ${version >= 1 ? "degraded: payments slow" : "operational"}</p><ul><li>API</li><li>Payments</li>${
    version >= 2 ? "<li>Search</li>" : ""
  }</ul></main></body></html>`;
// an OpenAPI document (3.1) and a live answer of its GET /pets/{id} that breaks it from version 1 on
const PETSTORE = {
  openapi: "3.1.0",
  info: { title: "Petstore", version: "1.0.0" },
  paths: {
    "/pets/{id}": {
      get: {
        operationId: "getPet",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
        responses: { 200: { description: "A pet", content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } } },
      },
    },
  },
  components: {
    schemas: {
      Pet: {
        type: "object",
        required: ["id", "name", "status"],
        additionalProperties: false,
        properties: {
          id: { type: "integer" },
          name: { type: "string" },
          status: { type: "string", enum: ["available", "pending", "sold"] },
          tags: { type: "array", items: { type: "string" } },
          checkedAt: { type: "string", format: "date-time" },
        },
      },
    },
  },
};
let petVersion = 0;
const pet = () =>
  petVersion === 0
    ? { id: 1, name: "Rex", status: "available", tags: ["dog"], checkedAt: new Date(Date.UTC(2026, 10, 25, 9, petVersion)).toISOString() }
    : { id: "1", status: "adopted", tags: ["dog"], nickname: "Rexy", checkedAt: new Date(Date.UTC(2026, 10, 25, 9, petVersion)).toISOString() };
const target = createServer((req, res) => {
  if (req.url?.startsWith("/openapi.json")) {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(PETSTORE));
    return;
  }
  if (req.url?.startsWith("/pets/")) {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(pet()));
    return;
  }
  if (req.url?.startsWith("/status")) {
    res.writeHead(200, { "content-type": "text/html" }).end(page());
    return;
  }
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(catalogue()));
});
await new Promise((resolve) => target.listen(0, "127.0.0.1", resolve));
const targetUrl = `http://127.0.0.1:${target.address().port}`;
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(204).end());
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));

// a product page (JSON-LD price and availability) whose price, stock and banner change
let shopVersion = 0;
const SHOP_PRICES = [249, 219, 189, 179];
const SHOP_STOCK = ["OutOfStock", "InStock", "OutOfStock", "InStock"];
const shopPage = () => {
  const v = shopVersion;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Burr grinder G-3</title><style>
body{font-family:sans-serif;margin:0;background:#fafafa} header{background:#123;color:#fff;padding:16px 24px;font-size:22px}
main{display:flex;gap:24px;padding:24px} .photo{width:240px;height:200px;background:linear-gradient(135deg,#c9d6e3,#8aa4bf);border-radius:8px}
h1{margin:0 0 8px} #price{font-size:28px;font-weight:700} .stock{display:inline-block;padding:4px 8px;border-radius:4px;background:${SHOP_STOCK[v] === "InStock" ? "#e8f5ec" : "#fdecea"}}
.banner{margin:0 24px;padding:12px;border-radius:6px;background:${v >= 3 ? "#ffe08a" : "#eef"}}
</style></head><body><header>Northwind Coffee</header><div class="banner">${v >= 3 ? "Black Friday: 20 % off grinders" : "Free shipping from 50 €"}</div>
<main><div class="photo"></div><div class="info"><h1>Burr grinder G-3</h1><p id="price">${SHOP_PRICES[v]},00 €</p><p class="stock">${SHOP_STOCK[v] === "InStock" ? "In stock" : "Out of stock"}</p>
<p>Conical steel burrs, 40 settings.</p><button id="add">Add to cart</button></div></main>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Burr grinder G-3","offers":{"@type":"Offer","price":"${SHOP_PRICES[v]}.00","priceCurrency":"EUR","availability":"https://schema.org/${SHOP_STOCK[v]}"}}</script></body></html>`;
};
const shopServer = createServer((req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(shopPage()));
await new Promise((resolve) => shopServer.listen(0, "127.0.0.1", resolve));
const shopUrl = `http://127.0.0.1:${shopServer.address().port}/grinder`;
// stand-ins for Slack (accepts) and Discord (the webhook was deleted), for the channels' tests
const services = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (req.url?.startsWith("/api/webhooks/")) res.writeHead(404, { "content-type": "application/json" }).end('{"message": "Unknown Webhook", "code": 10015}');
    else res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
});
await new Promise((resolve) => services.listen(0, "127.0.0.1", resolve));
process.env.DRIFTWATCH_SLACK_API_URL = `http://127.0.0.1:${services.address().port}`;
process.env.DRIFTWATCH_DISCORD_API_URL = `http://127.0.0.1:${services.address().port}`;

const dir = mkdtempSync(path.join(tmpdir(), "dw-shots-"));
const token = generateTokenSecret();
const server = await createDriftwatchServer({
  databaseUrl: `sqlite:${path.join(dir, "shots.db")}`,
  host: "127.0.0.1",
  port: 0,
  allowPrivateNetworks: true,
  adminToken: token,
  logger: pino({ level: "silent" }),
});
await server.bootstrap();
await server.listen();
const base = `http://127.0.0.1:${server.app.server.address().port}`;
async function api(method, p, body) {
  const r = await fetch(`${base}${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${await r.text()}`);
  return r.status === 204 ? null : r.json();
}

const shop = await api("POST", "/api/monitors", { name: "Northwind catalogue", url: `${targetUrl}/catalogue.json`, intervalSeconds: 3600 });
const status = await api("POST", "/api/monitors", { type: "website", name: "Status page", url: `${targetUrl}/status`, intervalSeconds: 3600 });
for (const [name, i] of [
  ["Payments API health", 1],
  ["Search suggestions", 2],
  ["Partner feed (EU)", 3],
  ["Pricing page", 4],
]) {
  await api("POST", "/api/monitors", { name, url: `${targetUrl}/catalogue.json?m=${i}`, intervalSeconds: 300, state: i === 3 ? "paused" : "active" });
}
await api("POST", "/api/webhooks", { url: `http://127.0.0.1:${receiver.address().port}/hook`, description: "Ops alerts" });
await api("POST", `/api/monitors/${shop.id}/check`);
await api("POST", `/api/monitors/${status.id}/check`);
for (version = 1; version <= 2; version++) {
  await api("POST", `/api/monitors/${shop.id}/check`);
  await api("POST", `/api/monitors/${status.id}/check`);
}
await api("PATCH", `/api/monitors/${shop.id}/settings`, {
  policyRules: {
    rules: [
      { path: "$.updatedAt", action: "ignore" },
      { path: "$.currency", severity: "critical" },
    ],
    arrayKeys: { "$.items": "sku" },
  },
});
// people: an admin (who signs in below), a member and a viewer who accepted their invitations, one pending
const password = "screenshots only passphrase 2026";
for (const [displayName, email, role] of [
  ["Ada Lovelace", "ada@example.com", "admin"],
  ["Grace Hopper", "grace@example.com", "member"],
  ["Alan Turing", "alan@example.com", "viewer"],
]) {
  const { url } = await api("POST", "/api/invites", { email, role });
  const accepted = await fetch(`${base}/api/invites/accept`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: new URL(url).hash.slice("#token=".length), displayName, password }),
  });
  if (!accepted.ok) throw new Error(`accepting the invitation of ${email}: ${accepted.status} ${await accepted.text()}`);
}
await api("POST", "/api/invites", { email: "new.hire@example.com", role: "member" });
const diffs = (await api("GET", `/api/monitors/${shop.id}/diffs?limit=1`)).data;
const hooks = (await api("GET", "/api/webhooks")).data;
await api("POST", "/api/webhooks/worker/run", { force: true });

// what this server has of notification channels (issue 27), screenshots and steps (28), tracked values (29)
const has = async (p) => (await fetch(`${base}${p}`, { headers: { authorization: `Bearer ${token}` } })).status !== 404;
const hasChannels = await has("/api/channels");
const hasBrowserTools = await has("/api/secrets");
const hasTrack = "track" in (await api("GET", `/api/monitors/${shop.id}/settings`));
const extra = [];
let web = null;
if (hasChannels) {
  await api("POST", "/api/channels", { name: "#shop-alerts", url: "https://hooks.slack.com/services/T0001/B0002/abcdefabcdef", minSeverity: "medium", tags: ["shop"], groupSeconds: 120, quietHours: { timeZone: "Europe/Berlin", windows: [{ start: "22:00", end: "07:00" }], minSeverity: "critical" } });
  const discord = await api("POST", "/api/channels", { name: "Ops Discord", url: "https://discord.com/api/webhooks/1234567890/secret-token-value", minSeverity: "high", events: ["diff.detected", "monitor.failing", "monitor.recovered"] });
  const mail = await api("POST", "/api/channels", { name: "Pricing team", url: "mailtos://alerts:password@smtp.example.com?to=pricing@example.com", tags: ["shop"], groupSeconds: 3600 });
  await api("PATCH", `/api/channels/${mail.id}`, { paused: true });
  extra.push(["notifications", "/notifications", "Notifications"]);
  extra.push(["channel", `/notifications/${discord.id}`, "Ops Discord", async (tab) => {
    await tab.getByRole("button", { name: "Send a test" }).click();
    await tab.getByText(/hook is gone/).waitFor();
  }]);
}
if (hasBrowserTools || hasTrack) {
  web = await api("POST", "/api/monitors", {
    type: "website",
    name: "Northwind grinder G-3",
    url: shopUrl,
    intervalSeconds: 3600,
    tags: ["shop"],
    ...(hasBrowserTools ? { browserOptions: { waitStrategy: "load", timeoutMs: 30000, screenshot: "viewport", viewport: { width: 900, height: 560 } } } : {}),
  });
  if (hasBrowserTools) await api("POST", "/api/secrets", { name: "shop-password", value: "screenshots only" });
  if (hasTrack) {
    await api("PATCH", `/api/monitors/${web.id}/settings`, {
      track: [
        { name: "price", extract: "price" },
        { name: "availability", extract: "availability" },
      ],
      alert: { when: "all", conditions: [{ value: "price", op: "lt", to: 200 }, { value: "availability", op: "eq", to: "in_stock" }] },
    });
  }
  for (shopVersion = 0; shopVersion < SHOP_PRICES.length; shopVersion++) await api("POST", `/api/monitors/${web.id}/check`);
  shopVersion = SHOP_PRICES.length - 1; // the page as the last check saw it (for the picker)
  const visual = (await api("GET", `/api/monitors/${web.id}/diffs?limit=5`)).data.find((d) => d.visual);
  extra.push(["website", `/monitors/${web.id}`, "Northwind grinder G-3"]);
  if (hasBrowserTools && visual) extra.push(["visual-diff", `/monitors/${web.id}/diffs/${visual.id}`, "Change to Northwind grinder G-3", async (tab) => {
    await tab.getByRole("heading", { name: "Screenshots" }).scrollIntoViewIfNeeded();
  }]);
  if (hasBrowserTools) extra.push(["selector-picker", `/monitors/${web.id}/edit`, `Edit Northwind grinder G-3`, async (tab) => {
    await tab.getByRole("button", { name: "Pick on the page" }).click();
    await tab.getByRole("img", { name: "The rendered page" }).waitFor({ timeout: 60_000 });
    await tab.locator("#pick-list").selectOption("#price");
    await tab.getByRole("img", { name: "The rendered page" }).scrollIntoViewIfNeeded();
  }]);
  if (hasBrowserTools) extra.push(["browser-steps", `/monitors/${web.id}/edit`, `Edit Northwind grinder G-3`, async (tab) => {
    await tab.getByLabel(/Render in a browser/).check();
    for (const [i, action, selector] of [[1, "acceptCookies", null], [2, "click", "#add"], [3, "click", "#login"]]) {
      await tab.getByRole("button", { name: "Add step" }).click();
      await tab.getByLabel(`Step ${String(i)}`, { exact: true }).selectOption(action);
      if (selector) await tab.locator(`#step-${String(i - 1)}-selector`).fill(selector);
    }
    await tab.getByRole("button", { name: "Dry run" }).click();
    await tab.getByRole("list", { name: "Dry run results" }).waitFor({ timeout: 90_000 });
    await tab.getByRole("group", { name: "Browser steps" }).scrollIntoViewIfNeeded();
  }]);
  if (hasTrack) extra.push(["alerts", `/monitors/${web.id}/alerts`, "Alerts of Northwind grinder G-3"]);
}
extra.push(["message-preview", "/notifications/preview", "Message preview"]);
// API contracts (issue 30): an openapi monitor, an api monitor checked against it, its inferred schema
if ("contract" in shop) {
  const petstore = await api("POST", "/api/monitors", { type: "openapi", name: "Petstore API document", url: `${targetUrl}/openapi.json`, intervalSeconds: 3600 });
  await api("POST", `/api/monitors/${petstore.id}/check`);
  const petMonitor = await api("POST", "/api/monitors", {
    name: "Pet 1",
    url: `${targetUrl}/pets/1`,
    intervalSeconds: 3600,
    contract: { document: { monitorId: petstore.id }, operation: "getPet", status: 200 },
  });
  await api("PATCH", `/api/monitors/${petMonitor.id}/settings`, { policyRules: { volatile: [{ path: "$.checkedAt" }] } });
  await api("POST", `/api/monitors/${petMonitor.id}/check`);
  for (petVersion = 1; petVersion <= 2; petVersion++) await api("POST", `/api/monitors/${petMonitor.id}/check`);
  const violation = (await api("GET", `/api/monitors/${petMonitor.id}/diffs?limit=10`)).data.find((d) => d.changes.some((c) => c.category === "contract"));
  extra.push(["contract-form", `/monitors/${petMonitor.id}/edit`, "Edit Pet 1", async (tab) => {
    // a status the server refuses: its 422 shows at the field
    await tab.getByLabel("Response status").fill("2XY");
    await tab.getByRole("button", { name: "Save changes" }).click();
    await tab.locator("#f-contract-status-error").waitFor();
    await tab.getByRole("group", { name: "API contract" }).scrollIntoViewIfNeeded();
  }]);
  extra.push(["inferred-schema", `/monitors/${petMonitor.id}`, "Pet 1", async (tab) => {
    await tab.getByRole("list", { name: "Inferred schema" }).waitFor();
    // the facts (the contract among them) and the schema under them
    await tab.locator("dl.summary").evaluate((dl) => dl.scrollIntoView({ block: "start" }));
  }]);
  if (violation) extra.push(["contract-violation", `/monitors/${petMonitor.id}/diffs/${violation.id}`, "Change to Pet 1", async (tab) => {
    // the violations, each with the schema around the violated keyword next to the value
    await tab.getByLabel("Schema excerpt for $.id").waitFor();
    await tab.locator("#g-high").evaluate((h) => h.scrollIntoView({ block: "start" }));
  }]);
}
// learning settings (issue 25): the organization's default for new monitors, set after the monitors
// above were made (they keep the service's defaults); the rules page shows it beside the monitor's own
if ("learning" in (await api("GET", `/api/monitors/${shop.id}/settings`))) {
  const { org } = await api("GET", "/api/auth/me");
  await api("PATCH", `/api/orgs/${org.id}`, { learningDefaults: { warmupSamples: 1, learningSamples: 4 } });
  const scrollTo = (name) => async (tab) => {
    await tab.getByRole("heading", { name }).evaluate((h) => h.scrollIntoView({ block: "start" }));
  };
  extra.push(["learning", `/monitors/${shop.id}/rules`, "Rules of Northwind catalogue", scrollTo("How this monitor learns")]);
  // desktop: the facts, renaming and the defaults; 360 px: the defaults
  extra.push(["org-defaults", "/org", "Organization", async (tab) => (tab.viewportSize().width < 600 ? await scrollTo("New monitors")(tab) : undefined)]);
}
// DRIFTWATCH_SCREENSHOTS_ONLY=contract-form,inferred-schema: only these (and no dark theme unless "diff-dark" is named)
const only = process.env.DRIFTWATCH_SCREENSHOTS_ONLY ? new Set(process.env.DRIFTWATCH_SCREENSHOTS_ONLY.split(",")) : null;

const profile = mkdtempSync(path.join(tmpdir(), "dw-shots-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.DRIFTWATCH_CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  headless: true,
  viewport: { width: 1280, height: 860 },
  colorScheme: "light",
});
const tab = context.pages()[0] ?? (await context.newPage());
const shots = [
  ["signin", "/", null],
  ["monitors", "/monitors", "Monitors"],
  ["monitor", `/monitors/${shop.id}`, "Northwind catalogue"],
  ["diff", `/monitors/${shop.id}/diffs/${diffs[0].id}`, "Change to Northwind catalogue"],
  ["rules", `/monitors/${shop.id}/rules`, "Rules of Northwind catalogue"],
  ["webhook", `/webhooks/${hooks[0].id}`, "Ops alerts"],
  ["members", "/members", "Members"],
  ...extra,
];
const written = [];
for (const [width, height, suffix] of [
  [1280, 860, "desktop"],
  [360, 780, "mobile"],
]) {
  await tab.setViewportSize({ width, height });
  for (const [name, p, heading, act] of shots) {
    if (only !== null && !only.has(name) && !(name === "signin" && only.size > 0)) continue;
    if (name === "signin") {
      if (only !== null && !only.has("signin")) {
        if (suffix !== "desktop") continue;
        // signed in once, for the pages that follow
        await tab.goto(`${base}/`);
        await tab.getByLabel("Email").fill("ada@example.com");
        await tab.getByLabel("Password").fill(password);
        await tab.getByRole("button", { name: "Sign in", exact: true }).click();
        await tab.getByRole("heading", { level: 1, name: "Monitors" }).waitFor();
        continue;
      }
      if (suffix !== "desktop") continue;
      await tab.goto(`${base}/`);
      await tab.getByLabel("Email").waitFor();
    } else {
      await tab.goto(`${base}${p}`);
      await tab.locator("h1").first().waitFor();
      if ((await tab.getByLabel("Email").count()) > 0 && (await tab.getByRole("button", { name: "Sign in", exact: true }).count()) > 0) {
        await tab.getByLabel("Email").fill("ada@example.com");
        await tab.getByLabel("Password").fill(password);
        await tab.getByRole("button", { name: "Sign in", exact: true }).click();
        await tab.getByRole("heading", { level: 1, name: "Monitors" }).waitFor();
        await tab.goto(`${base}${p}`);
      }
      await tab.getByRole("heading", { level: 1, name: heading }).waitFor();
      // every loading state settled (the event stream keeps the network busy, so no "networkidle")
      for (let i = 0; i < 100 && (await tab.getByText(/^Loading /).count()) > 0; i++) await tab.waitForTimeout(100);
      if (act) {
        await act(tab);
        for (let i = 0; i < 100 && (await tab.getByText(/^Loading /).count()) > 0; i++) await tab.waitForTimeout(100);
      }
      await tab.waitForTimeout(300);
    }
    const file = path.join(out, `dashboard-${name}-${suffix}.png`);
    await tab.screenshot({ path: file, fullPage: suffix === "mobile" || act ? false : name !== "diff" });
    written.push(path.relative(root, file));
    const overflow = await tab.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    if (overflow > 0) console.warn(`${name} (${suffix}) scrolls sideways by ${String(overflow)} px`);
  }
}
// one page in the dark theme
if (only === null || only.has("diff-dark")) {
await tab.setViewportSize({ width: 1280, height: 860 });
await tab.emulateMedia({ colorScheme: "dark" });
await tab.goto(`${base}/monitors/${shop.id}/diffs/${diffs[0].id}`);
await tab.getByRole("heading", { level: 1 }).waitFor();
await tab.waitForTimeout(300);
await tab.screenshot({ path: path.join(out, "dashboard-diff-dark.png") });
written.push("docs/images/dashboard-diff-dark.png");
}

await context.close();
await server.close();
target.close();
receiver.close();
shopServer.close();
services.close();
rmSync(dir, { recursive: true, force: true });
rmSync(profile, { recursive: true, force: true });
console.log(`wrote\n  ${written.join("\n  ")}`);
