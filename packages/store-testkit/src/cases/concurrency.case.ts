import { describe, expect, it } from "vitest";
import type { Store } from "@driftwatch/core";
import { apiMonitor, changedCheck, seedOrganization } from "../fixtures.js";
import type { ContractContext } from "../harness.js";

const NOW = "2026-07-01T00:00:00.000Z";

/** Claims in rounds from every store at once until a round finds nothing; returns what each owner got. */
async function drain(stores: Store[], claim: (store: Store, owner: string) => Promise<{ id: string }[]>): Promise<string[][]> {
  const got: string[][] = stores.map(() => []);
  for (;;) {
    const round = await Promise.all(stores.flatMap((store, i) => [claim(store, `w${i}a`), claim(store, `w${i}b`)]));
    if (round.every((r) => r.length === 0)) return got;
    round.forEach((records, k) => got[Math.floor(k / 2)]!.push(...records.map((r) => r.id)));
  }
}

export function concurrencyCases(ctx: ContractContext): void {
  const shared = ctx.supports("sharedDatabase");
  describe.skipIf(!shared.supported)(`concurrency: two stores on one database${shared.label}`, () => {
    it("claiming monitors at once never hands the same monitor to two workers", async () => {
      const first = await ctx.store();
      const second = await ctx.peer();
      const org = await first.ensureOrganization("acme");
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push((await first.createMonitor(org.id, apiMonitor({ name: `m${i}`, nextCheckAt: new Date(Date.parse(NOW) - i * 1000).toISOString() }))).id);
      const got = await drain([first, second], (store, owner) => store.claimDueMonitors({ now: NOW, limit: 3, leaseMs: 60_000, owner }));
      const all = got.flat();
      expect(all).toHaveLength(40);
      expect(new Set(all).size).toBe(40);
      expect([...all].sort()).toEqual([...ids].sort());
      // both stores saw the same rows: what one created, the other claimed
      expect(got[1]!.length).toBeGreaterThan(0);
    });

    it("claiming deliveries at once never hands the same delivery to two workers", async () => {
      const first = await ctx.store();
      const second = await ctx.peer();
      const { orgId, monitorId } = await seedOrganization(first);
      let previous: string | null = null;
      for (let i = 0; i < 15; i++) {
        const check = changedCheck(monitorId, { previousSnapshotId: previous, sequence: i, at: NOW });
        await (i % 2 === 0 ? first : second).recordCheck(orgId, check);
        previous = check.snapshot!.id;
      }
      expect(await second.countPendingDeliveries()).toBe(30);
      const got = await drain([first, second], (store, owner) => store.claimDueDeliveries({ now: NOW, limit: 4, leaseMs: 60_000, owner }));
      const all = got.flat();
      expect(all).toHaveLength(30);
      expect(new Set(all).size).toBe(30);
      expect(got[1]!.length).toBeGreaterThan(0);
    });

    it("ensureOrganization racing through both stores creates one organization", async () => {
      const first = await ctx.store();
      const second = await ctx.peer();
      const orgs = await Promise.all([first, second, first, second].map((store) => store.ensureOrganization("raced")));
      expect(new Set(orgs.map((o) => o.id)).size).toBe(1);
      expect(await second.countOrganizations()).toBe(1);
    });

    it("racing claims of one idempotency key through both stores: exactly one is new", async () => {
      const first = await ctx.store();
      const second = await ctx.peer();
      const org = await first.ensureOrganization("acme");
      const claim = { key: "k", requestHash: "h", now: NOW, expiresAt: "2026-07-02T00:00:00.000Z" };
      const results = await Promise.all([first, second, first, second].map((store) => store.claimIdempotencyKey(org.id, claim)));
      expect(results.filter((r) => r.state === "new")).toHaveLength(1);
    });

    it("checks recorded through both stores at once all land whole", async () => {
      const first = await ctx.store();
      const second = await ctx.peer();
      const org = await first.ensureOrganization("acme");
      const monitors = await Promise.all(Array.from({ length: 6 }, (_, i) => first.createMonitor(org.id, apiMonitor({ name: `m${i}` }))));
      await Promise.all(monitors.map((m, i) => (i % 2 === 0 ? first : second).recordCheck(org.id, changedCheck(m.id, { sequence: i }))));
      for (const m of monitors) {
        expect((await second.listSnapshots(org.id, m.id, { limit: 5 })).data).toHaveLength(1);
        expect((await first.listDiffs(org.id, m.id, { limit: 5 })).data).toHaveLength(1);
      }
    });

    it("two checks of one monitor compared with the same snapshot, recorded at once: one lands, the other is stale_snapshot", async () => {
      const first = await ctx.store();
      const second = await ctx.peer();
      const { orgId, monitorId } = await seedOrganization(first);
      const base = changedCheck(monitorId, { sequence: 0, at: NOW });
      await first.recordCheck(orgId, { ...base, diff: null, event: null });
      for (let round = 1; round <= 5; round++) {
        const previous = (await first.getLatestSnapshot(orgId, monitorId))!.id;
        const checks = [first, second, first, second].map((store, i) => {
          const check = changedCheck(monitorId, { sequence: round * 10 + i, previousSnapshotId: previous, at: NOW });
          return store.recordCheck(orgId, { ...check, previousSnapshotId: previous }).then(
            () => "recorded",
            (error: unknown) => (error as { code?: string }).code,
          );
        });
        const outcomes = await Promise.all(checks);
        expect(outcomes.filter((o) => o === "recorded")).toHaveLength(1);
        expect(outcomes.filter((o) => o === "stale_snapshot")).toHaveLength(3);
      }
      expect((await second.listSnapshots(orgId, monitorId, { limit: 20 })).data).toHaveLength(6);
      expect((await second.listDiffs(orgId, monitorId, { limit: 20 })).data).toHaveLength(5);
      expect(await first.countPendingDeliveries()).toBe(10);
    });
  });
}
