// The work queue on the store's leases (memory store, a clock moved by hand; the heartbeat runs on
// real timers, so the tests wait for it by condition) and the fair queue's turns and org share.
import type { Store } from "@driftwatch/core";
import { createMemoryStore } from "@driftwatch/store-memory";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { createFairQueue, createMetrics, createStoreWorkQueue, MAX_HOST_LAG_LABELS, MAX_ORG_LABELS, type EngineMetrics } from "../src/index.js";
import { createMonitor, manualClock } from "./fixtures.js";

const T0 = Date.parse("2026-08-01T10:00:00.000Z");

describe("store work queue", () => {
  let store: Store;
  let orgId: string;
  let monitorIds: string[];
  let metrics: EngineMetrics;
  const clock = manualClock(T0);

  beforeEach(async () => {
    clock.set(T0);
    store = await createMemoryStore();
    metrics = createMetrics();
    orgId = (await store.createOrganization({ slug: "queue" })).id;
    monitorIds = [];
    for (let i = 0; i < 2; i++) {
      const monitor = await createMonitor(store, orgId, { url: `http://127.0.0.1:9/m${String(i)}`, nextCheckAt: new Date(T0 - 1000 + i).toISOString() });
      monitorIds.push(monitor.id);
    }
  });

  const counter = async (name: string, kind: string): Promise<number> => Number(new RegExp(`${name}\\{kind="${kind}"\\} (\\d+)`).exec(await metrics.render())?.[1]);

  it("renews held claims while they are held, so another worker cannot take them, and stops once they are completed", async () => {
    const renewals = vi.spyOn(store, "renewLeases");
    const queue = createStoreWorkQueue({ store, owner: "a", leaseMs: 1000, renewEveryMs: 10, now: clock.now, metrics });
    expect((await queue.claimMonitors({ now: clock.now().toISOString(), limit: 5 })).map((m) => m.id)).toEqual(monitorIds);
    expect(queue.held).toEqual({ monitor: 2, delivery: 0 });
    // past the first lease's end, renewed from the clock's new time
    clock.advance(900);
    const before = renewals.mock.calls.length;
    await vi.waitFor(() => expect(renewals.mock.calls.length).toBeGreaterThan(before + 1), { timeout: 20_000 });
    clock.advance(600);
    expect(await store.claimDueMonitors({ now: clock.now().toISOString(), limit: 5, leaseMs: 1000, owner: "b" })).toEqual([]);
    expect(monitorIds.every((id) => queue.holds("monitor", id))).toBe(true);
    // completed: released with its next check time and no longer renewed
    expect(await queue.completeMonitor(monitorIds[0]!, new Date(T0 + 60_000).toISOString())).toBe(true);
    expect(await queue.completeMonitor(monitorIds[1]!, new Date(T0 + 60_000).toISOString())).toBe(true);
    expect(queue.held).toEqual({ monitor: 0, delivery: 0 });
    const settled = renewals.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(renewals.mock.calls.length).toBeLessThanOrEqual(settled + 1);
    queue.close();
  });

  it("counts a takeover when a claim finds another owner's expired lease, and a lost lease when the heartbeat finds its claim taken", async () => {
    const stalled = createStoreWorkQueue({ store, owner: "stalled", leaseMs: 1000, renewEveryMs: 10, now: clock.now, metrics });
    await stalled.claimMonitors({ now: clock.now().toISOString(), limit: 1 });
    // the other worker's clock is past the lease the stalled one keeps renewing from its own time
    const other = createStoreWorkQueue({ store, owner: "other", leaseMs: 1000, renewEveryMs: 10, now: () => new Date(T0 + 5000), metrics });
    const taken = await other.claimMonitors({ now: new Date(T0 + 5000).toISOString(), limit: 5 });
    expect(taken.map((m) => [m.id, m.takenOverFrom])).toEqual([
      [monitorIds[0], "stalled"],
      [monitorIds[1], null],
    ]);
    expect(await counter("driftwatch_lease_takeovers_total", "monitor")).toBe(1);
    await vi.waitFor(() => expect(stalled.holds("monitor", monitorIds[0]!)).toBe(false), { timeout: 20_000 });
    expect(await counter("driftwatch_leases_lost_total", "monitor")).toBe(1);
    expect(other.holds("monitor", monitorIds[0]!)).toBe(true);
    stalled.close();
    other.close();
  });

  it("releaseAll hands every claim back at once; a dropped claim is no longer renewed", async () => {
    const queue = createStoreWorkQueue({ store, owner: "a", leaseMs: 60_000, renewEveryMs: 10, now: clock.now, metrics });
    await queue.claimMonitors({ now: clock.now().toISOString(), limit: 5 });
    queue.drop("monitor", monitorIds[0]!);
    expect(queue.holds("monitor", monitorIds[0]!)).toBe(false);
    expect(await queue.releaseAll()).toEqual({ monitors: 2, deliveries: 0 });
    expect(queue.held).toEqual({ monitor: 0, delivery: 0 });
    const free = await store.claimDueMonitors({ now: clock.now().toISOString(), limit: 5, leaseMs: 1000, owner: "b" });
    expect(free.map((m) => [m.id, m.takenOverFrom])).toEqual(monitorIds.map((id) => [id, null]));
    queue.close();
  });
});

