import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DiffRecord } from "@driftwatch/core";
import { changedCheck, recordChanges, seedOrganization } from "@driftwatch/store-testkit";
import { createSqliteStore, DIFF_JSON_CACHE_TTL_MS, type SqliteStore } from "../src/index.js";

let dir: string;
let db: BetterSqlite3.Database;
let store: SqliteStore;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-sqlite-diffjson-"));
  db = new BetterSqlite3(path.join(dir, "diff.db"));
  store = await createSqliteStore({ database: db });
});
afterEach(async () => {
  await store.close();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What the API answered before getDiffJson: the record without orgId, through JSON.stringify. */
function presented(diff: DiffRecord | null): string | null {
  if (diff === null) return null;
  const { orgId: _orgId, ...rest } = diff;
  return JSON.stringify(rest);
}

describe("getDiffJson", () => {
  it("is the diff without orgId as JSON, the stored text itself for a recorded diff", async () => {
    const { orgId, monitorId } = await seedOrganization(store);
    const check = changedCheck(monitorId, { sequence: 1 });
    await store.recordCheck(orgId, check);
    const id = check.diff!.id;
    const json = await store.getDiffJson(orgId, monitorId, id);
    expect(json).toBe(presented(await store.getDiff(orgId, monitorId, id)));
    expect(JSON.parse(json!)).not.toHaveProperty("orgId");
    const stored = db.prepare("SELECT data FROM diffs WHERE id = ?").get(id) as { data: string };
    expect(json).toBe(stored.data);
  });

  it("is scoped like getDiff: null for another organization, another monitor or an unknown id", async () => {
    const a = await seedOrganization(store, "acme");
    const b = await seedOrganization(store, "globex");
    const check = changedCheck(a.monitorId, { sequence: 1 });
    await store.recordCheck(a.orgId, check);
    const id = check.diff!.id;
    expect(await store.getDiffJson(b.orgId, a.monitorId, id)).toBeNull();
    expect(await store.getDiffJson(a.orgId, b.monitorId, id)).toBeNull();
    expect(await store.getDiffJson(a.orgId, a.monitorId, "dif_01HZX3K4ABCDEFGHJKMNPQRSTV")).toBeNull();
  });

  it("serialises rows whose stored text is not already the API form like getDiff", async () => {
    const { orgId, monitorId } = await seedOrganization(store);
    const check = changedCheck(monitorId, { sequence: 1 });
    await store.recordCheck(orgId, check);
    const id = check.diff!.id;
    const original = JSON.parse((db.prepare("SELECT data FROM diffs WHERE id = ?").get(id) as { data: string }).data) as Record<string, unknown>;
    const { id: _id, ...withoutId } = original;
    const variants: Array<Record<string, unknown>> = [
      { ...original, orgId: "org_someone_else" }, // an orgId key in the stored text
      { ...withoutId, id }, // another key order
      { ...original, monitorId: "mon_stale", snapshotId: "snp_stale" }, // ids that differ from the columns
      { ...original, changes: [{ path: "$.orgId", before: 1, after: 2 }] }, // "orgId" inside the content
    ];
    for (const variant of variants) {
      db.prepare("UPDATE diffs SET data = ? WHERE id = ?").run(JSON.stringify(variant), id);
      // a store of its own per variant: getDiffJson caches (diffs never change through the store)
      const fresh = await createSqliteStore({ database: db });
      const json = await fresh.getDiffJson(orgId, monitorId, id);
      await fresh.close();
      expect(json).toBe(presented(await store.getDiff(orgId, monitorId, id)));
      const parsed = JSON.parse(json!) as Record<string, unknown>;
      expect(parsed).not.toHaveProperty("orgId");
      expect(parsed).toMatchObject({ id, monitorId, snapshotId: check.snapshot!.id });
    }
  });
});

describe("getDiffJson cache", () => {
  it("answers from memory for DIFF_JSON_CACHE_TTL_MS, with the same scoping, and forgets on its own deletions at once", async () => {
    let ms = Date.parse("2026-06-01T00:00:00.000Z");
    const file = path.join(dir, "cached.db");
    const cached = await createSqliteStore({ filename: file, now: () => new Date(ms) });
    // Another process on the same file: its deletions are seen only once the cache entry expires.
    const other = await createSqliteStore({ filename: file });
    try {
      const { orgId, monitorId } = await seedOrganization(cached);
      const first = changedCheck(monitorId, { sequence: 1 });
      await cached.recordCheck(orgId, first);
      const id = first.diff!.id;
      const json = await cached.getDiffJson(orgId, monitorId, id);
      expect(json).not.toBeNull();
      // Scoping holds on a cached answer.
      const intruder = await cached.ensureOrganization("intruder");
      expect(await cached.getDiffJson(intruder.id, monitorId, id)).toBeNull();
      expect(await cached.getDiffJson(orgId, "mon_00000000000000000000000000", id)).toBeNull();

      expect(await other.deleteMonitor(orgId, monitorId)).toBe(true);
      ms += DIFF_JSON_CACHE_TTL_MS - 1;
      expect(await cached.getDiffJson(orgId, monitorId, id)).toBe(json);
      ms += 1;
      expect(await cached.getDiffJson(orgId, monitorId, id)).toBeNull();

      // Its own deletions: a deleted monitor's diffs are gone at once.
      const second = await seedOrganization(cached, "second");
      const check = changedCheck(second.monitorId, { sequence: 2 });
      await cached.recordCheck(second.orgId, check);
      expect(await cached.getDiffJson(second.orgId, second.monitorId, check.diff!.id)).not.toBeNull();
      await cached.deleteMonitor(second.orgId, second.monitorId);
      expect(await cached.getDiffJson(second.orgId, second.monitorId, check.diff!.id)).toBeNull();

      // A clock that went back does not extend trust in an entry.
      const fourth = await seedOrganization(cached, "fourth");
      const b = changedCheck(fourth.monitorId, { sequence: 5 });
      await cached.recordCheck(fourth.orgId, b);
      expect(await cached.getDiffJson(fourth.orgId, fourth.monitorId, b.diff!.id)).not.toBeNull();
      await other.deleteMonitor(fourth.orgId, fourth.monitorId);
      ms -= 1;
      expect(await cached.getDiffJson(fourth.orgId, fourth.monitorId, b.diff!.id)).toBeNull();
    } finally {
      await other.close();
      await cached.close();
    }
  });
});

describe("getDiffJson and retention", () => {
  it("forgets a cached diff as soon as retention deletes it with its snapshot", async () => {
    const { orgId, monitorId } = await seedOrganization(store);
    const [first] = await recordChanges(store, orgId, monitorId, 1);
    const id = first!.diff!.id;
    expect(await store.getDiffJson(orgId, monitorId, id)).not.toBeNull(); // now cached
    await recordChanges(store, orgId, monitorId, 2, { retention: 1 });
    expect(await store.getDiff(orgId, monitorId, id)).toBeNull();
    expect(await store.getDiffJson(orgId, monitorId, id)).toBeNull();
  });
});
