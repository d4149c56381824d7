import { describe, expect, it } from "vitest";
import type { RecordCheckInput, RecordCheckStage, Store } from "@driftwatch/core";
import { changedCheck, recordChanges, seedOrganization, type SeededOrganization, unchangedCheck } from "../fixtures.js";
import { rejectionCode, type ContractContext } from "../harness.js";

const STAGES: RecordCheckStage[] = ["monitor", "snapshot", "diff", "deliveries", "retention"];

/** Everything a check could have written, to compare before and after a failed one. */
async function footprint(store: Store, seeded: SeededOrganization): Promise<unknown> {
  const { orgId, monitorId, webhookIds } = seeded;
  return {
    monitor: await store.getMonitor(orgId, monitorId),
    snapshots: await store.listSnapshots(orgId, monitorId, { limit: 100 }),
    diffs: await store.listDiffs(orgId, monitorId, { limit: 100 }),
    deliveries: [await store.listDeliveries(orgId, webhookIds[0], { limit: 100 }), await store.listDeliveries(orgId, webhookIds[1], { limit: 100 })],
    pending: await store.countPendingDeliveries(),
  };
}

export function recordCheckCases(ctx: ContractContext): void {
  describe("recordCheck", () => {
    it("stores the monitor's check fields, the snapshot, the diff and one pending delivery per matching webhook", async () => {
      const store = await ctx.store();
      const seeded = await seedOrganization(store);
      const { orgId, monitorId, webhookIds } = seeded;
      // not matching: disabled, another monitor, severity above the diff's, another event type list
      const otherMonitor = await store.createMonitor(orgId, (await store.getMonitor(orgId, monitorId))!);
      await store.createWebhook(orgId, { url: "https://h.example/off", description: null, events: ["diff.detected"], monitorIds: null, minSeverity: "info", enabled: false, secret: "whsec_a" });
      await store.createWebhook(orgId, { url: "https://h.example/other", description: null, events: ["diff.detected"], monitorIds: [otherMonitor.id], minSeverity: "info", enabled: true, secret: "whsec_b" });
      await store.createWebhook(orgId, { url: "https://h.example/high", description: null, events: ["diff.detected"], monitorIds: null, minSeverity: "high", enabled: true, secret: "whsec_c" });
      await store.createWebhook(orgId, { url: "https://h.example/none", description: null, events: [], monitorIds: null, minSeverity: "info", enabled: true, secret: "whsec_d" });
      const exact = await store.createWebhook(orgId, { url: "https://h.example/medium", description: null, events: ["diff.detected"], monitorIds: null, minSeverity: "medium", enabled: true, secret: "whsec_e" });

      const check = changedCheck(monitorId, { severity: "medium", at: "2026-06-01T08:00:00.000Z" });
      const result = await store.recordCheck(orgId, check);
      expect(result.monitor).toMatchObject({ id: monitorId, lastCheckedAt: "2026-06-01T08:00:00.000Z", lastChangedAt: "2026-06-01T08:00:00.000Z", lastStatus: 200 });
      expect(result.snapshot).toMatchObject({ id: check.snapshot!.id, monitorId, orgId, body: check.snapshot!.body });
      expect(result.diff).toMatchObject({ id: check.diff!.id, monitorId, orgId, snapshotId: check.snapshot!.id });
      expect(result.deliveries.map((d) => d.webhookId).sort()).toEqual([webhookIds[0], webhookIds[1], exact.id].sort());
      for (const delivery of result.deliveries) {
        expect(delivery).toMatchObject({
          orgId,
          eventId: check.event!.eventId,
          eventType: "diff.detected",
          monitorId,
          diffId: check.diff!.id,
          state: "pending",
          attempts: 0,
          nextAttemptAt: "2026-06-01T08:00:00.000Z",
          lastAttemptAt: null,
          lastResponseStatus: null,
          lastError: null,
        });
        expect(delivery.id).toMatch(/^dlv_/);
        expect(JSON.parse(delivery.payload)).toEqual(check.event);
        expect(await store.getDelivery(orgId, delivery.webhookId, delivery.id)).toEqual(delivery);
      }
      expect(await store.getMonitor(orgId, monitorId)).toEqual(result.monitor);
      expect(await store.countPendingDeliveries(orgId)).toBe(3);
    });

    it("keeps a failed check's structured lastFailure (with the failed browser step) and clears it with the next success", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      expect((await store.getMonitor(orgId, monitorId))!.lastFailure).toBeNull();
      const lastFailure = { reason: "browser_step_failed", message: "Browser step 2 (click on #go) failed: timeout", step: { index: 2, action: "click" as const, selector: "#go" } };
      const failed = await store.recordCheck(orgId, {
        monitorId,
        monitor: { lastCheckedAt: "2026-06-01T08:00:00.000Z", lastStatus: null, lastError: `browser_step_failed: ${lastFailure.message}`, lastFailure, consecutiveFailures: 1, updatedAt: "2026-06-01T08:00:00.000Z" },
        snapshot: null,
        diff: null,
        event: null,
      });
      expect(failed.monitor.lastFailure).toEqual(lastFailure);
      expect((await store.getMonitor(orgId, monitorId))!.lastFailure).toEqual(lastFailure);
      // updateMonitor writes it too; a success clears it with lastError
      const other = { reason: "timeout", message: "slow", step: null };
      expect((await store.updateMonitor(orgId, monitorId, { lastFailure: other, updatedAt: "2026-06-01T08:01:00.000Z" }))!.lastFailure).toEqual(other);
      const ok = await store.recordCheck(orgId, { ...unchangedCheck(monitorId), monitor: { ...unchangedCheck(monitorId).monitor, lastError: null, lastFailure: null, consecutiveFailures: 0 } });
      expect(ok.monitor).toMatchObject({ lastError: null, lastFailure: null });
      expect((await store.getMonitor(orgId, monitorId))!.lastFailure).toBeNull();
    });

    it("a diff without an event stores no delivery", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const result = await store.recordCheck(orgId, { ...changedCheck(monitorId), event: null });
      expect(result.diff).not.toBeNull();
      expect(result.deliveries).toEqual([]);
      expect(await store.countPendingDeliveries()).toBe(0);
    });

    it("records a check whose previousSnapshotId is the newest snapshot, and ignores it when no snapshot is recorded", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const first = changedCheck(monitorId, { sequence: 1 });
      await store.recordCheck(orgId, { ...first, diff: null, event: null, previousSnapshotId: null });
      const second = changedCheck(monitorId, { sequence: 2, previousSnapshotId: first.snapshot!.id });
      const result = await store.recordCheck(orgId, { ...second, previousSnapshotId: first.snapshot!.id });
      expect(result.snapshot?.id).toBe(second.snapshot!.id);
      // Nothing compared gets recorded by an unchanged check, so an outdated id does not matter.
      const unchanged = await store.recordCheck(orgId, { ...unchangedCheck(monitorId), previousSnapshotId: first.snapshot!.id });
      expect(unchanged.snapshot).toBeNull();
      expect((await store.getLatestSnapshot(orgId, monitorId))?.id).toBe(second.snapshot!.id);
    });

    for (const stage of STAGES) {
      it(`a failure injected after the "${stage}" write leaves nothing behind, and the store keeps working`, async () => {
        let failAt: RecordCheckStage | null = null;
        const seen: RecordCheckStage[] = [];
        const store = await ctx.store({
          hooks: {
            onRecordCheckStage(current) {
              seen.push(current);
              if (current === failAt) throw new Error(`injected failure after ${current}`);
            },
          },
        });
        const seeded = await seedOrganization(store);
        const { orgId, monitorId } = seeded;
        // one earlier check, so retention (keep 1) has something to drop
        const [earlier] = await recordChanges(store, orgId, monitorId, 1);
        expect(seen).toEqual(STAGES);
        const before = await footprint(store, seeded);

        failAt = stage;
        const check = changedCheck(monitorId, { previousSnapshotId: earlier!.snapshot!.id, sequence: 7, retention: 1 });
        await expect(store.recordCheck(orgId, check)).rejects.toBeTruthy();
        expect(await footprint(store, seeded)).toEqual(before);
        expect(await store.getSnapshot(orgId, monitorId, earlier!.snapshot!.id)).not.toBeNull();

        failAt = null;
        const result = await store.recordCheck(orgId, check);
        expect(result.deliveries).toHaveLength(2);
        expect((await store.listSnapshots(orgId, monitorId, { limit: 10 })).data.map((s) => s.id)).toEqual([check.snapshot!.id]);
      });
    }
  });

  describe("recordCheck: bad input raises a typed error and writes nothing", () => {
    const cases: [string, string, (check: RecordCheckInput, seeded: SeededOrganization, store: Store) => Promise<[string, RecordCheckInput]>][] = [
      ["an unknown monitor", "not_found", async (check) => ["org", { ...check, monitorId: "mon_00000000000000000000000000" }]],
      [
        "a monitor of another organization",
        "not_found",
        async (check, _seeded, store) => [(await store.ensureOrganization("intruder")).id, check],
      ],
      ["a diff without a snapshot", "invariant_violation", async (check) => ["org", { ...check, snapshot: null }]],
      ["an event without a diff", "invariant_violation", async (check) => ["org", { ...check, diff: null }]],
      [
        "a diff against a snapshot of another monitor",
        "invariant_violation",
        async (check, seeded, store) => {
          const other = await store.createMonitor(seeded.orgId, (await store.getMonitor(seeded.orgId, seeded.monitorId))!);
          const [foreign] = await recordChanges(store, seeded.orgId, other.id, 1);
          return ["org", { ...check, diff: { ...check.diff!, previousSnapshotId: foreign!.snapshot!.id } }];
        },
      ],
      [
        "a check compared with a snapshot that is no longer the newest",
        "stale_snapshot",
        async (check, seeded, store) => {
          await recordChanges(store, seeded.orgId, seeded.monitorId, 1);
          return ["org", { ...check, previousSnapshotId: null }];
        },
      ],
      [
        "a check compared with a snapshot the monitor never had",
        "stale_snapshot",
        async (check) => ["org", { ...check, previousSnapshotId: "snp_00000000000000000000000000" }],
      ],
      ["a fetchedAt that is not a time", "invariant_violation", async (check) => ["org", { ...check, snapshot: { ...check.snapshot!, fetchedAt: "yesterday" } }]],
      ["a diff createdAt that is not a time", "invariant_violation", async (check) => ["org", { ...check, diff: { ...check.diff!, createdAt: "2026-13-45T99:00:00Z" } }]],
      ["a monitor patch time that is not a time", "invariant_violation", async (check) => ["org", { ...check, monitor: { ...check.monitor, lastCheckedAt: "soon" } }]],
      [
        "a snapshot id that already exists",
        "conflict",
        async (check, seeded, store) => {
          const [existing] = await recordChanges(store, seeded.orgId, seeded.monitorId, 1);
          return ["org", { ...check, snapshot: { ...check.snapshot!, id: existing!.snapshot!.id } }];
        },
      ],
      [
        "a diff id that already exists",
        "conflict",
        async (check, seeded, store) => {
          const [existing] = await recordChanges(store, seeded.orgId, seeded.monitorId, 1);
          return ["org", { ...check, diff: { ...check.diff!, id: existing!.diff!.id } }];
        },
      ],
    ];
    for (const [name, code, build] of cases) {
      it(`${name} -> ${code}`, async () => {
        const store = await ctx.store();
        const seeded = await seedOrganization(store);
        const [org, input] = await build(changedCheck(seeded.monitorId, { sequence: 42 }), seeded, store);
        const before = await footprint(store, seeded);
        expect(await rejectionCode(store.recordCheck(org === "org" ? seeded.orgId : org, input))).toBe(code);
        expect(await footprint(store, seeded)).toEqual(before);
      });
    }
  });
}
