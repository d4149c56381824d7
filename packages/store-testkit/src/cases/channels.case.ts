import { describe, expect, it } from "vitest";
import type { NewChannel, NewChannelDelivery, Store } from "@driftwatch/core";
import { changedCheck, seedOrganization, unchangedCheck } from "../fixtures.js";
import type { ContractContext } from "../harness.js";
import { rejectionCode } from "../harness.js";

const T0 = "2026-06-01T08:00:00.000Z";
const at = (ms: number): string => new Date(Date.parse(T0) + ms).toISOString();

function channelInput(overrides: Partial<NewChannel> = {}): NewChannel {
  return {
    name: "Ops Slack",
    service: "slack",
    urlSealed: "v1.k1.c2VhbGVk.c2VhbGVk",
    urlMasked: "slack://***/***/***",
    minSeverity: "info",
    tags: ["payments"],
    events: ["diff.detected"],
    groupSeconds: 0,
    quietHours: null,
    template: null,
    paused: false,
    ...overrides,
  };
}

function message(channelId: string, dedupKey: string, overrides: Partial<NewChannelDelivery> = {}): NewChannelDelivery {
  return {
    channelId,
    dedupKey,
    eventType: "diff.detected",
    monitorId: null,
    diffId: null,
    payload: JSON.stringify({ event: "diff.detected", key: dedupKey }),
    createdAt: T0,
    nextAttemptAt: T0,
    ...overrides,
  };
}

async function withChannel(store: Store, slug = "acme", overrides: Partial<NewChannel> = {}) {
  const seeded = await seedOrganization(store, slug);
  const channel = await store.createChannel(seeded.orgId, channelInput(overrides));
  return { ...seeded, channel };
}

