import type { Store } from "@driftwatch/core";
import { afterEach, describe, expect, it } from "vitest";
import { TOKEN_CACHE_TTL_MS } from "../../src/config/limits.js";
import { generateTokenSecret, hashTokenSecret } from "../../src/index.js";
import { createHarness, expectProblem, type Harness, type HarnessOptions } from "./harness.js";

// The authenticator keeps tokens it read from the store for TOKEN_CACHE_TTL_MS. These tests move
// the harness clock instead of sleeping.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const url = "/api/monitors";

/** A harness whose store counts findTokenByHash calls. */
async function countingHarness(options: HarnessOptions = {}): Promise<{ h: Harness; lookups: () => number }> {
  let count = 0;
  const harness = await createHarness({
    ...options,
    store: async () => {
      const { createSqliteStore } = await import("@driftwatch/store-sqlite");
      const inner = await createSqliteStore({ filename: ":memory:" });
      const store = new Proxy(inner, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver) as unknown;
          if (property === "findTokenByHash") {
            return (hash: string) => {
              count++;
              return target.findTokenByHash(hash);
            };
          }
          return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      }) as Store;
      return { store, close: () => inner.close() };
    },
  });
  return { h: harness, lookups: () => count };
}

describe("token cache", () => {
  it("reads a token from the store once per TTL", async () => {
    const counted = await countingHarness();
    h = counted.h;
    const t = await h.a.token(["monitors:read"], "cached");
    const before = counted.lookups();
    for (let i = 0; i < 5; i++) expect((await h.request(t.secret, { method: "GET", url })).statusCode).toBe(200);
    expect(counted.lookups() - before).toBe(1);
    h.clock.now = new Date(h.clock.now.getTime() + TOKEN_CACHE_TTL_MS);
    expect((await h.request(t.secret, { method: "GET", url })).statusCode).toBe(200);
    expect(counted.lookups() - before).toBe(2);
  });

  it("refuses a token revoked through this process at once, although it was cached", async () => {
    h = await createHarness();
    const t = await h.a.token(["monitors:read"], "doomed");
    expect((await h.request(t.secret, { method: "GET", url })).statusCode).toBe(200);
    expect((await h.request(t.secret, { method: "GET", url })).statusCode).toBe(200);
    expect((await h.request(h.a.admin, { method: "DELETE", url: `/api/tokens/${t.id}` })).statusCode).toBe(204);
    expectProblem(await h.request(t.secret, { method: "GET", url }), 401, "invalid_token");
  });

  it("refuses a token revoked by its own request from the next request on", async () => {
    h = await createHarness();
    const t = await h.a.token(["admin"], "self");
    expect((await h.request(t.secret, { method: "DELETE", url: `/api/tokens/${t.id}` })).statusCode).toBe(204);
    expectProblem(await h.request(t.secret, { method: "GET", url }), 401, "invalid_token");
  });

  it("refuses a token revoked by another process within the TTL", async () => {
    h = await createHarness();
    const t = await h.a.token(["monitors:read"], "elsewhere");
    expect((await h.request(t.secret, { method: "GET", url })).statusCode).toBe(200);
    const other = await h.buildAnother();
    const revoked = await other.inject({ method: "DELETE", url: `/api/tokens/${t.id}`, headers: { authorization: `Bearer ${h.a.admin}` } });
    expect(revoked.statusCode).toBe(204);
    // the other process refuses it at once; this one may still accept it until the entry expires
    expectProblem(await other.inject({ method: "GET", url, headers: { authorization: `Bearer ${t.secret}` } }), 401, "invalid_token");
    h.clock.now = new Date(h.clock.now.getTime() + TOKEN_CACHE_TTL_MS - 1);
    expect((await h.request(t.secret, { method: "GET", url })).statusCode).toBe(200);
    h.clock.now = new Date(h.clock.now.getTime() + 1);
    expectProblem(await h.request(t.secret, { method: "GET", url }), 401, "invalid_token");
  });

  it("does not trust an entry once the clock went back", async () => {
    h = await createHarness();
    const t = await h.a.token(["monitors:read"], "rewound");
    expect((await h.request(t.secret, { method: "GET", url })).statusCode).toBe(200);
    await h.store.revokeToken(h.a.orgId, t.id, new Date().toISOString());
    h.clock.now = new Date(h.clock.now.getTime() - 1);
    expectProblem(await h.request(t.secret, { method: "GET", url }), 401, "invalid_token");
  });

  it("asks the store on every request with tokenCacheTtlMs 0", async () => {
    const counted = await countingHarness({ config: { tokenCacheTtlMs: 0 } });
    h = counted.h;
    const t = await h.a.token(["monitors:read"], "uncached");
    const before = counted.lookups();
    expect((await h.request(t.secret, { method: "GET", url })).statusCode).toBe(200);
    await h.store.revokeToken(h.a.orgId, t.id, new Date().toISOString());
    expectProblem(await h.request(t.secret, { method: "GET", url }), 401, "invalid_token");
    expect(counted.lookups() - before).toBe(2);
  });

  it("does not cache unknown tokens: a token created later works at once", async () => {
    h = await createHarness();
    const secret = generateTokenSecret();
    expectProblem(await h.request(secret, { method: "GET", url }), 401, "invalid_token");
    await h.store.createToken(h.a.orgId, { name: "fresh", scopes: ["monitors:read"], tokenHash: hashTokenSecret(secret) });
    expect((await h.request(secret, { method: "GET", url })).statusCode).toBe(200);
  });
});
