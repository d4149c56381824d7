// openStore (from @driftwatch/core) for memory: URLs, and its errors for URLs it cannot open.
import { describe, expect, it } from "vitest";
import { isDriftwatchError, openStore, parseStoreUrl } from "@driftwatch/core";
import { rejectionCode } from "@driftwatch/store-testkit";

describe("openStore", () => {
  it("opens memory: with the memory adapter, loaded on demand", async () => {
    const store = await openStore("memory:");
    expect(store.capabilities).toEqual({ rateLimits: true, durable: false });
    const org = await store.ensureOrganization("acme");
    expect(await store.getOrganizationBySlug("acme")).toEqual(org);
    await store.close();
    // a second memory: store is a new, empty database
    const other = await openStore("memory:");
    expect(await other.countOrganizations()).toBe(0);
    await other.close();
  });

  it("passes hooks through to the adapter", async () => {
    const stages: string[] = [];
    const store = await openStore("memory:", { hooks: { onRecordCheckStage: (stage) => void stages.push(stage) } });
    const org = await store.ensureOrganization("acme");
    const monitor = await store.createMonitor(org.id, {
      type: "api", name: "m", url: "https://example.com", method: "GET", headers: {}, body: null, intervalSeconds: 60,
      selector: null, browserOptionsJson: null, state: "active", nextCheckAt: null,
    });
    await store.recordCheck(org.id, { monitorId: monitor.id, monitor: { lastStatus: 200 }, snapshot: null, diff: null, event: null });
    expect(stages).toEqual(["monitor", "retention"]);
    await store.close();
  });

  it.each([
    ["mysql://root@localhost/db", /Unknown store URL scheme "mysql:"/],
    ["redis://localhost", /Unknown store URL scheme "redis:"/],
    ["./driftwatch.db", /is not a store URL/],
    ["", /is not a store URL/],
    ["sqlite:", /needs a file path/],
    ["postgres://", /names no host/],
    ["postgresql://user:hunter2@[bad/db", /not a valid PostgreSQL URL/],
  ])("rejects %j with invalid_store_url", async (url, message) => {
    const error = await openStore(url).catch((e: unknown) => e);
    expect(isDriftwatchError(error) && error.code).toBe("invalid_store_url");
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain("hunter2");
  });

  it("a missing adapter package is store_unavailable, naming the package to install", async () => {
    // the real Node error for a package that is not installed
    const importAdapter = (specifier: string): Promise<unknown> => import(/* @vite-ignore */ `${specifier}-not-installed`);
    const error = await openStore("postgres://localhost/db", { importAdapter }).catch((e: unknown) => e);
    expect(isDriftwatchError(error) && error.code).toBe("store_unavailable");
    expect((error as Error).message).toContain("npm install @driftwatch/store-postgres");
    expect(await rejectionCode(openStore("memory:", { importAdapter: async () => ({ somethingElse: 1 }) }))).toBe("store_unavailable");
  });

  it("parses every supported form", () => {
    expect(parseStoreUrl("memory:")).toEqual({ kind: "memory", adapter: "@driftwatch/store-memory" });
    expect(parseStoreUrl("sqlite:./data/dw.db", "/srv/app")).toEqual({ kind: "sqlite", adapter: "@driftwatch/store-sqlite", filename: "/srv/app/data/dw.db" });
    expect(parseStoreUrl("sqlite:data/dw.db", "/srv/app")).toMatchObject({ filename: "/srv/app/data/dw.db" });
    expect(parseStoreUrl("sqlite:///var/lib/dw.db", "/srv/app")).toMatchObject({ filename: "/var/lib/dw.db" });
    expect(parseStoreUrl("sqlite:/var/lib/dw.db", "/srv/app")).toMatchObject({ filename: "/var/lib/dw.db" });
    expect(parseStoreUrl("sqlite::memory:")).toMatchObject({ filename: ":memory:" });
    expect(parseStoreUrl("file:///var/lib/my%20dw.db")).toMatchObject({ kind: "sqlite", filename: "/var/lib/my dw.db" });
    expect(parseStoreUrl("file:./dw.db", "/srv/app")).toMatchObject({ kind: "sqlite", filename: "/srv/app/dw.db" });
    expect(parseStoreUrl("postgresql://u:p@db.internal:5432/dw?sslmode=require")).toEqual({
      kind: "postgres",
      adapter: "@driftwatch/store-postgres",
      connectionString: "postgresql://u:p@db.internal:5432/dw?sslmode=require",
    });
  });
});
