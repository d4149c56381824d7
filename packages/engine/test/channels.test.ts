import type { ChannelRecord, MonitorRecord, Store } from "@driftwatch/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { channelMessagesFor, createChannelDeliveryService, createCheckService, createMetrics, FAILING_THRESHOLD, type ChannelSender, type ChannelSendResult } from "../src/index.js";
import { createMonitor, manualClock, newChannel, openTempStore, useCheckSetup } from "./fixtures.js";

const channel = newChannel;

describe("checks route their changes and health to channels, in the check's own write", () => {
  const clock = manualClock(Date.parse("2026-01-13T12:00:10.000Z"));
  const setup = useCheckSetup(clock.now);

  it("by event, tags, severities, grouping windows and quiet hours; failing after N failures, then recovered", async () => {
    const { store, orgId } = setup;
    const monitor = await createMonitor(store, orgId, { url: `${setup.target.url}/prices`, tags: ["payments"] });
    const all = await store.createChannel(orgId, channel({ name: "all" }));
    const high = await store.createChannel(orgId, channel({ name: "high", tags: ["payments"], minSeverity: "high" }));
    const other = await store.createChannel(orgId, channel({ name: "other", tags: ["search"] }));
    const health = await store.createChannel(orgId, channel({ name: "health", events: ["monitor.failing", "monitor.recovered"] }));
    const grouped = await store.createChannel(orgId, channel({ name: "grouped", groupSeconds: 300 }));
    // quiet all Tuesday (13 January 2026) in UTC for changes below critical
    const quiet = await store.createChannel(orgId, channel({ name: "quiet", quietHours: { timeZone: "UTC", windows: [{ days: ["tue"], start: "00:00", end: "24:00" }], minSeverity: "critical" } }));
    const checks = createCheckService({ store, httpFetcher: setup.fetcher, now: clock.now, random: () => 0.5, metrics: createMetrics() });

    setup.target.setJson({ price: 10 });
    const first = await checks.runCheck(monitor, { requestId: "req_1" });
    expect(first.result).toBe("new_snapshot");
    clock.advance(60_000);
    setup.target.setJson({ price: 12 });
    const second = await checks.runCheck(first.monitor, { requestId: "req_2" });
    expect(second.result).toBe("changed");
    const diffId = second.diff!.id;

    const outbox = async (c: ChannelRecord) => (await store.listChannelDeliveries(orgId, c.id, { limit: 10 })).data;
    const [toAll] = await outbox(all);
    expect(toAll).toMatchObject({ eventType: "diff.detected", monitorId: monitor.id, diffId, state: "pending", nextAttemptAt: clock.now().toISOString() });
    const payload = JSON.parse((await store.getChannelDelivery(orgId, all.id, toAll!.id))!.payload);
    expect(payload).toMatchObject({ event: "diff.detected", id: diffId, monitor: { id: monitor.id, tags: ["payments"] }, diff: { id: diffId, topSeverity: second.diff!.topSeverity, totalChanges: 1 } });
    expect(await outbox(high)).toEqual([]); // below its minimum severity
    expect(await outbox(other)).toEqual([]); // no tag in common
    expect(await outbox(health)).toEqual([]); // not subscribed to changes
    expect((await outbox(grouped))[0]?.nextAttemptAt).toBe("2026-01-13T12:05:00.000Z"); // the end of its 5-minute window
    expect((await outbox(quiet))[0]?.nextAttemptAt).toBe("2026-01-14T00:00:00.000Z"); // held to the end of the day

    // the target fails: the FAILING_THRESHOLD-th failure makes the monitor failing and tells the health channel once
    setup.target.setStatus(500);
    let current = second.monitor;
    for (let i = 0; i < FAILING_THRESHOLD + 1; i++) {
      clock.advance(60_000);
      current = (await checks.runCheck(current, { requestId: `req_f${i}` })).monitor;
    }
    expect(current.state).toBe("failing");
    const failing = await outbox(health);
    expect(failing.map((m) => m.eventType)).toEqual(["monitor.failing"]);
    expect(JSON.parse((await store.getChannelDelivery(orgId, health.id, failing[0]!.id))!.payload)).toMatchObject({ event: "monitor.failing", consecutiveFailures: FAILING_THRESHOLD });

    setup.target.setStatus(200);
    clock.advance(60_000);
    const back = await checks.runCheck(current, { requestId: "req_ok" });
    expect(back.monitor.state).toBe("active");
    expect((await outbox(health)).map((m) => m.eventType)).toEqual(["monitor.recovered", "monitor.failing"]);
    // the change channels heard nothing of the health events
    expect(await outbox(all)).toHaveLength(1);
  });
});

