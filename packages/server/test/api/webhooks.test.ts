import { activeWebhookSecrets } from "@driftwatch/core";
import { TokenSchema, WebhookSchema } from "@driftwatch/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashTokenSecret } from "../../src/index.js";
import { apiMonitor, createHarness, expectProblem, json, seedCheck, type Harness } from "./harness.js";

let h: Harness;
let monitorId: string;
beforeAll(async () => {
  h = await createHarness();
  monitorId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id;
});
afterAll(async () => {
  await h?.close();
});

describe("webhooks", () => {
  it("creates with defaults and shows the secret only on create", async () => {
    const res = await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://hooks.example.com/a", description: "ops" } });
    expect(res.statusCode).toBe(201);
    const hook = json(res);
    expect(hook).toMatchObject({ url: "https://hooks.example.com/a", description: "ops", events: ["diff.detected"], monitorIds: null, minSeverity: "info", enabled: true });
    expect(hook.id).toMatch(/^whk_/);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(hook.secret.slice(6), "base64")).toHaveLength(32);
    expect((await h.store.getWebhook(h.a.orgId, hook.id))!.secret).toBe(hook.secret);

    const read = json(await h.request(h.a.admin, { method: "GET", url: `/api/webhooks/${hook.id}` }));
    expect(read).not.toHaveProperty("secret");
    expect(read).not.toHaveProperty("previousSecret");
    WebhookSchema.parse(read);
    const list = json(await h.request(h.a.admin, { method: "GET", url: "/api/webhooks" }));
    expect(JSON.stringify(list)).not.toContain("whsec_");
    expect(list.data.map((w: { id: string }) => w.id)).toContain(hook.id);
  });

  it("updates filters and can be deleted", async () => {
    const hook = json(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://hooks.example.com/b" } }));
    const patched = await h.request(h.a.admin, {
      method: "PATCH",
      url: `/api/webhooks/${hook.id}`,
      payload: { monitorIds: [monitorId], minSeverity: "high", enabled: false, description: null },
    });
    expect(patched.statusCode).toBe(200);
    expect(json(patched)).toMatchObject({ monitorIds: [monitorId], minSeverity: "high", enabled: false, description: null });
    expect(json(patched)).not.toHaveProperty("secret");
    const bad = expectProblem(
      await h.request(h.a.admin, { method: "PATCH", url: `/api/webhooks/${hook.id}`, payload: { monitorIds: ["nope", "mon_01HZX3K4ABCDEFGHJKMNPQRSTV"] } }),
      422,
      "validation_failed",
    );
    expect(bad.errors.map((e: { path: string }) => e.path)).toEqual(["monitorIds[0]", "monitorIds[1]"]);
    expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/webhooks/${hook.id}`, payload: { events: ["diff.created"] } }), 422, "validation_failed");
    expect((await h.request(h.a.admin, { method: "DELETE", url: `/api/webhooks/${hook.id}` })).statusCode).toBe(204);
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/webhooks/${hook.id}` }), 404, "not_found");
  });

  it("rotates the secret: the new one is shown once and the old one keeps signing for 24 hours", async () => {
    const hook = json(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://hooks.example.com/c" } }));
    h.clock.now = new Date("2026-05-01T00:00:00.000Z");
    const rotated = await h.request(h.a.admin, { method: "POST", url: `/api/webhooks/${hook.id}/rotate-secret` });
    expect(rotated.statusCode).toBe(200);
    const body = json(rotated);
    expect(body.secret).toMatch(/^whsec_/);
    expect(body.secret).not.toBe(hook.secret);
    const stored = (await h.store.getWebhook(h.a.orgId, hook.id))!;
    expect(stored.secret).toBe(body.secret);
    expect(stored.previousSecret).toBe(hook.secret);
    expect(stored.previousSecretExpiresAt).toBe("2026-05-02T00:00:00.000Z");
    expect(activeWebhookSecrets(stored, new Date("2026-05-01T23:59:59.000Z"))).toEqual([body.secret, hook.secret]);
    expect(activeWebhookSecrets(stored, new Date("2026-05-02T00:00:01.000Z"))).toEqual([body.secret]);
    expect(json(await h.request(h.a.admin, { method: "GET", url: `/api/webhooks/${hook.id}` }))).not.toHaveProperty("secret");
    h.clock.now = new Date();
  });

  it("shows the delivery log, retries one delivery by hand and runs the worker", async () => {
    const hook = json(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://hooks.example.com/d" } }));
    const first = await seedCheck(h.store, h.a.orgId, monitorId, { at: new Date(Date.now() - 2000) });
    const second = await seedCheck(h.store, h.a.orgId, monitorId);
    const mine = (s: { deliveryIds: string[] }) => s.deliveryIds;
    const log = json(await h.request(h.a.admin, { method: "GET", url: `/api/webhooks/${hook.id}/deliveries` }));
    expect(log.data).toHaveLength(2);
    expect(log.data.every((d: { webhookId: string; state: string }) => d.webhookId === hook.id && d.state === "pending")).toBe(true);
    expect(log.data.map((d: { diffId: string }) => d.diffId)).toEqual([second.diffId, first.diffId]);
    expect(log.data[0]).not.toHaveProperty("payload");
    expect(log.data[0]).not.toHaveProperty("orgId");
    const paged = json(await h.request(h.a.admin, { method: "GET", url: `/api/webhooks/${hook.id}/deliveries?limit=1` }));
    expect(paged.data).toHaveLength(1);
    expect(paged.nextCursor).toEqual(expect.any(String));

    // a failed delivery is made pending and due again
    const deliveryId = log.data[1].id as string;
    expect(mine(first)).toContain(deliveryId);
    const [claimed] = await h.store.claimDueDeliveries({ now: new Date(Date.now() + 1000).toISOString(), limit: 10, leaseMs: 60_000, owner: "test", webhookId: hook.id });
    expect(claimed).toBeDefined();
    const failed = await h.store.recordDeliveryAttempt(claimed!.id, "test", {
      at: new Date().toISOString(),
      state: "failed",
      nextAttemptAt: null,
      responseStatus: 500,
      error: "HTTP 500",
      durationMs: 3,
    });
    expect(failed!.state).toBe("failed");
    const retried = await h.request(h.a.admin, { method: "POST", url: `/api/webhooks/${hook.id}/deliveries/${claimed!.id}/retry` });
    expect(retried.statusCode).toBe(202);
    expect(json(retried)).toMatchObject({ id: claimed!.id, state: "pending", nextAttemptAt: expect.any(String) });
    expectProblem(await h.request(h.a.admin, { method: "POST", url: `/api/webhooks/${hook.id}/deliveries/dlv_01HZX3K4ABCDEFGHJKMNPQRSTV/retry` }), 404, "not_found");
    // the replay is in the audit log (the refused one is not), with the delivery it sent again
    const replays = (await h.store.listAudit(h.a.orgId, { limit: 50 })).data.filter((e) => e.action === "webhook.delivery_replayed");
    expect(replays).toEqual([expect.objectContaining({ targetId: hook.id, data: expect.objectContaining({ deliveryId: claimed!.id }) })]);

    h.deliveries.result = { attempted: 2, succeeded: 1, failed: 0, pending: 1 };
    const run = await h.request(h.a.admin, { method: "POST", url: "/api/webhooks/worker/run", payload: { webhookId: hook.id, force: true } });
    expect(run.statusCode).toBe(200);
    expect(json(run)).toEqual({ attempted: 2, succeeded: 1, failed: 0, pending: 1 });
    expect(h.deliveries.calls.at(-1)).toEqual({ orgId: h.a.orgId, webhookId: hook.id, force: true });
    // without a body: the whole organization, not forced
    const bare = await h.request(h.a.admin, { method: "POST", url: "/api/webhooks/worker/run" });
    expect(bare.statusCode).toBe(200);
    expect(h.deliveries.calls.at(-1)).toEqual({ orgId: h.a.orgId, webhookId: undefined, force: false });
    expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks/worker/run", payload: { force: "yes" } }), 422, "validation_failed");
    expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks/worker/run", payload: { webhookId: "whk_01HZX3K4ABCDEFGHJKMNPQRSTV" } }), 404, "not_found");
  });
});

