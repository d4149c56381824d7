// `serve --role api|worker`: two servers on one SQLite file, as two processes on one database
// would run. The api process runs no checks (its "check now" waits for the worker) and the worker
// serves only the operations endpoints.
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDriftwatchServer, type DriftwatchServer } from "../../src/index.js";

const TOKEN = "dw_" + "R".repeat(43);
const dir = mkdtempSync(join(tmpdir(), "dw-roles-"));
const databaseUrl = `sqlite:${join(dir, "dw.db")}`;
let target: http.Server;
let targetUrl = "";
let answer: { status: number; body: unknown } = { status: 200, body: { v: 1 } };
let hits = 0;
const servers: DriftwatchServer[] = [];

async function start(role: "api" | "worker", extra: { checkWaitMs?: number } = {}): Promise<{ server: DriftwatchServer; url: string }> {
  const server = await createDriftwatchServer({
    role,
    databaseUrl,
    port: 0,
    allowPrivateNetworks: true,
    adminToken: TOKEN,
    logger: pino({ level: "silent" }),
    ...extra,
  });
  servers.push(server);
  await server.bootstrap();
  return { server, url: await server.listen() };
}

async function api(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; headers: Headers }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === "" ? null : JSON.parse(text), headers: response.headers };
}

beforeAll(async () => {
  target = http.createServer((_req, res) => {
    hits++;
    res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${String((target.address() as AddressInfo).port)}/data`;
});

afterAll(async () => {
  for (const server of servers.reverse()) await server.close();
  target?.closeAllConnections();
  await new Promise<void>((resolve) => target?.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe("process roles", () => {
  it("api runs no checks, worker serves only operations, and check now on api is run by the worker", async () => {
    const apiProcess = await start("api", { checkWaitMs: 1500 });
    const created = await api(apiProcess.url, "POST", "/api/monitors", { type: "api", name: "roles", url: targetUrl, intervalSeconds: 3600 });
    expect(created.status).toBe(201);
    const id = created.json.id as string;

    // No worker yet: the due monitor is not checked, and "check now" says so (503, request id) and stays due.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(hits).toBe(0);
    const waiting = await api(apiProcess.url, "POST", `/api/monitors/${id}/check`);
    expect(waiting.status).toBe(503);
    expect(waiting.json).toMatchObject({ code: "unavailable", status: 503 });
    expect(typeof waiting.json.requestId).toBe("string");
    expect(waiting.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect(hits).toBe(0);

    // The worker serves /healthz, /readyz and /metrics, and nothing of the API.
    const worker = await start("worker");
    expect((await fetch(`${worker.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${worker.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${worker.url}/metrics`)).status).toBe(200);
    const refused = await api(worker.url, "GET", "/api/monitors");
    expect(refused.status).toBe(404);
    expect(refused.json).toMatchObject({ code: "not_found" });
    expect(refused.json.detail).toMatch(/role worker/);
    expect((await fetch(`${worker.url}/api/openapi.json`)).status).toBe(404);

    // The worker picks up the monitor left due; then "check now" on api is answered by the worker's checks.
    const first = await api(apiProcess.url, "POST", `/api/monitors/${id}/check`);
    expect(first.status).toBe(200);
    expect(first.json.snapshot.monitorId).toBe(id);
    answer = { status: 200, body: { v: 2 } };
    const hitsBefore = hits;
    const second = await api(apiProcess.url, "POST", `/api/monitors/${id}/check`);
    expect(second.status).toBe(200);
    expect(hits).toBeGreaterThan(hitsBefore);
    expect(second.json.diff).not.toBeNull();
    expect(second.json.diff.changes.map((c: { path: string }) => c.path)).toEqual(["$.v"]);
    expect(second.json.diff.snapshotId).toBe(second.json.snapshot.id);

    // Nothing changed: the answer has the latest snapshot and no diff.
    const same = await api(apiProcess.url, "POST", `/api/monitors/${id}/check`);
    expect(same.status).toBe(200);
    expect(same.json.diff).toBeNull();

    // A failed check on the worker is a 502 on api, with the worker's error.
    answer = { status: 500, body: { error: "boom" } };
    const failed = await api(apiProcess.url, "POST", `/api/monitors/${id}/check`);
    expect(failed.status).toBe(502);
    expect(failed.json).toMatchObject({ code: "unavailable", reason: "check_failed" });
    expect(failed.json.detail).toMatch(/500/);
  }, 60_000);
});
