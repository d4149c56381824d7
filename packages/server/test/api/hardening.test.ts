import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_FAILURE_LIMIT } from "../../src/config/limits.js";
import { apiMonitor, createHarness, expectProblem, json, type Harness } from "./harness.js";

// Regression tests of the LOW findings of the hardening pass (issue 12), against the real app.

describe("/readyz checks the schema, not only the connection", () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "dw-ready-"));
    const filename = join(dir, "ready.db");
    h = await createHarness({ store: async () => {
      const store = await createSqliteStore({ filename });
      return { store, close: () => store.close() };
    } });
    (h as Harness & { filename: string }).filename = filename;
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 unavailable once a table is gone, while /healthz stays up", async () => {
    expect((await h.request(null, { method: "GET", url: "/readyz" })).statusCode).toBe(200);
    const raw = new BetterSqlite3((h as Harness & { filename: string }).filename);
    try {
      raw.exec("DROP TABLE delivery_attempts");
    } finally {
      raw.close();
    }
    const res = await h.request(null, { method: "GET", url: "/readyz" });
    expectProblem(res, 503, "unavailable");
    expect(res.headers["retry-after"]).toBe("5");
    expect((await h.request(null, { method: "GET", url: "/healthz" })).statusCode).toBe(200);
  });
});

describe("rate limits", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ config: { rateLimitReads: 3 } });
    h.clock.now = new Date("2026-03-01T12:00:05.000Z");
  });
  afterAll(async () => {
    await h?.close();
  });

  it("HEAD counts against the GET bucket of its route, not a bucket of its own", async () => {
    for (let i = 0; i < 2; i++) expect((await h.request(h.a.admin, { method: "GET", url: "/api/monitors" })).statusCode).toBe(200);
    expect((await h.request(h.a.admin, { method: "HEAD", url: "/api/monitors" })).statusCode).toBe(200);
    // the fourth read of the minute, whatever its method, is over the limit of 3
    expect((await h.request(h.a.admin, { method: "HEAD", url: "/api/monitors" })).statusCode).toBe(429);
    expectProblem(await h.request(h.a.admin, { method: "GET", url: "/api/monitors" }), 429, "rate_limited");
  });

  it("failed authentications are limited per client address: 429 with Retry-After, for any token, until the window ends", async () => {
    h.clock.now = new Date("2026-03-01T13:00:00.000Z");
    const bad = `Bearer dw_${"A".repeat(43)}`;
    // requests without a token, or with a header that is no driftwatch token, are no guesses: they
    // are answered 401 however many there are, and do not count
    for (let i = 0; i < AUTH_FAILURE_LIMIT * 2; i++) {
      const res = await h.app.inject({ method: "GET", url: "/api/webhooks", headers: i % 2 === 0 ? {} : { authorization: "Bearer nope" } });
      expect(res.statusCode).toBe(401);
    }
    expect((await h.request(h.a.admin, { method: "GET", url: "/api/webhooks" })).statusCode).toBe(200);
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) {
      const res = await h.app.inject({ method: "GET", url: "/api/webhooks", headers: { authorization: bad } });
      expect(res.statusCode).toBe(401);
    }
    const limited = await h.app.inject({ method: "GET", url: "/api/webhooks", headers: { authorization: bad } });
    expectProblem(limited, 429, "rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    // while limited even a valid token is refused without a lookup; a request without one is still 401
    expectProblem(await h.request(h.a.admin, { method: "GET", url: "/api/webhooks" }), 429, "rate_limited");
    expectProblem(await h.app.inject({ method: "GET", url: "/api/webhooks" }), 401, "unauthenticated");
    // another address is not affected
    const elsewhere = await h.app.inject({ method: "GET", url: "/api/webhooks", remoteAddress: "198.51.100.7", headers: { authorization: `Bearer ${h.a.admin}` } });
    expect(elsewhere.statusCode).toBe(200);
    // a minute later the address may try again
    h.clock.now = new Date("2026-03-01T13:01:00.001Z");
    expect((await h.request(h.a.admin, { method: "GET", url: "/api/webhooks" })).statusCode).toBe(200);
  });
});