describe("channel delivery from the outbox", () => {
  let store: Store;
  let orgId: string;
  let cleanup: () => Promise<void>;
  const clock = manualClock(Date.parse("2026-01-13T12:00:00.000Z"));

  beforeEach(async () => {
    ({ store, orgId, cleanup } = await openTempStore(clock.now));
  });
  afterEach(async () => {
    await cleanup();
  });

  /** A sender that records what it sent and answers what the test queued per channel. */
  function recordingSender(answers: Record<string, ChannelSendResult[]> = {}) {
    const sent: Array<{ channelId: string; payloads: unknown[] }> = [];
    const sender: ChannelSender = {
      async send(target, payloads) {
        sent.push({ channelId: target.id, payloads: [...payloads] });
        return answers[target.id]?.shift() ?? { outcome: "delivered", status: 200 };
      },
    };
    return { sender, sent };
  }

  async function enqueue(channelId: string, keys: string[], dueAt = clock.now().toISOString()) {
    return store.enqueueChannelDeliveries(
      orgId,
      keys.map((key) => ({ channelId, dedupKey: key, eventType: "diff.detected" as const, monitorId: null, diffId: null, payload: JSON.stringify({ key }), createdAt: dueAt, nextAttemptAt: dueAt })),
    );
  }

  it("sends a channel's due messages as one, retries after the service's Retry-After (never sooner than the schedule), and a gone answer marks the channel failing", async () => {
    const grouped = await store.createChannel(orgId, channel({ name: "grouped", groupSeconds: 60 }));
    const gone = await store.createChannel(orgId, channel({ name: "gone" }));
    await enqueue(grouped.id, ["diff:a", "diff:b", "diff:c"]);
    await enqueue(gone.id, ["diff:a"]);
    const { sender, sent } = recordingSender({
      [grouped.id]: [{ outcome: "retry", status: 429, afterSeconds: 120, reason: "HTTP 429: rate limited" }],
      [gone.id]: [{ outcome: "gone", status: 404, reason: "HTTP 404: no_service" }],
    });
    const service = createChannelDeliveryService({ store, sender, now: clock.now, random: () => 0.5, owner: "w1" });

    const first = await service.deliverDue({ limit: 100 });
    expect(first).toEqual({ claimed: 4, attempted: 4, succeeded: 0, failed: 4 });
    expect(sent.map((s) => [s.channelId, s.payloads])).toEqual(
      expect.arrayContaining([
        [grouped.id, [{ key: "diff:a" }, { key: "diff:b" }, { key: "diff:c" }]],
        [gone.id, [{ key: "diff:a" }]],
      ]),
    );
    const retried = (await store.listChannelDeliveries(orgId, grouped.id, { limit: 10 })).data;
    for (const m of retried) expect(m).toMatchObject({ state: "pending", attempts: 1, lastResponseStatus: 429, lastError: "HTTP 429: rate limited", nextAttemptAt: "2026-01-13T12:02:00.000Z" });
    expect(await store.getChannel(orgId, gone.id)).toMatchObject({ status: "failing", statusReason: "HTTP 404: no_service" });
    // the gone channel's message stays pending, but is not sent again while the channel is failing
    expect((await store.listChannelDeliveries(orgId, gone.id, { limit: 10 })).data[0]).toMatchObject({ state: "pending", attempts: 1 });

    clock.advance(119_000);
    expect((await service.deliverDue({ limit: 100 })).claimed).toBe(0);
    clock.advance(1_000);
    expect(await service.deliverDue({ limit: 100 })).toEqual({ claimed: 3, attempted: 3, succeeded: 3, failed: 0 });
    expect(sent).toHaveLength(3);

    // fixed by the user: its held message goes out once
    await store.updateChannel(orgId, gone.id, { status: "ok", statusReason: null, updatedAt: clock.now().toISOString() });
    expect(await service.deliverDue({ limit: 100 })).toEqual({ claimed: 1, attempted: 1, succeeded: 1, failed: 0 });
    expect(await store.countPendingChannelDeliveries(orgId)).toBe(0);
    expect(await service.deliverDue({ limit: 100, force: true })).toEqual({ claimed: 0, attempted: 0, succeeded: 0, failed: 0 });
  });

  it("quiet hours hold a channel's changes to the end of the window, then send them as one summary; a repeat of a change adds nothing", async () => {
    // 23:00 to 07:00 UTC, everything below critical held
    const quiet = await store.createChannel(orgId, channel({ name: "quiet", quietHours: { timeZone: "UTC", windows: [{ start: "23:00", end: "07:00" }], minSeverity: "critical" } }));
    clock.set(Date.parse("2026-01-13T23:30:00.000Z"));
    const monitorOf = (id: string, name: string) => ({ id, orgId, name, url: "https://api.example.com/", tags: [] }) as unknown as MonitorRecord;
    const notice = (monitorId: string, name: string, diffId: string) =>
      channelMessagesFor(
        store,
        {
          kind: "diff",
          monitor: monitorOf(monitorId, name),
          diff: { id: diffId, classification: "value_change", schemaChanges: 0, valueChanges: 1, topSeverity: "medium", changes: [{ path: "$.price", category: "value", op: "replace", severity: "medium", before: 1, after: 2 }] } as never,
          snapshotId: "snp_1",
          policyMinSeverity: undefined,
        },
        clock.now(),
      );
    const messages = [...(await notice("mon_a", "Orders", "dif_1")), ...(await notice("mon_b", "Prices", "dif_2")), ...(await notice("mon_a", "Orders", "dif_3"))];
    expect(messages.map((m) => m.nextAttemptAt)).toEqual(["2026-01-14T07:00:00.000Z", "2026-01-14T07:00:00.000Z", "2026-01-14T07:00:00.000Z"]);
    await store.enqueueChannelDeliveries(orgId, messages);
    // the same change again (a retried check): nothing more
    expect(await store.enqueueChannelDeliveries(orgId, await notice("mon_a", "Orders", "dif_1"))).toEqual([]);

    const { sender, sent } = recordingSender();
    const service = createChannelDeliveryService({ store, sender, now: clock.now, owner: "w3" });
    expect((await service.deliverDue({ limit: 100 })).claimed).toBe(0);
    clock.set(Date.parse("2026-01-14T07:00:00.000Z"));
    expect(await service.deliverDue({ limit: 100 })).toEqual({ claimed: 3, attempted: 3, succeeded: 3, failed: 0 });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.channelId).toBe(quiet.id);
    expect(sent[0]!.payloads.map((p) => (p as { diff: { id: string } }).diff.id)).toEqual(["dif_1", "dif_2", "dif_3"]);
  });

  it("a slow service delays no one else: its channel holds at most its cap, its organization at most its share while another's messages could start", async () => {
    const other = await store.createOrganization({ slug: "other-org" });
    const slow = await store.createChannel(orgId, channel({ name: "slow" }));
    const fast = await store.createChannel(orgId, channel({ name: "fast" }));
    const elsewhere = [await store.createChannel(other.id, channel({ name: "elsewhere-1" })), await store.createChannel(other.id, channel({ name: "elsewhere-2" }))];
    await enqueue(slow.id, Array.from({ length: 8 }, (_, i) => `diff:slow:${String(i)}`));
    await enqueue(fast.id, Array.from({ length: 6 }, (_, i) => `diff:fast:${String(i)}`));
    const due = clock.now().toISOString();
    for (const target of elsewhere) {
      await store.enqueueChannelDeliveries(
        other.id,
        ["0", "1", "2", "3"].map((key) => ({ channelId: target.id, dedupKey: `diff:${key}`, eventType: "diff.detected" as const, monitorId: null, diffId: null, payload: JSON.stringify({ key }), createdAt: due, nextAttemptAt: due })),
      );
    }
    const otherIds = new Set(elsewhere.map((c) => c.id));
    const inFlight = new Map<string, number>();
    const held = (ids: string[]): number => ids.reduce((sum, id) => sum + (inFlight.get(id) ?? 0), 0);
    let slowMost = 0;
    /** The slots the first organization held each time one of its sends started while the other's messages waited. */
    const firstOrgWhileOtherWaits: number[] = [];
    let otherStarted = 0;
    const delivered: string[] = [];
    let release!: () => void;
    const slowAnswers = new Promise<void>((resolve) => (release = resolve));
    const sender: ChannelSender = {
      async send(target) {
        inFlight.set(target.id, (inFlight.get(target.id) ?? 0) + 1);
        if (otherIds.has(target.id)) otherStarted++;
        else if (otherStarted < 8) firstOrgWhileOtherWaits.push(held([slow.id, fast.id]));
        slowMost = Math.max(slowMost, inFlight.get(slow.id) ?? 0);
        if (target.id === slow.id) await slowAnswers;
        else await new Promise((resolve) => setTimeout(resolve, target.id === fast.id ? 2 : 15));
        inFlight.set(target.id, inFlight.get(target.id)! - 1);
        delivered.push(target.id);
        return { outcome: "delivered", status: 200 };
      },
    };
    // 6 slots, an organization's share 3 of them, a channel 2.
    const service = createChannelDeliveryService({ store, sender, now: clock.now, owner: "w1", concurrency: 6, channelConcurrency: 2, orgShare: 0.5 });
    const run = service.deliverDue({ limit: 100 });
    // Everything but the slow service's messages goes out while it does not answer.
    for (const until = Date.now() + 30_000; delivered.length < 14 && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(delivered.filter((id) => id === fast.id)).toHaveLength(6);
    expect(delivered.filter((id) => otherIds.has(id))).toHaveLength(8);
    expect(delivered.filter((id) => id === slow.id)).toHaveLength(0);
    expect(slowMost).toBe(2);
    expect(firstOrgWhileOtherWaits.length).toBeGreaterThan(2);
    expect(Math.max(...firstOrgWhileOtherWaits)).toBe(3);
    release();
    expect(await run).toEqual({ claimed: 22, attempted: 22, succeeded: 22, failed: 0 });
    expect(slowMost).toBe(2);
  });

  it("records the attempts of sends that finish together in one write (group commit), each message once, within the per-channel cap", async () => {
    const targets = await Promise.all([0, 1, 2, 3].map((i) => store.createChannel(orgId, channel({ name: `c${String(i)}` }))));
    for (const target of targets) await enqueue(target.id, Array.from({ length: 15 }, (_, i) => `diff:${target.id}:${String(i)}`));
    const writes: number[] = [];
    let singles = 0;
    let failNext = true;
    const counting = new Proxy(store, {
      get(target, property, receiver) {
        if (property === "recordChannelDeliveryAttempts") {
          return async (owner: string, entries: Parameters<NonNullable<Store["recordChannelDeliveryAttempts"]>>[1]) => {
            writes.push(entries.length);
            // one write of several fails (a busy database, say): each is then recorded on its own
            if (failNext && entries.length > 1) {
              failNext = false;
              throw new Error("database is locked");
            }
            return target.recordChannelDeliveryAttempts!(owner, entries);
          };
        }
        if (property === "recordChannelDeliveryAttempt") {
          return (...args: Parameters<Store["recordChannelDeliveryAttempt"]>) => {
            singles++;
            return target.recordChannelDeliveryAttempt(...args);
          };
        }
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const inFlight = new Map<string, number>();
    let most = 0;
    const sent: string[] = [];
    const sender: ChannelSender = {
      async send(target, payloads) {
        const now = (inFlight.get(target.id) ?? 0) + 1;
        inFlight.set(target.id, now);
        most = Math.max(most, now);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight.set(target.id, (inFlight.get(target.id) ?? 1) - 1);
        sent.push(...payloads.map((p) => (p as { key: string }).key));
        return { outcome: "delivered", status: 200 };
      },
    };
    const service = createChannelDeliveryService({ store: counting, sender, now: clock.now, owner: "w1", concurrency: 16, channelConcurrency: 3 });
    expect(await service.deliverDue({ limit: 100 })).toEqual({ claimed: 60, attempted: 60, succeeded: 60, failed: 0 });
    expect(most).toBeLessThanOrEqual(3);
    expect(new Set(sent).size).toBe(60);
    expect(sent).toHaveLength(60);
    // fewer writes than messages: the attempts were recorded together
    expect(writes.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(60);
    expect(writes.length).toBeLessThan(30);
    expect(Math.max(...writes)).toBeGreaterThan(1);
    // the failed write's messages were recorded one by one, and every message exactly once
    expect(failNext).toBe(false);
    expect(singles).toBeGreaterThan(1);
    for (const target of targets) {
      for (const m of (await store.listChannelDeliveries(orgId, target.id, { limit: 100 })).data) {
        expect(m).toMatchObject({ state: "succeeded", attempts: 1 });
        expect(await store.listChannelDeliveryAttempts(orgId, m.id)).toHaveLength(1);
      }
    }
    expect(await store.countPendingChannelDeliveries(orgId)).toBe(0);
  });

  it("a refused message fails at once; a worker that stopped mid-send is taken over once its lease expires, and nothing is sent twice", async () => {
    const target = await store.createChannel(orgId, channel());
    const [refused] = await enqueue(target.id, ["diff:refused"]);
    const { sender, sent } = recordingSender({ [target.id]: [{ outcome: "failed", status: 400, reason: "HTTP 400: invalid_payload" }] });
    const service = createChannelDeliveryService({ store, sender, now: clock.now, owner: "w2", leaseMs: 60_000 });
    expect(await service.deliverDue({ limit: 10 })).toMatchObject({ attempted: 1, failed: 1 });
    expect(await store.getChannelDelivery(orgId, target.id, refused!.id)).toMatchObject({ state: "failed", lastError: "HTTP 400: invalid_payload" });

    // a worker claims and dies before recording (kill -9): the message keeps its lease...
    await enqueue(target.id, ["diff:crash"]);
    expect(await store.claimDueChannelDeliveries({ now: clock.now().toISOString(), limit: 10, leaseMs: 60_000, owner: "dead" })).toHaveLength(1);
    expect((await service.deliverDue({ limit: 10 })).claimed).toBe(0);
    // ...until it expires: another worker sends it, once
    clock.advance(60_000);
    expect(await service.deliverDue({ limit: 10 })).toEqual({ claimed: 1, attempted: 1, succeeded: 1, failed: 0 });
    expect(await service.deliverDue({ limit: 10, force: true })).toMatchObject({ claimed: 0 });
    expect(sent.filter((s) => JSON.stringify(s.payloads).includes("diff:crash"))).toHaveLength(1);
    // a channel that does not group sends a backlog one message at a time
    await enqueue(target.id, ["diff:x", "diff:y"]);
    expect(await service.deliverDue({ limit: 10 })).toMatchObject({ claimed: 2, succeeded: 2 });
    expect(sent.slice(-2).map((s) => s.payloads)).toEqual(expect.arrayContaining([[{ key: "diff:x" }], [{ key: "diff:y" }]]));
    // a message whose channel was deleted went with it
    await enqueue(target.id, ["diff:late"]);
    await store.deleteChannel(orgId, target.id);
    expect(await service.deliverDue({ limit: 10 })).toMatchObject({ claimed: 0 });
  });
});
