import { describe, expect, it } from "vitest";
import type { ContractContext } from "../harness.js";
import { rejectionCode } from "../harness.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function organizationCases(ctx: ContractContext): void {
  describe("organizations", () => {
    it("creates, reads by id and slug, and counts", async () => {
      const store = await ctx.store();
      expect(await store.countOrganizations()).toBe(0);
      const org = await store.createOrganization({ slug: "acme", name: "Acme Inc." });
      expect(org).toMatchObject({ slug: "acme", name: "Acme Inc." });
      expect(org.id).toMatch(/^org_/);
      expect(org.createdAt).toMatch(ISO);
      expect(await store.getOrganization(org.id)).toEqual(org);
      expect(await store.getOrganizationBySlug("acme")).toEqual(org);
      expect(await store.getOrganization("org_00000000000000000000000000")).toBeNull();
      expect(await store.getOrganizationBySlug("nobody")).toBeNull();
      const named = await store.createOrganization({ slug: "beta" });
      expect(named.name).toBe("beta");
      expect(await store.countOrganizations()).toBe(2);
    });

    it("rejects a second organization with the same slug as a conflict", async () => {
      const store = await ctx.store();
      await store.createOrganization({ slug: "acme" });
      expect(await rejectionCode(store.createOrganization({ slug: "acme" }))).toBe("conflict");
      expect(await store.countOrganizations()).toBe(1);
    });

    it("ensureOrganization returns the existing organization or creates it once, also when racing", async () => {
      const store = await ctx.store();
      const first = await store.ensureOrganization("acme", "Acme");
      expect(await store.ensureOrganization("acme", "Other name")).toEqual(first);
      const raced = await Promise.all([store.ensureOrganization("beta"), store.ensureOrganization("beta"), store.ensureOrganization("beta")]);
      expect(new Set(raced.map((o) => o.id)).size).toBe(1);
      expect(await store.countOrganizations()).toBe(2);
    });
  });

  describe("tokens", () => {
    it("creates, finds by hash, gets, touches and revokes (revoking twice keeps the first time)", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const token = await store.createToken(org.id, { name: "ci", scopes: ["monitors:read", "admin"], tokenHash: "a".repeat(64) });
      expect(token).toMatchObject({ orgId: org.id, name: "ci", scopes: ["monitors:read", "admin"], tokenHash: "a".repeat(64), lastUsedAt: null, revokedAt: null });
      expect(token.id).toMatch(/^tok_/);
      expect(await store.findTokenByHash("a".repeat(64))).toEqual(token);
      expect(await store.findTokenByHash("b".repeat(64))).toBeNull();
      expect(await store.getToken(org.id, token.id)).toEqual(token);

      await store.touchToken(token.id, "2026-03-01T10:00:00Z");
      expect((await store.getToken(org.id, token.id))?.lastUsedAt).toBe("2026-03-01T10:00:00.000Z");

      const revoked = await store.revokeToken(org.id, token.id, "2026-03-02T10:00:00.000Z");
      expect(revoked?.revokedAt).toBe("2026-03-02T10:00:00.000Z");
      const again = await store.revokeToken(org.id, token.id, "2026-03-05T10:00:00.000Z");
      expect(again?.revokedAt).toBe("2026-03-02T10:00:00.000Z");
      // revoked tokens are still found by hash: the caller decides
      expect((await store.findTokenByHash("a".repeat(64)))?.revokedAt).toBe("2026-03-02T10:00:00.000Z");
      expect(await store.revokeToken(org.id, "tok_00000000000000000000000000", "2026-03-02T10:00:00.000Z")).toBeNull();
      await expect(store.touchToken("tok_00000000000000000000000000", "2026-03-02T10:00:00.000Z")).resolves.toBeUndefined();
    });

    it("records who created a token (null when not given)", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const mine = await store.createToken(org.id, { name: "mine", scopes: ["admin"], tokenHash: "e".repeat(64), createdBy: "usr_00000000000000000000000001" });
      const setup = await store.createToken(org.id, { name: "setup", scopes: ["admin"], tokenHash: "f".repeat(64) });
      expect(mine.createdBy).toBe("usr_00000000000000000000000001");
      expect(setup.createdBy).toBeNull();
      expect((await store.getToken(org.id, mine.id))?.createdBy).toBe("usr_00000000000000000000000001");
      expect((await store.findTokenByHash("e".repeat(64)))?.createdBy).toBe("usr_00000000000000000000000001");
      expect((await store.listTokens(org.id, { limit: 10 })).data.map((t) => [t.name, t.createdBy])).toEqual([
        ["setup", null],
        ["mine", "usr_00000000000000000000000001"],
      ]);
    });

    it("revokes at a time given with an offset as ISO UTC with milliseconds, and refuses a value that is no time", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const token = await store.createToken(org.id, { name: "ci", scopes: ["admin"], tokenHash: "c".repeat(64) });
      await expect(store.revokeToken(org.id, token.id, "yesterday")).rejects.toMatchObject({ name: "StoreError", code: "invariant_violation" });
      expect((await store.getToken(org.id, token.id))?.revokedAt).toBeNull();
      const revoked = await store.revokeToken(org.id, token.id, "2026-03-02T12:30:00+02:00");
      expect(revoked?.revokedAt).toBe("2026-03-02T10:30:00.000Z");
      expect((await store.findTokenByHash("c".repeat(64)))?.revokedAt).toBe("2026-03-02T10:30:00.000Z");
    });

    it("lists tokens newest first with cursors", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await store.createToken(org.id, { name: `t${i}`, scopes: ["monitors:read"], tokenHash: String(i).repeat(64) })).id);
      const first = await store.listTokens(org.id, { limit: 3 });
      expect(first.data.map((t) => t.id)).toEqual([ids[4], ids[3], ids[2]]);
      const second = await store.listTokens(org.id, { limit: 3, cursor: first.nextCursor });
      expect(second.data.map((t) => t.id)).toEqual([ids[1], ids[0]]);
      expect(second.nextCursor).toBeNull();
    });

    it("rejects a duplicate hash (conflict) and an unknown organization (not_found), writing nothing", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      await store.createToken(org.id, { name: "one", scopes: ["admin"], tokenHash: "c".repeat(64) });
      expect(await rejectionCode(store.createToken(org.id, { name: "two", scopes: ["admin"], tokenHash: "c".repeat(64) }))).toBe("conflict");
      expect(await rejectionCode(store.createToken("org_00000000000000000000000000", { name: "x", scopes: ["admin"], tokenHash: "d".repeat(64) }))).toBe(
        "not_found"
      );
      expect(await store.findTokenByHash("d".repeat(64))).toBeNull();
      expect((await store.listTokens(org.id, { limit: 10 })).data.map((t) => t.name)).toEqual(["one"]);
    });
  });
}
