// Screenshots of the dashboard's main pages for the docs (docs/images/dashboard-*.png), desktop and
// 360 px wide: the built server (packages/server/dist) serving the built dashboard, with monitors,
// diffs, rules, a webhook and members made through the API against local targets. Run after a build:
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
const out = path.join(root, "docs", "images");
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
const target = createServer((req, res) => {
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
];
const written = [];
for (const [width, height, suffix] of [
  [1280, 860, "desktop"],
  [360, 780, "mobile"],
]) {
  await tab.setViewportSize({ width, height });
  for (const [name, p, heading] of shots) {
    if (name === "signin") {
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
      await tab.waitForTimeout(300);
    }
    const file = path.join(out, `dashboard-${name}-${suffix}.png`);
    await tab.screenshot({ path: file, fullPage: suffix === "mobile" ? false : name !== "diff" });
    written.push(path.relative(root, file));
  }
}
// one page in the dark theme
await tab.setViewportSize({ width: 1280, height: 860 });
await tab.emulateMedia({ colorScheme: "dark" });
await tab.goto(`${base}/monitors/${shop.id}/diffs/${diffs[0].id}`);
await tab.getByRole("heading", { level: 1 }).waitFor();
await tab.waitForTimeout(300);
await tab.screenshot({ path: path.join(out, "dashboard-diff-dark.png") });
written.push("docs/images/dashboard-diff-dark.png");

await context.close();
await server.close();
target.close();
receiver.close();
rmSync(dir, { recursive: true, force: true });
rmSync(profile, { recursive: true, force: true });
console.log(`wrote\n  ${written.join("\n  ")}`);