describe("input the API refuses cleanly", () => {
  let h: Harness;
  let monitorId: string;
  let webhookId: string;
  beforeAll(async () => {
    h = await createHarness();
    monitorId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id;
    webhookId = json(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://hooks.example.com/in" } })).id;
  });
  afterAll(async () => {
    await h?.close();
  });

  it("an id longer than 100 characters answers 404 not_found (logged), not an unlogged 500", async () => {
    const long = "A".repeat(120);
    const urls = [
      `/api/monitors/mon_${long}`,
      `/api/monitors/${monitorId}/diffs/dif_${long}`,
      `/api/monitors/${monitorId}/snapshots/snp_${long}`,
      `/api/webhooks/whk_${long}`,
      `/api/webhooks/${webhookId}/deliveries/dlv_${long}/retry`,
      `/api/tokens/tok_${long}`,
      `/api/monitors/${"x".repeat(300)}`,
    ];
    for (const url of urls) {
      const method = url.endsWith("/retry") ? "POST" : "GET";
      const res = await h.request(h.a.admin, { method, url });
      expectProblem(res, 404, "not_found");
      const requestId = json(res).requestId as string;
      expect(h.logLines.some((line) => line.requestId === requestId && line.code === "not_found")).toBe(true);
    }
  });

  it("monitor headers with CR/LF or control characters, invalid names and hop-by-hop headers are refused with 422", async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ "x-a": "b\r\nx-injected: 1" }, "headers.x-a"],
      [{ "x-a": "b\nc" }, "headers.x-a"],
      [{ "x-a": "b\u0000c" }, "headers.x-a"],
      [{ Connection: "close" }, "headers.Connection"],
      [{ "transfer-encoding": "chunked" }, "headers.transfer-encoding"],
      [{ host: "internal" }, "headers.host"],
      [{ "bad name": "x" }, "headers.bad name"],
      // an HTTP client cannot send characters past U+00FF: every check would fail
      [{ "x-currency": "€" }, "headers.x-currency"],
      [{ "x-mood": "ok 😀" }, "headers.x-mood"],
    ];
    for (const [headers, path] of cases) {
      const created = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, headers } });
      const problem = expectProblem(created, 422, "validation_failed");
      expect(problem.errors).toEqual([expect.objectContaining({ path })]);
      const patched = await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}`, payload: { headers } });
      expectProblem(patched, 422, "validation_failed");
    }
    const stored = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}` }));
    expect(stored.headers).toEqual({});
    // ordinary headers, a tab inside a value included, are still accepted
    const ok = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, headers: { "x-api-key": "k\tv", accept: "application/json", "x-name": "Zoë ÿ" } } });
    expect(ok.statusCode).toBe(201);
  });

  it("a replayed webhook create (same Idempotency-Key) does not show the signing secret again", async () => {
    const payload = { url: "https://hooks.example.com/replay" };
    const headers = { "idempotency-key": "create-hook-1" };
    const first = await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload, headers });
    expect(first.statusCode).toBe(201);
    const created = json(first);
    expect(created.secret).toMatch(/^whsec_/);
    const replay = await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload, headers });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    const replayed = json(replay);
    expect(replayed.id).toBe(created.id);
    expect(replayed).not.toHaveProperty("secret");
    expect(replay.body).not.toContain(created.secret as string);
  });
});

describe("SQLite lock contention does not freeze the event loop", () => {
  let h: Harness;
  let dir: string;
  let filename: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "dw-lock-"));
    filename = join(dir, "locked.db");
    h = await createHarness({ store: async () => {
      // a generous total wait: the write must outlast the other process's lock
      const store = await createSqliteStore({ filename, busyTimeoutMs: 120_000 });
      return { store, close: () => store.close() };
    } });
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("while another process holds the write lock, /healthz keeps answering and the waiting write succeeds once it is released", async () => {
    const script = `
      const Database = require("better-sqlite3");
      const db = new Database(process.env.DW_LOCK_FILE);
      db.exec("BEGIN IMMEDIATE");
      db.prepare("INSERT INTO rate_limits (key, window_start, count, reset_at) VALUES ('lock-holder', 0, 1, 0)").run();
      process.stdout.write("locked\\n");
      process.stdin.once("data", () => { db.exec("COMMIT"); db.close(); process.stdout.write("released\\n"); process.exit(0); });
    `;
    const child = spawn(process.execPath, ["-e", script], { env: { ...process.env, DW_LOCK_FILE: filename }, stdio: ["pipe", "pipe", "inherit"] });
    try {
      const [first] = (await once(child.stdout, "data")) as [Buffer];
      expect(first.toString()).toContain("locked");
      let settled = false;
      const write = h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor }).finally(() => {
        settled = true;
      });
      for (let i = 0; i < 5; i++) {
        const health = await h.request(null, { method: "GET", url: "/healthz" });
        expect(health.statusCode).toBe(200);
        // the write is still waiting for the lock, asynchronously
        expect(settled).toBe(false);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      child.stdin.write("go\n");
      const created = await write;
      expect(created.statusCode).toBe(201);
    } finally {
      child.kill();
    }
  }, 60_000);
});
