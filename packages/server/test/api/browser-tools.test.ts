import http from "node:http";
import type { AddressInfo } from "node:net";
import { createSecretBox, FetchError, generateSecretKey, newId, parseSecretKeys, secretContext } from "@driftwatch/core";
import { createBrowserFetcher, type BrowserFetcher } from "@driftwatch/fetcher-browser";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UrlGuard } from "../../src/types.js";
import { createHarness, expectProblem, json, type Harness } from "./harness.js";

const CHROMIUM = process.env.DRIFTWATCH_CHROMIUM_PATH ?? "/usr/bin/chromium";
const PASSWORD = "s3cret-Pa55-value";

/** A shop: /login (a form), POST /login (a session cookie, then /account), /account (only with the cookie). */
async function startShop() {
  const server = http.createServer((req, res) => {
    const cookie = req.headers.cookie ?? "";
    if (req.method === "POST" && req.url === "/login") {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      req.on("end", () => {
        const form = new URLSearchParams(body);
        const ok = form.get("user") === "alice" && form.get("pass") === PASSWORD;
        res.writeHead(302, ok ? { location: "/account", "set-cookie": "session=ok; Path=/; HttpOnly" } : { location: "/login?failed=1" });
        res.end();
      });
      return;
    }
    if (req.url === "/account" && !cookie.includes("session=ok")) {
      res.writeHead(302, { location: "/login" });
      res.end();
      return;
    }
    const page =
      req.url === "/account"
        ? `<main><h1>Account</h1><p id="balance">Balance 42</p></main>`
        : `<form method="post" action="/login"><input id="user" name="user"><input id="pass" name="pass" type="password"><button id="go">Sign in</button></form>`;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>shop</title></head><body>${page}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The API's guard for these tests: the shop's loopback address is allowed, metadata addresses are not. */
const guard: UrlGuard = {
  async assertSafeUrl(url) {
    if (new URL(url).hostname === "169.254.169.254") throw new FetchError("unsafe_url", "169.254.169.254 is a metadata address");
  },
};

function tinyPng(): Uint8Array {
  const png = new PNG({ width: 3, height: 2 });
  png.data.fill(200);
  return new Uint8Array(PNG.sync.write(png));
}

describe("secrets, screenshots, the steps' dry run and the inspection", () => {
  let h: Harness;
  let shop: Awaited<ReturnType<typeof startShop>>;
  let browser: BrowserFetcher;
  const box = createSecretBox(parseSecretKeys(generateSecretKey()));

  beforeAll(async () => {
    shop = await startShop();
    browser = createBrowserFetcher({ allowPrivateNetworks: true, executablePath: CHROMIUM, concurrency: 1, launchArgs: ["--no-sandbox"] });
    h = await createHarness({ urlGuard: guard, extra: { secrets: { box, source: "env" }, browser } });
  });
  afterAll(async () => {
    await h?.close();
    await browser?.close();
    await shop?.close();
  });

  it("stores a secret sealed, never answers or logs its value, lists, refuses a duplicate name and deletes, with audit entries", async () => {
    const created = await h.request(h.a.admin, { method: "POST", url: "/api/secrets", payload: { name: "shop.password", value: PASSWORD } });
    expect(created.statusCode).toBe(201);
    const body = json(created);
    expect(Object.keys(body).sort()).toEqual(["createdAt", "id", "name"]);
    expect(body.id).toMatch(/^sec_/);
    expect(created.body).not.toContain(PASSWORD);
    const stored = await h.store.getSecretByName(h.a.orgId, "shop.password");
    expect(stored!.sealedValue).not.toContain(PASSWORD);
    expect(box.open(stored!.sealedValue, secretContext(h.a.orgId, stored!.id))).toBe(PASSWORD);
    // Copied to another organization's context, it does not open.
    expect(() => box.open(stored!.sealedValue, secretContext(h.b.orgId, stored!.id))).toThrow();

    expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/secrets", payload: { name: "shop.password", value: "other" } }), 409, "conflict");
    expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/secrets", payload: { name: "bad name!", value: "x" } }), 422, "validation_failed");
    const list = json(await h.request(h.a.admin, { method: "GET", url: "/api/secrets" }));
    expect(list.data).toEqual([body]);
    expect(json(await h.request(h.b.admin, { method: "GET", url: "/api/secrets" })).data).toEqual([]);

    const temporary = json(await h.request(h.a.admin, { method: "POST", url: "/api/secrets", payload: { name: "temp", value: "temp-value-123" } }));
    expectProblem(await h.request(h.b.admin, { method: "DELETE", url: `/api/secrets/${String(temporary.id)}` }), 404, "not_found");
    expect((await h.request(h.a.admin, { method: "DELETE", url: `/api/secrets/${String(temporary.id)}` })).statusCode).toBe(204);
    expectProblem(await h.request(h.a.admin, { method: "DELETE", url: `/api/secrets/${String(temporary.id)}` }), 404, "not_found");

    const audit = await h.store.listAudit(h.a.orgId, { limit: 50, cursor: null });
    const actions = audit.data.map((entry) => `${entry.action} ${String(entry.data.name)}`);
    expect(actions).toEqual(expect.arrayContaining(["secret.created shop.password", "secret.created temp", "secret.deleted temp"]));
    const logs = JSON.stringify(h.logLines) + JSON.stringify(audit.data);
    expect(logs).not.toContain(PASSWORD);
    expect(logs).not.toContain("temp-value-123");
  });

  it("documents the new routes in the OpenAPI document, the images as image/png and image/webp", async () => {
    const doc = json(await h.request(null, { method: "GET", url: "/api/openapi.json" }));
    for (const path of ["/api/monitors/{id}/snapshots/{snapshotId}/screenshot", "/api/monitors/{id}/failure-screenshot"]) {
      expect(Object.keys(doc.paths[path].get.responses["200"].content).sort()).toEqual(["image/png", "image/webp"]);
    }
    expect(Object.keys(doc.paths["/api/secrets"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/api/secrets/{id}"])).toEqual(["delete"]);
    expect(doc.paths["/api/monitors/steps/run"].post.responses["200"].content["application/json"]).toBeDefined();
    expect(doc.paths["/api/monitors/inspect"].post.responses["200"].content["application/json"]).toBeDefined();
  });

  it("limits the dry run and the inspection as expensive calls (per caller)", async () => {
    const limited = await createHarness({ urlGuard: guard, config: { rateLimitExpensivePerCaller: 1 } });
    try {
      for (const url of ["/api/monitors/steps/run", "/api/monitors/inspect"]) {
        expectProblem(await limited.request(limited.a.admin, { method: "POST", url, payload: {} }), 422, "validation_failed");
        const second = expectProblem(await limited.request(limited.a.admin, { method: "POST", url, payload: {} }), 429, "rate_limited");
        expect(second).toBeDefined();
      }
    } finally {
      await limited.close();
    }
  });

  it("answers 503 secret_key_missing when the server has no key", async () => {
    const keyless = await createHarness({ urlGuard: guard });
    try {
      expectProblem(await keyless.request(keyless.a.admin, { method: "POST", url: "/api/secrets", payload: { name: "x", value: "y" } }), 503, "secret_key_missing");
      expect(await keyless.store.listSecrets(keyless.a.orgId)).toEqual([]);
    } finally {
      await keyless.close();
    }
  });

  it("refuses a monitor whose step names an unknown secret (422 unknown_secret), on create and on update", async () => {
    const steps = [{ action: "fill", selector: "#pass", secret: "nope" }];
    const refused = expectProblem(
      await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { type: "website", url: "https://shop.example.com/", browserOptions: { steps } } }),
      422,
      "unknown_secret",
    );
    expect(refused.errors).toEqual([expect.objectContaining({ path: "browserOptions.steps[0].secret" })]);
    // Another organization's secret of that name does not count.
    await h.request(h.b.admin, { method: "POST", url: "/api/secrets", payload: { name: "nope", value: "v" } });
    expectProblem(
      await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { type: "website", url: "https://shop.example.com/", browserOptions: { steps } } }),
      422,
      "unknown_secret",
    );
    const ok = await h.request(h.a.admin, {
      method: "POST",
      url: "/api/monitors",
      payload: { type: "website", url: "https://shop.example.com/", browserOptions: { steps: [{ action: "fill", selector: "#pass", secret: "shop.password" }] } },
    });
    expect(ok.statusCode).toBe(201);
    expectProblem(
      await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${String(json(ok).id)}`, payload: { browserOptions: { steps } } }),
      422,
      "unknown_secret",
    );
  });

  it("serves a snapshot's screenshot as image/png to its organization only; 404 when none was taken", async () => {
    const monitor = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { type: "website", url: "https://shots.example.com/" } }));
    const snapshotId = newId("snapshot");
    const at = new Date().toISOString();
    await h.store.recordCheck(h.a.orgId, {
      monitorId: monitor.id,
      monitor: { lastCheckedAt: at, updatedAt: at },
      snapshot: { id: snapshotId, fetchedAt: at, status: 200, latencyMs: 1, contentType: "text/html", contentHash: `sha256:${"0".repeat(64)}`, size: 1, browserRender: true, body: "x" },
      diff: null,
      event: null,
    });
    const path = `/api/monitors/${String(monitor.id)}/snapshots/${snapshotId}/screenshot`;
    expectProblem(await h.request(h.a.admin, { method: "GET", url: path }), 404, "not_found");
    const png = tinyPng();
    await h.store.putScreenshot(h.a.orgId, monitor.id, { snapshotId, type: "image/png", data: png, width: 3, height: 2, createdAt: at });
    const answer = await h.request(h.a.admin, { method: "GET", url: path });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["content-type"]).toBe("image/png");
    expect(Buffer.from(answer.rawPayload).equals(Buffer.from(png))).toBe(true);
    expectProblem(await h.request(h.b.admin, { method: "GET", url: path }), 404, "not_found");
    const reader = await h.a.token(["monitors:read"]);
    expect((await h.request(reader.secret, { method: "GET", url: path })).statusCode).toBe(200);
    const webhooksOnly = await h.a.token(["webhooks:read"]);
    expectProblem(await h.request(webhooksOnly.secret, { method: "GET", url: path }), 403, "insufficient_scope");
  });

  it("dry-runs steps in Chromium: signs in with the stored secret, reports each step and a screenshot; a failing step is reported with its index", async () => {
    const steps = [
      { action: "fill", selector: "#user", value: "alice" },
      { action: "fill", selector: "#pass", secret: "shop.password" },
      { action: "click", selector: "#go" },
      { action: "waitForSelector", selector: "#balance" },
    ];
    const answer = await h.request(h.a.admin, { method: "POST", url: "/api/monitors/steps/run", payload: { url: `${shop.url}/login`, browserOptions: { waitStrategy: "load", steps } } });
    expect(answer.statusCode).toBe(200);
    const run = json(answer);
    expect(run.steps.map((s: { index: number; action: string; ok: boolean }) => [s.index, s.action, s.ok])).toEqual([
      [0, "fill", true],
      [1, "fill", true],
      [2, "click", true],
      [3, "waitForSelector", true],
    ]);
    expect(run.screenshot).toMatch(/^data:image\/png;base64,/);
    expect(answer.body).not.toContain(PASSWORD);

    const failing = json(
      await h.request(h.a.admin, {
        method: "POST",
        url: "/api/monitors/steps/run",
        payload: { url: `${shop.url}/login`, browserOptions: { waitStrategy: "load", steps: [steps[0], { action: "click", selector: "#missing", timeoutMs: 500 }, steps[2]] } },
      }),
    );
    expect(failing.steps).toHaveLength(2);
    expect(failing.steps[1]).toMatchObject({ index: 1, action: "click", ok: false });
    expect(failing.steps[1].error).toMatch(/missing|Timeout|timeout/);
    expect(failing.screenshot).toMatch(/^data:image\/png;base64,/);

    expectProblem(
      await h.request(h.a.admin, { method: "POST", url: "/api/monitors/steps/run", payload: { url: `${shop.url}/login`, browserOptions: { steps: [{ action: "fill", selector: "#pass", secret: "unknown" }] } } }),
      422,
      "unknown_secret",
    );
    expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/monitors/steps/run", payload: { url: "http://169.254.169.254/latest/meta-data/" } }), 422, "unsafe_url");
    const reader = await h.a.token(["monitors:read"]);
    expectProblem(await h.request(reader.secret, { method: "POST", url: "/api/monitors/steps/run", payload: { url: `${shop.url}/login` } }), 403, "insufficient_scope");
  });

  it("inspects the page behind the sign-in: a screenshot and the visible blocks with unique selectors and boxes", async () => {
    const steps = [
      { action: "fill", selector: "#user", value: "alice" },
      { action: "fill", selector: "#pass", secret: "shop.password" },
      { action: "click", selector: "#go" },
    ];
    const answer = await h.request(h.a.admin, { method: "POST", url: "/api/monitors/inspect", payload: { url: `${shop.url}/login`, browserOptions: { waitStrategy: "load", steps } } });
    expect(answer.statusCode).toBe(200);
    const page = json(answer);
    expect(page.screenshot).toMatch(/^data:image\/png;base64,/);
    expect(page.width).toBeGreaterThan(0);
    expect(page.height).toBeGreaterThan(0);
    const balance = page.elements.find((e: { selector: string }) => e.selector === "#balance");
    expect(balance).toMatchObject({ text: "Balance 42" });
    expect(balance.box.width).toBeGreaterThan(0);
    // Without the steps, the account is behind the sign-in: no balance.
    const anonymous = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors/inspect", payload: { url: `${shop.url}/account`, browserOptions: { waitStrategy: "load" } } }));
    expect(anonymous.elements.some((e: { text: string }) => e.text.includes("Balance"))).toBe(false);
  });
});
