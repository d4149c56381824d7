import { describe, expect, it } from "vitest";
import { changedCheck, recordChanges, seedOrganization, unchangedCheck } from "../fixtures.js";
import { rejectionCode, type ContractContext } from "../harness.js";

export function snapshotCases(ctx: ContractContext): void {
  describe("snapshots", () => {
    it("a snapshot keeps what its check silenced; others have none", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const [first] = await recordChanges(store, orgId, monitorId, 1);
      const silenced = {
        previousSnapshotId: first!.snapshot!.id,
        count: 3,
        learnedCount: 2,
        changes: [
          { path: "$.items[0].updated_at", outcome: "volatile" as const, rule: "volatile[1]", learned: { kind: "volatile" as const, index: 0, path: "$.items[*].updated_at" } },
          { path: "$.generatedAt", outcome: "ignored" as const, rule: "rules[0]" },
        ],
      };
      const quiet = changedCheck(monitorId, { sequence: 9, previousSnapshotId: first!.snapshot!.id });
      quiet.diff = null;
      quiet.event = null;
      quiet.snapshot = { ...quiet.snapshot!, silenced };
      const recorded = await store.recordCheck(orgId, quiet);
      expect(recorded.diff).toBeNull();
      expect(recorded.snapshot?.silenced).toEqual(silenced);
      expect((await store.getSnapshot(orgId, monitorId, quiet.snapshot.id))?.silenced).toEqual(silenced);
      expect((await store.getLatestSnapshot(orgId, monitorId))?.silenced).toEqual(silenced);
      expect((await store.getCheckBasis!(orgId, monitorId))?.latestSnapshot?.silenced).toEqual(silenced);
      const listed = (await store.listSnapshots(orgId, monitorId, { limit: 10 })).data;
      expect(listed.map((snapshot) => snapshot.silenced ?? null)).toEqual([silenced, null]);
      expect(listed[0]?.body).toBeUndefined();
    });

    it("a check's basis is the monitor's settings and newest snapshot (with its body), as read one by one", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const other = await store.ensureOrganization("other-basis");
      expect(await store.getCheckBasis!(orgId, monitorId)).toEqual({ settings: await store.getSettings(orgId, monitorId), latestSnapshot: null });
      await recordChanges(store, orgId, monitorId, 2);
      await store.updateSettings(orgId, monitorId, { snapshotRetention: 7, autoApplySuggestions: true, updatedAt: new Date().toISOString() });
      const basis = await store.getCheckBasis!(orgId, monitorId);
      expect(basis).toEqual({ settings: await store.getSettings(orgId, monitorId), latestSnapshot: await store.getLatestSnapshot(orgId, monitorId) });
      expect(basis?.settings.snapshotRetention).toBe(7);
      expect(typeof basis?.latestSnapshot?.body).toBe("string");
      // unknown, or another organization's
      expect(await store.getCheckBasis!(orgId, "mon_00000000000000000000000000")).toBeNull();
      expect(await store.getCheckBasis!(other.id, monitorId)).toBeNull();
      expect(await rejectionCode(store.getCheckBasis!(orgId, ""))).toBe("invariant_violation");
    });

    it("latest, list newest first without bodies, one with its body and validators", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      expect(await store.getLatestSnapshot(orgId, monitorId)).toBeNull();
      expect(await store.listSnapshots(orgId, monitorId, { limit: 5 })).toEqual({ data: [], nextCursor: null });
      const checks = await recordChanges(store, orgId, monitorId, 3);
      const ids = checks.map((c) => c.snapshot!.id);

      const latest = await store.getLatestSnapshot(orgId, monitorId);
      expect(latest?.id).toBe(ids[2]);
      expect(latest?.body).toBe(checks[2]!.snapshot!.body);

      const first = await store.listSnapshots(orgId, monitorId, { limit: 2 });
      expect(first.data.map((s) => s.id)).toEqual([ids[2], ids[1]]);
      for (const s of first.data) expect(s.body).toBeUndefined();
      const second = await store.listSnapshots(orgId, monitorId, { limit: 2, cursor: first.nextCursor });
      expect(second).toEqual({ data: [expect.objectContaining({ id: ids[0] })], nextCursor: null });

      const one = await store.getSnapshot(orgId, monitorId, ids[0]!);
      const input = checks[0]!.snapshot!;
      expect(one).toEqual({
        id: input.id,
        orgId,
        monitorId,
        fetchedAt: new Date(input.fetchedAt).toISOString(),
        status: 200,
        latencyMs: 12,
        contentType: "application/json",
        contentHash: input.contentHash,
        size: input.size,
        browserRender: false,
        body: input.body,
        etag: '"v0"',
        lastModified: null,
      });
      expect(await store.getSnapshot(orgId, monitorId, "snp_00000000000000000000000000")).toBeNull();
    });

    it("keeps the newest `retention` snapshots of the monitor; diffs go with their snapshots", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const other = await store.createMonitor(orgId, (await store.getMonitor(orgId, monitorId))!);
      await recordChanges(store, orgId, other.id, 2);
      const checks = await recordChanges(store, orgId, monitorId, 5, { retention: 3 });
      const kept = (await store.listSnapshots(orgId, monitorId, { limit: 10 })).data.map((s) => s.id);
      expect(kept).toEqual(checks.slice(2).map((c) => c.snapshot!.id).reverse());
      expect(await store.getSnapshot(orgId, monitorId, checks[0]!.snapshot!.id)).toBeNull();
      // The diffs of the dropped snapshots are gone; those of the kept snapshots stay.
      const diffs = (await store.listDiffs(orgId, monitorId, { limit: 10 })).data;
      expect(diffs.map((d) => d.snapshotId)).toEqual(kept);
      expect(await store.getDiff(orgId, monitorId, checks[0]!.diff!.id)).toBeNull();
      expect(await store.getDiff(orgId, monitorId, checks[1]!.diff!.id)).toBeNull();
      expect(await store.getDiff(orgId, monitorId, checks[2]!.diff!.id)).not.toBeNull();
      // another monitor's snapshots and diffs are not touched
      expect((await store.listSnapshots(orgId, other.id, { limit: 10 })).data).toHaveLength(2);
      expect((await store.listDiffs(orgId, other.id, { limit: 10 })).data).toHaveLength(2);
    });

    it("a retention below 1 still keeps the newest snapshot", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const checks = await recordChanges(store, orgId, monitorId, 3, { retention: 0 });
      expect((await store.listSnapshots(orgId, monitorId, { limit: 10 })).data.map((s) => s.id)).toEqual([checks[2]!.snapshot!.id]);
    });

    it("uses the monitor's snapshotRetention setting when the check does not say", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      await store.updateSettings(orgId, monitorId, { snapshotRetention: 2, updatedAt: new Date().toISOString() });
      await recordChanges(store, orgId, monitorId, 4);
      expect((await store.listSnapshots(orgId, monitorId, { limit: 10 })).data).toHaveLength(2);
    });

    it("an unchanged check updates the monitor only", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const result = await store.recordCheck(orgId, unchangedCheck(monitorId, "2026-04-01T00:00:00.000Z"));
      expect(result).toEqual({ monitor: expect.objectContaining({ id: monitorId, lastCheckedAt: "2026-04-01T00:00:00.000Z", lastStatus: 200 }), snapshot: null, diff: null, deliveries: [] });
      expect(await store.getLatestSnapshot(orgId, monitorId)).toBeNull();
      expect(await store.countPendingDeliveries(orgId)).toBe(0);
    });
  });
}

