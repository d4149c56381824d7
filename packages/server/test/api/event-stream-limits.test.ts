import { once } from "node:events";
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import type { Delivery, Monitor } from "@driftwatch/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventHub, type EventHub } from "../../src/live/events.js";
import { MAX_STREAMS_PER_CALLER } from "../../src/routes/events.js";
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
    client.destroy();
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
