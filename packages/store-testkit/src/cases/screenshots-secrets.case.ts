import { newId, type NewScreenshot, type Store } from "@driftwatch/core";
import { describe, expect, it } from "vitest";
import { recordChanges, seedOrganization } from "../fixtures.js";
import type { ContractContext } from "../harness.js";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Bytes that start like a PNG (the stores check the signature, not the image), `size` long, every byte used. */
export function pngLike(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(Math.max(size, 16));
  out.set(PNG_SIGNATURE);
  for (let i = 8; i < out.length; i++) out[i] = (i * 31 + seed * 7) & 0xff;
  return out;
}

function shot(snapshotId: string, data: Uint8Array = pngLike(64)): NewScreenshot {
  return { snapshotId, type: "image/png", data, width: 32, height: 16, createdAt: new Date().toISOString() };
}

async function twoOrganizations(store: Store) {
  const a = await seedOrganization(store, "acme");
  const b = await seedOrganization(store, "globex");
  return { a, b };
}

export function screenshotCases(ctx: ContractContext): void {
  describe("screenshots", () => {
    it("keeps a snapshot's screenshot byte for byte and replaces it on a second put", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const [check] = await recordChanges(store, orgId, monitorId, 1);
      const snapshotId = check!.snapshot!.id;
      // Every byte value, so an encoding that loses any of them fails.
      const data = pngLike(8 + 256 * 3);
      for (let i = 0; i < 256; i++) data[8 + i] = i;
      await store.putScreenshot(orgId, monitorId, shot(snapshotId, data));
      const got = await store.getScreenshot(orgId, monitorId, snapshotId);
      expect(got).toMatchObject({ orgId, monitorId, snapshotId, type: "image/png", width: 32, height: 16, bytes: data.byteLength });
      expect(Buffer.from(got!.data).equals(Buffer.from(data))).toBe(true);
      const other = pngLike(100, 9);
      await store.putScreenshot(orgId, monitorId, { ...shot(snapshotId, other), width: 50, height: 2 });
      const replaced = await store.getScreenshot(orgId, monitorId, snapshotId);
      expect(Buffer.from(replaced!.data).equals(Buffer.from(other))).toBe(true);
      expect(replaced).toMatchObject({ width: 50, height: 2, bytes: other.byteLength });
    });

    it("refuses an unknown or foreign snapshot, and bytes that are not the image type", async () => {
      const store = await ctx.store();
      const { a, b } = await twoOrganizations(store);
      const [check] = await recordChanges(store, a.orgId, a.monitorId, 1);
      const snapshotId = check!.snapshot!.id;
      await expect(store.putScreenshot(a.orgId, a.monitorId, shot(newId("snapshot")))).rejects.toMatchObject({ code: "not_found" });
      await expect(store.putScreenshot(b.orgId, b.monitorId, shot(snapshotId))).rejects.toMatchObject({ code: "not_found" });
      await expect(store.putScreenshot(b.orgId, a.monitorId, shot(snapshotId))).rejects.toMatchObject({ code: "not_found" });
      await expect(store.putScreenshot(a.orgId, a.monitorId, shot(snapshotId, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9])))).rejects.toMatchObject({
        code: "invariant_violation",
      });
      await store.putScreenshot(a.orgId, a.monitorId, shot(snapshotId));
      expect(await store.getScreenshot(b.orgId, a.monitorId, snapshotId)).toBeNull();
      expect(await store.getScreenshot(b.orgId, b.monitorId, snapshotId)).toBeNull();
      expect(await store.getScreenshot(a.orgId, a.monitorId, newId("snapshot"))).toBeNull();
    });

    it("goes with its snapshot: retention, and the monitor's deletion", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      const checks = await recordChanges(store, orgId, monitorId, 3, { retention: 3 });
      for (const check of checks) await store.putScreenshot(orgId, monitorId, shot(check.snapshot!.id));
      // Two more checks with retention 3: the first two snapshots go, and their screenshots.
      const more = await recordChanges(store, orgId, monitorId, 2, { retention: 3 });
      expect(await store.getScreenshot(orgId, monitorId, checks[0]!.snapshot!.id)).toBeNull();
      expect(await store.getScreenshot(orgId, monitorId, checks[1]!.snapshot!.id)).toBeNull();
      expect(await store.getScreenshot(orgId, monitorId, checks[2]!.snapshot!.id)).not.toBeNull();
      expect(await store.pruneScreenshots(orgId, monitorId, 3)).toBe(0);
      expect(await store.getScreenshot(orgId, monitorId, checks[2]!.snapshot!.id)).not.toBeNull();
      await store.putScreenshot(orgId, monitorId, shot(more[1]!.snapshot!.id));
      expect(await store.deleteMonitor(orgId, monitorId)).toBe(true);
      expect(await store.getScreenshot(orgId, monitorId, checks[2]!.snapshot!.id)).toBeNull();
      expect(await store.getScreenshot(orgId, monitorId, more[1]!.snapshot!.id)).toBeNull();
    });

    it("keeps the latest failed step's page per monitor, with its step, gone with the monitor", async () => {
      const store = await ctx.store();
      const { a, b } = await twoOrganizations(store);
      const at = new Date().toISOString();
      expect(await store.getFailureScreenshot(a.orgId, a.monitorId)).toBeNull();
      const first = pngLike(80, 3);
      await store.putFailureScreenshot(a.orgId, a.monitorId, { type: "image/png", data: first, width: 10, height: 20, createdAt: at, step: { index: 2, action: "click", selector: "#go" } });
      const got = await store.getFailureScreenshot(a.orgId, a.monitorId);
      expect(got).toMatchObject({ orgId: a.orgId, monitorId: a.monitorId, type: "image/png", width: 10, height: 20, bytes: 80, step: { index: 2, action: "click", selector: "#go" } });
      expect(Buffer.from(got!.data).equals(Buffer.from(first))).toBe(true);
      const second = pngLike(90, 4);
      await store.putFailureScreenshot(a.orgId, a.monitorId, { type: "image/png", data: second, width: 11, height: 21, createdAt: at, step: { index: 0, action: "acceptCookies", selector: null } });
      const replaced = await store.getFailureScreenshot(a.orgId, a.monitorId);
      expect(replaced).toMatchObject({ width: 11, height: 21, step: { index: 0, action: "acceptCookies", selector: null } });
      expect(Buffer.from(replaced!.data).equals(Buffer.from(second))).toBe(true);
      expect(await store.getFailureScreenshot(b.orgId, a.monitorId)).toBeNull();
      await expect(
        store.putFailureScreenshot(b.orgId, a.monitorId, { type: "image/png", data: second, width: 1, height: 1, createdAt: at, step: { index: 0, action: "click", selector: "#x" } }),
      ).rejects.toMatchObject({ code: "not_found" });
      expect(await store.deleteMonitor(a.orgId, a.monitorId)).toBe(true);
      expect(await store.getFailureScreenshot(a.orgId, a.monitorId)).toBeNull();
    });

    it("records a visual_change diff (a website diff with visual) and filters diffs by that classification", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const monitor = await store.createMonitor(org.id, { type: "website", name: "w", url: "https://example.com/", method: "GET", headers: {}, body: null, intervalSeconds: 60, selector: null, browserOptionsJson: null, state: "active", nextCheckAt: null });
      const [first] = await recordChanges(store, org.id, monitor.id, 1);
      const at = new Date().toISOString();
      const snapshotId = newId("snapshot");
      const diffId = newId("diff");
      const visual = { changedPercent: 12.406, regions: [{ x: 0, y: 112, width: 800, height: 408 }] };
      const change = { path: "visual", category: "visual" as const, op: "replace" as const, severity: "high" as const, detail: "12.406% of the screenshot changed in 1 region" };
      const recorded = await store.recordCheck(org.id, {
        monitorId: monitor.id,
        monitor: { lastCheckedAt: at, lastChangedAt: at, updatedAt: at },
        snapshot: { ...first!.snapshot!, id: snapshotId, fetchedAt: at },
        diff: {
          id: diffId,
          previousSnapshotId: first!.snapshot!.id,
          classification: "visual_change",
          diffFingerprint: `sha256:${"1".repeat(64)}`,
          topSeverity: "high",
          changes: [change],
          requestId: newId("request"),
          status: 200,
          latencyMs: 10,
          createdAt: at,
          summary: { additions: 0, removals: 0, modifications: 0 },
          changedTargets: [],
          browserRender: true,
          waitStrategy: "load",
          selector: null,
          visual,
        },
        event: null,
        previousSnapshotId: first!.snapshot!.id,
      });
      expect(recorded.diff).toMatchObject({ classification: "visual_change", visual, changes: [change] });
      expect(await store.getDiff(org.id, monitor.id, diffId)).toMatchObject({ classification: "visual_change", visual, summary: { additions: 0, removals: 0, modifications: 0 } });
      expect(JSON.parse((await store.getDiffJson(org.id, monitor.id, diffId))!)).toMatchObject({ classification: "visual_change", visual });
      const visualOnly = await store.listDiffs(org.id, monitor.id, { limit: 10, cursor: null, classification: "visual_change" });
      expect(visualOnly.data.map((d) => d.id)).toEqual([diffId]);
      const contentOnly = await store.listDiffs(org.id, monitor.id, { limit: 10, cursor: null, classification: "content_change" });
      expect(contentOnly.data).toEqual([]);
    });

    it("deleteMonitorScreenshots removes the monitor's screenshots only", async () => {
      const store = await ctx.store();
      const { a, b } = await twoOrganizations(store);
      const [x] = await recordChanges(store, a.orgId, a.monitorId, 1);
      const [y] = await recordChanges(store, b.orgId, b.monitorId, 1);
      await store.putScreenshot(a.orgId, a.monitorId, shot(x!.snapshot!.id));
      await store.putScreenshot(b.orgId, b.monitorId, shot(y!.snapshot!.id));
      await store.deleteMonitorScreenshots(b.orgId, a.monitorId);
      expect(await store.getScreenshot(a.orgId, a.monitorId, x!.snapshot!.id)).not.toBeNull();
      await store.deleteMonitorScreenshots(a.orgId, a.monitorId);
      expect(await store.getScreenshot(a.orgId, a.monitorId, x!.snapshot!.id)).toBeNull();
      expect(await store.getScreenshot(b.orgId, b.monitorId, y!.snapshot!.id)).not.toBeNull();
    });
  });
}

