import { MonitorCreateSchema } from "@driftwatch/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotencyRequestHash } from "../../src/http/idempotency.js";
import { apiMonitor, createHarness, expectProblem, json, type Harness } from "./harness.js";

describe("Idempotency-Key on POST /api/monitors", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const count = async (orgId: string): Promise<number> => (await h.store.listMonitors(orgId, { limit: 100 })).data.length;
  const create = (secret: string, key: string, payload: object) =>
    h.request(secret, { method: "POST", url: "/api/monitors", headers: { "idempotency-key": key }, payload });

  it("same key and same body: the same response, one monitor", async () => {
    const before = await count(h.a.orgId);
    const first = await create(h.a.admin, "key-1", { ...apiMonitor, intervalSeconds: 60 });
    expect(first.statusCode).toBe(201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    // the same body with its keys in another order is the same request
    const second = await create(h.a.admin, "key-1", { intervalSeconds: 60, url: apiMonitor.url, name: apiMonitor.name, type: "api" });
    expect(second.statusCode).toBe(201);
    expect(second.headers["idempotent-replayed"]).toBe("true");
    expect(json(second)).toEqual(json(first));
    expect(second.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
    expect(await count(h.a.orgId)).toBe(before + 1);
  });

  it("same key and another body: 409 idempotency_key_reused, nothing stored", async () => {
    await create(h.a.admin, "key-2", apiMonitor);
    const before = await count(h.a.orgId);
    expectProblem(await create(h.a.admin, "key-2", { ...apiMonitor, name: "Other" }), 409, "idempotency_key_reused");
    expect(await count(h.a.orgId)).toBe(before);
  });

  it("keys are per organization", async () => {
    const a = json(await create(h.a.admin, "shared-key", apiMonitor));
    const b = await create(h.b.admin, "shared-key", apiMonitor);
    expect(b.statusCode).toBe(201);
    expect(json(b).id).not.toBe(a.id);
  });

  it("a failed request is forgotten, so its key can be retried", async () => {
    const before = await count(h.a.orgId);
    expectProblem(await create(h.a.admin, "key-3", { ...apiMonitor, url: "http://127.0.0.1/x" }), 422, "unsafe_url");
    const retried = await create(h.a.admin, "key-3", apiMonitor);
    expect(retried.statusCode).toBe(201);
    expect(await count(h.a.orgId)).toBe(before + 1);
  });

  it("a key still in flight is 409 conflict with Retry-After", async () => {
    const now = new Date();
    const body = { ...apiMonitor, name: "In flight" };
    await h.store.claimIdempotencyKey(h.a.orgId, {
      key: "key-4",
      requestHash: idempotencyRequestHash("POST /api/monitors", MonitorCreateSchema.parse(body)),
      now: now.toISOString(),
      expiresAt: new Date(now.getTime() + 3600_000).toISOString(),
    });
    const res = await create(h.a.admin, "key-4", body);
    expectProblem(res, 409, "conflict");
    expect(res.headers["retry-after"]).toBe("1");
  });

  it("keys are honoured for 24 hours", async () => {
    const first = json(await create(h.a.admin, "key-5", apiMonitor));
    h.clock.now = new Date(h.clock.now.getTime() + 23 * 3600_000);
    expect(json(await create(h.a.admin, "key-5", apiMonitor)).id).toBe(first.id);
    h.clock.now = new Date(h.clock.now.getTime() + 2 * 3600_000);
    const later = await create(h.a.admin, "key-5", apiMonitor);
    expect(later.statusCode).toBe(201);
    expect(json(later).id).not.toBe(first.id);
  });

  it("a malformed key is 400 invalid_request", async () => {
    expectProblem(await create(h.a.admin, "k".repeat(256), apiMonitor), 400, "invalid_request");
    expectProblem(await create(h.a.admin, "has space", apiMonitor), 400, "invalid_request");
  });

  it("webhook creation honours keys too, replaying the webhook without its secret (shown once)", async () => {
    const payload = { url: "https://hooks.example.com/idem" };
    const first = await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", headers: { "idempotency-key": "hook-1" }, payload });
    const again = await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", headers: { "idempotency-key": "hook-1" }, payload });
    expect(first.statusCode).toBe(201);
    const { secret: _secret, ...withoutSecret } = json(first);
    expect(json(again)).toEqual(withoutSecret);
    expect(json(first).secret).toMatch(/^whsec_/);
    expect((await h.store.listWebhooks(h.a.orgId, { limit: 100 })).data.filter((w) => w.url === payload.url)).toHaveLength(1);
  });
});

describe("rate limits", () => {
  const variants = [
    { name: "counters in the store", shared: true, options: {} },
    { name: "counters in memory (store without the capability)", shared: false, options: { withoutStoreRateLimits: true } },
    { name: "counters in memory (configured)", shared: false, options: { config: { rateLimitCounters: "memory" as const } } },
  ];
  for (const { name, shared, options } of variants) {
    describe(name, () => {
      let h: Harness;
      beforeAll(async () => {
        h = await createHarness({ ...options, config: { rateLimitReads: 3, rateLimitWrites: 2, ...options.config } });
        h.clock.now = new Date("2026-03-01T12:00:05.000Z");
      });
      afterAll(async () => {
        await h?.close();
      });

      it("counts per organization and endpoint, with RateLimit headers and 429 + Retry-After", async () => {
        const seen: string[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await h.request(h.a.admin, { method: "GET", url: "/api/monitors" });
          expect(res.statusCode).toBe(200);
          expect(res.headers["ratelimit-policy"]).toBe('"reads";q=3;w=60');
          seen.push(String(res.headers.ratelimit));
        }
        expect(seen).toEqual(['"reads";r=2;t=55', '"reads";r=1;t=55', '"reads";r=0;t=55']);
        const limited = await h.request(h.a.admin, { method: "GET", url: "/api/monitors" });
        const problem = expectProblem(limited, 429, "rate_limited");
        expect(limited.headers["retry-after"]).toBe("55");
        expect(limited.headers.ratelimit).toBe('"reads";r=0;t=55');
        expect(problem.detail).toContain("3 per minute");
        // another endpoint and another organization have their own counters
        expect((await h.request(h.a.admin, { method: "GET", url: "/api/webhooks" })).statusCode).toBe(200);
        expect((await h.request(h.b.admin, { method: "GET", url: "/api/monitors" })).statusCode).toBe(200);
        // a different id is the same endpoint (route template)
        const m1 = await h.request(h.a.admin, { method: "GET", url: "/api/monitors/mon_01HZX3K4ABCDEFGHJKMNPQRS01" });
        const m2 = await h.request(h.a.admin, { method: "GET", url: "/api/monitors/mon_01HZX3K4ABCDEFGHJKMNPQRS02" });
        expect(m1.headers.ratelimit).toBe('"reads";r=2;t=55');
        expect(m2.headers.ratelimit).toBe('"reads";r=1;t=55');
        // the next window starts fresh
        h.clock.now = new Date("2026-03-01T12:01:00.000Z");
        const next = await h.request(h.a.admin, { method: "GET", url: "/api/monitors" });
        expect(next.statusCode).toBe(200);
        expect(next.headers.ratelimit).toBe('"reads";r=2;t=60');
      });

      it("writes have their own, lower limit", async () => {
        h.clock.now = new Date("2026-03-01T12:02:30.000Z");
        const before = (await h.store.listMonitors(h.a.orgId, { limit: 100 })).data.length;
        for (let i = 0; i < 2; i++) {
          const res = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor });
          expect(res.statusCode).toBe(201);
          expect(res.headers["ratelimit-policy"]).toBe('"writes";q=2;w=60');
        }
        const limited = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor });
        expectProblem(limited, 429, "rate_limited");
        expect(limited.headers["retry-after"]).toBe("30");
        expect((await h.store.listMonitors(h.a.orgId, { limit: 100 })).data.length).toBe(before + 2);
      });

      it(shared ? "two app instances share the counters" : "each app instance counts on its own", async () => {
        h.clock.now = new Date("2026-03-01T12:03:00.000Z");
        const other = await h.buildAnother();
        const headers = { authorization: `Bearer ${h.a.admin}` };
        await h.request(h.a.admin, { method: "GET", url: "/api/webhooks" });
        await h.request(h.a.admin, { method: "GET", url: "/api/webhooks" });
        const res = await other.inject({ method: "GET", url: "/api/webhooks", headers });
        expect(res.headers.ratelimit).toBe(shared ? '"reads";r=0;t=60' : '"reads";r=2;t=60');
      });

      it("unauthenticated system routes are not limited", async () => {
        for (let i = 0; i < 5; i++) {
          const res = await h.request(null, { method: "GET", url: "/healthz" });
          expect(res.statusCode).toBe(200);
          expect(res.headers.ratelimit).toBeUndefined();
        }
      });
    });
  }
});
