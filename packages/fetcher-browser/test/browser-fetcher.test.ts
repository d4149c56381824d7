import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processTree } from "../src/index.js";
import type { BrowserOptions } from "@driftwatch/core";
import { createTestFetcher, fetchError, html, options, startServer, waitFor, type TestServer } from "./helpers.js";

let site: TestServer;
let internal: TestServer;
let inflight = 0;
let maxInflight = 0;

beforeAll(async () => {
  // 127.0.0.2 plays an internal service the page must never reach.
  internal = await startServer((_req, res) => res.end("internal secret"), "127.0.0.2");
  site = await startServer((req, res) => {
    const path = req.url ?? "/";
    const page = (body: string, head = ""): void => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", etag: '"p1"' }).end(html(body, head));
    };
    switch (path) {
      case "/":
        res.writeHead(302, { location: "/xhr" }).end();
        return;
      case "/api":
        res.writeHead(200, { "content-type": "text/plain" }).end("loaded by fetch");
        return;
      case "/xhr":
        if (req.headers["if-none-match"] === '"p1"') {
          res.writeHead(304).end();
          return;
        }
        page(`<h1>Shop</h1><script>fetch("/api").then((r) => r.text()).then((t) => { const p = document.createElement("p"); p.id = "api"; p.textContent = t; document.body.append(p); });</script>`);
        return;
      case "/options":
        page(
          `<img src="/img.png"><p id="env"></p><script>document.getElementById("env").textContent = [navigator.userAgent, navigator.language, innerWidth + "x" + innerHeight].join("|");</script>`,
          `<link rel="stylesheet" href="/style.css">`,
        );
        return;
      case "/media": {
        const head = `<style>@font-face { font-family: "Dw"; src: url("/font.woff2") format("woff2"); } p { font-family: "Dw"; }</style>`;
        page(`<p>text</p><video src="/clip.mp4" preload="auto" muted></video><audio src="/sound.mp3" preload="auto"></audio>`, head);
        return;
      }
      case "/font.woff2":
      case "/clip.mp4":
      case "/sound.mp3":
        res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.alloc(64));
        return;
      case "/img.png":
        res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from("89504e470d0a1a0a", "hex"));
        return;
      case "/style.css":
        res.writeHead(200, { "content-type": "text/css" }).end("body { color: red }");
        return;
      case "/selector":
        page(`<script>setTimeout(() => { const d = document.createElement("div"); d.id = "ready"; d.textContent = "ready"; document.body.append(d); }, 400);</script>`);
        return;
      case "/poll":
        page(`<p>polling</p><script>setInterval(() => fetch("/api"), 100);</script>`);
        return;
      case "/slow": {
        inflight += 1;
        maxInflight = Math.max(maxInflight, inflight);
        setTimeout(() => {
          inflight -= 1;
          page("<p>slow</p>");
        }, 300);
        return;
      }
      case "/redirect-inward":
        res.writeHead(302, { location: `${internal.url}/via-redirect` }).end();
        return;
      case "/ssrf":
        page(`
          <p id="direct"></p><p id="named"></p><p id="redirected"></p><p id="ws"></p>
          <img src="${internal.url}/img.png">
          <iframe src="${internal.url}/frame"></iframe>
          <script>
            const show = (id, p) => p.then((r) => r.text()).then((t) => "read " + t, (e) => "failed " + e.name).then((t) => { document.getElementById(id).textContent = t; });
            show("direct", fetch("${internal.url}/direct"));
            show("named", fetch("http://internal.test:${String(internal.port)}/named"));
            show("redirected", fetch("/redirect-inward"));
            const ws = new WebSocket("ws://127.0.0.2:${String(internal.port)}/");
            ws.onclose = () => { document.getElementById("ws").textContent = "ws closed"; };
          </script>`);
        return;
      default:
        res.writeHead(404).end("missing");
    }
  });
});

afterAll(async () => {
  await site.close();
  await internal.close();
});

/** The TMPDIR the fetcher gave a browser process (read from its environment). */
function browserTmp(pid: number): string | undefined {
  const environ = fs.readFileSync(`/proc/${String(pid)}/environ`, "utf8").split("\0");
  return environ.find((entry) => entry.startsWith("TMPDIR="))?.slice("TMPDIR=".length);
}

