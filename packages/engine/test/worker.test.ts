import type { Store } from "@driftwatch/core";
import { register as globalRegistry } from "prom-client";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createDeliveryService, createDeliveryWorker, createMetrics, type EngineDeliveryService } from "../src/index.js";
import { createMonitor, createWebhook, openTempStore, recordDiff, startReceiver, type Receiver } from "./fixtures.js";

/** Waits generous enough for a loaded machine (the condition is polled, so a fast one returns at once). */
const SLOW = { timeout: 15_000, interval: 20 };

describe("background delivery worker and metrics", () => {
  let store: Store;
  let orgId: string;
  let cleanup: () => Promise<void>;
  let receiver: Receiver;
  const services: EngineDeliveryService[] = [];

  beforeAll(async () => {
    ({ store, orgId, cleanup } = await openTempStore());
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const s of services) await s.close();
    await receiver.close();
    await cleanup();
  });

  function service(leaseMs = 60_000): EngineDeliveryService {
    const created = createDeliveryService({ store, leaseMs });
    services.push(created);
    return created;
  }

  it("delivers what the outbox holds in the background, in batches, until stopped", async () => {
    const monitor = await createMonitor(store, orgId, { url: "http://127.0.0.1:9/worker" });
    const hook = await createWebhook(store, orgId, { url: `${receiver.url}/bg`, monitorIds: [monitor.id] });
    const events: string[] = [];
    for (let i = 0; i < 25; i++) events.push((await recordDiff(store, orgId, monitor.id, new Date(Date.now() - 1000 + i))).eventId);
    const worker = createDeliveryWorker({ deliveries: service(), batchSize: 10, pollIntervalMs: 50 });
    worker.start();
    expect(worker.running).toBe(true);
    await vi.waitFor(() => expect(receiver.received.filter((r) => r.path === "/bg")).toHaveLength(25), { timeout: 10_000 });
    // one more event after the outbox ran dry: wake() sends it without waiting for a poll
    events.push((await recordDiff(store, orgId, monitor.id, new Date())).eventId);
    worker.wake();
    await vi.waitFor(() => expect(receiver.received.filter((r) => r.path === "/bg")).toHaveLength(26), { timeout: 10_000 });
    await worker.stop();
    expect(worker.running).toBe(false);
    const got = receiver.received.filter((r) => r.path === "/bg");
    expect(got.map((r) => r.headers["webhook-id"]).sort()).toEqual([...events].sort());
    for (const r of got) expect(new Webhook(hook.secret).verify(r.body, r.headers)).toBeTruthy();
    expect(await store.countPendingDeliveries(orgId)).toBe(0);
  });

  it("stop with a grace period abandons a hung attempt: the delivery stays pending, unrecorded", async () => {
    const monitor = await createMonitor(store, orgId, { url: "http://127.0.0.1:9/hung" });
    const hook = await createWebhook(store, orgId, { url: `${receiver.url}/hung`, monitorIds: [monitor.id] });
    const { deliveries } = await recordDiff(store, orgId, monitor.id, new Date());
    receiver.reply({ status: 200, hang: true });
    const worker = createDeliveryWorker({ deliveries: service(200), pollIntervalMs: 50 });
    worker.start();
    await vi.waitFor(() => expect(receiver.received.filter((r) => r.path === "/hung")).toHaveLength(1), SLOW);
    await worker.stop({ graceMs: 20 });
    const stuck = await store.getDelivery(orgId, hook.id, deliveries[0]!.id);
    expect(stuck).toMatchObject({ state: "pending", attempts: 0 });
    // after its lease expires another worker delivers it
    const next = service();
    await vi.waitFor(async () => expect(await next.runWorker(orgId, { webhookId: hook.id, force: false })).toMatchObject({ succeeded: 1 }), { timeout: 5000 });
    expect(await store.getDelivery(orgId, hook.id, deliveries[0]!.id)).toMatchObject({ state: "succeeded", attempts: 1 });
  });

  it("claims only as many deliveries as it can start, so none waits behind a slow receiver while its lease runs", async () => {
    const monitor = await createMonitor(store, orgId, { url: "http://127.0.0.1:9/slow" });
    const hook = await createWebhook(store, orgId, { url: `${receiver.url}/slow`, monitorIds: [monitor.id] });
    for (let i = 0; i < 5; i++) await recordDiff(store, orgId, monitor.id, new Date(Date.now() - 1000 + i));
    receiver.reply({ status: 200, hang: true }, { status: 200, hang: true });
    const slow = createDeliveryService({ store, concurrency: 2, timeoutMs: 1000 });
    services.push(slow);
    const running = slow.deliverDue({ webhookId: hook.id, limit: 10 });
    await vi.waitFor(() => expect(receiver.received.filter((r) => r.path === "/slow")).toHaveLength(2), SLOW);
    // two attempts hang; the other three were never claimed, so another worker takes them now
    const other = await store.claimDueDeliveries({ now: new Date().toISOString(), limit: 10, leaseMs: 60_000, owner: "other", webhookId: hook.id });
    expect(other).toHaveLength(3);
    for (const d of other) {
      await store.recordDeliveryAttempt(d.id, "other", { at: new Date().toISOString(), state: "succeeded", nextAttemptAt: null, responseStatus: 204, error: null, durationMs: 1 });
    }
    expect(await running).toMatchObject({ claimed: 2, attempted: 2, failed: 2 });
  });

  it("orgs take turns and an endpoint's attempts are capped: a hostile org's hung receiver does not hold back another org's deliveries", async () => {
    const hostile = await store.createOrganization({ slug: `hostile-${String(Date.now())}` });
    const other = await store.createOrganization({ slug: `other-${String(Date.now())}` });
    const hung = await startReceiver();
    hung.fallback = { status: 200, hang: true };
    const quick = await startReceiver();
    try {
      const hostileMonitor = await createMonitor(store, hostile.id, { url: "http://127.0.0.1:9/hostile" });
      const hostileHook = await createWebhook(store, hostile.id, { url: `${hung.url}/hang`, monitorIds: [hostileMonitor.id] });
      // a second hostile webhook on the same receiver URL shares that endpoint's cap
      await createWebhook(store, hostile.id, { url: `${hung.url}/hang`, monitorIds: [hostileMonitor.id] });
      for (let i = 0; i < 20; i++) await recordDiff(store, hostile.id, hostileMonitor.id, new Date(Date.now() - 60_000 + i));
      const otherMonitor = await createMonitor(store, other.id, { url: "http://127.0.0.1:9/other" });
      await createWebhook(store, other.id, { url: `${quick.url}/ok`, monitorIds: [otherMonitor.id] });
      await recordDiff(store, other.id, otherMonitor.id, new Date());
      const deliveries = createDeliveryService({ store, concurrency: 4, endpointConcurrency: 2, timeoutMs: 120_000, leaseMs: 300_000 });
      services.push(deliveries);
      const worker = createDeliveryWorker({ deliveries, pollIntervalMs: 50 });
      worker.start();
      // 1. the other org's delivery, newer than the whole hostile backlog, goes out at once
      await vi.waitFor(() => expect(quick.received).toHaveLength(1), SLOW);
      // 2. one that becomes due while the hostile attempts hang is delivered too, without a wake()
      await vi.waitFor(() => expect(hung.received).toHaveLength(2), SLOW);
      await recordDiff(store, other.id, otherMonitor.id, new Date());
      await vi.waitFor(() => expect(quick.received).toHaveLength(2), SLOW);
      // ... while the hostile receiver still holds its two attempts (the endpoint cap) and none of them ended
      expect(hung.received).toHaveLength(2);
      const hostileLog = await store.listDeliveries(hostile.id, hostileHook.id, { limit: 100, cursor: null });
      expect(hostileLog.data.every((d) => d.attempts === 0)).toBe(true);
      await worker.stop({ graceMs: 0 });
    } finally {
      await hung.close();
      await quick.close();
    }
  });

  it("keeps its metrics on its own registry and records HTTP requests", async () => {
    const before = await globalRegistry.metrics();
    const one = createMetrics();
    const two = createMetrics();
    one.observeRequest("/api/monitors/:id", "GET", 200, 0.004);
    one.observeCheck("failed", 0.2);
    one.observeDelivery("retry", 0.1);
    one.setDueMonitors(7);
    one.setPendingDeliveries(3);
    const text = await one.render();
    expect(one.contentType).toMatch(/^text\/plain/);
    expect(text).toMatch(/driftwatch_http_request_duration_seconds_count\{route="\/api\/monitors\/:id",method="GET",status="200"\} 1/);
    expect(text).toMatch(/driftwatch_checks_total\{result="failed"\} 1/);
    expect(text).toMatch(/driftwatch_check_duration_seconds_bucket\{le="0.25",result="failed"\} 1/);
    expect(text).toMatch(/driftwatch_deliveries_total\{outcome="retry"\} 1/);
    expect(text).toMatch(/driftwatch_queue_depth\{queue="monitors"\} 7/);
    expect(text).toMatch(/driftwatch_queue_depth\{queue="deliveries"\} 3/);
    expect(await two.render()).toMatch(/driftwatch_checks_total\{result="failed"\} 0/);
    expect(await globalRegistry.metrics()).toBe(before);
  });
});
