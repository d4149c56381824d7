import { describe, expect, it } from "vitest";
import { apiMonitor, changedCheck, seedOrganization, webhookInput } from "../fixtures.js";
import { rejectionCode, type ContractContext } from "../harness.js";

export function settingsCases(ctx: ContractContext): void {
  describe("settings", () => {
    it("defaults when never set, replaces given fields, keeps omitted ones; null for an unknown monitor", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const monitor = await store.createMonitor(org.id, apiMonitor());
      expect(await store.getSettings(org.id, monitor.id)).toEqual({ orgId: org.id, monitorId: monitor.id, policyRulesJson: { rules: [] }, snapshotRetention: 100, autoApplySuggestions: false, rejectedSuggestions: [], track: [], alert: null, learning: null, updatedAt: null });

      const rules = { rules: [{ path: "$..updatedAt", action: "ignore" as const }, { path: "$.price", severity: "critical" as const }], arrayKeys: { "$.items": "sku" }, notify: { minSeverity: "medium" as const } };
      const set = await store.updateSettings(org.id, monitor.id, { policyRulesJson: rules, updatedAt: "2026-01-01T00:00:00Z" });
      expect(set).toEqual({ orgId: org.id, monitorId: monitor.id, policyRulesJson: rules, snapshotRetention: 100, autoApplySuggestions: false, rejectedSuggestions: [], track: [], alert: null, learning: null, updatedAt: "2026-01-01T00:00:00.000Z" });
      const retention = await store.updateSettings(org.id, monitor.id, { snapshotRetention: 5, updatedAt: "2026-01-02T00:00:00.000Z" });
      expect(retention).toMatchObject({ policyRulesJson: rules, snapshotRetention: 5, updatedAt: "2026-01-02T00:00:00.000Z" });
      const cleared = await store.updateSettings(org.id, monitor.id, { policyRulesJson: { rules: [] }, updatedAt: "2026-01-03T00:00:00.000Z" });
      expect(cleared).toMatchObject({ policyRulesJson: { rules: [] }, snapshotRetention: 5 });
      expect(await store.getSettings(org.id, monitor.id)).toEqual(cleared);

      expect(await store.getSettings(org.id, "mon_00000000000000000000000000")).toBeNull();
      expect(await store.updateSettings(org.id, "mon_00000000000000000000000000", { snapshotRetention: 1, updatedAt: "2026-01-01T00:00:00.000Z" })).toBeNull();
    });

    it("autoApplySuggestions: false by default, set alone or with other fields, kept when omitted", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const monitor = await store.createMonitor(org.id, apiMonitor());
      // the first write of a monitor's settings may be this field alone
      const on = await store.updateSettings(org.id, monitor.id, { autoApplySuggestions: true, rejectedSuggestions: [], track: [], alert: null, learning: null, updatedAt: "2026-01-01T00:00:00.000Z" });
      expect(on).toEqual({ orgId: org.id, monitorId: monitor.id, policyRulesJson: { rules: [] }, snapshotRetention: 100, autoApplySuggestions: true, rejectedSuggestions: [], track: [], alert: null, learning: null, updatedAt: "2026-01-01T00:00:00.000Z" });
      const rules = { rules: [{ path: "$.price", severity: "high" as const }], volatile: [{ path: "$.generatedAt" }] };
      const kept = await store.updateSettings(org.id, monitor.id, { policyRulesJson: rules, snapshotRetention: 9, updatedAt: "2026-01-02T00:00:00.000Z" });
      expect(kept).toMatchObject({ policyRulesJson: rules, snapshotRetention: 9, autoApplySuggestions: true });
      const off = await store.updateSettings(org.id, monitor.id, { autoApplySuggestions: false, updatedAt: "2026-01-03T00:00:00.000Z" });
      expect(off).toMatchObject({ policyRulesJson: rules, snapshotRetention: 9, autoApplySuggestions: false });
      expect(await store.getSettings(org.id, monitor.id)).toEqual(off);
      // another monitor is not affected
      const other = await store.createMonitor(org.id, apiMonitor());
      await store.updateSettings(org.id, monitor.id, { autoApplySuggestions: true, updatedAt: "2026-01-04T00:00:00.000Z" });
      expect((await store.getSettings(org.id, other.id))?.autoApplySuggestions).toBe(false);
      // a foreign organization neither reads nor changes it
      const foreign = await store.ensureOrganization("globex");
      expect(await store.updateSettings(foreign.id, monitor.id, { autoApplySuggestions: false, updatedAt: "2026-01-05T00:00:00.000Z" })).toBeNull();
      expect((await store.getSettings(org.id, monitor.id))?.autoApplySuggestions).toBe(true);
    });

    it("a monitor created with autoApplySuggestions starts with that setting; without it, it reads false", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const learning = await store.createMonitor(org.id, { ...apiMonitor(), autoApplySuggestions: true });
      // settings no user has changed yet: updatedAt stays null
      expect(await store.getSettings(org.id, learning.id)).toEqual({
        orgId: org.id,
        monitorId: learning.id,
        policyRulesJson: { rules: [] },
        snapshotRetention: 100,
        autoApplySuggestions: true,
        rejectedSuggestions: [],
        track: [],
        alert: null,
        learning: null,
        updatedAt: null,
      });
      const quiet = await store.createMonitor(org.id, { ...apiMonitor(), autoApplySuggestions: false });
      expect((await store.getSettings(org.id, quiet.id))?.autoApplySuggestions).toBe(false);
      const plain = await store.createMonitor(org.id, apiMonitor());
      expect((await store.getSettings(org.id, plain.id))?.autoApplySuggestions).toBe(false);
      // the monitor can turn it off, and its rules stay its own
      const off = await store.updateSettings(org.id, learning.id, { autoApplySuggestions: false, updatedAt: "2026-01-01T00:00:00.000Z" });
      expect(off).toMatchObject({ autoApplySuggestions: false, policyRulesJson: { rules: [] } });
      expect(await store.deleteMonitor(org.id, learning.id)).toBe(true);
      expect(await store.getSettings(org.id, learning.id)).toBeNull();
    });

    it("rejectedSuggestions: none by default, replaced when given, kept when omitted", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const monitor = await store.createMonitor(org.id, apiMonitor());
      const rejected = [
        { kind: "volatile" as const, path: "$.items[*].updated_at" },
        { kind: "volatile" as const, selector: ".promo" },
        { kind: "arrayKey" as const, path: "$.items" },
      ];
      const set = await store.updateSettings(org.id, monitor.id, { rejectedSuggestions: rejected, updatedAt: "2026-01-01T00:00:00.000Z" });
      expect(set).toMatchObject({ rejectedSuggestions: rejected, autoApplySuggestions: false });
      const kept = await store.updateSettings(org.id, monitor.id, { autoApplySuggestions: true, updatedAt: "2026-01-02T00:00:00.000Z" });
      expect(kept?.rejectedSuggestions).toEqual(rejected);
      expect((await store.getSettings(org.id, monitor.id))?.rejectedSuggestions).toEqual(rejected);
      const cleared = await store.updateSettings(org.id, monitor.id, { rejectedSuggestions: [], track: [], alert: null, learning: null, updatedAt: "2026-01-03T00:00:00.000Z" });
      expect(cleared?.rejectedSuggestions).toEqual([]);
    });

    it("an organization learns noise by default; learnNoiseByDefault can be changed and renaming keeps it", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      expect(org.learnNoiseByDefault).toBe(true);
      expect((await store.createOrganization({ slug: "globex" })).learnNoiseByDefault).toBe(true);
      const off = await store.updateOrganization(org.id, { learnNoiseByDefault: false });
      expect(off).toMatchObject({ id: org.id, name: org.name, learnNoiseByDefault: false });
      const renamed = await store.updateOrganization(org.id, { name: "Acme Inc" });
      expect(renamed).toMatchObject({ name: "Acme Inc", learnNoiseByDefault: false });
      expect(await store.getOrganization(org.id)).toMatchObject({ name: "Acme Inc", learnNoiseByDefault: false });
      expect((await store.getOrganizationBySlug("acme"))?.learnNoiseByDefault).toBe(false);
      expect((await store.updateOrganization(org.id, { learnNoiseByDefault: true }))?.learnNoiseByDefault).toBe(true);
      expect(await store.updateOrganization("org_00000000000000000000000000", { learnNoiseByDefault: false })).toBeNull();
    });

    it("learning settings: an organization's learningDefaults (none by default) and a monitor's learning, from creation and replaced by updates", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      expect(org.learningDefaults).toBeNull();
      const set = await store.updateOrganization(org.id, { learningDefaults: { warmupSamples: 0, learningSamples: 4 } });
      expect(set).toMatchObject({ learnNoiseByDefault: true, learningDefaults: { warmupSamples: 0, learningSamples: 4 } });
      expect((await store.getOrganization(org.id))?.learningDefaults).toEqual({ warmupSamples: 0, learningSamples: 4 });
      expect((await store.updateOrganization(org.id, { name: "Acme Inc" }))?.learningDefaults).toEqual({ warmupSamples: 0, learningSamples: 4 });
      // a monitor created with its organization's defaults has them as its own
      const made = await store.createMonitor(org.id, { ...apiMonitor(), autoApplySuggestions: true, learning: { warmupSamples: 0, learningSamples: 4 } });
      expect((await store.getSettings(org.id, made.id))?.learning).toEqual({ warmupSamples: 0, learningSamples: 4 });
      const plain = await store.createMonitor(org.id, { ...apiMonitor(), autoApplySuggestions: true });
      expect((await store.getSettings(org.id, plain.id))?.learning).toBeNull();
      // replaced when given, kept when omitted, null clears it
      expect((await store.updateSettings(org.id, plain.id, { learning: { learningSamples: 2 }, updatedAt: "2026-01-01T00:00:00.000Z" }))?.learning).toEqual({ learningSamples: 2 });
      expect((await store.updateSettings(org.id, plain.id, { snapshotRetention: 5, updatedAt: "2026-01-02T00:00:00.000Z" }))?.learning).toEqual({ learningSamples: 2 });
      expect((await store.getSettings(org.id, plain.id))?.learning).toEqual({ learningSamples: 2 });
      expect((await store.updateSettings(org.id, plain.id, { learning: null, updatedAt: "2026-01-03T00:00:00.000Z" }))?.learning).toBeNull();
      expect((await store.updateOrganization(org.id, { learningDefaults: null }))?.learningDefaults).toBeNull();
    });
  });

  describe("cascade delete", () => {
    it("deleting a monitor deletes its snapshots, diffs and settings; its deliveries stay in the log", async () => {
      const store = await ctx.store();
      const { orgId, monitorId, webhookIds } = await seedOrganization(store);
      await store.updateSettings(orgId, monitorId, { snapshotRetention: 7, autoApplySuggestions: true, updatedAt: new Date().toISOString() });
      const check = changedCheck(monitorId);
      const result = await store.recordCheck(orgId, check);
      expect(await store.deleteMonitor(orgId, monitorId)).toBe(true);
      expect(await store.getSnapshot(orgId, monitorId, check.snapshot!.id)).toBeNull();
      expect(await store.getLatestSnapshot(orgId, monitorId)).toBeNull();
      expect(await store.getDiff(orgId, monitorId, check.diff!.id)).toBeNull();
      expect((await store.listDiffs(orgId, monitorId, { limit: 10 })).data).toEqual([]);
      expect(await store.getSettings(orgId, monitorId)).toBeNull();
      const delivery = result.deliveries[0]!;
      expect(await store.getDelivery(orgId, delivery.webhookId, delivery.id)).toMatchObject({ id: delivery.id, monitorId });
      // a new monitor does not inherit anything
      const fresh = await store.createMonitor(orgId, apiMonitor());
      expect((await store.getSettings(orgId, fresh.id))?.snapshotRetention).toBe(100);
      expect((await store.getSettings(orgId, fresh.id))?.autoApplySuggestions).toBe(false);
      expect(webhookIds).toHaveLength(2);
    });

    it("deleting a webhook deletes its deliveries and their attempts", async () => {
      const store = await ctx.store();
      const { orgId, monitorId, webhookIds } = await seedOrganization(store);
      const result = await store.recordCheck(orgId, changedCheck(monitorId, { at: "2026-01-01T00:00:00.000Z" }));
      const [claimed] = await store.claimDueDeliveries({ now: "2026-01-01T00:00:00.000Z", limit: 1, leaseMs: 1_000, owner: "w", webhookId: webhookIds[0] });
      await store.recordDeliveryAttempt(claimed!.id, "w", { at: "2026-01-01T00:00:01.000Z", state: "pending", nextAttemptAt: "2026-01-01T00:01:00.000Z", responseStatus: 500, error: null, durationMs: 1 });
      expect(await store.deleteWebhook(orgId, webhookIds[0])).toBe(true);
      expect(await store.deleteWebhook(orgId, webhookIds[0])).toBe(false);
      expect(await store.getDelivery(orgId, webhookIds[0], claimed!.id)).toBeNull();
      expect(await store.listDeliveryAttempts(orgId, claimed!.id)).toEqual([]);
      expect(await store.countPendingDeliveries(orgId)).toBe(1);
      const kept = result.deliveries.find((d) => d.webhookId === webhookIds[1])!;
      expect(await store.getDelivery(orgId, webhookIds[1], kept.id)).not.toBeNull();
    });
  });
}

