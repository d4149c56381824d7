import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDriftwatchServer, type DriftwatchServer } from "../../src/service.js";

// /metrics on a listen address of its own (DRIFTWATCH_METRICS_LISTEN): the API's port stops
// serving it, the metrics port serves nothing else, and the metrics token still applies.
const TOKEN = "metrics-token-0123456789abcdef";
let server: DriftwatchServer;
let api: string;
let metrics: string;

beforeAll(async () => {
  server = await createDriftwatchServer({
    databaseUrl: "memory:",
    port: 0,
    host: "127.0.0.1",
    background: false,
    metricsToken: TOKEN,
    metricsListen: { host: "127.0.0.1", port: 0 },
    logger: pino({ level: "silent" }),
  });
  await server.listen();
  api = `http://127.0.0.1:${String((server.app.server.address() as AddressInfo).port)}`;
  const own = server.metricsAddress();
  expect(own).not.toBeNull();
  metrics = `http://127.0.0.1:${String(own!.port)}`;
});

afterAll(async () => {
  await server.close();
});

describe("a metrics listen address", () => {
  it("serves the Prometheus text on its own port, behind the metrics token", async () => {
    const res = await fetch(`${metrics}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toMatch(/^# HELP /m);
    const head = await fetch(`${metrics}/metrics`, { method: "HEAD", headers: { authorization: `Bearer ${TOKEN}` } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("answers problems with a code and a request id for no token, other paths and other methods", async () => {
    for (const [init, url, status, code] of [
      [{}, "/metrics", 401, "unauthenticated"],
      [{ headers: { authorization: "Bearer wrong-wrong-wrong-wrong" } }, "/metrics", 401, "unauthenticated"],
      [{}, "/api/monitors", 404, "not_found"],
      [{ method: "POST", body: "x", headers: { authorization: `Bearer ${TOKEN}` } }, "/metrics", 404, "not_found"],
    ] as const) {
      const res = await fetch(`${metrics}${url}`, init as RequestInit);
      expect(res.status, url).toBe(status);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      const body = (await res.json()) as { code: string; requestId: string };
      expect(body.code).toBe(code);
      expect(body.requestId).toMatch(/^req_/);
      expect(res.headers.get("x-request-id")).toBe(body.requestId);
    }
  });

  it("the API's port no longer serves /metrics, even with the token", async () => {
    const res = await fetch(`${api}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe("not_found");
    expect((await fetch(`${api}/healthz`)).status).toBe(200);
  });
});

describe("settings given to createDriftwatchServer", () => {
  it("keep the optional ones (metrics token, proxy hops, screenshot directory, endpoint concurrency)", async () => {
    const other = await createDriftwatchServer({
      databaseUrl: "memory:",
      background: false,
      metricsToken: TOKEN,
      trustProxy: true,
      trustProxyHops: 2,
      webhookEndpointConcurrency: 3,
      screenshotDir: "/tmp/driftwatch-screenshots-never-written",
      logger: pino({ level: "silent" }),
    });
    try {
      expect(other.config).toMatchObject({ metricsToken: TOKEN, trustProxyHops: 2, webhookEndpointConcurrency: 3, screenshotDir: "/tmp/driftwatch-screenshots-never-written" });
      expect((await other.app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe("a metrics listen address that is taken", () => {
  it("fails listen() with a clear message and leaves nothing listening", async () => {
    const taken = server.metricsAddress()!.port;
    const second = await createDriftwatchServer({
      databaseUrl: "memory:",
      port: 0,
      host: "127.0.0.1",
      background: false,
      metricsListen: { host: "127.0.0.1", port: taken },
      logger: pino({ level: "silent" }),
    });
    try {
      await expect(second.listen()).rejects.toThrow(/cannot listen for \/metrics on 127\.0\.0\.1:\d+/);
      expect(second.app.server.listening).toBe(false);
    } finally {
      await second.close();
    }
  });
});
