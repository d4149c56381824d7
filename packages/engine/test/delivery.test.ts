import http from "node:http";
import type { AddressInfo } from "node:net";
import { generateWebhookSecret, verifyWebhook, type Store } from "@driftwatch/core";
import { assertSafeUrl, createHttpFetcher, createWebhookTransport } from "@driftwatch/fetcher-http";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import {
  createCheckService,
  createDeliveryService,
  createMetrics,
  DELIVERY_RETRY_DELAYS_MS,
  MAX_DELIVERY_ATTEMPTS,
  type EngineDeliveryService,
  type WebhookTransport,
} from "../src/index.js";
import { createMonitor, createWebhook, manualClock, openTempStore, recordDiff, startReceiver, startTarget, useCheckSetup } from "./fixtures.js";

describe("webhook delivery (SQLite, loopback receiver)", () => {
  const setup = useCheckSetup();
  const services: EngineDeliveryService[] = [];

  afterAll(async () => {
    for (const service of services) await service.close();
    for (const transport of transports) await transport.close();
  });

  /** fetcher-http's transport with the SSRF guard on (the engine's default transport has none). */
  const transports: WebhookTransport[] = [];
  function guardedTransport(): WebhookTransport {
    const transport = createWebhookTransport({});
    transports.push(transport);
    return transport;
  }

  function deliveryService(options: Partial<Parameters<typeof createDeliveryService>[0]> = {}): EngineDeliveryService {
    const service = createDeliveryService({ store: setup.store, random: () => 0.5, ...options });
    services.push(service);
    return service;
  }

  it("delivers an api check's diff, signed so that standardwebhooks verifies it", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/api` });
    const hook = await createWebhook(setup.store, setup.orgId, { url: `${setup.receiver.url}/hook-api`, monitorIds: [monitor.id] });
    const checks = createCheckService({ store: setup.store, httpFetcher: setup.fetcher });
    setup.target.setJson({ plan: "pro", seats: 3 });
    await checks.checkNow(setup.orgId, monitor.id, { requestId: "req_a1" });
    setup.target.setJson({ plan: "pro", seats: "3" });
    const checked = await checks.checkNow(setup.orgId, monitor.id, { requestId: "req_a2" });
    expect(checked?.diff?.topSeverity).toBe("critical");

    const metrics = createMetrics({ store: setup.store });
    const result = await deliveryService({ metrics }).runWorker(setup.orgId, { webhookId: hook.id, force: false });
    expect(result).toEqual({ attempted: 1, succeeded: 1, failed: 0, pending: 0 });
    const request = setup.receiver.received.find((r) => r.path === "/hook-api")!;
    expect(request.headers["content-type"]).toBe("application/json");

    const verified = new Webhook(hook.secret).verify(request.body, request.headers) as Record<string, unknown>;
    expect(verified).toMatchObject({
      schemaVersion: "v1",
      eventVersion: 1,
      eventType: "diff.detected",
      monitorId: monitor.id,
      diffId: checked?.diff?.id,
      snapshotId: checked?.snapshot.id,
      data: { classification: "schema_change", schemaChanges: 1, valueChanges: 0, changes: [{ path: "$.seats", category: "schema", op: "replace", severity: "critical" }] },
    });
    expect(request.headers["webhook-id"]).toBe(verified.eventId);
    expect(verified).not.toHaveProperty("data.topSeverity");
    expect(verifyWebhook(request.body, request.headers, hook.secret).eventId).toBe(verified.eventId);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(request.body, request.headers)).toThrow();

    const [delivery] = (await setup.store.listDeliveries(setup.orgId, hook.id, { limit: 10 })).data;
    expect(delivery).toMatchObject({ state: "succeeded", attempts: 1, lastResponseStatus: 204, lastError: null, nextAttemptAt: null });
    expect(await setup.store.listDeliveryAttempts(setup.orgId, delivery!.id)).toEqual([expect.objectContaining({ attempt: 1, responseStatus: 204, error: null })]);
    const text = await metrics.render();
    expect(text).toMatch(/driftwatch_deliveries_total\{outcome="succeeded"\} 1/);
    expect(text).toMatch(/driftwatch_queue_depth\{queue="deliveries"\} 0/);
  });

  it("retries on the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) and then fails", async () => {
    const clock = manualClock();
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/retry` });
    const hook = await createWebhook(setup.store, setup.orgId, { url: `${setup.receiver.url}/always-500`, monitorIds: [monitor.id] });
    const { deliveries } = await recordDiff(setup.store, setup.orgId, monitor.id, clock.now());
    const id = deliveries[0]!.id;
    const service = deliveryService({ now: clock.now });
    setup.receiver.fallback = { status: 500 };
    try {
      const gaps: number[] = [];
      let last = clock.ms();
      for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt++) {
        const due = await setup.store.getDelivery(setup.orgId, hook.id, id);
        expect(due?.state).toBe("pending");
        const dueAt = Date.parse(due!.nextAttemptAt!);
        gaps.push(dueAt - last);
        // one millisecond early: nothing is due yet
        clock.set(dueAt - 1);
        expect((await service.deliverDue({ webhookId: hook.id, limit: 10 })).claimed).toBe(0);
        clock.set(dueAt);
        expect(await service.deliverDue({ webhookId: hook.id, limit: 10 })).toMatchObject({ attempted: 1, failed: 1 });
        last = dueAt;
      }
      // the retry schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (random 0.5 = no jitter)
      expect(gaps).toEqual([0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
      const final = await setup.store.getDelivery(setup.orgId, hook.id, id);
      expect(final).toMatchObject({ state: "failed", attempts: 8, lastResponseStatus: 500, lastError: "HTTP 500", nextAttemptAt: null });
      expect(await setup.store.listDeliveryAttempts(setup.orgId, id)).toHaveLength(8);
      clock.advance(100 * 3_600_000);
      expect((await service.deliverDue({ webhookId: hook.id, limit: 10 })).claimed).toBe(0);

      // manual retry: pending again, one more attempt
      setup.receiver.fallback = { status: 200 };
      await setup.store.requeueDelivery(setup.orgId, hook.id, id, clock.now().toISOString());
      expect(await service.runWorker(setup.orgId, { webhookId: hook.id, force: false })).toMatchObject({ attempted: 1, succeeded: 1 });
      expect(await setup.store.getDelivery(setup.orgId, hook.id, id)).toMatchObject({ state: "succeeded", attempts: 9 });
    } finally {
      setup.receiver.fallback = { status: 204 };
    }
  });

  it("moves each retry by up to 20 % either way", async () => {
    const clock = manualClock();
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/jitter` });
    const hook = await createWebhook(setup.store, setup.orgId, { url: `${setup.receiver.url}/jitter`, monitorIds: [monitor.id] });
    const delays: number[] = [];
    for (const r of [0, 1 - Number.EPSILON]) {
      const { deliveries } = await recordDiff(setup.store, setup.orgId, monitor.id, clock.now());
      setup.receiver.reply({ status: 500 });
      await deliveryService({ now: clock.now, random: () => r }).deliverDue({ webhookId: hook.id, limit: 1 });
      const after = await setup.store.getDelivery(setup.orgId, hook.id, deliveries[0]!.id);
      delays.push(Date.parse(after!.nextAttemptAt!) - clock.ms());
    }
    expect(delays).toEqual([4_000, 6_000]);
  });

  it("disables the webhook on 410 Gone; its other deliveries wait", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/gone` });
    const hook = await createWebhook(setup.store, setup.orgId, { url: `${setup.receiver.url}/gone`, monitorIds: [monitor.id] });
    const first = await recordDiff(setup.store, setup.orgId, monitor.id, new Date());
    const second = await recordDiff(setup.store, setup.orgId, monitor.id, new Date(Date.now() + 1));
    setup.receiver.reply({ status: 410 });
    const service = deliveryService();
    expect(await service.deliverDue({ webhookId: hook.id, limit: 1 })).toMatchObject({ attempted: 1, failed: 1 });
    expect((await setup.store.getWebhook(setup.orgId, hook.id))?.enabled).toBe(false);
    expect(await setup.store.getDelivery(setup.orgId, hook.id, first.deliveries[0]!.id)).toMatchObject({ state: "failed", lastResponseStatus: 410 });
    expect(await service.runWorker(setup.orgId, { webhookId: hook.id, force: true })).toMatchObject({ attempted: 0 });
    expect((await setup.store.getDelivery(setup.orgId, hook.id, second.deliveries[0]!.id))?.state).toBe("pending");
  });

  it("honours Retry-After on 429 (seconds) and 503 (HTTP date)", async () => {
    const clock = manualClock();
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/later` });
    const hook = await createWebhook(setup.store, setup.orgId, { url: `${setup.receiver.url}/later`, monitorIds: [monitor.id] });
    const { deliveries } = await recordDiff(setup.store, setup.orgId, monitor.id, clock.now());
    const id = deliveries[0]!.id;
    const service = deliveryService({ now: clock.now });
    setup.receiver.reply({ status: 429, headers: { "retry-after": "120" } });
    await service.deliverDue({ webhookId: hook.id, limit: 1 });
    let after = await setup.store.getDelivery(setup.orgId, hook.id, id);
    expect(after).toMatchObject({ state: "pending", lastResponseStatus: 429 });
    expect(Date.parse(after!.nextAttemptAt!) - clock.ms()).toBe(120_000);

    clock.advance(120_000);
    setup.receiver.reply({ status: 503, headers: { "retry-after": new Date(clock.ms() + 3_600_000).toUTCString() } });
    await service.deliverDue({ webhookId: hook.id, limit: 1 });
    after = await setup.store.getDelivery(setup.orgId, hook.id, id);
    expect(Date.parse(after!.nextAttemptAt!) - clock.ms()).toBe(3_600_000);

    // a 503 without Retry-After follows the schedule (third attempt: 5 min later)
    clock.advance(3_600_000);
    setup.receiver.reply({ status: 503 });
    await service.deliverDue({ webhookId: hook.id, limit: 1 });
    after = await setup.store.getDelivery(setup.orgId, hook.id, id);
    expect(Date.parse(after!.nextAttemptAt!) - clock.ms()).toBe(DELIVERY_RETRY_DELAYS_MS[3]);
  });

  it("Retry-After: 0 (or any wait shorter than the schedule) does not retry sooner than the schedule", async () => {
    const clock = manualClock();
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/zero` });
    const hook = await createWebhook(setup.store, setup.orgId, { url: `${setup.receiver.url}/zero`, monitorIds: [monitor.id] });
    const { deliveries } = await recordDiff(setup.store, setup.orgId, monitor.id, clock.now());
    const id = deliveries[0]!.id;
    const service = deliveryService({ now: clock.now });
    for (let attempt = 1; attempt <= 3; attempt++) {
      setup.receiver.reply({ status: 429, headers: { "retry-after": "0" } });
      await service.deliverDue({ webhookId: hook.id, limit: 1, force: true });
      const after = await setup.store.getDelivery(setup.orgId, hook.id, id);
      expect(after).toMatchObject({ state: "pending", attempts: attempt, lastResponseStatus: 429 });
      expect(Date.parse(after!.nextAttemptAt!) - clock.ms()).toBe(DELIVERY_RETRY_DELAYS_MS[attempt]);
      // nothing is due before the schedule says so
      expect(await service.deliverDue({ webhookId: hook.id, limit: 1 })).toMatchObject({ claimed: 0 });
    }
  });

  it("counts a retry delay from the end of the attempt, not its start", async () => {
    const clock = manualClock();
    // a receiver that takes a (simulated) minute to answer 500
    const slow = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        clock.advance(60_000);
        res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    try {
      const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/slow-end` });
      const hook = await createWebhook(setup.store, setup.orgId, { url: `http://127.0.0.1:${String((slow.address() as AddressInfo).port)}/slow`, monitorIds: [monitor.id] });
      const { deliveries } = await recordDiff(setup.store, setup.orgId, monitor.id, clock.now());
      const started = clock.ms();
      await deliveryService({ now: clock.now }).deliverDue({ webhookId: hook.id, limit: 1 });
      const after = await setup.store.getDelivery(setup.orgId, hook.id, deliveries[0]!.id);
      expect(after).toMatchObject({ state: "pending", attempts: 1, lastResponseStatus: 500 });
      expect(Date.parse(after!.lastAttemptAt!)).toBe(started);
      expect(Date.parse(after!.nextAttemptAt!) - started).toBe(60_000 + DELIVERY_RETRY_DELAYS_MS[1]!);
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it("signs with both secrets for 24 h after a rotation", async () => {
    const clock = manualClock(Date.now());
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/rotate` });
    const hook = await createWebhook(setup.store, setup.orgId, { url: `${setup.receiver.url}/rotate`, monitorIds: [monitor.id] });
    const rotated = { secret: generateWebhookSecret() };
    await setup.store.updateWebhook(setup.orgId, hook.id, {
      secret: rotated.secret,
      previousSecret: hook.secret,
      previousSecretExpiresAt: new Date(clock.ms() + 24 * 3_600_000).toISOString(),
      updatedAt: clock.now().toISOString(),
    });
    const service = deliveryService({ now: clock.now });
    await recordDiff(setup.store, setup.orgId, monitor.id, clock.now());
    await service.runWorker(setup.orgId, { webhookId: hook.id, force: false });
    const during = setup.receiver.received.filter((r) => r.path === "/rotate").at(-1)!;
    expect(during.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(hook.secret).verify(during.body, during.headers)).toMatchObject({ monitorId: monitor.id });
    expect(new Webhook(rotated.secret).verify(during.body, during.headers)).toMatchObject({ monitorId: monitor.id });

    // after the grace period only the new secret signs (verified with the receiver's clock moved too)
    clock.advance(24 * 3_600_000 + 1000);
    await recordDiff(setup.store, setup.orgId, monitor.id, clock.now());
    await service.runWorker(setup.orgId, { webhookId: hook.id, force: false });
    const later = setup.receiver.received.filter((r) => r.path === "/rotate").at(-1)!;
    expect(later).not.toBe(during);
    expect(later.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(verifyWebhook(later.body, later.headers, rotated.secret, { now: clock.ms() }).monitorId).toBe(monitor.id);
    expect(() => verifyWebhook(later.body, later.headers, hook.secret, { now: clock.ms() })).toThrow(/no webhook-signature entry matches/);
  });

  it("runWorker sends a delivery whose retry time has not come only with force, one organization only", async () => {
    const clock = manualClock(Date.now());
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/force` });
    const hook = await createWebhook(setup.store, setup.orgId, { url: `${setup.receiver.url}/force`, monitorIds: [monitor.id] });
    const { deliveries } = await recordDiff(setup.store, setup.orgId, monitor.id, clock.now());
    const service = deliveryService({ now: clock.now });
    setup.receiver.reply({ status: 500 });
    expect(await service.runWorker(setup.orgId, { webhookId: hook.id, force: false })).toMatchObject({ attempted: 1, failed: 1, succeeded: 0 });
    expect(await service.runWorker(setup.orgId, { webhookId: hook.id, force: false })).toMatchObject({ attempted: 0 });
    const other = await setup.store.createOrganization({ slug: `other-${String(clock.ms())}` });
    expect(await service.runWorker(other.id, { force: true })).toEqual({ attempted: 0, succeeded: 0, failed: 0, pending: 0 });
    expect(await service.runWorker(setup.orgId, { webhookId: hook.id, force: true })).toMatchObject({ attempted: 1, succeeded: 1 });
    expect(await setup.store.getDelivery(setup.orgId, hook.id, deliveries[0]!.id)).toMatchObject({ state: "succeeded", attempts: 2 });
  });

  it("refuses a loopback webhook URL when the SSRF guard is on, and times out a silent receiver", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/guard` });
    const hook = await createWebhook(setup.store, setup.orgId, { url: `${setup.receiver.url}/guarded`, monitorIds: [monitor.id] });
    const { deliveries } = await recordDiff(setup.store, setup.orgId, monitor.id, new Date());
    const guarded = deliveryService({ transport: guardedTransport(), urlGuard: { assertSafeUrl: (url) => assertSafeUrl(url) } });
    expect(await guarded.runWorker(setup.orgId, { webhookId: hook.id, force: true })).toMatchObject({ attempted: 1, failed: 1 });
    const refused = await setup.store.getDelivery(setup.orgId, hook.id, deliveries[0]!.id);
    expect(refused?.lastError).toMatch(/^unsafe_url: /);
    expect(refused?.lastResponseStatus).toBeNull();
    // the guarded transport alone (no pre-check) refuses too
    const dispatcherOnly = deliveryService({ transport: guardedTransport() });
    await dispatcherOnly.runWorker(setup.orgId, { webhookId: hook.id, force: true });
    expect((await setup.store.getDelivery(setup.orgId, hook.id, deliveries[0]!.id))?.lastError).toMatch(/^unsafe_url: /);
    expect(setup.receiver.received.filter((r) => r.path === "/guarded")).toEqual([]);

    const silent = await startReceiver();
    await setup.store.updateWebhook(setup.orgId, hook.id, { url: `${silent.url}/silent`, updatedAt: new Date().toISOString() });
    silent.fallback = { status: 200, hang: true };
    const quick = deliveryService({ timeoutMs: 300 });
    expect(await quick.runWorker(setup.orgId, { webhookId: hook.id, force: true })).toMatchObject({ attempted: 1, failed: 1 });
    expect((await setup.store.getDelivery(setup.orgId, hook.id, deliveries[0]!.id))?.lastError).toMatch(/timeout/);
    await silent.close();
  });
});
