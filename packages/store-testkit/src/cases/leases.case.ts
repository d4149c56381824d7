import { describe, expect, it } from "vitest";
import type { MonitorRecord, Store } from "@driftwatch/core";
import { apiMonitor, changedCheck, seedOrganization, unchangedCheck, type SeededOrganization } from "../fixtures.js";
import { rejectionCode, type ContractContext } from "../harness.js";

const T0 = "2026-07-01T09:00:00.000Z";
const at = (ms: number): string => new Date(Date.parse(T0) + ms).toISOString();

/** Two due monitors (the other one due first) and the pending deliveries of one recorded change. */
async function twoMonitorsAndDeliveries(store: Store): Promise<{ seeded: SeededOrganization; other: MonitorRecord; deliveries: string[] }> {
  const seeded = await seedOrganization(store);
  const other = await store.createMonitor(seeded.orgId, apiMonitor({ nextCheckAt: at(-2) }));
  await store.updateMonitor(seeded.orgId, seeded.monitorId, { nextCheckAt: at(-1) });
  const deliveries = (await store.recordCheck(seeded.orgId, changedCheck(seeded.monitorId, { at: T0 }))).deliveries.map((d) => d.id).sort();
  return { seeded, other, deliveries };
}

export function leaseCases(ctx: ContractContext): void {
  describe("lease renewal, takeover and release", () => {
    it("a claim names the owner whose expired lease it took over, and null for free work", async () => {
      const store = await ctx.store();
      const seeded = await seedOrganization(store);
      await store.updateMonitor(seeded.orgId, seeded.monitorId, { nextCheckAt: at(-1) });
      const [first] = await store.claimDueMonitors({ now: T0, limit: 5, leaseMs: 10_000, owner: "w1" });
      expect(first).toMatchObject({ id: seeded.monitorId, takenOverFrom: null });
      const [taken] = await store.claimDueMonitors({ now: at(10_000), limit: 5, leaseMs: 10_000, owner: "w2" });
      expect(taken).toMatchObject({ id: seeded.monitorId, takenOverFrom: "w1" });
      // released by its holder: the next claim takes free work, not a takeover
      expect(await store.releaseMonitor(seeded.monitorId, "w2", at(10_000))).toBe(true);
      expect((await store.claimDueMonitors({ now: at(10_000), limit: 5, leaseMs: 10_000, owner: "w3" }))[0]?.takenOverFrom).toBeNull();

      const deliveries = (await store.recordCheck(seeded.orgId, changedCheck(seeded.monitorId, { at: T0 }))).deliveries;
      expect(deliveries.length).toBeGreaterThan(0);
      const claimed = await store.claimDueDeliveries({ now: T0, limit: 10, leaseMs: 10_000, owner: "w1" });
      expect(claimed.map((d) => d.takenOverFrom)).toEqual(deliveries.map(() => null));
      const retaken = await store.claimDueDeliveries({ now: at(10_000), limit: 10, leaseMs: 10_000, owner: "w2" });
      expect(retaken.map((d) => d.takenOverFrom)).toEqual(deliveries.map(() => "w1"));
    });

    it("renewal extends only the leases the owner still holds, and returns their ids", async () => {
      const store = await ctx.store();
      const { seeded, other, deliveries } = await twoMonitorsAndDeliveries(store);
      expect((await store.claimDueMonitors({ now: T0, limit: 5, leaseMs: 10_000, owner: "w1" })).map((m) => m.id).sort()).toEqual([seeded.monitorId, other.id].sort());
      expect((await store.claimDueDeliveries({ now: T0, limit: 10, leaseMs: 10_000, owner: "w1" })).map((d) => d.id)).toEqual(deliveries);

      // renewed at 8 s for 10 s more: still held at 17 s, where the first lease would have run out
      const renewed = await store.renewLeases({ owner: "w1", now: at(8_000), leaseMs: 10_000, monitorIds: [seeded.monitorId, other.id], deliveryIds: deliveries });
      expect(renewed.monitorIds.sort()).toEqual([seeded.monitorId, other.id].sort());
      expect(renewed.deliveryIds.sort()).toEqual(deliveries);
      expect(await store.claimDueMonitors({ now: at(17_999), limit: 5, leaseMs: 10_000, owner: "w2" })).toEqual([]);
      expect(await store.claimDueDeliveries({ now: at(17_999), limit: 10, leaseMs: 10_000, owner: "w2" })).toEqual([]);

      // another worker takes the leases over once they expire; w1 cannot renew them any more
      expect((await store.claimDueMonitors({ now: at(18_000), limit: 1, leaseMs: 10_000, owner: "w2" }))[0]?.takenOverFrom).toBe("w1");
      const after = await store.renewLeases({ owner: "w1", now: at(18_000), leaseMs: 10_000, monitorIds: [seeded.monitorId, other.id, "mon_00000000000000000000000000"], deliveryIds: [] });
      expect(after.monitorIds).toHaveLength(1);
      expect(after.deliveryIds).toEqual([]);
      // an owner that holds nothing renews nothing
      expect(await store.renewLeases({ owner: "nobody", now: at(18_000), leaseMs: 10_000, monitorIds: [seeded.monitorId], deliveryIds: deliveries })).toEqual({ monitorIds: [], deliveryIds: [] });
      expect(await store.renewLeases({ owner: "w1", now: at(18_000), leaseMs: 10_000, monitorIds: [], deliveryIds: [] })).toEqual({ monitorIds: [], deliveryIds: [] });
      expect(await rejectionCode(store.renewLeases({ owner: "w1", now: "soon", leaseMs: 10_000, monitorIds: [seeded.monitorId], deliveryIds: [] }))).toBe("invariant_violation");
    });

    it("releasing an owner's leases frees its work at once and changes nothing else", async () => {
      const store = await ctx.store();
      const { seeded, other, deliveries } = await twoMonitorsAndDeliveries(store);
      await store.claimDueMonitors({ now: T0, limit: 1, leaseMs: 600_000, owner: "w1" });
      await store.claimDueMonitors({ now: T0, limit: 1, leaseMs: 600_000, owner: "w2" });
      await store.claimDueDeliveries({ now: T0, limit: 10, leaseMs: 600_000, owner: "w1" });

      expect(await store.releaseLeases("w1")).toEqual({ monitors: 1, deliveries: deliveries.length });
      expect(await store.releaseLeases("w1")).toEqual({ monitors: 0, deliveries: 0 });
      // w1's monitor (the first due) is due again at its old time and free; w2's lease holds
      const free = await store.claimDueMonitors({ now: at(1), limit: 5, leaseMs: 1_000, owner: "w3" });
      expect(free.map((m) => m.id)).toEqual([other.id]);
      expect(free[0]).toMatchObject({ nextCheckAt: at(-2), takenOverFrom: null });
      const pending = await store.claimDueDeliveries({ now: at(1), limit: 10, leaseMs: 1_000, owner: "w3" });
      expect(pending.map((d) => [d.id, d.state, d.attempts, d.takenOverFrom])).toEqual(deliveries.map((id) => [id, "pending", 0, null]));
      // w1 lost what it released: its release of the monitor does nothing
      expect(await store.releaseMonitor(other.id, "w1", at(60_000))).toBe(false);
    });

    it("a check recorded with its claim's owner ends that lease in the same write; another owner's lease holds", async () => {
      const store = await ctx.store();
      const { seeded, other } = await twoMonitorsAndDeliveries(store);
      const claimed = await store.claimDueMonitors({ now: T0, limit: 2, leaseMs: 600_000, owner: "w1" });
      expect(claimed.map((m) => m.id).sort()).toEqual([seeded.monitorId, other.id].sort());

      // an unchanged check (no snapshot) and a changed one (snapshot, diff, deliveries) both release
      const unchanged = { ...unchangedCheck(other.id, at(1)), releaseLease: "w1" };
      unchanged.monitor = { ...unchanged.monitor, nextCheckAt: at(5_000) };
      expect((await store.recordCheck(seeded.orgId, unchanged)).monitor.nextCheckAt).toBe(at(5_000));
      const changed = changedCheck(seeded.monitorId, { at: at(2) });
      await store.recordCheck(seeded.orgId, { ...changed, monitor: { ...changed.monitor, nextCheckAt: at(6_000) }, releaseLease: "w1" });
      // released: w1 no longer holds them, and the next claim takes them as free work at their new times
      expect(await store.releaseMonitor(other.id, "w1", null)).toBe(false);
      expect(await store.renewLeases({ owner: "w1", now: at(3), leaseMs: 600_000, monitorIds: [seeded.monitorId, other.id], deliveryIds: [] })).toEqual({ monitorIds: [], deliveryIds: [] });
      expect(await store.claimDueMonitors({ now: at(4_999), limit: 5, leaseMs: 600_000, owner: "w2" })).toEqual([]);
      const again = await store.claimDueMonitors({ now: at(6_000), limit: 5, leaseMs: 600_000, owner: "w2" });
      expect(again.map((m) => [m.id, m.nextCheckAt, m.takenOverFrom])).toEqual([
        [other.id, at(5_000), null],
        [seeded.monitorId, at(6_000), null],
      ]);

      // a check recorded by a worker whose lease was taken over leaves the new holder's lease alone
      const late = { ...unchangedCheck(other.id, at(7_000)), releaseLease: "w1" };
      await store.recordCheck(seeded.orgId, late);
      expect(await store.renewLeases({ owner: "w2", now: at(7_001), leaseMs: 600_000, monitorIds: [other.id], deliveryIds: [] })).toEqual({ monitorIds: [other.id], deliveryIds: [] });
      expect(await rejectionCode(store.recordCheck(seeded.orgId, { ...unchangedCheck(other.id, at(7_002)), releaseLease: "" }))).toBe("invariant_violation");
    });
  });
}
