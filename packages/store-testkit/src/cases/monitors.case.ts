import { describe, expect, it } from "vitest";
import { encodeCursor } from "@driftwatch/core";
import { apiMonitor } from "../fixtures.js";
import { rejectionCode, type ContractContext } from "../harness.js";

export function monitorCases(ctx: ContractContext): void {
  describe("monitors", () => {
    it("creates with defaults and reads back exactly what was stored (credentials unmasked)", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const input = apiMonitor({
        type: "website",
        url: "https://example.com/pricing",
        selector: "#price",
        browserOptionsJson: { waitStrategy: "networkidle", timeoutMs: 30000, viewport: { width: 1280, height: 800 }, blockResources: ["image"] },
        headers: { authorization: "Bearer s3cret", "x-trace": "1" },
        method: "POST",
        body: '{"q":1}',
        nextCheckAt: "2026-01-01T01:00:00+01:00",
      });
      const monitor = await store.createMonitor(org.id, input);
      expect(monitor).toMatchObject({
        orgId: org.id,
        type: "website",
        name: input.name,
        url: "https://example.com/pricing",
        method: "POST",
        headers: { authorization: "Bearer s3cret", "x-trace": "1" },
        body: '{"q":1}',
        intervalSeconds: 60,
        selector: "#price",
        browserOptionsJson: input.browserOptionsJson,
        state: "active",
        consecutiveFailures: 0,
        lastCheckedAt: null,
        lastChangedAt: null,
        nextCheckAt: "2026-01-01T00:00:00.000Z",
        lastStatus: null,
        lastError: null,
      });
      expect(monitor.id).toMatch(/^mon_/);
      expect(monitor.updatedAt).toBe(monitor.createdAt);
      expect(await store.getMonitor(org.id, monitor.id)).toEqual(monitor);
      expect(await store.getMonitor(org.id, "mon_00000000000000000000000000")).toBeNull();
    });

    it("updates only the given fields, sets explicit nulls, and returns null for an unknown monitor", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const monitor = await store.createMonitor(org.id, apiMonitor({ body: "x" }));
      const updated = await store.updateMonitor(org.id, monitor.id, {
        name: "renamed",
        state: "paused",
        lastError: "timeout",
        consecutiveFailures: 2,
        headers: { accept: "text/plain" },
        updatedAt: "2026-02-01T00:00:00.000Z",
      });
      expect(updated).toMatchObject({ name: "renamed", state: "paused", lastError: "timeout", consecutiveFailures: 2, headers: { accept: "text/plain" }, body: "x" });
      expect(updated?.updatedAt).toBe("2026-02-01T00:00:00.000Z");
      expect(updated?.url).toBe(monitor.url);
      const cleared = await store.updateMonitor(org.id, monitor.id, { lastError: null, body: null, name: undefined });
      expect(cleared).toMatchObject({ lastError: null, body: null, name: "renamed" });
      expect(await store.getMonitor(org.id, monitor.id)).toEqual(cleared);
      expect(await store.updateMonitor(org.id, "mon_00000000000000000000000000", { name: "x" })).toBeNull();
      // fields that are not patchable (a whole record spread into a patch) are ignored: id, type, orgId, createdAt
      const other = await store.ensureOrganization("other");
      const spread = { ...cleared!, id: "mon_00000000000000000000000001", type: "website", orgId: other.id, createdAt: "2000-01-01T00:00:00.000Z" } as never;
      const same = await store.updateMonitor(org.id, monitor.id, spread);
      expect(same).toMatchObject({ id: monitor.id, type: "api", orgId: org.id, createdAt: monitor.createdAt });
      expect(await store.getMonitor(other.id, monitor.id)).toBeNull();
    });

    it("returns copies: changing a returned record does not change the store", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const monitor = await store.createMonitor(org.id, apiMonitor());
      monitor.headers["x-injected"] = "1";
      monitor.name = "mutated";
      const read = await store.getMonitor(org.id, monitor.id);
      expect(read?.headers["x-injected"]).toBeUndefined();
      expect(read?.name).toBe("orders API");
    });

    it("deletes (true once, then false)", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const monitor = await store.createMonitor(org.id, apiMonitor());
      expect(await store.deleteMonitor(org.id, monitor.id)).toBe(true);
      expect(await store.deleteMonitor(org.id, monitor.id)).toBe(false);
      expect(await store.getMonitor(org.id, monitor.id)).toBeNull();
    });

    it("rejects a monitor of an unknown organization with not_found", async () => {
      const store = await ctx.store();
      expect(await rejectionCode(store.createMonitor("org_00000000000000000000000000", apiMonitor()))).toBe("not_found");
    });
  });

  describe("contract", () => {
    it("stores an api monitor's contract as given, replaces and removes it, and a monitor without one has null", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const plain = await store.createMonitor(org.id, apiMonitor());
      expect(plain.contract).toBeNull();
      const byUrl = { document: "https://api.example.com/openapi.yaml", operation: "getPet", status: 200 };
      const withContract = await store.createMonitor(org.id, apiMonitor({ contract: byUrl }));
      expect(withContract.contract).toEqual(byUrl);
      expect((await store.getMonitor(org.id, withContract.id))?.contract).toEqual(byUrl);
      expect((await store.updateMonitor(org.id, withContract.id, { name: "renamed" }))?.contract).toEqual(byUrl);
      const byMonitor = { document: { monitorId: plain.id }, operation: { method: "GET" as const, path: "/pets/{id}" }, status: "2XX" };
      expect((await store.updateMonitor(org.id, withContract.id, { contract: byMonitor }))?.contract).toEqual(byMonitor);
      expect((await store.getMonitor(org.id, withContract.id))?.contract).toEqual(byMonitor);
      expect((await store.updateMonitor(org.id, withContract.id, { contract: null }))?.contract).toBeNull();
      expect((await store.getMonitor(org.id, withContract.id))?.contract).toBeNull();
    });
  });

  describe("learningSince", () => {
    it("is null for a new monitor, set and cleared by a patch, kept by other patches and by a check's record", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const monitor = await store.createMonitor(org.id, apiMonitor());
      expect(monitor.learningSince ?? null).toBeNull();
      const at = "2026-11-28T10:00:00.123Z";
      expect((await store.updateMonitor(org.id, monitor.id, { url: "https://api.example.com/v2", learningSince: at }))?.learningSince).toBe(at);
      expect((await store.getMonitor(org.id, monitor.id))?.learningSince).toBe(at);
      expect((await store.updateMonitor(org.id, monitor.id, { name: "renamed" }))?.learningSince).toBe(at);
      expect((await store.listMonitors(org.id, { limit: 10 })).data.find((m) => m.id === monitor.id)?.learningSince).toBe(at);
      expect((await store.updateMonitor(org.id, monitor.id, { learningSince: null }))?.learningSince ?? null).toBeNull();
    });
  });

  describe("tags", () => {
    it("stores tags normalised (trimmed, lower-cased, deduplicated), replaces them on update, and a monitor without any has []", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const plain = await store.createMonitor(org.id, apiMonitor());
      expect(plain.tags).toEqual([]);
      const tagged = await store.createMonitor(org.id, apiMonitor({ tags: [" Prod ", "team:payments", "prod", "v1.2_a-b"] }));
      expect(tagged.tags).toEqual(["prod", "team:payments", "v1.2_a-b"]);
      expect((await store.getMonitor(org.id, tagged.id))?.tags).toEqual(["prod", "team:payments", "v1.2_a-b"]);
      expect((await store.updateMonitor(org.id, tagged.id, { name: "renamed" }))?.tags).toEqual(["prod", "team:payments", "v1.2_a-b"]);
      expect((await store.updateMonitor(org.id, tagged.id, { tags: ["EU"] }))?.tags).toEqual(["eu"]);
      expect((await store.updateMonitor(org.id, plain.id, { tags: ["eu", "prod"] }))?.tags).toEqual(["eu", "prod"]);
      expect((await store.updateMonitor(org.id, plain.id, { tags: [] }))?.tags).toEqual([]);
      expect(await store.getMonitor(org.id, plain.id)).toMatchObject({ tags: [] });
    });

    it("refuses tags that are not tags (invariant_violation) and keeps the stored ones", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const monitor = await store.createMonitor(org.id, apiMonitor({ tags: ["keep"] }));
      for (const tags of [["a b"], [""], ["x".repeat(65)], Array.from({ length: 21 }, (_, i) => `t${i}`)]) {
        expect(await rejectionCode(store.createMonitor(org.id, apiMonitor({ tags })))).toBe("invariant_violation");
        expect(await rejectionCode(store.updateMonitor(org.id, monitor.id, { tags }))).toBe("invariant_violation");
      }
      expect(await rejectionCode(store.listMonitors(org.id, { limit: 5, tag: "no spaces" }))).toBe("invariant_violation");
      expect((await store.getMonitor(org.id, monitor.id))?.tags).toEqual(["keep"]);
      expect((await store.listMonitors(org.id, { limit: 5 })).data).toHaveLength(1);
    });

    it("lists by tag: only monitors with that exact tag, newest first, paged over the matches, per organization", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const other = await store.ensureOrganization("other");
      const prod: string[] = [];
      for (let i = 0; i < 7; i++) {
        const tags = i % 2 === 0 ? ["prod", `n${i}`] : ["production", "staging"];
        const monitor = await store.createMonitor(org.id, apiMonitor({ name: `m${i}`, tags }));
        if (i % 2 === 0) prod.push(monitor.id);
      }
      await store.createMonitor(other.id, apiMonitor({ tags: ["prod"] }));
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const page = await store.listMonitors(org.id, { limit: 3, cursor, tag: "prod" });
        pages.push(page.data.map((m) => m.id));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(pages).toEqual([[...prod].reverse().slice(0, 3), [...prod].reverse().slice(3)]);
      expect((await store.listMonitors(org.id, { limit: 10, tag: " STAGING" })).data.map((m) => m.name)).toEqual(["m5", "m3", "m1"]);
      // a tag is matched whole: no prefix, substring or JSON-text matches
      expect(await store.listMonitors(org.id, { limit: 10, tag: "pro" })).toEqual({ data: [], nextCursor: null });
      expect(await store.listMonitors(org.id, { limit: 10, tag: "unknown" })).toEqual({ data: [], nextCursor: null });
      expect((await store.listMonitors(org.id, { limit: 10 })).data).toHaveLength(7);
      expect((await store.listMonitors(other.id, { limit: 10, tag: "prod" })).data).toHaveLength(1);
    });
  });

  describe("paging", () => {
    it("empty list: no data, no cursor", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      expect(await store.listMonitors(org.id, { limit: 5 })).toEqual({ data: [], nextCursor: null });
    });

    it("exact page: as many rows as the limit gives no cursor", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await store.createMonitor(org.id, apiMonitor({ name: `m${i}` }))).id);
      const page = await store.listMonitors(org.id, { limit: 4 });
      expect(page.data.map((m) => m.id)).toEqual([...ids].reverse());
      expect(page.nextCursor).toBeNull();
    });

    it("walks every page newest first; the last page is short and has no cursor", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const ids: string[] = [];
      for (let i = 0; i < 11; i++) ids.push((await store.createMonitor(org.id, apiMonitor({ name: `m${i}` }))).id);
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const page = await store.listMonitors(org.id, { limit: 4, cursor });
        pages.push(page.data.map((m) => m.id));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(pages.map((p) => p.length)).toEqual([4, 4, 3]);
      expect(pages.flat()).toEqual([...ids].reverse());
    });

    it("a page boundary on the last row ends with an empty-free walk (8 rows, limit 4: two pages)", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      for (let i = 0; i < 8; i++) await store.createMonitor(org.id, apiMonitor({ name: `m${i}` }));
      const first = await store.listMonitors(org.id, { limit: 4 });
      const second = await store.listMonitors(org.id, { limit: 4, cursor: first.nextCursor });
      expect(second.data).toHaveLength(4);
      expect(second.nextCursor).toBeNull();
    });

    it("clamps the limit to 1..100", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      for (let i = 0; i < 3; i++) await store.createMonitor(org.id, apiMonitor({ name: `m${i}` }));
      expect((await store.listMonitors(org.id, { limit: 0 })).data).toHaveLength(1);
      expect((await store.listMonitors(org.id, { limit: 1000 })).data).toHaveLength(3);
    });

    it("rejects a malformed cursor with invalid_cursor; a well-formed cursor past the end gives an empty page", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      await store.createMonitor(org.id, apiMonitor());
      expect(await rejectionCode(store.listMonitors(org.id, { limit: 4, cursor: "not-a-cursor" }))).toBe("invalid_cursor");
      expect(await rejectionCode(store.listMonitors(org.id, { limit: 4, cursor: Buffer.from('{"v":1,"id":"; DROP"}').toString("base64url") }))).toBe(
        "invalid_cursor"
      );
      expect(await store.listMonitors(org.id, { limit: 4, cursor: encodeCursor("mon_00000000000000000000000000") })).toEqual({ data: [], nextCursor: null });
    });
  });
}