export function diffCases(ctx: ContractContext): void {
  describe("diffs", () => {
    it("reads a diff back whole, with monitorId, snapshotId and previousSnapshotId", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const [first, second] = await recordChanges(store, orgId, monitorId, 2);
      const diff = await store.getDiff(orgId, monitorId, second!.diff!.id);
      expect(diff).toEqual({ ...second!.diff, orgId, monitorId, snapshotId: second!.snapshot!.id, previousSnapshotId: first!.snapshot!.id });
      expect(await store.getDiff(orgId, monitorId, "dif_00000000000000000000000000")).toBeNull();
    });

    it("lists newest first and filters by since, until (inclusive), minSeverity and classification, also across pages", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const plan = [
        { at: "2026-01-01T00:00:00.000Z", severity: "low", classification: "value_change" },
        { at: "2026-01-02T00:00:00.000Z", severity: "high", classification: "value_change" },
        { at: "2026-01-03T00:00:00.000Z", severity: "critical", classification: "schema_change" },
        { at: "2026-01-04T00:00:00.000Z", severity: "info", classification: "value_change" },
        { at: "2026-01-05T00:00:00.000Z", severity: "medium", classification: "schema_change" },
      ] as const;
      const ids: string[] = [];
      let previous: string | null = null;
      for (const [i, step] of plan.entries()) {
        const check = changedCheck(monitorId, { previousSnapshotId: previous, sequence: i, ...step });
        await store.recordCheck(orgId, check);
        previous = check.snapshot!.id;
        ids.push(check.diff!.id);
      }
      const list = async (query: object): Promise<string[]> => (await store.listDiffs(orgId, monitorId, { limit: 10, ...query })).data.map((d) => d.id);
      const [d0, d1, d2, d3, d4] = ids;
      expect(await list({})).toEqual([d4, d3, d2, d1, d0]);
      expect(await list({ since: "2026-01-03T00:00:00.000Z" })).toEqual([d4, d3, d2]);
      expect(await list({ until: "2026-01-02T00:00:00Z" })).toEqual([d1, d0]);
      expect(await list({ since: "2026-01-02T00:00:00.000Z", until: "2026-01-02T00:00:00.000Z" })).toEqual([d1]);
      expect(await list({ minSeverity: "high" })).toEqual([d2, d1]);
      expect(await list({ minSeverity: "info" })).toEqual([d4, d3, d2, d1, d0]);
      expect(await list({ classification: "schema_change" })).toEqual([d4, d2]);
      expect(await list({ classification: "content_change" })).toEqual([]);
      expect(await list({ classification: "value_change", minSeverity: "low", since: "2026-01-01T12:00:00.000Z" })).toEqual([d1]);

      const page1 = await store.listDiffs(orgId, monitorId, { limit: 1, minSeverity: "medium" });
      const page2 = await store.listDiffs(orgId, monitorId, { limit: 1, minSeverity: "medium", cursor: page1.nextCursor });
      const page3 = await store.listDiffs(orgId, monitorId, { limit: 1, minSeverity: "medium", cursor: page2.nextCursor });
      expect([...page1.data, ...page2.data, ...page3.data].map((d) => d.id)).toEqual([d4, d2, d1]);
      expect(page3.nextCursor).toBeNull();
      expect(await rejectionCode(store.listDiffs(orgId, monitorId, { limit: 1, cursor: "%%%" }))).toBe("invalid_cursor");
    });

    it("stores a website diff whole (summary, changedTargets, render context) and filters it as content_change", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const check = changedCheck(monitorId, { severity: "low" });
      const { schemaChanges: _s, valueChanges: _v, ...common } = check.diff as Extract<typeof check.diff, { schemaChanges: number }>;
      const websiteDiff = {
        ...common,
        classification: "content_change" as const,
        summary: { additions: 1, removals: 0, modifications: 2 },
        changedTargets: ["#price", "main > h1"],
        browserRender: true,
        waitStrategy: "networkidle" as const,
        selector: "main",
        changes: [{ path: "#price", category: "value" as const, op: "replace" as const, severity: "low" as const, detail: "text changed", before: "$10", after: "$12" }],
      };
      await store.recordCheck(orgId, { ...check, diff: websiteDiff });
      const stored = await store.getDiff(orgId, monitorId, websiteDiff.id);
      expect(stored).toEqual({ ...websiteDiff, orgId, monitorId, snapshotId: check.snapshot!.id });
      expect((await store.listDiffs(orgId, monitorId, { limit: 5, classification: "content_change" })).data.map((d) => d.id)).toEqual([websiteDiff.id]);
      expect((await store.listDiffs(orgId, monitorId, { limit: 5, classification: "value_change" })).data).toEqual([]);
    });

    it("a diff belongs to its monitor: another monitor's id does not find it", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const other = await store.createMonitor(orgId, (await store.getMonitor(orgId, monitorId))!);
      const [check] = await recordChanges(store, orgId, monitorId, 1);
      expect(await store.getDiff(orgId, other.id, check!.diff!.id)).toBeNull();
      expect(await store.getSnapshot(orgId, other.id, check!.snapshot!.id)).toBeNull();
      expect((await store.listDiffs(orgId, other.id, { limit: 10 })).data).toEqual([]);
    });
  });
}