export function webhookCases(ctx: ContractContext): void {
  describe("webhooks", () => {
    it("creates, reads, updates given fields (rotation fields too) and deletes", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const created = await store.createWebhook(org.id, webhookInput({ description: "ops", monitorIds: ["mon_a", "mon_b"], minSeverity: "high" }));
      expect(created).toMatchObject({
        orgId: org.id,
        url: "https://hooks.example.com/driftwatch",
        description: "ops",
        events: ["diff.detected"],
        monitorIds: ["mon_a", "mon_b"],
        minSeverity: "high",
        enabled: true,
        secret: "whsec_dGVzdHNlY3JldA==",
        previousSecret: null,
        previousSecretExpiresAt: null,
      });
      expect(created.id).toMatch(/^whk_/);
      expect(created.updatedAt).toBe(created.createdAt);
      expect(await store.getWebhook(org.id, created.id)).toEqual(created);

      const rotated = await store.updateWebhook(org.id, created.id, {
        secret: "whsec_bmV3",
        previousSecret: created.secret,
        previousSecretExpiresAt: "2026-01-02T00:00:00Z",
        description: null,
        monitorIds: null,
        enabled: false,
        updatedAt: "2026-01-01T00:00:00.000Z",
      });
      expect(rotated).toMatchObject({
        secret: "whsec_bmV3",
        previousSecret: "whsec_dGVzdHNlY3JldA==",
        previousSecretExpiresAt: "2026-01-02T00:00:00.000Z",
        description: null,
        monitorIds: null,
        enabled: false,
        minSeverity: "high",
        url: created.url,
        updatedAt: "2026-01-01T00:00:00.000Z",
      });
      expect(await store.getWebhook(org.id, created.id)).toEqual(rotated);
      expect(await store.updateWebhook(org.id, "whk_00000000000000000000000000", { enabled: true })).toBeNull();
      expect(await store.deleteWebhook(org.id, created.id)).toBe(true);
      expect(await store.getWebhook(org.id, created.id)).toBeNull();
    });

    it("lists newest first with cursors; rejects an unknown organization", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await store.createWebhook(org.id, webhookInput({ url: `https://hooks.example.com/${i}` }))).id);
      const first = await store.listWebhooks(org.id, { limit: 2 });
      expect(first.data.map((w) => w.id)).toEqual([ids[2], ids[1]]);
      const second = await store.listWebhooks(org.id, { limit: 2, cursor: first.nextCursor });
      expect(second).toEqual({ data: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
      expect(await rejectionCode(store.createWebhook("org_00000000000000000000000000", webhookInput()))).toBe("not_found");
    });
  });
}