export function channelCases(ctx: ContractContext): void {
  describe("notification channels", () => {
    it("creates, reads, lists, patches and deletes channels, scoped to their organization", async () => {
      const store = await ctx.store();
      const { orgId, channel } = await withChannel(store);
      expect(channel).toMatchObject({
        orgId,
        name: "Ops Slack",
        service: "slack",
        urlSealed: "v1.k1.c2VhbGVk.c2VhbGVk",
        urlMasked: "slack://***/***/***",
        minSeverity: "info",
        tags: ["payments"],
        events: ["diff.detected"],
        groupSeconds: 0,
        quietHours: null,
        template: null,
        paused: false,
        status: "ok",
        statusReason: null,
      });
      expect(channel.id).toMatch(/^ch_/);
      expect(channel.createdAt).toBe(channel.updatedAt);
      expect(await store.getChannel(orgId, channel.id)).toEqual(channel);

      const quietHours = { timeZone: "Europe/Berlin", windows: [{ start: "22:00", end: "07:00", days: ["mon" as const, "tue" as const] }], minSeverity: "high" as const };
      const second = await store.createChannel(orgId, channelInput({ name: "Pager", service: "pagerduty", tags: [], events: ["monitor.failing", "monitor.recovered"], quietHours, template: "{{title}}", groupSeconds: 300 }));
      expect(second).toMatchObject({ quietHours, template: "{{title}}", groupSeconds: 300, tags: [], events: ["monitor.failing", "monitor.recovered"] });

      const page = await store.listChannels(orgId, { limit: 1 });
      expect(page.data.map((c) => c.id)).toEqual([second.id]);
      expect((await store.listChannels(orgId, { limit: 1, cursor: page.nextCursor })).data.map((c) => c.id)).toEqual([channel.id]);

      const patched = await store.updateChannel(orgId, second.id, { paused: true, quietHours: null, template: null, status: "failing", statusReason: "HTTP 404: Unknown Webhook", updatedAt: at(1_000) });
      expect(patched).toMatchObject({ paused: true, quietHours: null, template: null, status: "failing", statusReason: "HTTP 404: Unknown Webhook", updatedAt: at(1_000), name: "Pager" });
      expect(await store.updateChannel(orgId, second.id, { status: "ok", statusReason: null, updatedAt: at(2_000) })).toMatchObject({ status: "ok", statusReason: null, paused: true });

      // another organization sees none of them
      const other = await seedOrganization(store, "other");
      expect(await store.getChannel(other.orgId, channel.id)).toBeNull();
      expect(await store.updateChannel(other.orgId, channel.id, { name: "stolen", updatedAt: at(3_000) })).toBeNull();
      expect(await store.deleteChannel(other.orgId, channel.id)).toBe(false);
      expect((await store.listChannels(other.orgId, { limit: 10 })).data).toEqual([]);

      expect(await store.deleteChannel(orgId, channel.id)).toBe(true);
      expect(await store.getChannel(orgId, channel.id)).toBeNull();
      expect(await store.deleteChannel(orgId, channel.id)).toBe(false);
    });

    it("applies a patch with ifUrlSealed only while the stored sealed URL is that one (a re-seal never undoes a new URL)", async () => {
      const store = await ctx.store();
      const { orgId, channel } = await withChannel(store);
      const resealed = await store.updateChannel(orgId, channel.id, { urlSealed: "v1.k2.bmV3.bmV3", ifUrlSealed: channel.urlSealed, updatedAt: at(1_000) });
      expect(resealed).toMatchObject({ urlSealed: "v1.k2.bmV3.bmV3", updatedAt: at(1_000) });
      // the URL changed since it was read: nothing written
      expect(await store.updateChannel(orgId, channel.id, { urlSealed: "v1.k2.b2xk.b2xk", ifUrlSealed: channel.urlSealed, updatedAt: at(2_000) })).toBeNull();
      expect(await store.getChannel(orgId, channel.id)).toMatchObject({ urlSealed: "v1.k2.bmV3.bmV3", updatedAt: at(1_000) });
    });

    it("keeps an id given by the caller (the URL was sealed with it) and refuses bad input", async () => {
      const store = await ctx.store();
      const { orgId } = await seedOrganization(store);
      const made = await store.createChannel(orgId, channelInput({ id: "ch_01JZZZZZZZZZZZZZZZZZZZZZZZ" }));
      expect(made.id).toBe("ch_01JZZZZZZZZZZZZZZZZZZZZZZZ");
      expect(await rejectionCode(store.createChannel(orgId, channelInput({ id: "ch_01JZZZZZZZZZZZZZZZZZZZZZZZ" })))).toBe("conflict");
      expect(await rejectionCode(store.createChannel(orgId, channelInput({ name: "" })))).toBe("invariant_violation");
      expect(await rejectionCode(store.createChannel(orgId, channelInput({ tags: ["no spaces"] })))).toBe("invariant_violation");
      expect(await rejectionCode(store.createChannel("org_00000000000000000000000000", channelInput()))).toBe("not_found");
    });

    it("enqueues messages once per dedup key (a retried check adds nothing) and only to the organization's channels", async () => {
      const store = await ctx.store();
      const { orgId, channel } = await withChannel(store);
      const added = await store.enqueueChannelDeliveries(orgId, [message(channel.id, "diff:dif_1"), message(channel.id, "diff:dif_2", { monitorId: "mon_1", diffId: "dif_2" })]);
      expect(added).toHaveLength(2);
      expect(added[1]).toMatchObject({ channelId: channel.id, dedupKey: "diff:dif_2", state: "pending", attempts: 0, nextAttemptAt: T0, monitorId: "mon_1", diffId: "dif_2", lastError: null });
      expect(added[0]!.id).toMatch(/^cdl_/);
      const again = await store.enqueueChannelDeliveries(orgId, [message(channel.id, "diff:dif_2"), message(channel.id, "diff:dif_3"), message(channel.id, "diff:dif_3")]);
      expect(again.map((m) => m.dedupKey)).toEqual(["diff:dif_3"]);
      expect(await store.countPendingChannelDeliveries(orgId)).toBe(3);

      const other = await withChannel(store, "other");
      // a foreign channel: refused, and nothing of the batch is added
      expect(await rejectionCode(store.enqueueChannelDeliveries(orgId, [message(channel.id, "diff:dif_9"), message(other.channel.id, "diff:dif_9")]))).toBe("not_found");
      expect(await store.countPendingChannelDeliveries(orgId)).toBe(3);
      expect(await store.countPendingChannelDeliveries()).toBe(3);
      // the same key on another channel is another message
      expect(await store.enqueueChannelDeliveries(other.orgId, [message(other.channel.id, "diff:dif_1")])).toHaveLength(1);
    });

    it("claims due messages with a lease, skips paused and failing channels, records attempts by the holder", async () => {
      const store = await ctx.store();
      const { orgId, channel } = await withChannel(store);
      const paused = await store.createChannel(orgId, channelInput({ name: "paused", paused: true }));
      const [first, later] = await store.enqueueChannelDeliveries(orgId, [message(channel.id, "a"), message(channel.id, "b", { nextAttemptAt: at(60_000) })]);
      await store.enqueueChannelDeliveries(orgId, [message(paused.id, "a")]);

      const claimed = await store.claimDueChannelDeliveries({ now: T0, limit: 10, leaseMs: 30_000, owner: "w1" });
      expect(claimed.map((m) => [m.id, m.takenOverFrom])).toEqual([[first!.id, null]]);
      expect(await store.claimDueChannelDeliveries({ now: at(29_999), limit: 10, leaseMs: 30_000, owner: "w2" })).toEqual([]);
      expect(await store.recordChannelDeliveryAttempt(first!.id, "w2", { at: T0, state: "succeeded", nextAttemptAt: null, responseStatus: 200, error: null, durationMs: 1 })).toBeNull();
      const retry = await store.recordChannelDeliveryAttempt(first!.id, "w1", { at: at(10), state: "pending", nextAttemptAt: at(5_000), responseStatus: 429, error: "HTTP 429: rate limited", durationMs: 12.4 });
      expect(retry).toMatchObject({ state: "pending", attempts: 1, nextAttemptAt: at(5_000), lastAttemptAt: at(10), lastResponseStatus: 429, lastError: "HTTP 429: rate limited" });

      // an expired lease is taken over, and says from whom
      const held = await store.claimDueChannelDeliveries({ now: at(5_000), limit: 10, leaseMs: 1_000, owner: "w1", channelId: channel.id });
      expect(held.map((m) => m.id)).toEqual([first!.id]);
      const taken = await store.claimDueChannelDeliveries({ now: at(6_000), limit: 10, leaseMs: 30_000, owner: "w2", orgId });
      expect(taken.map((m) => [m.id, m.takenOverFrom])).toEqual([[first!.id, "w1"]]);
      const done = await store.recordChannelDeliveryAttempt(first!.id, "w2", { at: at(6_100), state: "succeeded", nextAttemptAt: at(9_000), responseStatus: 200, error: null, durationMs: 3 });
      expect(done).toMatchObject({ state: "succeeded", attempts: 2, nextAttemptAt: null });
      expect(await store.listChannelDeliveryAttempts(orgId, first!.id)).toEqual([
        { deliveryId: first!.id, attempt: 1, at: at(10), responseStatus: 429, error: "HTTP 429: rate limited", durationMs: 12 },
        { deliveryId: first!.id, attempt: 2, at: at(6_100), responseStatus: 200, error: null, durationMs: 3 },
      ]);

      // a failing channel's messages wait (counted) until it is ok again
      await store.updateChannel(orgId, channel.id, { status: "failing", statusReason: "gone", updatedAt: at(7_000) });
      expect(await store.claimDueChannelDeliveries({ now: at(60_000), limit: 10, leaseMs: 1_000, owner: "w3" })).toEqual([]);
      expect(await store.countPendingChannelDeliveries(orgId)).toBe(2);
      await store.updateChannel(orgId, channel.id, { status: "ok", statusReason: null, updatedAt: at(8_000) });
      expect((await store.claimDueChannelDeliveries({ now: at(60_000), limit: 10, leaseMs: 1_000, owner: "w3" })).map((m) => m.id)).toEqual([later!.id]);
      expect(await store.releaseChannelDeliveryLeases("w3")).toBe(1);
      expect((await store.claimDueChannelDeliveries({ now: at(60_000), limit: 10, leaseMs: 1_000, owner: "w4" })).map((m) => m.id)).toEqual([later!.id]);
    });

    it("records several attempts at once (one transaction), each as on its own: null where the lease was lost", async () => {
      const store = await ctx.store();
      const { orgId, channel } = await withChannel(store);
      const made = await store.enqueueChannelDeliveries(orgId, ["a", "b", "c", "d"].map((k) => message(channel.id, k)));
      const claimed = await store.claimDueChannelDeliveries({ now: T0, limit: 3, leaseMs: 30_000, owner: "w1" });
      expect(claimed).toHaveLength(3);
      const [a, b, c] = claimed;
      const unclaimed = made.find((m) => !claimed.some((x) => x.id === m.id))!;
      expect(await store.recordChannelDeliveryAttempts!("w1", [])).toEqual([]);
      const saved = await store.recordChannelDeliveryAttempts!("w1", [
        { id: a!.id, attempt: { at: at(10), state: "succeeded", nextAttemptAt: null, responseStatus: 200, error: null, durationMs: 2 } },
        { id: b!.id, attempt: { at: at(11), state: "pending", nextAttemptAt: at(5_000), responseStatus: 429, error: "HTTP 429", durationMs: 3 } },
        // not leased by w1: nothing written for it
        { id: unclaimed.id, attempt: { at: at(12), state: "succeeded", nextAttemptAt: null, responseStatus: 200, error: null, durationMs: 1 } },
        { id: c!.id, attempt: { at: at(13), state: "failed", nextAttemptAt: null, responseStatus: 400, error: "HTTP 400", durationMs: 4 } },
      ]);
      expect(saved.map((r) => r?.state ?? null)).toEqual(["succeeded", "pending", null, "failed"]);
      expect(saved[1]).toMatchObject({ attempts: 1, nextAttemptAt: at(5_000), lastError: "HTTP 429" });
      expect(await store.getChannelDelivery(orgId, channel.id, unclaimed.id)).toMatchObject({ state: "pending", attempts: 0 });
      expect(await store.listChannelDeliveryAttempts(orgId, c!.id)).toEqual([{ deliveryId: c!.id, attempt: 1, at: at(13), responseStatus: 400, error: "HTTP 400", durationMs: 4 }]);
      // the leases ended: a second record of the same messages writes nothing
      expect(await store.recordChannelDeliveryAttempts!("w1", [{ id: a!.id, attempt: { at: at(20), state: "succeeded", nextAttemptAt: null, responseStatus: 200, error: null, durationMs: 1 } }])).toEqual([null]);
      expect(await store.listChannelDeliveryAttempts(orgId, a!.id)).toHaveLength(1);
      expect(await store.countPendingChannelDeliveries(orgId)).toBe(2);
    });

    it("organizations take turns in a claim", async () => {
      const store = await ctx.store();
      const busy = await withChannel(store, "busy");
      await store.enqueueChannelDeliveries(busy.orgId, ["1", "2", "3"].map((k) => message(busy.channel.id, k)));
      const quiet = await withChannel(store, "quiet");
      const [q] = await store.enqueueChannelDeliveries(quiet.orgId, [message(quiet.channel.id, "1")]);
      const claimed = await store.claimDueChannelDeliveries({ now: T0, limit: 2, leaseMs: 1_000, owner: "w" });
      expect(claimed.map((m) => m.orgId).sort()).toEqual([busy.orgId, quiet.orgId].sort());
      expect(claimed.map((m) => m.id)).toContain(q!.id);
    });

    it("organizations take turns, oldest first, with a few organizations and with many (over 32) pending", async () => {
      const store = await ctx.store();
      const big = await withChannel(store, "big");
      const due = await store.enqueueChannelDeliveries(big.orgId, ["1", "2", "3", "4"].map((k) => message(big.channel.id, k)));
      await store.enqueueChannelDeliveries(big.orgId, [message(big.channel.id, "later", { nextAttemptAt: at(60_000) })]);
      const small = await withChannel(store, "small");
      const [lone] = await store.enqueueChannelDeliveries(small.orgId, [message(small.channel.id, "1")]);
      const first = await store.claimDueChannelDeliveries({ now: T0, limit: 3, leaseMs: 1_000, owner: "w" });
      expect(first.map((m) => m.id).sort()).toEqual([due[0]!.id, due[1]!.id, lone!.id].sort());
      const rest = await store.claimDueChannelDeliveries({ now: T0, limit: 10, leaseMs: 1_000, owner: "w" });
      expect(rest.map((m) => m.id).sort()).toEqual([due[2]!.id, due[3]!.id].sort());
      // many organizations with pending messages: each gets its turn before anyone's second
      const many: string[] = [];
      for (let i = 0; i < 34; i++) {
        const org = await withChannel(store, `many-${String(i)}`);
        await store.enqueueChannelDeliveries(org.orgId, [message(org.channel.id, "a"), message(org.channel.id, "b")]);
        many.push(org.orgId);
      }
      const turn = await store.claimDueChannelDeliveries({ now: T0, limit: 34, leaseMs: 1_000, owner: "w2" });
      expect(new Set(turn.map((m) => m.orgId)).size).toBe(34);
      expect((await store.claimDueChannelDeliveries({ now: T0, limit: 100, leaseMs: 1_000, owner: "w2" })).map((m) => m.orgId).sort()).toEqual([...many].sort());
    });

    it("lists a channel's outbox newest first, requeues by hand, and deleting the channel drops its outbox", async () => {
      const store = await ctx.store();
      const { orgId, channel } = await withChannel(store);
      const added = await store.enqueueChannelDeliveries(orgId, ["1", "2", "3"].map((k) => message(channel.id, k)));
      const first = await store.listChannelDeliveries(orgId, channel.id, { limit: 2 });
      expect(first.data.map((m) => m.id)).toEqual([added[2]!.id, added[1]!.id]);
      expect((await store.listChannelDeliveries(orgId, channel.id, { limit: 2, cursor: first.nextCursor })).data.map((m) => m.id)).toEqual([added[0]!.id]);

      const [claimed] = await store.claimDueChannelDeliveries({ now: T0, limit: 1, leaseMs: 30_000, owner: "w1" });
      await store.recordChannelDeliveryAttempt(claimed!.id, "w1", { at: T0, state: "failed", nextAttemptAt: null, responseStatus: 400, error: "HTTP 400: invalid_payload", durationMs: 1 });
      const requeued = await store.requeueChannelDelivery(orgId, channel.id, claimed!.id, at(1_000));
      expect(requeued).toMatchObject({ state: "pending", attempts: 1, nextAttemptAt: at(1_000), lastError: "HTTP 400: invalid_payload" });
      expect(await store.getChannelDelivery(orgId, channel.id, claimed!.id)).toEqual(requeued);
      const other = await seedOrganization(store, "other");
      expect(await store.requeueChannelDelivery(other.orgId, channel.id, claimed!.id, T0)).toBeNull();
      expect(await store.getChannelDelivery(other.orgId, channel.id, claimed!.id)).toBeNull();
      expect(await store.listChannelDeliveryAttempts(other.orgId, claimed!.id)).toEqual([]);

      expect(await store.deleteChannel(orgId, channel.id)).toBe(true);
      expect(await store.countPendingChannelDeliveries(orgId)).toBe(0);
      expect(await store.listChannelDeliveryAttempts(orgId, claimed!.id)).toEqual([]);
    });

    it("a check writes its channel messages in its own transaction: foreign or deleted channels and repeated keys skipped, nothing on a refused check", async () => {
      const store = await ctx.store();
      const { orgId, monitorId, channel } = await withChannel(store);
      const gone = await store.createChannel(orgId, channelInput({ name: "gone" }));
      await store.deleteChannel(orgId, gone.id);
      const other = await withChannel(store, "other");
      const check = changedCheck(monitorId, { at: T0 });
      const diffId = check.diff!.id;
      const recorded = await store.recordCheck(orgId, {
        ...check,
        channelMessages: [
          message(channel.id, `diff:${diffId}`, { monitorId, diffId, nextAttemptAt: at(60_000) }),
          message(gone.id, `diff:${diffId}`),
          message(other.channel.id, `diff:${diffId}`),
        ],
      });
      expect(recorded.channelDeliveries?.map((m) => [m.channelId, m.dedupKey, m.nextAttemptAt, m.monitorId, m.diffId])).toEqual([[channel.id, `diff:${diffId}`, at(60_000), monitorId, diffId]]);
      expect(await store.countPendingChannelDeliveries(other.orgId)).toBe(0);

      // the same message again (a retried check) adds nothing; a health message rides on a check without a snapshot
      const again = await store.recordCheck(orgId, {
        ...unchangedCheck(monitorId, at(1_000)),
        channelMessages: [message(channel.id, `diff:${diffId}`), message(channel.id, `monitor.failing:${monitorId}:${at(1_000)}`, { eventType: "monitor.failing", monitorId })],
      });
      expect(again.channelDeliveries?.map((m) => m.dedupKey)).toEqual([`monitor.failing:${monitorId}:${at(1_000)}`]);

      // a check the store refuses (stale snapshot) writes none of its messages
      const stale = changedCheck(monitorId, { at: at(2_000), sequence: 2 });
      expect(await rejectionCode(store.recordCheck(orgId, { ...stale, previousSnapshotId: null, channelMessages: [message(channel.id, "diff:stale")] }))).toBe("stale_snapshot");
      expect(await store.countPendingChannelDeliveries(orgId)).toBe(2);
      // without messages asked for, the result has none
      expect((await store.recordCheck(orgId, unchangedCheck(monitorId, at(3_000)))).channelDeliveries).toBeUndefined();
    });

    it("deleting the organization drops its channels and their outbox", async () => {
      const store = await ctx.store();
      const { orgId, channel } = await withChannel(store);
      await store.enqueueChannelDeliveries(orgId, [message(channel.id, "1")]);
      expect(await store.deleteOrganization(orgId)).toBe(true);
      expect(await store.countPendingChannelDeliveries()).toBe(0);
      expect(await store.getChannel(orgId, channel.id)).toBeNull();
    });
  });
}
