import { describe, expect, it } from "vitest";
import type { Store } from "@driftwatch/core";
import { apiMonitor, changedCheck, seedOrganization, webhookInput } from "../fixtures.js";
import { rejectionCode, type ContractContext } from "../harness.js";

/** Every row of organization A that B might reach, read through A. */
async function everythingOf(store: Store, orgId: string, ids: { monitorId: string; webhookIds: string[]; tokenId: string; deliveryIds: string[] }): Promise<unknown> {
  return {
    org: await store.getOrganization(orgId),
    monitor: await store.getMonitor(orgId, ids.monitorId),
    monitors: await store.listMonitors(orgId, { limit: 100 }),
    token: await store.getToken(orgId, ids.tokenId),
    tokens: await store.listTokens(orgId, { limit: 100 }),
    settings: await store.getSettings(orgId, ids.monitorId),
    snapshots: await store.listSnapshots(orgId, ids.monitorId, { limit: 100 }),
    latest: await store.getLatestSnapshot(orgId, ids.monitorId),
    diffs: await store.listDiffs(orgId, ids.monitorId, { limit: 100 }),
    webhooks: await store.listWebhooks(orgId, { limit: 100 }),
    deliveries: await Promise.all(ids.webhookIds.map((w) => store.listDeliveries(orgId, w, { limit: 100 }))),
    attempts: await Promise.all(ids.deliveryIds.map((d) => store.listDeliveryAttempts(orgId, d))),
    pending: await store.countPendingDeliveries(orgId),
    idempotency: await store.claimIdempotencyKey(orgId, { key: "create-1", requestHash: "other", now: "2026-01-01T00:00:00.000Z", expiresAt: "2026-01-02T00:00:00.000Z" }),
  };
}

export function isolationCases(ctx: ContractContext): void {
  describe("organization isolation", () => {
    it("organization B can neither read nor change organization A's rows through any method", async () => {
      const store = await ctx.store();
      const a = await seedOrganization(store, "alpha");
      const token = await store.createToken(a.orgId, { name: "a", scopes: ["admin"], tokenHash: "e".repeat(64) });
      await store.updateSettings(a.orgId, a.monitorId, { snapshotRetention: 9, updatedAt: "2026-01-01T00:00:00.000Z" });
      const check = changedCheck(a.monitorId, { at: "2026-01-01T00:00:00.000Z" });
      const recorded = await store.recordCheck(a.orgId, check);
      const [claimed] = await store.claimDueDeliveries({ now: "2026-01-01T00:00:00.000Z", limit: 1, leaseMs: 1, owner: "w", orgId: a.orgId });
      await store.recordDeliveryAttempt(claimed!.id, "w", { at: "2026-01-01T00:00:00.000Z", state: "failed", nextAttemptAt: null, responseStatus: 500, error: "HTTP 500", durationMs: 1 });
      await store.claimIdempotencyKey(a.orgId, { key: "create-1", requestHash: "ha", now: "2026-01-01T00:00:00.000Z", expiresAt: "2026-01-02T00:00:00.000Z" });
      await store.completeIdempotencyKey(a.orgId, "create-1", { status: 201, body: "a" });
      const ids = { monitorId: a.monitorId, webhookIds: a.webhookIds, tokenId: token.id, deliveryIds: recorded.deliveries.map((d) => d.id) };
      const before = await everythingOf(store, a.orgId, ids);

      const b = (await store.ensureOrganization("beta")).id;
      const [w0, w1] = a.webhookIds;
      const delivery = recorded.deliveries[0]!;
      const now = "2026-01-01T00:10:00.000Z";
      // reads
      expect(await store.getMonitor(b, a.monitorId)).toBeNull();
      expect((await store.listMonitors(b, { limit: 100 })).data).toEqual([]);
      expect(await store.getToken(b, token.id)).toBeNull();
      expect((await store.listTokens(b, { limit: 100 })).data).toEqual([]);
      expect(await store.getLatestSnapshot(b, a.monitorId)).toBeNull();
      expect((await store.listSnapshots(b, a.monitorId, { limit: 100 })).data).toEqual([]);
      expect(await store.getSnapshot(b, a.monitorId, check.snapshot!.id)).toBeNull();
      expect((await store.listDiffs(b, a.monitorId, { limit: 100 })).data).toEqual([]);
      expect(await store.getDiff(b, a.monitorId, check.diff!.id)).toBeNull();
      expect(await store.getSettings(b, a.monitorId)).toBeNull();
      expect(await store.getWebhook(b, w0)).toBeNull();
      expect((await store.listWebhooks(b, { limit: 100 })).data).toEqual([]);
      expect(await store.getDelivery(b, delivery.webhookId, delivery.id)).toBeNull();
      expect((await store.listDeliveries(b, w0, { limit: 100 })).data).toEqual([]);
      expect(await store.listDeliveryAttempts(b, claimed!.id)).toEqual([]);
      expect(await store.countPendingDeliveries(b)).toBe(0);
      expect(await store.claimDueDeliveries({ now, limit: 100, leaseMs: 1_000, owner: "b", orgId: b, force: true })).toEqual([]);
      // writes
      expect(await store.updateMonitor(b, a.monitorId, { name: "stolen", state: "paused" })).toBeNull();
      expect(await store.deleteMonitor(b, a.monitorId)).toBe(false);
      expect(await store.revokeToken(b, token.id, now)).toBeNull();
      expect(await store.updateSettings(b, a.monitorId, { snapshotRetention: 1, policyRulesJson: { rules: [] }, updatedAt: now })).toBeNull();
      expect(await store.updateWebhook(b, w0, { url: "https://evil.example/", enabled: false })).toBeNull();
      expect(await store.deleteWebhook(b, w1)).toBe(false);
      expect(await store.requeueDelivery(b, claimed!.webhookId, claimed!.id, now)).toBeNull();
      expect(await rejectionCode(store.recordCheck(b, changedCheck(a.monitorId, { sequence: 9 })))).toBe("not_found");
      // B's own monitor cannot diff against A's snapshot
      const own = await store.createMonitor(b, apiMonitor());
      await store.createWebhook(b, webhookInput());
      expect(await rejectionCode(store.recordCheck(b, changedCheck(own.id, { previousSnapshotId: check.snapshot!.id, sequence: 10 })))).toBe("invariant_violation");
      await store.claimIdempotencyKey(b, { key: "create-1", requestHash: "hb", now, expiresAt: "2026-01-02T00:00:00.000Z" });
      await store.completeIdempotencyKey(b, "create-1", { status: 500, body: "b" });
      await store.releaseIdempotencyKey(b, "create-1");

      expect(await everythingOf(store, a.orgId, ids)).toEqual(before);
      expect(await store.countPendingDeliveries(b)).toBe(0);
    });
  });
}
