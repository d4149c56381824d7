// openStore of the server: a URL opens its adapter (loaded on demand), relative SQLite paths
// resolve against cwd, adapter options reach the adapter, and unreadable URLs are
// OpenStoreErrors that never echo a password.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isDriftwatchError } from "@driftwatch/core";
import { afterAll, describe, expect, it } from "vitest";
import { openStore, redactUrl } from "../../src/index.js";

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

  it("passes adapter options to the adapter's factory", async () => {
    const store = await openStore("sqlite:opts.db", { cwd: dir, adapterOptions: { now: () => new Date("2030-01-01T00:00:00.000Z") } });
    const org = await store.createOrganization({ slug: "timed" });
    expect(org.createdAt).toBe("2030-01-01T00:00:00.000Z");
    await store.close();
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
