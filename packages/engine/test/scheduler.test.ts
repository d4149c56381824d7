import type { Fetcher, MonitorRecord, Store } from "@driftwatch/core";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createCheckService, createMetrics, createScheduler, type Scheduler } from "../src/index.js";
import { createMonitor, manualClock, openTempStore, startGatedTarget, startTarget, type GatedTarget, type Target } from "./fixtures.js";

/** Waits generous enough for a loaded machine (the condition is polled, so a fast one returns at once). */
const SLOW = { timeout: 15_000, interval: 20 };

describe("scheduler (SQLite, loopback targets)", () => {
  let store: Store;
  let orgId: string;
  let cleanup: () => Promise<void>;
  let fetcher: Fetcher;
  const targets: { close(): Promise<void> }[] = [];
  const schedulers: Scheduler[] = [];

  beforeAll(async () => {
    ({ store, orgId, cleanup } = await openTempStore());
    fetcher = createHttpFetcher({ allowPrivateNetworks: true });
  });
  afterAll(async () => {
    for (const scheduler of schedulers) await scheduler.stop({ graceMs: 0 });
    await fetcher.close();
    for (const target of targets) await target.close();
    await cleanup();
  });

  async function gated(): Promise<GatedTarget> {
    const target = await startGatedTarget();
    targets.push(target);
    return target;
  }
  async function plain(): Promise<Target> {
    const target = await startTarget();
    targets.push(target);
    return target;
  }
  function scheduler(options: Partial<Parameters<typeof createScheduler>[0]> & { now?: () => Date }): Scheduler {
    const checks = createCheckService({ store, httpFetcher: fetcher, ...(options.now ? { now: options.now } : {}), random: () => 0.5 });
    const created = createScheduler({ store, checks, owner: `test-${String(schedulers.length)}`, pollIntervalMs: 20, ...options });
    schedulers.push(created);
    return created;
  }
  /** Makes every monitor of this org not due (so tests do not see each other's monitors). */
  async function parkAll(org = orgId): Promise<void> {
    const far = new Date(Date.now() + 365 * 24 * 3_600_000).toISOString();
    for (let cursor: string | null = null; ; ) {
      const page = await store.listMonitors(org, { limit: 100, cursor });
      for (const m of page.data) await store.updateMonitor(org, m.id, { nextCheckAt: far, updatedAt: m.updatedAt });
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
  }

  it("runs due monitors and releases each with its next check time (interval with jitter)", async () => {
    await parkAll();
    const target = await plain();
    target.setJson({ v: 1 });
    const clock = manualClock(Date.now());
    const due = clock.now().toISOString();
    const monitors: MonitorRecord[] = [];
    for (let i = 0; i < 3; i++) monitors.push(await createMonitor(store, orgId, { url: `${target.url}/m${String(i)}`, intervalSeconds: 120, nextCheckAt: due }));
    const metrics = createMetrics();
    const onCheck = vi.fn();
    const s = scheduler({ now: clock.now, metrics, onCheck });
    expect(await s.tick()).toBe(3);
    await s.idle();
    expect(onCheck).toHaveBeenCalledTimes(3);
    for (const m of monitors) {
      const stored = (await store.getMonitor(orgId, m.id))!;
      expect(stored.lastCheckedAt).toBe(clock.now().toISOString());
      expect(Date.parse(stored.nextCheckAt!) - clock.ms()).toBe(120_000);
    }
    // the leases were released: nothing due now, all three due after the interval
    expect(await s.tick()).toBe(0);
    clock.advance(120_000);
    expect(await s.tick()).toBe(3);
    await s.idle();
    expect(target.hits.length).toBe(6);
    expect(await metrics.render()).toMatch(/driftwatch_queue_depth\{queue="monitors"\} 0/);
  });

  it("bounds concurrency overall and per host", async () => {
    await parkAll();
    const a = await gated();
    const b = await gated();
    const due = new Date().toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await createMonitor(store, orgId, { url: `${a.url}/a${String(i)}`, nextCheckAt: due })).id);
    for (let i = 0; i < 2; i++) ids.push((await createMonitor(store, orgId, { url: `${b.url}/b${String(i)}`, nextCheckAt: due })).id);
    const s = scheduler({ concurrency: 3, perHostConcurrency: 2 });
    // the first claim takes host a's monitors (oldest first): 2 run, the other 4 wait in a's queue
    expect(await s.tick()).toBe(6);
    expect(s.inFlight).toBe(2);
    expect(s.waiting).toBe(4);
    // monitors queued behind a saturated host leave claim room, so the next claim reaches host b
    expect(await s.tick()).toBe(2);
    expect(s.waiting).toBe(5);
    expect(s.inFlight).toBe(3);
    await vi.waitFor(() => expect(a.parked + b.parked).toBe(3), SLOW);
    expect(a.parked).toBe(2);
    expect(b.parked).toBe(1);
    // let the checks finish one round at a time until every monitor ran
    s.start();
    await vi.waitFor(
      async () => {
        a.releaseAll();
        b.releaseAll();
        const checked = await Promise.all(ids.map((id) => store.getMonitor(orgId, id)));
        expect(checked.every((m) => m?.lastCheckedAt !== null)).toBe(true);
      },
      { timeout: 20_000, interval: 30 },
    );
    await s.stop();
    expect(a.maxParked).toBe(2);
    expect(b.maxParked).toBeLessThanOrEqual(2);
    expect(a.total).toBe(6);
    expect(b.total).toBe(2);
  });

  it("every monitor on one fast host gets its turn: the per-host cap limits requests in flight, not which monitors run", async () => {
    await parkAll();
    const target = await plain();
    target.setJson({ fast: true });
    const due = new Date().toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) ids.push((await createMonitor(store, orgId, { url: `${target.url}/f${String(i)}`, intervalSeconds: 10, nextCheckAt: due })).id);
    // the default poll interval: a host's throughput must not be bounded by the poll loop
    const s = scheduler({ concurrency: 8, perHostConcurrency: 2, pollIntervalMs: 1000 });
    s.start();
    // within two intervals every one of the 300 monitors has been checked at least once
    await vi.waitFor(async () => {
      const page = await store.listMonitors(orgId, { limit: 500, cursor: null });
      const unchecked = page.data.filter((m) => ids.includes(m.id) && m.lastCheckedAt === null);
      expect(unchecked).toHaveLength(0);
    }, { timeout: 20_000, interval: 200 });
    await s.stop();
    expect(new Set(target.hits).size).toBe(300);
  }, 60_000);

  it("orgs take turns: a hostile org's hung targets do not hold back another org's checks by more than one slot", async () => {
    await parkAll();
    const hostile = await store.createOrganization({ slug: `hostile-${String(Date.now())}` });
    const other = await store.createOrganization({ slug: `other-${String(Date.now())}` });
    const hung = [await gated(), await gated(), await gated(), await gated()];
    const backlogDue = new Date(Date.now() - 60_000).toISOString();
    for (const target of hung) for (let i = 0; i < 6; i++) await createMonitor(store, hostile.id, { url: `${target.url}/h${String(i)}`, nextCheckAt: backlogDue });
    const quiet = await plain();
    quiet.setJson({ quiet: true });
    const starts: string[] = [];
    const service = createCheckService({ store, httpFetcher: fetcher, random: () => 0.5 });
    const checks = {
      runCheck: (monitor: MonitorRecord, ctx: Parameters<typeof service.runCheck>[1]) => {
        starts.push(monitor.orgId);
        return service.runCheck(monitor, ctx);
      },
    };
    const s = createScheduler({ store, checks, owner: "fair", pollIntervalMs: 20, concurrency: 3, perHostConcurrency: 1, overdueAfterMs: 3_600_000 });
    schedulers.push(s);
    // 1. the other org's monitor, due later than the whole hostile backlog, is claimed and run at once
    const first = await createMonitor(store, other.id, { url: `${quiet.url}/q1`, nextCheckAt: new Date().toISOString() });
    s.start();
    await vi.waitFor(async () => expect((await store.getMonitor(other.id, first.id))?.lastCheckedAt).not.toBeNull(), SLOW);
    // ... while every hostile check still hangs
    expect(hung.reduce((n, t) => n + t.total, 0)).toBeLessThanOrEqual(3);
    // 2. with every slot held by hung hostile checks, the other org's next monitor takes the first slot that frees
    await vi.waitFor(() => expect(hung.reduce((n, t) => n + t.parked, 0)).toBe(3), SLOW);
    // the whole hostile backlog is claimed: 3 hung checks in flight, 21 queued behind their hosts
    await vi.waitFor(() => expect(s.waiting).toBe(21), SLOW);
    const second = await createMonitor(store, other.id, { url: `${quiet.url}/q2`, nextCheckAt: new Date().toISOString() });
    await vi.waitFor(() => expect(s.waiting).toBe(22), SLOW);
    const before = starts.length;
    hung.find((t) => t.parked > 0)!.releaseAll();
    await vi.waitFor(async () => expect((await store.getMonitor(other.id, second.id))?.lastCheckedAt).not.toBeNull(), SLOW);
    expect(starts[before]).toBe(other.id);
    await s.stop({ graceMs: 0 });
    for (const target of hung) target.releaseAll(true);
    await parkAll(hostile.id);
    await parkAll(other.id);
  }, 60_000);

  it("with several schedulers sharing the store, one org's hung backlog delays another org's check by at most one slot in the scheduler that claimed it", async () => {
    await parkAll();
    const hostile = await store.createOrganization({ slug: `hostile-many-${String(Date.now())}` });
    const other = await store.createOrganization({ slug: `other-many-${String(Date.now())}` });
    const hung = [await gated(), await gated(), await gated(), await gated()];
    const backlogDue = new Date(Date.now() - 60_000).toISOString();
    for (const target of hung) for (let i = 0; i < 6; i++) await createMonitor(store, hostile.id, { url: `${target.url}/h${String(i)}`, nextCheckAt: backlogDue });
    const quiet = await plain();
    quiet.setJson({ quiet: true });
    const service = createCheckService({ store, httpFetcher: fetcher, random: () => 0.5 });
    const starts: string[][] = [[], []];
    const pair = starts.map((log, i) => {
      const checks = {
        runCheck: (monitor: MonitorRecord, ctx: Parameters<typeof service.runCheck>[1]) => {
          log.push(monitor.orgId);
          return service.runCheck(monitor, ctx);
        },
      };
      const s = createScheduler({ store, checks, owner: `fair-${String(i)}`, pollIntervalMs: 20, concurrency: 3, perHostConcurrency: 1, overdueAfterMs: 3_600_000 });
      schedulers.push(s);
      return s;
    });
    for (const s of pair) s.start();
    // every slot of both schedulers hangs on the hostile org's targets, the rest of its backlog is claimed and queued
    await vi.waitFor(() => expect(hung.reduce((n, t) => n + t.parked, 0)).toBe(6), SLOW);
    await vi.waitFor(() => expect(pair[0]!.waiting + pair[1]!.waiting).toBe(24 - 6), SLOW);
    const waitingBefore = pair.map((s) => s.waiting);
    const monitor = await createMonitor(store, other.id, { url: `${quiet.url}/q`, nextCheckAt: new Date().toISOString() });
    // one of them claims it and queues it behind the hung checks
    await vi.waitFor(() => expect(pair.findIndex((s, i) => s.waiting > waitingBefore[i]!)).toBeGreaterThanOrEqual(0), SLOW);
    const holder = pair.findIndex((s, i) => s.waiting > waitingBefore[i]!);
    const before = starts[holder]!.length;
    // one hung target answers: each scheduler gets at most one slot back, and the holder's goes to the other org
    hung.find((t) => t.parked > 0)!.releaseAll();
    await vi.waitFor(async () => expect((await store.getMonitor(other.id, monitor.id))?.lastCheckedAt).not.toBeNull(), SLOW);
    expect(starts[holder]![before]).toBe(other.id);
    for (const s of pair) await s.stop({ graceMs: 0 });
    for (const target of hung) target.releaseAll(true);
    await parkAll(hostile.id);
    await parkAll(other.id);
  }, 60_000);

  it("spreads monitors that are overdue at start instead of firing them at once", async () => {
    await parkAll();
    const target = await plain();
    target.setJson({ v: 1 });
    const clock = manualClock(Date.now());
    const overdue = new Date(clock.ms() - 3_600_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await createMonitor(store, orgId, { url: `${target.url}/o${String(i)}`, intervalSeconds: 600, nextCheckAt: overdue })).id);
    let seed = 1;
    const random = (): number => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    const s = scheduler({ now: clock.now, random, spreadWindowMs: 60_000 });
    s.start(); // the clock does not move: spread monitors never become due
    await vi.waitFor(async () => {
      const all = await Promise.all(ids.map((id) => store.getMonitor(orgId, id)));
      expect(all.every((m) => Date.parse(m!.nextCheckAt!) > clock.ms())).toBe(true);
    }, SLOW);
    await s.stop();
    expect(target.hits).toEqual([]);
    const times = (await Promise.all(ids.map((id) => store.getMonitor(orgId, id)))).map((m) => Date.parse(m!.nextCheckAt!) - clock.ms());
    expect(Math.min(...times)).toBeGreaterThan(0);
    expect(Math.max(...times)).toBeLessThanOrEqual(60_001);
    expect(new Set(times).size).toBeGreaterThan(30);
    // a third of the window later, roughly a third of them are due
    clock.advance(20_000);
    const dueNow = times.filter((t) => t <= 20_000).length;
    expect(dueNow).toBeGreaterThan(3);
    expect(dueNow).toBeLessThan(30);
    const runner = scheduler({ now: clock.now, concurrency: 40 });
    expect(await runner.tick()).toBe(dueNow);
    await runner.idle();
  });

  it("stop lets in-flight checks finish and gives waiting monitors back, still due", async () => {
    await parkAll();
    const target = await gated();
    const due = new Date().toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await createMonitor(store, orgId, { url: `${target.url}/s${String(i)}`, nextCheckAt: due })).id);
    const s = scheduler({ concurrency: 2, perHostConcurrency: 2 });
    await s.tick();
    await vi.waitFor(() => expect(target.parked).toBe(2), SLOW);
    expect(s.waiting).toBe(2);
    let stopped = false;
    const stopping = s.stop().then(() => {
      stopped = true;
    });
    await vi.waitFor(() => expect(s.waiting).toBe(0), SLOW);
    expect(stopped).toBe(false);
    target.releaseAll(true);
    await stopping;
    const after = await Promise.all(ids.map((id) => store.getMonitor(orgId, id)));
    expect(after.filter((m) => m?.lastCheckedAt !== null)).toHaveLength(2);
    // the two that never ran are still due and claimable by another process at once
    const other = await store.claimDueMonitors({ now: new Date().toISOString(), limit: 10, leaseMs: 60_000, owner: "other" });
    expect(other.map((m) => m.id).sort()).toEqual(after.filter((m) => m?.lastCheckedAt === null).map((m) => m!.id).sort());
    for (const m of other) await store.releaseMonitor(m.id, "other", m.nextCheckAt);
  });

  it("stop with a grace period cancels a hung check without recording a failure", async () => {
    await parkAll();
    const target = await gated();
    const due = new Date().toISOString();
    const monitor = await createMonitor(store, orgId, { url: `${target.url}/hung`, nextCheckAt: due });
    const s = scheduler({});
    await s.tick();
    await vi.waitFor(() => expect(target.parked).toBe(1), SLOW);
    await s.stop({ graceMs: 50 });
    const stored = await store.getMonitor(orgId, monitor.id);
    expect(stored).toMatchObject({ consecutiveFailures: 0, lastCheckedAt: null, lastError: null, nextCheckAt: due });
    const other = await store.claimDueMonitors({ now: new Date().toISOString(), limit: 10, leaseMs: 60_000, owner: "other" });
    expect(other.map((m) => m.id)).toEqual([monitor.id]);
    await store.releaseMonitor(monitor.id, "other", "2099-01-01T00:00:00.000Z");
    target.releaseAll(true);
  });

  it("two schedulers on one store never check the same monitor twice in a round", async () => {
    await parkAll();
    const target = await plain();
    target.setJson({ v: 2 });
    const due = new Date().toISOString();
    for (let i = 0; i < 10; i++) await createMonitor(store, orgId, { url: `${target.url}/d${String(i)}`, intervalSeconds: 3600, nextCheckAt: due });
    const one = scheduler({ concurrency: 4, perHostConcurrency: 4 });
    const two = scheduler({ concurrency: 4, perHostConcurrency: 4 });
    one.start();
    two.start();
    await vi.waitFor(() => expect(target.hits.length).toBe(10), SLOW);
    await Promise.all([one.stop(), two.stop()]);
    expect(new Set(target.hits).size).toBe(10);
  });

  it("a monitor deleted while its check runs is dropped quietly", async () => {
    await parkAll();
    const target = await gated();
    const monitor = await createMonitor(store, orgId, { url: `${target.url}/deleted`, nextCheckAt: new Date().toISOString() });
    const onError = vi.fn();
    const onCheck = vi.fn();
    const s = scheduler({ onError, onCheck });
    await s.tick();
    await vi.waitFor(() => expect(target.parked).toBe(1), SLOW);
    expect(await store.deleteMonitor(orgId, monitor.id)).toBe(true);
    target.releaseAll(true);
    await s.idle();
    expect(onCheck).not.toHaveBeenCalled();
    expect(onError).not.toHaveBeenCalled();
    expect(await store.getMonitor(orgId, monitor.id)).toBeNull();
  });
});
