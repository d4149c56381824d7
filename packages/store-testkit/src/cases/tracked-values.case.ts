import { describe, expect, it } from "vitest";
import type { RecordCheckInput, Store, TrackedCheck } from "@driftwatch/core";
import { changedCheck, seedOrganization, unchangedCheck } from "../fixtures.js";
import type { ContractContext } from "../harness.js";

/** The readings of one name as the API pages them: value, snapshot and reason, newest first. */
async function readings(store: Store, orgId: string, monitorId: string, name: string): Promise<unknown[]> {
  const page = await store.listTrackedValues(orgId, monitorId, name, { limit: 100 });
  return page.data.map((r) => ({ value: r.value, snapshotId: r.snapshotId, reason: r.reason, at: r.at }));
}

function withTracked(check: RecordCheckInput, tracked: TrackedCheck): RecordCheckInput {
  return { ...check, tracked };
}

export function trackedValueCases(ctx: ContractContext): void {
  describe("tracked values and alert state", () => {
    it("settings keep track and alert; alert null removes the conditions, other patches leave both", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const track = [
        { name: "price", path: "$.price", extract: "price" as const },
        { name: "status", path: "$.status" },
      ];
      const alert = { when: "any" as const, conditions: [{ value: "price", op: "lt" as const, to: 200 }, { value: "status", op: "ne" as const, to: "operational", forChecks: 3 }] };
      const set = await store.updateSettings(orgId, monitorId, { track, alert, updatedAt: "2026-03-01T00:00:00.000Z" });
      expect(set).toMatchObject({ track, alert });
      expect(await store.getSettings(orgId, monitorId)).toMatchObject({ track, alert, snapshotRetention: 100 });
      const other = await store.updateSettings(orgId, monitorId, { snapshotRetention: 5, updatedAt: "2026-03-02T00:00:00.000Z" });
      expect(other).toMatchObject({ track, alert, snapshotRetention: 5 });
      const cleared = await store.updateSettings(orgId, monitorId, { alert: null, track: [], updatedAt: "2026-03-03T00:00:00.000Z" });
      expect(cleared).toMatchObject({ track: [], alert: null, snapshotRetention: 5 });
      expect(await store.getSettings(orgId, monitorId)).toMatchObject({ track: [], alert: null });
    });

    it("records each check's readings with its snapshot (numbers, texts, booleans, prices, missing values with their reason), newest first, paged", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const first = changedCheck(monitorId, { sequence: 1, at: "2026-04-01T10:00:00.000Z" });
      await store.recordCheck(
        orgId,
        withTracked(
          { ...first, diff: null, event: null },
          {
            at: "2026-04-01T10:00:00.000Z",
            snapshotId: first.snapshot!.id,
            readings: [
              { name: "price", value: { amount: 219, currency: "EUR" } },
              { name: "count", value: 0 },
              { name: "open", value: false },
              { name: "status", value: "operational" },
            ],
          },
        ),
      );
      // an unchanged check records readings against the newest snapshot
      await store.recordCheck(
        orgId,
        withTracked(unchangedCheck(monitorId, "2026-04-01T10:05:00.000Z"), {
          at: "2026-04-01T10:05:00+00:00",
          snapshotId: first.snapshot!.id,
          readings: [
            { name: "price", value: null, reason: "the page shows no price" },
            { name: "count", value: 3.5 },
            { name: "open", value: true },
            { name: "status", value: "degraded" },
          ],
        }),
      );
      expect(await readings(store, orgId, monitorId, "price")).toEqual([
        { value: null, snapshotId: first.snapshot!.id, reason: "the page shows no price", at: "2026-04-01T10:05:00.000Z" },
        { value: { amount: 219, currency: "EUR" }, snapshotId: first.snapshot!.id, reason: null, at: "2026-04-01T10:00:00.000Z" },
      ]);
      expect((await readings(store, orgId, monitorId, "count")).map((r) => (r as { value: unknown }).value)).toEqual([3.5, 0]);
      expect((await readings(store, orgId, monitorId, "open")).map((r) => (r as { value: unknown }).value)).toEqual([true, false]);
      expect((await readings(store, orgId, monitorId, "status")).map((r) => (r as { value: unknown }).value)).toEqual(["degraded", "operational"]);
      expect(await readings(store, orgId, monitorId, "unknown")).toEqual([]);

      const page1 = await store.listTrackedValues(orgId, monitorId, "status", { limit: 1 });
      expect(page1.data.map((r) => r.value)).toEqual(["degraded"]);
      expect(page1.nextCursor).not.toBeNull();
      const page2 = await store.listTrackedValues(orgId, monitorId, "status", { limit: 1, cursor: page1.nextCursor! });
      expect(page2.data.map((r) => r.value)).toEqual(["operational"]);
      expect(page2.data[0]).toMatchObject({ orgId, monitorId, name: "status" });
      expect(page2.data[0]!.id).toMatch(/^val_/);
      expect(page2.nextCursor).toBeNull();
    });

    it("keeps the newest `retention` readings of each name, and another organization sees none", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const first = changedCheck(monitorId, { sequence: 1 });
      await store.recordCheck(orgId, { ...first, diff: null, event: null });
      for (let i = 0; i < 5; i++) {
        const at = new Date(Date.UTC(2026, 4, 1, 0, i)).toISOString();
        const names = i < 4 ? ["a", "b"] : ["a"];
        await store.recordCheck(
          orgId,
          withTracked(unchangedCheck(monitorId, at), { at, snapshotId: first.snapshot!.id, readings: names.map((name) => ({ name, value: i })), retention: 3 }),
        );
      }
      expect((await readings(store, orgId, monitorId, "a")).map((r) => (r as { value: unknown }).value)).toEqual([4, 3, 2]);
      expect((await readings(store, orgId, monitorId, "b")).map((r) => (r as { value: unknown }).value)).toEqual([3, 2, 1]);
      const intruder = await store.ensureOrganization("intruder");
      expect((await store.listTrackedValues(intruder.id, monitorId, "a", { limit: 10 })).data).toEqual([]);
      expect(await store.getAlertState(intruder.id, monitorId)).toBeNull();
    });

    it("keeps the alert state of the last check: replaced, left alone when omitted, removed with null", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const first = changedCheck(monitorId, { sequence: 1 });
      await store.recordCheck(orgId, { ...first, diff: null, event: null });
      expect(await store.getAlertState(orgId, monitorId)).toBeNull();
      const state = { key: "k", previous: { values: { price: { amount: 1, currency: null }, text: "x" } }, streaks: [2, 0], matched: false };
      const at = "2026-05-02T00:00:00.000Z";
      await store.recordCheck(orgId, withTracked(unchangedCheck(monitorId, at), { at, snapshotId: first.snapshot!.id, readings: [], alertState: state }));
      expect(await store.getAlertState(orgId, monitorId)).toEqual(state);
      await store.recordCheck(orgId, withTracked(unchangedCheck(monitorId, at), { at, snapshotId: first.snapshot!.id, readings: [{ name: "a", value: 1 }] }));
      expect(await store.getAlertState(orgId, monitorId)).toEqual(state);
      const next = { ...state, streaks: [3, 1], matched: true };
      await store.recordCheck(orgId, withTracked(unchangedCheck(monitorId, at), { at, snapshotId: first.snapshot!.id, readings: [], alertState: next }));
      expect(await store.getAlertState(orgId, monitorId)).toEqual(next);
      await store.recordCheck(orgId, withTracked(unchangedCheck(monitorId, at), { at, snapshotId: first.snapshot!.id, readings: [], alertState: null }));
      expect(await store.getAlertState(orgId, monitorId)).toBeNull();
    });

    it("a check that fails to record leaves no reading and no state behind; deleting the monitor removes both", async () => {
      let fail = false;
      const store = await ctx.store({
        hooks: {
          onRecordCheckStage(stage) {
            if (fail && stage === "retention") throw new Error("injected failure after retention");
          },
        },
      });
      const { orgId, monitorId } = await seedOrganization(store);
      const first = changedCheck(monitorId, { sequence: 1 });
      const tracked: TrackedCheck = { at: "2026-05-03T00:00:00.000Z", snapshotId: first.snapshot!.id, readings: [{ name: "a", value: 1 }], alertState: { matched: true } };
      fail = true;
      await expect(store.recordCheck(orgId, withTracked({ ...first, diff: null, event: null }, tracked))).rejects.toBeTruthy();
      expect(await readings(store, orgId, monitorId, "a")).toEqual([]);
      expect(await store.getAlertState(orgId, monitorId)).toBeNull();
      fail = false;
      await store.recordCheck(orgId, withTracked({ ...first, diff: null, event: null }, tracked));
      expect(await readings(store, orgId, monitorId, "a")).toHaveLength(1);
      expect(await store.getAlertState(orgId, monitorId)).toEqual({ matched: true });
      expect(await store.deleteMonitor(orgId, monitorId)).toBe(true);
      expect(await readings(store, orgId, monitorId, "a")).toEqual([]);
      expect(await store.getAlertState(orgId, monitorId)).toBeNull();
    });
  });
}
