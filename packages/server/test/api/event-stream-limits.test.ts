import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import type { Delivery, Monitor } from "@driftwatch/schema";
import Fastify from "fastify";
import { validatorCompiler } from "fastify-type-provider-zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthContext } from "../../src/http/auth.js";
import { createEventHub, type EventHub } from "../../src/live/events.js";
import { MAX_QUEUED_BYTES, MAX_STREAMS_PER_CALLER, registerEventRoutes } from "../../src/routes/events.js";
import { openEventStream } from "../sse.js";
import { createHarness, type Harness } from "./harness.js";

/** The live stream's bounds: slow readers, per-caller slots, HEAD, and events filtered by scope. */
let h: Harness;
let hub: EventHub;
let apiUrl: string;
let port: number;
const serverSockets: Socket[] = [];

beforeAll(async () => {
  hub = createEventHub();
  h = await createHarness({ events: hub });
  await h.app.listen({ port: 0, host: "127.0.0.1" });
  port = (h.app.server.address() as AddressInfo).port;
  apiUrl = `http://127.0.0.1:${port}`;
  h.app.server.on("connection", (socket: Socket) => serverSockets.push(socket));
});
afterAll(async () => {
  await h?.close();
});

const monitorOf = (name: string): Monitor => ({ id: "mon_big", name }) as unknown as Monitor;

/**
 * What the kernel still holds of the server's end of a connection (Linux, `/proc/net/tcp`): its
 * TCP state and send queue, or null when it holds nothing. A socket closed with a FIN towards a
 * client that does not read stays in FIN-WAIT-1 with all that was queued for the client; a reset
 * leaves nothing.
 */
function kernelHolds(serverPort: number, clientPort: number): { state: string; queued: number } | null {
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const [, local = "", remote = "", state = "", queues = ""] = line.trim().split(/\s+/);
    if (Number.parseInt(local.split(":")[1] ?? "", 16) !== serverPort || Number.parseInt(remote.split(":")[1] ?? "", 16) !== clientPort) continue;
    return { state, queued: Number.parseInt(queues.split(":")[0] ?? "0", 16) };
  }
  return null;
}
const linux = existsSync("/proc/net/tcp");

describe("GET /api/events/stream bounds", () => {
  it("disconnects a client that stops reading once its queue passes the limit", async () => {
    const client = connect({ port, host: "127.0.0.1" });
    await once(client, "connect");
    const accepted = serverSockets.length;
    client.write(`GET /api/events/stream HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${h.a.admin}\r\n\r\n`);
    // the headers and `ready` arrive; then the client reads no more
    await once(client, "data");
    client.pause();
    const server = serverSockets[accepted - 1]!;
    const closed = once(server, "close");
    let isClosed = false;
    void closed.then(() => (isClosed = true));
    const big = "x".repeat(256 * 1024);
    // enough to fill the kernel's buffers and then the stream's queue limit, several times over
    for (let i = 0; i < 400 && !isClosed; i++) {
      hub.publish(h.a.orgId, { type: "monitor", monitor: monitorOf(big) });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await closed;
    // the server's socket is gone while the client still has not read: destroyed, not ended
    expect(server.destroyed).toBe(true);
    expect(hub.listenerCount(h.a.orgId)).toBe(0);
    // reset: nothing queued for the client stays in the kernel (a FIN would wait behind it, for minutes)
    if (linux) expect(kernelHolds(port, client.localPort!)).toBeNull();
    client.destroy();
  });

  it("disconnects a client that has not taken what was written to it within the write timeout", async () => {
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    app.decorateRequest("auth", null);
    const auth: AuthContext = { via: "token", orgId: "org_slow", tokenId: "tok_slow", userId: null, role: null, scopes: ["monitors:read"] };
    app.addHook("onRequest", async (request) => {
      request.auth = auth;
    });
    const slowHub = createEventHub();
    registerEventRoutes(app, slowHub, { stillAllowed: async () => true, now: () => new Date(), writeTimeoutMs: 300 });
    const sockets: Socket[] = [];
    app.server.on("connection", (socket: Socket) => sockets.push(socket));
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const serverPort = (app.server.address() as AddressInfo).port;
      const client = connect({ port: serverPort, host: "127.0.0.1" });
      await once(client, "connect");
      client.write("GET /api/events/stream HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
      await once(client, "data");
      client.pause();
      const server = sockets[0]!;
      const closed = once(server, "close");
      // events until the kernel's buffers are full and a write waits for the client (which never reads)
      const text = "y".repeat(64 * 1024);
      for (let i = 0; i < 2000 && !server.writableNeedDrain; i++) {
        slowHub.publish(auth.orgId, { type: "monitor", monitor: monitorOf(text) });
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(server.writableNeedDrain).toBe(true);
      // far below the queue limit: only the write timeout can end this stream
      expect(server.writableLength).toBeLessThan(MAX_QUEUED_BYTES / 4);
      await closed;
      expect(server.destroyed).toBe(true);
      expect(slowHub.listenerCount(auth.orgId)).toBe(0);
      if (linux) expect(kernelHolds(serverPort, client.localPort!)).toBeNull();
      client.destroy();
    } finally {
      await app.close();
    }
  });

  it(`allows one caller ${MAX_STREAMS_PER_CALLER} streams, and another caller of the organization more`, async () => {
    const one = await h.a.token(["monitors:read"]);
    const two = await h.a.token(["monitors:read"]);
    const open = [];
    for (let i = 0; i < MAX_STREAMS_PER_CALLER; i++) open.push(await openEventStream(apiUrl, one.secret));
    await Promise.all(open.map((s) => s.next()));
    const refused = await fetch(`${apiUrl}/api/events/stream`, { headers: { authorization: `Bearer ${one.secret}` } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/per caller/);
    const other = await openEventStream(apiUrl, two.secret);
    expect(other.status).toBe(200);
    expect((await other.next()).event).toBe("ready");
    other.close();
    open.pop()!.close();
    // a closed stream frees its slot
    for (;;) {
      const again = await fetch(`${apiUrl}/api/events/stream`, { headers: { authorization: `Bearer ${one.secret}` } });
      if (again.status === 200) {
        await again.body?.cancel();
        break;
      }
      await again.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const s of open) s.close();
    while (hub.listenerCount(h.a.orgId) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  });

  it("answers HEAD with the headers and closes, holding no slot", async () => {
    const res = await fetch(`${apiUrl}/api/events/stream`, { method: "HEAD", headers: { authorization: `Bearer ${h.a.admin}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    // the response is complete (the body ends), and nothing subscribed
    expect(await res.text()).toBe("");
    expect(hub.listenerCount(h.a.orgId)).toBe(0);
  });

  it("sends delivery events only to callers with webhooks:read", async () => {
    const reader = await h.a.token(["monitors:read"]);
    const hooks = await h.a.token(["monitors:read", "webhooks:read"]);
    const plain = await openEventStream(apiUrl, reader.secret);
    const full = await openEventStream(apiUrl, hooks.secret);
    await plain.next();
    await full.next();
    hub.publish(h.a.orgId, { type: "delivery", delivery: { id: "dlv_1", webhookId: "wh_1", state: "failed", lastError: "secret-ish" } as unknown as Delivery });
    hub.publish(h.a.orgId, { type: "monitor", monitor: monitorOf("after") });
    expect((await full.next()).event).toBe("delivery");
    expect((await full.next()).event).toBe("monitor");
    // the reader's next event is the monitor one: the delivery was never sent to it
    expect((await plain.next()).event).toBe("monitor");
    plain.close();
    full.close();
  });
});
