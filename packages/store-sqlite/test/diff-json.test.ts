import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DiffRecord } from "@driftwatch/core";
import { changedCheck, seedOrganization } from "@driftwatch/store-testkit";
import { createSqliteStore, type SqliteStore } from "../src/index.js";

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
      const json = await store.getDiffJson(orgId, monitorId, id);
      expect(json).toBe(presented(await store.getDiff(orgId, monitorId, id)));
      const parsed = JSON.parse(json!) as Record<string, unknown>;
      expect(parsed).not.toHaveProperty("orgId");
      expect(parsed).toMatchObject({ id, monitorId, snapshotId: check.snapshot!.id });
    }
  });
});