export function secretCases(ctx: ContractContext): void {
  describe("secrets", () => {
    it("creates, lists by name, finds by name and deletes, per organization", async () => {
      const store = await ctx.store();
      const { a, b } = await twoOrganizations(store);
      const at = new Date().toISOString();
      const second = await store.createSecret(a.orgId, { id: newId("secret"), name: "shop.password", sealedValue: "dw1.sealed-b", createdAt: at, createdBy: null });
      const first = await store.createSecret(a.orgId, { id: newId("secret"), name: "bank-pin", sealedValue: "dw1.sealed-a", createdAt: at, createdBy: null });
      expect(first).toMatchObject({ orgId: a.orgId, name: "bank-pin", sealedValue: "dw1.sealed-a", createdBy: null });
      expect((await store.listSecrets(a.orgId)).map((s) => s.name)).toEqual(["bank-pin", "shop.password"]);
      expect(await store.listSecrets(b.orgId)).toEqual([]);
      expect(await store.getSecretByName(a.orgId, "shop.password")).toEqual(second);
      expect(await store.getSecretByName(b.orgId, "shop.password")).toBeNull();
      // The same name in another organization is another secret.
      await store.createSecret(b.orgId, { id: newId("secret"), name: "shop.password", sealedValue: "dw1.other", createdAt: at, createdBy: null });
      expect(await store.deleteSecret(b.orgId, first.id)).toBe(false);
      expect(await store.deleteSecret(a.orgId, first.id)).toBe(true);
      expect(await store.deleteSecret(a.orgId, first.id)).toBe(false);
      expect((await store.listSecrets(a.orgId)).map((s) => s.name)).toEqual(["shop.password"]);
      expect((await store.getSecretByName(b.orgId, "shop.password"))?.sealedValue).toBe("dw1.other");
    });

    it("refuses a second secret of the same name in an organization", async () => {
      const store = await ctx.store();
      const { orgId } = await seedOrganization(store);
      const at = new Date().toISOString();
      await store.createSecret(orgId, { id: newId("secret"), name: "pw", sealedValue: "dw1.x", createdAt: at, createdBy: null });
      await expect(store.createSecret(orgId, { id: newId("secret"), name: "pw", sealedValue: "dw1.y", createdAt: at, createdBy: null })).rejects.toMatchObject({ code: "conflict" });
      expect((await store.listSecrets(orgId)).map((s) => s.sealedValue)).toEqual(["dw1.x"]);
    });

    it("goes with its organization", async () => {
      const store = await ctx.store();
      const { orgId } = await seedOrganization(store);
      await store.createSecret(orgId, { id: newId("secret"), name: "pw", sealedValue: "dw1.x", createdAt: new Date().toISOString(), createdBy: null });
      expect(await store.deleteOrganization(orgId)).toBe(true);
      expect(await store.listSecrets(orgId)).toEqual([]);
    });
  });
}