describe("tokens", () => {
  it("creates a token whose secret is shown once and stored as a hash, then lists, reads and revokes it", async () => {
    const res = await h.request(h.a.admin, { method: "POST", url: "/api/tokens", payload: { name: "ci", scopes: ["monitors:read", "monitors:read", "webhooks:read"] } });
    expect(res.statusCode).toBe(201);
    const created = json(res);
    expect(created.token).toMatch(/^dw_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: "ci", scopes: ["monitors:read", "webhooks:read"], lastUsedAt: null, revokedAt: null });
    const stored = (await h.store.getToken(h.a.orgId, created.id))!;
    expect(stored.tokenHash).toBe(hashTokenSecret(created.token));
    expect(JSON.stringify(stored)).not.toContain(created.token);

    // the new token works with its scopes only
    expect((await h.request(created.token, { method: "GET", url: "/api/webhooks" })).statusCode).toBe(200);
    expectProblem(await h.request(created.token, { method: "POST", url: "/api/webhooks", payload: { url: "https://x.example.com" } }), 403, "insufficient_scope");

    const read = json(await h.request(h.a.admin, { method: "GET", url: `/api/tokens/${created.id}` }));
    TokenSchema.parse(read);
    expect(read).not.toHaveProperty("token");
    expect(read).not.toHaveProperty("tokenHash");
    expect(read.lastUsedAt).toEqual(expect.any(String));
    const list = json(await h.request(h.a.admin, { method: "GET", url: "/api/tokens?limit=100" }));
    expect(list.data.map((t: { id: string }) => t.id)).toContain(created.id);
    expect(JSON.stringify(list)).not.toContain("dw_");

    expect((await h.request(h.a.admin, { method: "DELETE", url: `/api/tokens/${created.id}` })).statusCode).toBe(204);
    expectProblem(await h.request(created.token, { method: "GET", url: "/api/webhooks" }), 401, "invalid_token");
  });

  it("refuses bad token requests", async () => {
    expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/tokens", payload: { name: "x", scopes: [] } }), 422, "validation_failed");
    expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/tokens", payload: { name: "x", scopes: ["root"] } }), 422, "validation_failed");
    expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/tokens", payload: { scopes: ["admin"] } }), 422, "validation_failed");
  });
});
