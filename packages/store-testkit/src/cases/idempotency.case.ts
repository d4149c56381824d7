import { describe, expect, it } from "vitest";
import type { ContractContext } from "../harness.js";
import { rejectionCode } from "../harness.js";

const claim = (key: string, requestHash: string, now: string, expiresAt = "2026-01-02T00:00:00.000Z") => ({ key, requestHash, now, expiresAt });

export function idempotencyCases(ctx: ContractContext): void {
  describe("idempotency keys", () => {
    it("the first claim is new; later ones see the hash, then the stored response", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      expect(await store.claimIdempotencyKey(org.id, claim("k1", "h1", "2026-01-01T00:00:00.000Z"))).toEqual({ state: "new" });
      expect(await store.claimIdempotencyKey(org.id, claim("k1", "h2", "2026-01-01T00:00:01.000Z"))).toEqual({ state: "existing", requestHash: "h1", response: null });
      await store.completeIdempotencyKey(org.id, "k1", { status: 201, body: '{"id":"mon_1"}' });
      expect(await store.claimIdempotencyKey(org.id, claim("k1", "h1", "2026-01-01T00:00:02.000Z"))).toEqual({
        state: "existing",
        requestHash: "h1",
        response: { status: 201, body: '{"id":"mon_1"}' },
      });
    });

    it("an expired key counts as new, and a released key can be claimed again", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      await store.claimIdempotencyKey(org.id, claim("k", "h1", "2026-01-01T00:00:00.000Z", "2026-01-01T01:00:00.000Z"));
      await store.completeIdempotencyKey(org.id, "k", { status: 201, body: "{}" });
      expect(await store.claimIdempotencyKey(org.id, claim("k", "h2", "2026-01-01T01:00:00.000Z", "2026-01-02T00:00:00.000Z"))).toEqual({ state: "new" });
      expect(await store.claimIdempotencyKey(org.id, claim("k", "h3", "2026-01-01T01:00:01.000Z"))).toEqual({ state: "existing", requestHash: "h2", response: null });
      await store.releaseIdempotencyKey(org.id, "k");
      expect(await store.claimIdempotencyKey(org.id, claim("k", "h4", "2026-01-01T01:00:02.000Z"))).toEqual({ state: "new" });
    });

    it("keys are per organization", async () => {
      const store = await ctx.store();
      const a = await store.ensureOrganization("a");
      const b = await store.ensureOrganization("b");
      await store.claimIdempotencyKey(a.id, claim("same", "ha", "2026-01-01T00:00:00.000Z"));
      await store.completeIdempotencyKey(a.id, "same", { status: 201, body: "a" });
      expect(await store.claimIdempotencyKey(b.id, claim("same", "hb", "2026-01-01T00:00:00.000Z"))).toEqual({ state: "new" });
      // B completing or releasing its key does not touch A's
      await store.completeIdempotencyKey(b.id, "same", { status: 500, body: "b" });
      await store.releaseIdempotencyKey(b.id, "same");
      expect(await store.claimIdempotencyKey(a.id, claim("same", "ha", "2026-01-01T00:00:01.000Z"))).toEqual({
        state: "existing",
        requestHash: "ha",
        response: { status: 201, body: "a" },
      });
    });
  });

  const rate = ctx.supports("rateLimits");
  describe.skipIf(!rate.supported)(`rate-limit counters${rate.label}`, () => {
    it("counts hits per key in fixed windows and starts again in the next window", async () => {
      const store = await ctx.store();
      expect(store.capabilities.rateLimits).toBe(true);
      const hit = store.hitRateLimit!.bind(store);
      const window = 60_000;
      const start = 1_780_000_020_000; // a multiple of 60 s
      expect(await hit("org_a:GET /api/monitors", window, start + 1)).toEqual({ count: 1, resetAt: start + window });
      expect(await hit("org_a:GET /api/monitors", window, start + 2)).toEqual({ count: 2, resetAt: start + window });
      expect(await hit("org_b:GET /api/monitors", window, start + 3)).toEqual({ count: 1, resetAt: start + window });
      expect(await hit("org_a:GET /api/monitors", window, start + window)).toEqual({ count: 1, resetAt: start + 2 * window });
      const counts = await Promise.all(Array.from({ length: 10 }, () => hit("burst", window, start + 5)));
      expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });

    it("resets every window of one key, and only of that key", async () => {
      const store = await ctx.store();
      const hit = store.hitRateLimit!.bind(store);
      const window = 60_000;
      const start = 1_780_000_020_000;
      await hit("login:a", window, start + 1);
      await hit("login:a", window, start + 2);
      await hit("login:b", window, start + 3);
      await store.resetRateLimit!("login:a");
      expect(await hit("login:a", window, start + 4)).toEqual({ count: 1, resetAt: start + window });
      expect(await hit("login:b", window, start + 5)).toEqual({ count: 2, resetAt: start + window });
    });

    it("takes back one hit of the window holding the time, never below zero, and nothing else", async () => {
      const store = await ctx.store();
      expect(store.refundRateLimitHit).toBeTypeOf("function");
      const hit = store.hitRateLimit!.bind(store);
      const refund = store.refundRateLimitHit!.bind(store);
      const window = 60_000;
      const start = 1_780_000_020_000;
      for (let i = 0; i < 3; i++) await hit("login:address:a", window, start + 1);
      await hit("login:address:b", window, start + 1);
      await refund("login:address:a", window, start + 2);
      // the next hit counts on from two: the failures before stay counted
      expect(await hit("login:address:a", window, start + 3)).toEqual({ count: 3, resetAt: start + window });
      expect(await hit("login:address:b", window, start + 3)).toEqual({ count: 2, resetAt: start + window });
      // a refund into another window (or one of a key never hit) changes nothing
      await refund("login:address:a", window, start - 1);
      await refund("login:address:c", window, start + 3);
      expect(await hit("login:address:a", window, start + 4)).toEqual({ count: 4, resetAt: start + window });
      expect(await hit("login:address:c", window, start + 4)).toEqual({ count: 1, resetAt: start + window });
      // never below zero: more refunds than hits leave an empty window at zero
      for (let i = 0; i < 3; i++) await refund("login:address:c", window, start + 5);
      expect(await hit("login:address:c", window, start + 6)).toEqual({ count: 1, resetAt: start + window });
      // concurrent refunds each take one back
      await Promise.all(Array.from({ length: 3 }, () => refund("login:address:a", window, start + 7)));
      expect(await hit("login:address:a", window, start + 8)).toEqual({ count: 2, resetAt: start + window });
    });
  });
  if (!rate.supported) {
    it("declares no rate-limit capability consistently", async () => {
      const store = await ctx.store();
      expect(store.capabilities.rateLimits).toBe(false);
    });
  }

  describe("lifecycle", () => {
    it("ping answers; after close every method rejects with store_closed; closing twice is fine", async () => {
      const store = await ctx.store();
      await store.ping();
      await store.close();
      await store.close();
      expect(await rejectionCode(store.ping())).toBe("store_closed");
      expect(await rejectionCode(store.countOrganizations())).toBe("store_closed");
      expect(await rejectionCode(store.ensureOrganization("x"))).toBe("store_closed");
      expect(await rejectionCode(store.listMonitors("org_00000000000000000000000000", { limit: 1 }))).toBe("store_closed");
    });
  });
}