describe("fair queue", () => {
  it("keys are capped, organizations take turns, and an organization at its share waits while another's work can start", () => {
    const queue = createFairQueue<string>({ keyConcurrency: 1, orgSlots: 2 });
    for (let i = 0; i < 5; i++) queue.push("busy", `host-${String(i)}`, `busy-${String(i)}`);
    // alone, an organization may use every slot
    expect([queue.next()?.item, queue.next()?.item, queue.next()?.item]).toEqual(["busy-0", "busy-1", "busy-2"]);
    queue.push("quiet", "host-q1", "quiet-1");
    queue.push("quiet", "host-q1", "quiet-2");
    queue.push("quiet", "host-q2", "quiet-3");
    // the newcomer first; its second item waits for its host (capped at one), its third goes next
    // although "busy" was served longer ago: "busy" holds 3 slots, past its share of 2
    expect(queue.next()).toMatchObject({ item: "quiet-1", orgId: "quiet", key: "host-q1" });
    expect(queue.next()?.item).toBe("quiet-3");
    expect(queue.runnable()).toBe(2);
    expect(queue.waitingFor("host-q1")).toBe(1);
    queue.finish("quiet", "host-q1");
    expect(queue.next()?.item).toBe("quiet-2");
    // "quiet" is at its share now too, so turns decide: "busy"
    expect(queue.next()?.item).toBe("busy-3");
    expect(queue.running).toBe(6);
    expect(queue.drain()).toEqual(["busy-4"]);
    expect(queue.waiting).toBe(0);
    expect(queue.next()).toBeNull();
  });
});

describe("scale-out metrics", () => {
  it("counts checks and deliveries per organization with a bounded label set, and names the laggiest hosts", async () => {
    const metrics = createMetrics();
    for (let i = 0; i < MAX_ORG_LABELS + 5; i++) metrics.observeCheck("unchanged", 0.01, `org_${String(i).padStart(3, "0")}`);
    metrics.observeCheck("changed", 0.01, "org_000");
    metrics.observeDelivery("succeeded", 0.01, "org_001");
    for (let i = 0; i < MAX_HOST_LAG_LABELS + 5; i++) metrics.observeCheckStart({ orgId: "org_000", host: `h${String(i)}.example:443`, lagSeconds: i });
    metrics.observeCheckStart({ orgId: "org_000", host: "h0.example:443", lagSeconds: 100 });
    const text = await metrics.render();
    expect(text).toContain('driftwatch_org_work_total{kind="check",org="org_000"} 2');
    expect(text).toContain('driftwatch_org_work_total{kind="delivery",org="org_001"} 1');
    expect(text).toContain('driftwatch_org_work_total{kind="check",org="other"} 5');
    expect(text.match(/driftwatch_org_work_total\{kind="check"/g)).toHaveLength(MAX_ORG_LABELS + 1);
    expect(text).toContain("driftwatch_check_lag_seconds_count 26");
    const hosts = [...text.matchAll(/driftwatch_host_lag_seconds\{host="([^"]+)"\} (\S+)/g)].map((m) => [m[1], Number(m[2])]);
    expect(hosts).toHaveLength(MAX_HOST_LAG_LABELS);
    expect(hosts).toContainEqual(["h0.example:443", 100]);
    expect(hosts.some(([host]) => host === "h1.example:443")).toBe(false);
    // the lag per host covers the time since the previous scrape
    expect(await metrics.render()).not.toMatch(/driftwatch_host_lag_seconds\{/);
  });
});
