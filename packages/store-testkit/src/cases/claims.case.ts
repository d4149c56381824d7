import { describe, expect, it } from "vitest";
import { apiMonitor } from "../fixtures.js";
import { rejectionCode, type ContractContext } from "../harness.js";

const T0 = "2026-05-01T12:00:00.000Z";
const at = (ms: number): string => new Date(Date.parse(T0) + ms).toISOString();

export function claimCases(ctx: ContractContext): void {
  describe("claiming due monitors", () => {
    it("leases due active and failing monitors of every organization, ordered by nextCheckAt, up to the limit", async () => {
      const store = await ctx.store();
      const a = await store.ensureOrganization("a");
      const b = await store.ensureOrganization("b");
      const late = await store.createMonitor(a.id, apiMonitor({ nextCheckAt: at(-1_000) }));
      const early = await store.createMonitor(b.id, apiMonitor({ nextCheckAt: at(-60_000), state: "failing" }));
      const middle = await store.createMonitor(a.id, apiMonitor({ nextCheckAt: at(-30_000) }));
      await store.createMonitor(a.id, apiMonitor({ nextCheckAt: at(-90_000), state: "paused" }));
      await store.createMonitor(a.id, apiMonitor({ nextCheckAt: at(60_000) }));
      await store.createMonitor(a.id, apiMonitor({ nextCheckAt: null }));

      const claimed = await store.claimDueMonitors({ now: T0, limit: 2, leaseMs: 60_000, owner: "w1" });
      expect(claimed.map((m) => m.id)).toEqual([early.id, middle.id]);
      expect(claimed[0]?.orgId).toBe(b.id);
      const rest = await store.claimDueMonitors({ now: T0, limit: 10, leaseMs: 60_000, owner: "w2" });
      expect(rest.map((m) => m.id)).toEqual([late.id]);
      expect(await store.claimDueMonitors({ now: T0, limit: 10, leaseMs: 60_000, owner: "w3" })).toEqual([]);
    });

    it("organizations take turns: one tenant's backlog cannot fill a claim while another has due monitors", async () => {
      const store = await ctx.store();
      const busy = await store.ensureOrganization("busy");
      const quiet = await store.ensureOrganization("quiet");
      const backlog = [];
      for (let i = 0; i < 6; i++) backlog.push(await store.createMonitor(busy.id, apiMonitor({ nextCheckAt: at(-600_000 + i * 1_000) })));
      const later = await store.createMonitor(quiet.id, apiMonitor({ nextCheckAt: at(-1_000) }));
      const claimed = await store.claimDueMonitors({ now: T0, limit: 3, leaseMs: 60_000, owner: "w1" });
      // each organization's oldest, then the busy one's second; returned in due order
      expect(claimed.map((m) => m.id)).toEqual([backlog[0]!.id, backlog[1]!.id, later.id]);
      const rest = await store.claimDueMonitors({ now: T0, limit: 10, leaseMs: 60_000, owner: "w2" });
      expect(rest.map((m) => m.id)).toEqual(backlog.slice(2).map((m) => m.id));
    });

    it("a held lease blocks other workers until it expires", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const monitor = await store.createMonitor(org.id, apiMonitor({ nextCheckAt: at(-1) }));
      expect((await store.claimDueMonitors({ now: T0, limit: 5, leaseMs: 10_000, owner: "w1" })).map((m) => m.id)).toEqual([monitor.id]);
      expect(await store.claimDueMonitors({ now: at(9_999), limit: 5, leaseMs: 10_000, owner: "w2" })).toEqual([]);
      expect((await store.claimDueMonitors({ now: at(10_000), limit: 5, leaseMs: 10_000, owner: "w2" })).map((m) => m.id)).toEqual([monitor.id]);
      // w1 lost the lease: its release does nothing
      expect(await store.releaseMonitor(monitor.id, "w1", at(60_000))).toBe(false);
      expect((await store.getMonitor(org.id, monitor.id))?.nextCheckAt).toBe(at(-1));
    });

    it("release by the holder ends the lease and sets the next check time (null parks it)", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const one = await store.createMonitor(org.id, apiMonitor({ nextCheckAt: at(-2) }));
      const two = await store.createMonitor(org.id, apiMonitor({ nextCheckAt: at(-1) }));
      await store.claimDueMonitors({ now: T0, limit: 5, leaseMs: 600_000, owner: "w1" });
      expect(await store.releaseMonitor(one.id, "w1", at(1_000))).toBe(true);
      expect(await store.releaseMonitor(two.id, "w1", null)).toBe(true);
      expect(await store.releaseMonitor(two.id, "w1", null)).toBe(false);
      expect((await store.getMonitor(org.id, one.id))?.nextCheckAt).toBe(at(1_000));
      expect((await store.getMonitor(org.id, two.id))?.nextCheckAt).toBeNull();
      // released: due again at its new time, long before the old lease would have expired
      expect((await store.claimDueMonitors({ now: at(1_000), limit: 5, leaseMs: 1_000, owner: "w2" })).map((m) => m.id)).toEqual([one.id]);
      expect(await store.releaseMonitor("mon_00000000000000000000000000", "w2", null)).toBe(false);
    });

    it("a `now` that is not a time is a rejected promise with invariant_violation, never a synchronous throw", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      await store.createMonitor(org.id, apiMonitor());
      let pending: Promise<unknown> = Promise.resolve();
      expect(() => {
        pending = store.claimDueMonitors({ now: "not a time", limit: 5, leaseMs: 1_000, owner: "w" });
      }).not.toThrow();
      expect(await rejectionCode(pending)).toBe("invariant_violation");
      expect(await rejectionCode(store.claimDueDeliveries({ now: "not a time", limit: 5, leaseMs: 1_000, owner: "w" }))).toBe("invariant_violation");
      expect(await rejectionCode(store.listDiffs(org.id, "mon_00000000000000000000000000", { limit: 5, since: "last week" }))).toBe("invariant_violation");
      // nothing was leased
      expect(await store.claimDueMonitors({ now: T0, limit: 5, leaseMs: 1_000, owner: "w" })).toHaveLength(1);
    });

    it("a limit of 0 claims nothing", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      await store.createMonitor(org.id, apiMonitor());
      expect(await store.claimDueMonitors({ now: T0, limit: 0, leaseMs: 1_000, owner: "w" })).toEqual([]);
      expect(await store.claimDueMonitors({ now: T0, limit: 1, leaseMs: 1_000, owner: "w" })).toHaveLength(1);
    });
  });
}
