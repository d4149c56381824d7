import type { Fetcher, Store } from "@driftwatch/core";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { createPostgresStore } from "@driftwatch/store-postgres";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createCheckService, createDeliveryService, createDeliveryWorker, createScheduler, type EngineDeliveryService } from "../src/index.js";
import { createPostgresDatabase, postgresSkipReason, type TestPostgresDatabase } from "../../../tooling/test-postgres.js";
import { createMonitor, createWebhook, startReceiver, startTarget, type Receiver, type Target } from "./fixtures.js";

const skip = await postgresSkipReason();
if (skip !== null) console.warn(`skipping the PostgreSQL engine suite: ${skip}`);

/**
 * Two engine "processes" (each its own pool, scheduler and delivery worker) on one PostgreSQL
 * database: leases must make every due monitor run once per round and every event go out once.
 */
describe.skipIf(skip !== null)("two engines sharing one PostgreSQL database", () => {
  let database: TestPostgresDatabase | undefined;
  const stores: Store[] = [];
  const deliveries: EngineDeliveryService[] = [];
  let orgId: string;
  let target: Target;
  let receiver: Receiver;
  let fetcher: Fetcher;

  beforeAll(async () => {
    const { url } = (database = await createPostgresDatabase("dw_engine"));
    stores.push(await createPostgresStore({ connectionString: url, max: 4 }));
    stores.push(await createPostgresStore({ connectionString: url, max: 4 }));
    orgId = (await stores[0]!.createOrganization({ slug: "pg-engine" })).id;
    target = await startTarget();
    receiver = await startReceiver();
    fetcher = createHttpFetcher({ allowPrivateNetworks: true });
  });
  afterAll(async () => {
    for (const d of deliveries) await d.close();
    for (const s of stores) await s.close();
    await fetcher?.close();
    await target?.close();
    await receiver?.close();
    await database?.drop();
  });

  async function round(monitorIds: string[], until: (store: Store) => Promise<boolean>): Promise<void> {
    const store = stores[0]!;
    const due = new Date().toISOString();
    for (const id of monitorIds) await store.updateMonitor(orgId, id, { nextCheckAt: due, updatedAt: due });
    const schedulers = stores.map((s, i) =>
      createScheduler({
        store: s,
        checks: createCheckService({ store: s, httpFetcher: fetcher }),
        concurrency: 4,
        perHostConcurrency: 4,
        owner: `engine-${String(i)}`,
        pollIntervalMs: 20,
      }),
    );
    for (const s of schedulers) s.start();
    await vi.waitFor(async () => expect(await until(store)).toBe(true), { timeout: 20_000, interval: 50 });
    await Promise.all(schedulers.map((s) => s.stop()));
  }

  it("checks every due monitor once per round and delivers every event once", async () => {
    const store = stores[0]!;
    const hook = await createWebhook(store, orgId, { url: `${receiver.url}/pg` });
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push((await createMonitor(store, orgId, { url: `${target.url}/m${String(i)}`, intervalSeconds: 3600 })).id);

    target.setJson({ version: 1, items: [{ id: 1, price: 10 }] });
    await round(ids, async (s) => (await Promise.all(ids.map((id) => s.getMonitor(orgId, id)))).every((m) => m?.lastCheckedAt !== null));
    expect(target.hits).toHaveLength(16);

    target.setJson({ version: 2, items: [{ id: 1, price: 12 }] });
    const diffCount = async (s: Store): Promise<number> => {
      let n = 0;
      for (const id of ids) n += (await s.listDiffs(orgId, id, { limit: 10 })).data.length;
      return n;
    };
    await round(ids, async (s) => (await diffCount(s)) === 16);
    expect(target.hits).toHaveLength(32);
    expect(new Set(target.hits).size).toBe(16);
    expect(await store.countPendingDeliveries(orgId)).toBe(16);

    const workers = stores.map((s, i) => {
      const service = createDeliveryService({ store: s, owner: `deliverer-${String(i)}`, concurrency: 4 });
      deliveries.push(service);
      return createDeliveryWorker({ deliveries: service, batchSize: 3, pollIntervalMs: 20 });
    });
    for (const w of workers) w.start();
    await vi.waitFor(async () => expect(await store.countPendingDeliveries(orgId)).toBe(0), { timeout: 20_000, interval: 50 });
    await Promise.all(workers.map((w) => w.stop()));

    const got = receiver.received.filter((r) => r.path === "/pg");
    expect(got).toHaveLength(16);
    const events = got.map((r) => new Webhook(hook.secret).verify(r.body, r.headers) as { eventId: string; monitorId: string });
    expect(new Set(events.map((e) => e.eventId)).size).toBe(16);
    expect(new Set(events.map((e) => e.monitorId))).toEqual(new Set(ids));
    const log = await store.listDeliveries(orgId, hook.id, { limit: 100 });
    expect(log.data.every((d) => d.state === "succeeded" && d.attempts === 1)).toBe(true);
  });
});
