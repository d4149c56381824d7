import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { assertSafeUrl } from "@driftwatch/fetcher-http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeliveryService } from "../../src/index.js";
import { apiMonitor, createHarness, json, seedCheck, type Harness } from "./harness.js";

/** The webhook endpoints on the real delivery service, against a local receiver. */
let h: Harness;
let receiver: Server;
let receiverUrl: string;
const received: Array<{ body: string; headers: IncomingHttpHeaders }> = [];
let answer = 204;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      received.push({ body, headers: req.headers });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const urlGuard = { assertSafeUrl: (url: string) => assertSafeUrl(url, { allowPrivateNetworks: true }) };
  h = await createHarness({
    urlGuard,
    deliveries: (store, now) => createDeliveryService({ store, guard: { allowPrivateNetworks: true }, urlGuard, now, timeoutMs: 5000 }),
  });
});
afterAll(async () => {
  await h?.close();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

function headersOf(r: { headers: IncomingHttpHeaders }): Record<string, string> {
  return { "webhook-id": String(r.headers["webhook-id"]), "webhook-timestamp": String(r.headers["webhook-timestamp"]), "webhook-signature": String(r.headers["webhook-signature"]) };
}

describe("webhook delivery through the API", () => {
  it("runs the worker, rotates the secret (both secrets sign), retries by hand and shows the log", async () => {
    const monitorId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, url: receiverUrl } })).id;
    const hook = json(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url: receiverUrl } }));
    const seeded = await seedCheck(h.store, h.a.orgId, monitorId);

    const run = await h.request(h.a.admin, { method: "POST", url: "/api/webhooks/worker/run", payload: { force: true } });
    expect(json(run)).toMatchObject({ attempted: 1, succeeded: 1, failed: 0 });
    expect(received).toHaveLength(1);
    const event = new Webhook(hook.secret).verify(received[0]!.body, headersOf(received[0]!)) as { diffId: string; eventId: string };
    expect(event.diffId).toBe(seeded.diffId);

    const rotated = json(await h.request(h.a.admin, { method: "POST", url: `/api/webhooks/${hook.id}/rotate-secret` }));
    const retry = await h.request(h.a.admin, { method: "POST", url: `/api/webhooks/${hook.id}/deliveries/${seeded.deliveryIds[0]}/retry` });
    expect(retry.statusCode).toBe(202);
    expect(json(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks/worker/run", payload: { webhookId: hook.id } }))).toMatchObject({
      attempted: 1,
      succeeded: 1,
    });
    expect(received).toHaveLength(2);
    const second = received[1]!;
    expect(String(second.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [rotated.secret, hook.secret]) {
      expect((new Webhook(secret).verify(second.body, headersOf(second)) as { eventId: string }).eventId).toBe(event.eventId);
    }

    const log = json(await h.request(h.a.admin, { method: "GET", url: `/api/webhooks/${hook.id}/deliveries` }));
    expect(log.data).toHaveLength(1);
    expect(log.data[0]).toMatchObject({ id: seeded.deliveryIds[0], state: "succeeded", attempts: 2, lastResponseStatus: 204, eventId: event.eventId });
  });

  it("a failing receiver leaves the delivery pending with its status in the log", async () => {
    const monitorId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, url: receiverUrl } })).id;
    const hook = json(await h.request(h.b.admin, { method: "POST", url: "/api/webhooks", payload: { url: receiverUrl } }));
    const other = json(await h.request(h.b.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, url: receiverUrl } })).id;
    await seedCheck(h.store, h.a.orgId, monitorId);
    const seeded = await seedCheck(h.store, h.b.orgId, other);
    answer = 500;
    try {
      const before = received.length;
      // organization B's worker run sends only B's delivery
      const run = json(await h.request(h.b.admin, { method: "POST", url: "/api/webhooks/worker/run", payload: { force: true } }));
      expect(run).toMatchObject({ attempted: 1, succeeded: 0 });
      expect(received.length).toBe(before + 1);
      const log = json(await h.request(h.b.admin, { method: "GET", url: `/api/webhooks/${hook.id}/deliveries` }));
      expect(log.data[0]).toMatchObject({ id: seeded.deliveryIds[0], state: "pending", attempts: 1, lastResponseStatus: 500 });
    } finally {
      answer = 204;
    }
  });
});
