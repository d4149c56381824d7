/**
 * Graceful shutdown of the built CLI: SIGTERM while a check and a webhook delivery are in flight.
 * The check completes and answers, the process exits 0, and after a restart on the same database
 * the diff is there with exactly one delivery, delivered (finished before exit or left pending).
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, eventually, killAllChildren, newAdminToken, type ServerProcess, sleep, startCli, startReceiver, tempDir } from "./support.js";

/** A JSON target that can answer slowly, to keep a check in flight. */
async function startSlowTarget() {
  let body = JSON.stringify({ version: 1 });
  let delayMs = 0;
  let requests = 0;
  const server = http.createServer((_req, res) => {
    requests++;
    setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(body), delayMs);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    set(next: unknown, delay: number) {
      body = JSON.stringify(next);
      delayMs = delay;
    },
    requests: () => requests,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe("graceful shutdown on SIGTERM", () => {
  const dir = tempDir("dw-e2e-shutdown-");
  const database = `sqlite:${path.join(dir, "driftwatch.db")}`;
  const token = newAdminToken();
  const env = { DRIFTWATCH_ADMIN_TOKEN: token, DRIFTWATCH_LEASE_MS: "3000", DRIFTWATCH_LOG_LEVEL: "info" };
  let target: Awaited<ReturnType<typeof startSlowTarget>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: ServerProcess;

  beforeAll(async () => {
    target = await startSlowTarget();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    killAllChildren();
    await Promise.allSettled([target?.close(), receiver?.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("lets the in-flight check finish, exits 0, and loses no diff or delivery", async () => {
    server = await startCli(["--database", database, "--allow-private-networks"], env);
    let call = api(server.baseUrl, token);
    const hook = await call("POST", "/api/webhooks", { url: receiver.url });
    expect(hook.status).toBe(201);
    receiver.setSecret(hook.body.secret);
    const monitor = await call("POST", "/api/monitors", { type: "api", url: target.url, intervalSeconds: 3600 });
    expect(monitor.status).toBe(201);
    // every change is followed to its delivery: the monitor does not learn noise (its second fetch would be a learning diff)
    expect((await call("PATCH", `/api/monitors/${monitor.body.id}/settings`, { autoApplySuggestions: false })).status).toBe(200);
    expect((await call("POST", `/api/monitors/${monitor.body.id}/check`)).status).toBe(200);

    // The next check waits 1.5 s for the target: SIGTERM arrives while it is in flight.
    target.set({ version: 2, added: true }, 1500);
    const before = target.requests();
    const inFlight = call("POST", `/api/monitors/${monitor.body.id}/check`);
    await eventually(async () => (target.requests() > before ? true : undefined), 30_000, "the check to reach the target");
    const exit = server.kill("SIGTERM");
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.body.diff).not.toBeNull();
    expect(await exit).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain("shutting down");
    expect(server.output()).toContain('"msg":"stopped"');
    await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();

    // Restart on the same database: the diff is stored, with one delivery that is (or becomes) delivered.
    target.set({ version: 2, added: true }, 0);
    server = await startCli(["--database", database, "--allow-private-networks"], env);
    call = api(server.baseUrl, token);
    const diffs = await call("GET", `/api/monitors/${monitor.body.id}/diffs`);
    expect(diffs.body.data.map((d: { id: string }) => d.id)).toEqual([answered.body.diff.id]);
    const log = await eventually(
      async () => {
        await call("POST", "/api/webhooks/worker/run", { force: true });
        const res = await call("GET", `/api/webhooks/${hook.body.id}/deliveries`);
        return res.body.data.length === 1 && res.body.data[0].state === "succeeded" ? res.body.data : undefined;
      },
      20_000,
      "the delivery to succeed",
    );
    expect(log).toHaveLength(1);
    const received = receiver.unique();
    expect([...received.values()].map((e) => e.diffId)).toEqual([answered.body.diff.id]);
    expect(receiver.rejected()).toEqual([]);
    expect(await server.kill("SIGTERM")).toEqual({ code: 0, signal: null });
    await sleep(0);
  });
});
