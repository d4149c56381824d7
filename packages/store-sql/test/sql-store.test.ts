import { describe, expect, it } from "vitest";
import { StoreError, defineStore, type DiffRecord } from "@driftwatch/core";
import { RowCodec, SqlStoreAdapter, type SqlDialect, type SqlDriver, type SqlExecutor } from "../src/index.js";

/** A dialect shaped like PostgreSQL's, for checking what the shared statements send. */
const numbered: SqlDialect = {
  name: "numbered",
  groupWrites: false,
  placeholder: (n) => `$${String(n)}`,
  table: (name) => `"s".${name}`,
  bool: (value) => value,
  readBool: (value) => value === true,
  writeJson: (value) => JSON.stringify(value),
  readJson: <T>(value: unknown) => (typeof value === "string" ? JSON.parse(value) : structuredClone(value)) as T,
  readTime: (value) => (value instanceof Date ? value.toISOString() : (value as string)),
  lockRows: (alias) => (alias === undefined ? " FOR UPDATE" : ` FOR UPDATE OF ${alias}`),
  pickDueMonitors: () => ({ sql: "SELECT 1 WHERE ? = ?", params: [1, 1] }),
  pickDueDeliveries: () => ({ sql: "SELECT 1 WHERE ? = ?", params: [1, 1] }),
  schemaCheck: () => ({ sql: "SELECT ? AS version, ? AS tables", params: [1, 11] }),
  describeTable: (table) => ({ sql: "SELECT ?", params: [table] }),
  readColumn: (row) => ({ name: String(row.name), kind: "text", pk: Number(row.pk) }),
  mapError: (error) => ((error as { code?: unknown }).code === "dup" ? new StoreError("conflict", "duplicate") : undefined),
};

/** Records every statement and answers no rows (or throws `fail`). */
function recordingDriver(fail?: unknown): SqlDriver & { statements: { sql: string; params: readonly unknown[] }[] } {
  const statements: { sql: string; params: readonly unknown[] }[] = [];
  const executor: SqlExecutor = {
    all: async (sql, params) => {
      statements.push({ sql, params });
      if (fail !== undefined) throw fail;
      return [];
    },
    run: async (sql, params) => {
      statements.push({ sql, params });
      if (fail !== undefined) throw fail;
      return 0;
    },
  };
  return { ...executor, statements, transaction: (work) => work(executor), close: async () => undefined };
}

const highestPlaceholder = (sql: string): number => Math.max(0, ...[...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));

describe("SqlStoreAdapter", () => {
  it("numbers the placeholders of every statement it sends to match its parameters", async () => {
    const driver = recordingDriver();
    const store = defineStore(new SqlStoreAdapter({ driver, dialect: numbered, schemaVersion: 1 }));
    await store.getToken("org_1", "tok_1");
    await store.listDiffs("org_1", "mon_1", { limit: 5, since: "2026-01-01T00:00:00Z", until: "2026-02-01T00:00:00Z", minSeverity: "high", classification: "schema_change" });
    await store.updateMonitor("org_1", "mon_1", { name: "n", headers: { a: "b" }, nextCheckAt: "2026-01-01T00:00:00+01:00" });
    await store.countPendingDeliveries("org_1");
    expect(driver.statements.length).toBe(4);
    for (const { sql, params } of driver.statements) {
      expect(sql).not.toContain("?");
      expect(highestPlaceholder(sql)).toBe(params.length);
    }
    // times reach the adapter normalised, JSON columns as text
    expect(driver.statements[2]!.params).toEqual(["n", '{"a":"b"}', "2025-12-31T23:00:00.000Z", "org_1", "mon_1"]);
    expect(driver.statements[1]!.params.slice(-1)).toEqual([6]); // limit + 1, to see whether another page follows
  });

  it("maps the driver's errors through the dialect and lets others through", async () => {
    const duplicate = defineStore(new SqlStoreAdapter({ driver: recordingDriver({ code: "dup" }), dialect: numbered, schemaVersion: 1 }), {
      mapError: (error) => numbered.mapError(error),
    });
    await expect(duplicate.getToken("org_1", "tok_1")).rejects.toMatchObject({ name: "StoreError", code: "conflict" });
    const own = new Error("a hook failed");
    const other = defineStore(new SqlStoreAdapter({ driver: recordingDriver(own), dialect: numbered, schemaVersion: 1 }), {
      mapError: (error) => numbered.mapError(error),
    });
    await expect(other.getToken("org_1", "tok_1")).rejects.toBe(own);
  });

  it("fails ping below its schema version", async () => {
    const store = defineStore(new SqlStoreAdapter({ driver: recordingDriver(), dialect: numbered, schemaVersion: 2 }));
    await expect(store.ping()).rejects.toMatchObject({ code: "store_unavailable" });
  });
});

describe("RowCodec.diffJson", () => {
  const codec = new RowCodec(numbered);
  const diff = { id: "dif_1", createdAt: "2026-01-01T00:00:00.000Z", changes: [{ path: "$.a" }], monitorId: "mon_1", snapshotId: "snp_1" };
  const row = (data: unknown) => ({ id: "dif_1", org_id: "org_1", monitor_id: "mon_1", snapshot_id: "snp_1", data });
  const expected = JSON.stringify(diff);

  it("returns stored text that already is the API's serialisation as it is", () => {
    const stored = JSON.stringify(diff);
    expect(codec.diffJson(row(stored))).toBe(stored);
  });

  it("serialises anything else from the record: parsed JSON, another key order, an orgId inside", () => {
    expect(codec.diffJson(row(structuredClone(diff)))).toBe(expected);
    const reordered = JSON.stringify({ createdAt: diff.createdAt, id: diff.id, changes: diff.changes, monitorId: "mon_1", snapshotId: "snp_1" });
    expect(JSON.parse(codec.diffJson(row(reordered)))).toEqual(diff);
    const withOrg = JSON.stringify({ ...diff, changes: [{ path: "$.orgId", orgId: "x" }] });
    expect(codec.diffJson(row(withOrg))).toBe(JSON.stringify({ ...diff, changes: [{ path: "$.orgId", orgId: "x" }] }));
    expect(codec.diffJson(row(JSON.stringify({ ...diff, orgId: "org_2" })))).not.toContain('"orgId"');
    const record: DiffRecord = codec.diff(row(expected));
    expect(record.orgId).toBe("org_1");
  });
});
