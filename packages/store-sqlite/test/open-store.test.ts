// openStore (from @driftwatch/core) for sqlite: and file: URLs: the adapter is loaded on demand,
// relative paths resolve against `cwd`, the file and its folder are created, data persists.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "@driftwatch/core";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-open-store-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("openStore with SQLite", () => {
  it("sqlite:./relative.db resolves against cwd, creates the folder and the file, and persists across opens", async () => {
    const store = await openStore("sqlite:./nested/folder/dw.db", { cwd: dir });
    expect(store.capabilities).toEqual({ rateLimits: true, durable: true });
    const org = await store.ensureOrganization("acme");
    await store.close();
    expect(fs.existsSync(path.join(dir, "nested/folder/dw.db"))).toBe(true);
    const again = await openStore(`sqlite:${path.join(dir, "nested/folder/dw.db")}`);
    expect(await again.getOrganizationBySlug("acme")).toEqual(org);
    await again.close();
  });

  it("sqlite:///absolute.db and file:///absolute.db open the same file", async () => {
    const file = path.join(dir, "abs.db");
    const first = await openStore(`sqlite://${file}`);
    await first.ensureOrganization("abs");
    await first.close();
    const second = await openStore(pathToFileURL(file).href);
    expect(await second.countOrganizations()).toBe(1);
    await second.close();
  });

  it("sqlite::memory: opens a private in-memory SQLite database", async () => {
    const store = await openStore("sqlite::memory:");
    expect(await store.countOrganizations()).toBe(0);
    await store.ensureOrganization("m");
    expect(await store.countOrganizations()).toBe(1);
    await store.close();
  });

  it("passes adapter options through (a user-given clock)", async () => {
    const store = await openStore("sqlite:opts.db", { cwd: dir, adapterOptions: { now: () => new Date("2030-01-01T00:00:00.000Z") } });
    expect((await store.ensureOrganization("clock")).createdAt).toBe("2030-01-01T00:00:00.000Z");
    await store.close();
  });
});
