import { describe, expect, it } from "vitest";
import type { Store } from "@driftwatch/core";
import { changedCheck, recordChanges, seedOrganization, type SeededOrganization } from "../fixtures.js";
import type { ContractContext } from "../harness.js";

const T0 = "2026-06-01T08:00:00.000Z";
const at = (ms: number): string => new Date(Date.parse(T0) + ms).toISOString();

/** A seeded organization with one recorded change due at T0: two pending deliveries. */
async function withDeliveries(store: Store): Promise<SeededOrganization & { deliveryIds: string[] }> {
  const seeded = await seedOrganization(store);
  const result = await store.recordCheck(seeded.orgId, changedCheck(seeded.monitorId, { at: T0 }));
  return { ...seeded, deliveryIds: result.deliveries.map((d) => d.id).sort() };
}

export function deliveryCases(ctx: ContractContext): void {
  describe("deliveries (outbox)", () => {
    it("claims due pending deliveries oldest first with a lease; a held lease blocks, an expired one does not", async () => {
      const store = await ctx.store();
      const { deliveryIds } = await withDeliveries(store);
      expect(await store.claimDueDeliveries({ now: at(-1), limit: 10, leaseMs: 30_000, owner: "w1" })).toEqual([]);
      const claimed = await store.claimDueDeliveries({ now: T0, limit: 10, leaseMs: 30_000, owner: "w1" });
      expect(claimed.map((d) => d.id)).toEqual(deliveryIds);
      expect(await store.claimDueDeliveries({ now: at(29_999), limit: 10, leaseMs: 30_000, owner: "w2" })).toEqual([]);
      expect((await store.claimDueDeliveries({ now: at(30_000), limit: 1, leaseMs: 30_000, owner: "w2" })).map((d) => d.id)).toEqual([deliveryIds[0]]);
    });

    it("organizations take turns in a claim: one tenant's backlog cannot fill it while another has due deliveries", async () => {
      const store = await ctx.store();
      const busy = await seedOrganization(store, "busy");
      await recordChanges(store, busy.orgId, busy.monitorId, 3, { at: T0 });
      const quiet = await withDeliveries(store);
      const backlog = (await store.claimDueDeliveries({ now: T0, limit: 100, leaseMs: 1_000, owner: "peek", orgId: busy.orgId })).map((d) => d.id).sort();
      expect(backlog).toHaveLength(6);
      // the peek's leases have expired a second later
      const claimed = await store.claimDueDeliveries({ now: at(1_000), limit: 4, leaseMs: 30_000, owner: "w1" });
      expect(claimed.map((d) => d.id)).toEqual([backlog[0], backlog[1], ...quiet.deliveryIds]);
    });

    it("records attempts by the lease holder only: retry state, success, giving up, the attempt log", async () => {
      const store = await ctx.store();
      const { orgId, webhookIds, deliveryIds } = await withDeliveries(store);
      const [first, second] = await store.claimDueDeliveries({ now: T0, limit: 10, leaseMs: 30_000, owner: "w1" });
      expect(await store.recordDeliveryAttempt(first!.id, "intruder", { at: T0, state: "succeeded", nextAttemptAt: null, responseStatus: 200, error: null, durationMs: 5 })).toBeNull();

      const retry = await store.recordDeliveryAttempt(first!.id, "w1", { at: at(100), state: "pending", nextAttemptAt: at(5_000), responseStatus: 503, error: "HTTP 503", durationMs: 40.6 });
      expect(retry).toMatchObject({ id: first!.id, state: "pending", attempts: 1, nextAttemptAt: at(5_000), lastAttemptAt: at(100), lastResponseStatus: 503, lastError: "HTTP 503" });
      // the lease ended with the attempt: the same holder cannot record twice
      expect(await store.recordDeliveryAttempt(first!.id, "w1", { at: at(200), state: "succeeded", nextAttemptAt: null, responseStatus: 200, error: null, durationMs: 1 })).toBeNull();
      // not due before its retry time (unless forced)
      expect(await store.claimDueDeliveries({ now: at(4_999), limit: 10, leaseMs: 30_000, owner: "w2" })).toEqual([]);
      expect((await store.claimDueDeliveries({ now: at(4_999), limit: 10, leaseMs: 30_000, owner: "w2", force: true })).map((d) => d.id)).toEqual([first!.id]);
      const done = await store.recordDeliveryAttempt(first!.id, "w2", { at: at(5_000), state: "succeeded", nextAttemptAt: at(9_000), responseStatus: 204, error: null, durationMs: 7 });
      expect(done).toMatchObject({ state: "succeeded", attempts: 2, nextAttemptAt: null, lastResponseStatus: 204, lastError: null });

      const gaveUp = await store.recordDeliveryAttempt(second!.id, "w1", { at: at(300), state: "failed", nextAttemptAt: null, responseStatus: null, error: "connection refused", durationMs: 3 });
      expect(gaveUp).toMatchObject({ state: "failed", attempts: 1, nextAttemptAt: null, lastResponseStatus: null, lastError: "connection refused" });
      expect(await store.claimDueDeliveries({ now: at(999_999), limit: 10, leaseMs: 30_000, owner: "w3", force: true })).toEqual([]);
      expect(await store.countPendingDeliveries()).toBe(0);

      expect(await store.listDeliveryAttempts(orgId, first!.id)).toEqual([
        { deliveryId: first!.id, attempt: 1, at: at(100), responseStatus: 503, error: "HTTP 503", durationMs: 41 },
        { deliveryId: first!.id, attempt: 2, at: at(5_000), responseStatus: 204, error: null, durationMs: 7 },
      ]);
      expect(await store.listDeliveryAttempts(orgId, "dlv_00000000000000000000000000")).toEqual([]);
      const webhookOfFirst = first!.webhookId;
      expect(await store.getDelivery(orgId, webhookOfFirst, first!.id)).toEqual(done);
      expect(webhookIds).toContain(webhookOfFirst);
      expect(deliveryIds).toContain(first!.id);
    });

    it("requeues a delivery by hand (also a failed one), due at once", async () => {
      const store = await ctx.store();
      const { orgId } = await withDeliveries(store);
      const [delivery] = await store.claimDueDeliveries({ now: T0, limit: 1, leaseMs: 30_000, owner: "w1" });
      await store.recordDeliveryAttempt(delivery!.id, "w1", { at: T0, state: "failed", nextAttemptAt: null, responseStatus: 500, error: "HTTP 500", durationMs: 1 });
      const requeued = await store.requeueDelivery(orgId, delivery!.webhookId, delivery!.id, at(60_000));
      expect(requeued).toMatchObject({ state: "pending", attempts: 1, nextAttemptAt: at(60_000) });
      expect((await store.claimDueDeliveries({ now: at(60_000), limit: 10, leaseMs: 1_000, owner: "w2", webhookId: delivery!.webhookId })).map((d) => d.id)).toEqual([delivery!.id]);
      expect(await store.requeueDelivery(orgId, delivery!.webhookId, "dlv_00000000000000000000000000", T0)).toBeNull();
      // requeueing a leased delivery ends the lease: the old holder can no longer record an attempt
      await store.requeueDelivery(orgId, delivery!.webhookId, delivery!.id, at(61_000));
      expect(await store.recordDeliveryAttempt(delivery!.id, "w2", { at: at(61_000), state: "succeeded", nextAttemptAt: null, responseStatus: 200, error: null, durationMs: 1 })).toBeNull();
      // and its webhook id must match
      const other = (await store.listWebhooks(orgId, { limit: 10 })).data.find((w) => w.id !== delivery!.webhookId)!;
      expect(await store.requeueDelivery(orgId, other.id, delivery!.id, T0)).toBeNull();
      expect(await store.getDelivery(orgId, other.id, delivery!.id)).toBeNull();
    });

    it("filters claims by organization and webhook and skips disabled webhooks", async () => {
      const store = await ctx.store();
      const a = await withDeliveries(store);
      const bStore = await seedOrganization(store, "beta");
      await store.recordCheck(bStore.orgId, changedCheck(bStore.monitorId, { at: T0 }));
      expect(await store.countPendingDeliveries()).toBe(4);
      expect(await store.countPendingDeliveries(a.orgId)).toBe(2);

      await store.updateWebhook(a.orgId, a.webhookIds[0], { enabled: false });
      const ofA = await store.claimDueDeliveries({ now: T0, limit: 10, leaseMs: 1_000, owner: "w", orgId: a.orgId });
      expect(ofA.map((d) => d.webhookId)).toEqual([a.webhookIds[1]]);
      const ofWebhook = await store.claimDueDeliveries({ now: T0, limit: 10, leaseMs: 1_000, owner: "w", webhookId: bStore.webhookIds[0] });
      expect(ofWebhook.map((d) => d.webhookId)).toEqual([bStore.webhookIds[0]]);
      expect(ofWebhook[0]?.orgId).toBe(bStore.orgId);
      // a disabled webhook's deliveries stay pending (counted) but are never claimed
      expect(await store.claimDueDeliveries({ now: at(10_000), limit: 10, leaseMs: 1_000, owner: "w", webhookId: a.webhookIds[0], force: true })).toEqual([]);
      expect(await store.countPendingDeliveries(a.orgId)).toBe(2);
    });

    it("lists a webhook's deliveries newest first with cursors", async () => {
      const store = await ctx.store();
      const seeded = await seedOrganization(store);
      const ids: string[] = [];
      let previous: string | null = null;
      for (let i = 0; i < 3; i++) {
        const check = changedCheck(seeded.monitorId, { previousSnapshotId: previous, sequence: i });
        const result = await store.recordCheck(seeded.orgId, check);
        previous = check.snapshot!.id;
        ids.push(result.deliveries.find((d) => d.webhookId === seeded.webhookIds[0])!.id);
      }
      const first = await store.listDeliveries(seeded.orgId, seeded.webhookIds[0], { limit: 2 });
      expect(first.data.map((d) => d.id)).toEqual([ids[2], ids[1]]);
      const second = await store.listDeliveries(seeded.orgId, seeded.webhookIds[0], { limit: 2, cursor: first.nextCursor });
      expect(second.data.map((d) => d.id)).toEqual([ids[0]]);
      expect(second.nextCursor).toBeNull();
      expect(await store.listDeliveries(seeded.orgId, "whk_00000000000000000000000000", { limit: 2 })).toEqual({ data: [], nextCursor: null });
    });
  });
}
