// openStore of the server: a URL opens its adapter (loaded on demand), relative SQLite paths
// resolve against cwd, adapter options reach the adapter, and unreadable URLs are
// OpenStoreErrors that never echo a password.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { isDriftwatchError } from "@driftwatch/core";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresDatabase, postgresSkipReason } from "../../../../tooling/test-postgres.js";
import { openStore, redactUrl } from "../../src/index.js";

const postgresSkip = await postgresSkipReason();

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-open-store-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("openStore", () => {
  it("opens a new, empty memory store for every memory: URL", async () => {
    const store = await openStore("memory:");
    await store.createOrganization({ slug: "one" });
    const other = await openStore("memory:");
    expect(await store.countOrganizations()).toBe(1);
    expect(await other.countOrganizations()).toBe(0);
    await Promise.all([store.close(), other.close()]);
  });

  it("opens a SQLite file relative to cwd, creating its folders, and finds it again by its absolute path", async () => {
    const store = await openStore("sqlite:./nested/dw.db", { cwd: dir });
    await store.createOrganization({ slug: "kept" });
    await store.close();
    expect(fs.existsSync(path.join(dir, "nested/dw.db"))).toBe(true);
    const again = await openStore(`sqlite://${path.join(dir, "nested/dw.db")}`);
    expect(await again.countOrganizations()).toBe(1);
    await again.close();
  });

  it("opens sqlite:///absolute.db and file:///absolute.db as the same file, and sqlite::memory: as a private database", async () => {
    const file = path.join(dir, "abs.db");
    const first = await openStore(`sqlite://${file}`);
    await first.createOrganization({ slug: "abs" });
    await first.close();
    const second = await openStore(pathToFileURL(file).href);
    expect(await second.countOrganizations()).toBe(1);
    await second.close();
    const memory = await openStore("sqlite::memory:");
    expect(await memory.countOrganizations()).toBe(0);
    await memory.close();
  });

  it("passes adapter options to the adapter's factory", async () => {
    const store = await openStore("sqlite:opts.db", { cwd: dir, adapterOptions: { now: () => new Date("2030-01-01T00:00:00.000Z") } });
    const org = await store.createOrganization({ slug: "timed" });
    expect(org.createdAt).toBe("2030-01-01T00:00:00.000Z");
    await store.close();
  });

  it("passes hooks through to the adapter", async () => {
    const stages: string[] = [];
    const store = await openStore("memory:", { hooks: { onRecordCheckStage: (stage) => void stages.push(stage) } });
    const org = await store.createOrganization({ slug: "hooked" });
    const monitor = await store.createMonitor(org.id, {
      type: "api", name: "m", url: "https://example.com", method: "GET", headers: {}, body: null, intervalSeconds: 60,
      selector: null, browserOptionsJson: null, state: "active", nextCheckAt: null,
    });
    await store.recordCheck(org.id, { monitorId: monitor.id, monitor: { lastStatus: 200 }, snapshot: null, diff: null, event: null });
    expect(stages).toEqual(["monitor", "retention"]);
    await store.close();
  });

  it.skipIf(postgresSkip !== null)(`opens postgres:// and postgresql:// URLs on the same database${postgresSkip ? ` (skipped: ${postgresSkip})` : ""}`, async () => {
    const db = await createPostgresDatabase("dw_open_store");
    try {
      const first = await openStore(db.url, { adapterOptions: { max: 2 } });
      expect(first.capabilities).toEqual({ rateLimits: true, durable: true });
      const org = await first.createOrganization({ slug: "acme" });
      const second = await openStore(db.url.replace(/^postgres:/, "postgresql:"), { adapterOptions: { max: 2 } });
      expect(await second.getOrganizationBySlug("acme")).toEqual(org);
      await Promise.all([first.close(), second.close()]);
      // nothing listens on port 1 of loopback
      const error = await openStore("postgres://postgres@127.0.0.1:1/nothing", { adapterOptions: { connectionTimeoutMillis: 2000 } }).catch((e: unknown) => e);
      expect(isDriftwatchError(error) && error.code).toBe("store_unavailable");
    } finally {
      await db.drop();
    }
  });

  it.each(["mysql://u@h/db", "sqlite:", "postgres://user:hunter2@/db", "not a url"])("refuses %s with invalid_store_url, without its password", async (url) => {
    const error = await openStore(url).catch((e: unknown) => e);
    expect(isDriftwatchError(error) && error.code).toBe("invalid_store_url");
    expect(String((error as Error).message)).not.toContain("hunter2");
  });

  it("redacts the password of a database URL with core's redaction", () => {
    expect(redactUrl("postgres://user:hunter2@db:5432/x?sslmode=require")).toBe("postgres://user:***@db:5432/x?sslmode=require");
    expect(redactUrl("sqlite:./data/dw.db")).toBe("sqlite:./data/dw.db");
  });
});