describe("createBrowserFetcher", () => {
  const lookup = (): Promise<Array<{ address: string; family: number }>> => Promise.resolve([{ address: "127.0.0.2", family: 4 }]);
  // 127.0.0.1 (the test site) is exempted; everything else stays guarded.
  const fetcher = createTestFetcher({ allowAddresses: ["127.0.0.1"], lookup });
  let profileDir: string | undefined;
  let browserTmpDir: string | undefined;
  let pid: number | null = null;

  afterAll(async () => {
    await fetcher.close();
    // close() leaves no Chromium process and removes the temporary profile.
    expect(pid).not.toBeNull();
    expect(processTree(pid ?? -1)).toEqual([]);
    expect(profileDir).toBeDefined();
    expect(fs.existsSync(profileDir ?? "")).toBe(false);
    // ... and the browser's own TMPDIR, where Chromium leaves its singleton socket directories.
    expect(browserTmpDir).toBeDefined();
    expect(fs.existsSync(browserTmpDir ?? "")).toBe(false);
  });

  it("renders script-inserted content after following the document's redirects", async () => {
    const res = await fetcher.fetch({ url: `${site.url}/`, browserOptions: options({ waitStrategy: "networkidle" }) });
    expect(res).toMatchObject({ status: 200, browserRender: true, waitStrategy: "networkidle", notModified: false, finalUrl: `${site.url}/xhr` });
    expect(res.body).toContain(`<p id="api">loaded by fetch</p>`);
    expect(res.contentType).toBe("text/html; charset=utf-8");
    expect(res.size).toBe(Buffer.byteLength(res.body));
    pid = fetcher.browserProcessId();
    const tree = processTree(pid ?? -1);
    expect(tree.length).toBeGreaterThan(1);
    profileDir = tree.map((p) => /--user-data-dir=(\S+)/.exec(p.cmdline)?.[1]).find((dir) => dir !== undefined);
    browserTmpDir = browserTmp(pid ?? -1);
    expect(fs.readdirSync(browserTmpDir ?? "").some((name) => name.startsWith("org.chromium."))).toBe(true);
  });

  it("answers notModified without rendering when the document is unchanged", async () => {
    const before = site.paths.length;
    const res = await fetcher.fetch({ url: `${site.url}/xhr`, etag: '"p1"', browserOptions: options() });
    expect(res).toMatchObject({ status: 304, notModified: true, body: "", browserRender: true });
    expect(site.paths.slice(before)).toEqual(["/xhr"]);
  });

  it("honours userAgent, locale, viewport and blockResources", async () => {
    const before = site.paths.length;
    const res = await fetcher.fetch({
      url: `${site.url}/options`,
      browserOptions: options({ waitStrategy: "load", userAgent: "dw-test-agent/1", locale: "de-DE", viewport: { width: 800, height: 600 }, blockResources: ["image", "stylesheet"] }),
    });
    expect(res.body).toContain(`<p id="env">dw-test-agent/1|de-DE|800x600</p>`);
    expect(site.paths.slice(before)).toEqual(["/options"]);
  });

  it("blocks fonts and media with blockResources, and requests them otherwise", async () => {
    let before = site.paths.length;
    await fetcher.fetch({ url: `${site.url}/media`, browserOptions: options({ waitStrategy: "networkidle" }) });
    expect(site.paths.slice(before).sort()).toEqual(["/clip.mp4", "/font.woff2", "/media", "/sound.mp3"]);
    before = site.paths.length;
    await fetcher.fetch({ url: `${site.url}/media`, browserOptions: options({ waitStrategy: "networkidle", blockResources: ["font", "media"] }) });
    expect(site.paths.slice(before)).toEqual(["/media"]);
  });

  it("waits for waitForSelector", async () => {
    const res = await fetcher.fetch({ url: `${site.url}/selector`, browserOptions: options({ waitStrategy: "domcontentloaded", waitForSelector: "#ready" }) });
    expect(res.body).toContain(`<div id="ready">ready</div>`);
  });

  it("waits extraWaitMs after loading", async () => {
    const res = await fetcher.fetch({ url: `${site.url}/selector`, browserOptions: options({ waitStrategy: "commit", extraWaitMs: 900 }) });
    expect(res.body).toContain(`id="ready"`);
    expect(res.waitStrategy).toBe("commit");
  });

  it("fails with timeout when the page never reaches network idle", async () => {
    const error = await fetchError(fetcher.fetch({ url: `${site.url}/poll`, browserOptions: options({ waitStrategy: "networkidle", timeoutMs: 1500 }) }));
    expect(error.code).toBe("timeout");
  });

  it("passes every request of the page through the guard", async () => {
    const res = await fetcher.fetch({ url: `${site.url}/ssrf`, browserOptions: options({ waitStrategy: "load", extraWaitMs: 300 }) });
    expect(res.body).toContain(`<p id="direct">failed TypeError</p>`);
    expect(res.body).toContain(`<p id="named">failed TypeError</p>`);
    expect(res.body).toContain(`<p id="redirected">failed TypeError</p>`);
    expect(res.body).toContain(`<p id="ws">ws closed</p>`);
    expect(site.paths).toContain("/redirect-inward");
    expect(internal.connections).toBe(0);
  });

  it("refuses a main document in private space with unsafe_url", async () => {
    const error = await fetchError(fetcher.fetch({ url: `${internal.url}/`, browserOptions: options() }));
    expect(error.code).toBe("unsafe_url");
    const named = await fetchError(fetcher.fetch({ url: `http://intranet.example:${String(internal.port)}/`, browserOptions: options() }));
    expect(named.code).toBe("unsafe_url");
    expect(internal.connections).toBe(0);
  });

  it("bounds concurrent renders by concurrency (default 2)", async () => {
    maxInflight = 0;
    const results = await Promise.all([1, 2, 3].map(() => fetcher.fetch({ url: `${site.url}/slow`, browserOptions: options({ waitStrategy: "load" }) })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(maxInflight).toBe(2);
  });

  it("rejects invalid browserOptions with the offending field", async () => {
    await expect(fetcher.fetch({ url: `${site.url}/xhr`, browserOptions: { timeoutMs: 5 } as unknown as BrowserOptions })).rejects.toMatchObject({
      code: "browser_failed",
      details: [expect.objectContaining({ path: "browserOptions.timeoutMs" })],
    });
  });
});

describe("a browser killed mid-render", () => {
  it("fails that render with browser_failed, relaunches for the next and leaves nothing behind", async () => {
    let release: (() => void) | undefined;
    const hanging = await startServer((req, res) => {
      if (req.url === "/hang.png") {
        release = () => res.destroy();
        return;
      }
      res.writeHead(200, { "content-type": "text/html" }).end(html(`<p>waiting</p><img src="/hang.png">`));
    });
    const fetcher = createTestFetcher({ allowPrivateNetworks: true });
    try {
      const pending = fetchError(fetcher.fetch({ url: `${hanging.url}/`, browserOptions: options({ waitStrategy: "load", timeoutMs: 30_000 }) }));
      await waitFor(() => hanging.paths.includes("/hang.png"), "the page to request its image");
      const firstPid = fetcher.browserProcessId();
      expect(firstPid).not.toBeNull();
      const firstTree = processTree(firstPid ?? -1);
      const firstTmp = browserTmp(firstPid ?? -1);
      expect(fs.existsSync(firstTmp ?? "")).toBe(true);
      process.kill(firstPid ?? -1, "SIGKILL");
      expect((await pending).code).toBe("browser_failed");
      release?.();
      await waitFor(() => processTree(firstPid ?? -1).length === 0, "the killed browser's processes to go");
      expect(firstTree.length).toBeGreaterThan(1);
      expect(fs.existsSync(firstTmp ?? "")).toBe(false);

      const res = await fetcher.fetch({ url: `${site.url}/xhr`, browserOptions: options() });
      expect(res.body).toContain("loaded by fetch");
      expect(fetcher.browserProcessId()).not.toBe(firstPid);
      const secondPid = fetcher.browserProcessId();
      await fetcher.close();
      expect(processTree(secondPid ?? -1)).toEqual([]);
    } finally {
      await fetcher.close();
      await hanging.close();
    }
  });
});
