import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DASHBOARD_CSP, resolveDashboardDir } from "../../src/http/dashboard.js";
import { createHarness, expectProblem, type Harness } from "./harness.js";

/** The dashboard's static files at `/` (a built dashboard is stood in for by a temp folder). */
let dir: string;
let h: Harness;
let bare: Harness;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dw-dash-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), '<!doctype html><html><head><script type="module" src="/assets/index-AbC123.js"></script></head><body><div id="root"></div></body></html>');
  writeFileSync(join(dir, "assets", "index-AbC123.js"), "console.log('dashboard')");
  writeFileSync(join(dir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  writeFileSync(join(dir, ".secret"), "nope");
  h = await createHarness({ dashboardDir: dir });
  bare = await createHarness({ dashboardDir: null });
});
afterAll(async () => {
  await h?.close();
  await bare?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the dashboard at /", () => {
  it("serves index.html at / with no-cache and the strict CSP (no inline script, no eval)", async () => {
    const res = await h.request(null, { method: "GET", url: "/" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.body).toContain('<div id="root">');
    expect(res.headers["cache-control"]).toBe("no-cache");
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toBe(DASHBOARD_CSP);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["x-request-id"]).toMatch(/^req_/);
  });

  it("serves hashed assets as immutable", async () => {
    const res = await h.request(null, { method: "GET", url: "/assets/index-AbC123.js" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/javascript/);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(res.headers["content-security-policy"]).toBe(DASHBOARD_CSP);
    expect(res.body).toBe("console.log('dashboard')");
  });

  it("answers the app's own routes with index.html (SPA fallback), other files by name", async () => {
    for (const url of ["/monitors", "/monitors/mon_123/diffs/dif_1", "/settings?tab=tokens"]) {
      const res = await h.request(null, { method: "GET", url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('<div id="root">');
      expect(res.headers["cache-control"], url).toBe("no-cache");
    }
    const icon = await h.request(null, { method: "GET", url: "/favicon.svg" });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers["content-type"]).toMatch(/svg/);
  });

  it("never answers API paths, missing assets, dotfiles or traversal with the app", async () => {
    expectProblem(await h.request(null, { method: "GET", url: "/api/nope" }), 404, "not_found");
    expectProblem(await h.request(null, { method: "GET", url: "/api" }), 404, "not_found");
    expectProblem(await h.request(null, { method: "GET", url: "/assets/index-old999.js" }), 404, "not_found");
    expectProblem(await h.request(null, { method: "GET", url: "/.secret" }), 404, "not_found");
    const traversal = await h.request(null, { method: "GET", url: "/assets/..%2f..%2f..%2fetc%2fpasswd" });
    expect(traversal.statusCode).toBe(404);
    expect(traversal.body).not.toContain("root:");
    // an API path no route takes (a parameter past the router's length limit) is the logged API 404
    const long = await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${"x".repeat(300)}` });
    expectProblem(long, 404, "not_found");
    expect(h.logLines.some((line) => line.requestId === JSON.parse(long.body).requestId && line.code === "not_found")).toBe(true);
    // the API still works beside it
    expect((await h.request(h.a.admin, { method: "GET", url: "/api/monitors" })).statusCode).toBe(200);
    expect((await h.request(null, { method: "GET", url: "/healthz" })).statusCode).toBe(200);
  });

  it("keeps the dashboard routes out of the OpenAPI document", async () => {
    const doc = JSON.parse((await h.request(null, { method: "GET", url: "/api/openapi.json" })).body) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith("/api/") && !["/healthz", "/readyz", "/metrics"].includes(p))).toEqual([]);
  });

  it("without a built dashboard, / says how to build it and the API still works", async () => {
    const res = await bare.request(null, { method: "GET", url: "/" });
    expect(res.statusCode).toBe(404);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.body).toContain("the dashboard is not built");
    expect(res.body).toContain("npm run build -w @driftwatch/dashboard");
    expect(res.headers["content-security-policy"]).toBe(DASHBOARD_CSP);
    expectProblem(await bare.request(null, { method: "GET", url: "/api/nope" }), 404, "not_found");
    expectProblem(await bare.request(null, { method: "GET", url: "/monitors" }), 404, "not_found");
    expect((await bare.request(bare.a.admin, { method: "GET", url: "/api/monitors" })).statusCode).toBe(200);
  });

  it("resolveDashboardDir takes a folder only when it holds index.html", () => {
    expect(resolveDashboardDir(dir)).toBe(dir);
    expect(resolveDashboardDir(join(dir, "assets"))).toBeNull();
    expect(resolveDashboardDir(null)).toBeNull();
  });
});
