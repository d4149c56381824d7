import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiMonitor, createHarness, json, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe("201 Created names the new resource in Location", () => {
  it("POST /api/monitors, also on an Idempotency-Key replay", async () => {
    const first = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", headers: { "idempotency-key": "loc-1" }, payload: apiMonitor });
    expect(first.statusCode).toBe(201);
    const id = json(first).id as string;
    expect(first.headers.location).toBe(`/api/monitors/${id}`);
    const replay = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", headers: { "idempotency-key": "loc-1" }, payload: apiMonitor });
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.headers.location).toBe(`/api/monitors/${id}`);
    const plain = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor });
    expect(plain.headers.location).toBe(`/api/monitors/${json(plain).id}`);
    // what Location names can be read
    expect((await h.request(h.a.admin, { method: "GET", url: plain.headers.location as string })).statusCode).toBe(200);
  });

  it("POST /api/webhooks and POST /api/tokens", async () => {
    const hook = await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://hooks.example.com/loc" } });
    expect(hook.statusCode).toBe(201);
    expect(hook.headers.location).toBe(`/api/webhooks/${json(hook).id}`);
    const token = await h.request(h.a.admin, { method: "POST", url: "/api/tokens", payload: { name: "loc", scopes: ["monitors:read"] } });
    expect(token.statusCode).toBe(201);
    expect(token.headers.location).toBe(`/api/tokens/${json(token).id}`);
  });

  it("no Location on a refused create", async () => {
    const refused = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { url: "https://api.example.com/x", colour: 1 } });
    expect(refused.statusCode).toBe(422);
    expect(refused.headers.location).toBeUndefined();
  });
});
