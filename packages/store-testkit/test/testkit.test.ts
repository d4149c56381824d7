// The testkit's own checks: what it hands adapters is valid, and a mis-declared capability fails loudly.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ApiDiffSchema, DiffDetectedEventSchema, SnapshotSchema } from "@driftwatch/core";
import { bareCheckStatements, changedCheck, expectEveryCheckWhole, numberPlaceholders, runNodeScript, runStoreContract, unchangedCheck, type StoredChecks } from "../src/index.js";

describe("fixtures", () => {
  it("changedCheck builds a snapshot, diff and event the resource schemas accept, all tied together", () => {
    const check = changedCheck("mon_01JAAAAAAAAAAAAAAAAAAAAAAA", { previousSnapshotId: "snp_01JBBBBBBBBBBBBBBBBBBBBBBB", severity: "high", classification: "schema_change", sequence: 3 });
    const snapshot = check.snapshot!;
    expect(SnapshotSchema.safeParse({ ...snapshot, monitorId: check.monitorId }).success).toBe(true);
    expect(ApiDiffSchema.safeParse({ ...check.diff, monitorId: check.monitorId, snapshotId: snapshot.id }).success).toBe(true);
    expect(DiffDetectedEventSchema.safeParse({ ...check.event, deliveredAt: new Date().toISOString() }).success).toBe(true);
    expect(check.event).toMatchObject({ monitorId: check.monitorId, diffId: check.diff!.id, snapshotId: snapshot.id });
    expect(check.diff).toMatchObject({ topSeverity: "high", classification: "schema_change", schemaChanges: 1, valueChanges: 0, previousSnapshotId: "snp_01JBBBBBBBBBBBBBBBBBBBBBBB" });
    expect(snapshot.size).toBe(snapshot.body.length);
  });

  it("two checks never share ids, bodies or fingerprints", () => {
    const a = changedCheck("mon_01JAAAAAAAAAAAAAAAAAAAAAAA", { sequence: 1 });
    const b = changedCheck("mon_01JAAAAAAAAAAAAAAAAAAAAAAA", { sequence: 2 });
    expect(a.snapshot!.id).not.toBe(b.snapshot!.id);
    expect(a.diff!.id).not.toBe(b.diff!.id);
    expect(a.event!.eventId).not.toBe(b.event!.eventId);
    expect(a.snapshot!.contentHash).not.toBe(b.snapshot!.contentHash);
    expect(a.diff!.diffFingerprint).not.toBe(b.diff!.diffFingerprint);
  });

  it("changedCheck records the body it is given", () => {
    const snapshot = changedCheck("mon_x", { sequence: 1, body: "plain text" }).snapshot!;
    expect(snapshot).toMatchObject({ body: "plain text", size: 10 });
    expect(snapshot.contentHash).toBe(changedCheck("mon_y", { sequence: 2, body: "plain text" }).snapshot!.contentHash);
  });

  it("unchangedCheck writes only monitor fields", () => {
    expect(unchangedCheck("mon_x", "2026-01-01T00:00:00.000Z")).toEqual({
      monitorId: "mon_x",
      monitor: { lastCheckedAt: "2026-01-01T00:00:00.000Z", lastStatus: 200, updatedAt: "2026-01-01T00:00:00.000Z" },
      snapshot: null,
      diff: null,
      event: null,
    });
  });
});

describe("runStoreContract", () => {
  const create = (): never => {
    throw new Error("not called");
  };
  it("refuses a capability declared missing without a reason", () => {
    expect(() => runStoreContract({ name: "x", create, capabilities: { sharedDatabase: true, rateLimits: { reason: " " } } })).toThrow(/capabilities\.rateLimits/);
    expect(() => runStoreContract({ name: "x", create, capabilities: { sharedDatabase: false as unknown as true, rateLimits: true } })).toThrow(
      /capabilities\.sharedDatabase/
    );
  });
});

describe("expectEveryCheckWhole", () => {
  const stored = (): StoredChecks => ({
    diffs: [
      { id: "dif_1", snapshotId: "snp_1", previousSnapshotId: null },
      { id: "dif_2", snapshotId: "snp_2", previousSnapshotId: "snp_1" },
    ],
    snapshotIds: ["snp_1", "snp_2"],
    deliveriesPerDiff: new Map([
      ["dif_1", 2],
      ["dif_2", 2],
    ]),
  });
  const printed = [{ diffId: "dif_1", snapshotId: "snp_1" }];

  it("accepts whole checks, including stored ones whose print the kill cut off", () => {
    expect(() => expectEveryCheckWhole(printed, stored(), 2)).not.toThrow();
  });

  it("fails on a printed check that was not stored", () => {
    expect(() => expectEveryCheckWhole([...printed, { diffId: "dif_3", snapshotId: "snp_3" }], stored(), 2)).toThrow();
  });

  it("fails on a diff without its snapshot, its previous snapshot or its deliveries, and on a snapshot without a diff", () => {
    const noSnapshot = stored();
    noSnapshot.snapshotIds = ["snp_1"];
    expect(() => expectEveryCheckWhole(printed, noSnapshot, 2)).toThrow();
    const noPrevious = stored();
    noPrevious.diffs[1]!.previousSnapshotId = "snp_0";
    expect(() => expectEveryCheckWhole(printed, noPrevious, 2)).toThrow();
    const oneDelivery = stored();
    oneDelivery.deliveriesPerDiff.set("dif_2", 1);
    expect(() => expectEveryCheckWhole(printed, oneDelivery, 2)).toThrow();
    const orphanSnapshot = stored();
    orphanSnapshot.snapshotIds.push("snp_9");
    expect(() => expectEveryCheckWhole(printed, orphanSnapshot, 2)).toThrow();
    const orphanDeliveries = stored();
    orphanDeliveries.deliveriesPerDiff.set("dif_9", 2);
    expect(() => expectEveryCheckWhole(printed, orphanDeliveries, 2)).toThrow();
  });
});

describe("bareCheckStatements", () => {
  it("writes the monitor, the snapshot, the diff and one delivery per webhook, one parameter per placeholder", () => {
    const check = changedCheck("mon_x", { previousSnapshotId: "snp_prev", sequence: 4 });
    let n = 0;
    const statements = bareCheckStatements("org_x", check, ["whk_a", "whk_b"], { browserRender: 0, deliveryId: () => `dlv_${++n}` });
    expect(statements.map((s) => s.sql.split(" ")[0] + " " + (s.sql.match(/^(?:UPDATE|INSERT INTO) (\w+)/)?.[1] ?? ""))).toEqual([
      "UPDATE monitors",
      "INSERT snapshots",
      "INSERT diffs",
      "INSERT deliveries",
      "INSERT deliveries",
    ]);
    for (const { sql, params } of statements) expect(sql.split("?").length - 1).toBe(params.length);
    expect(statements[1]!.params).toEqual(expect.arrayContaining([check.snapshot!.id, check.snapshot!.body, 0]));
    expect(statements[2]!.params.slice(0, 5)).toEqual([check.diff!.id, "org_x", "mon_x", check.snapshot!.id, "snp_prev"]);
    expect(statements.slice(3).map((s) => s.params.slice(0, 3))).toEqual([
      ["dlv_1", "org_x", "whk_a"],
      ["dlv_2", "org_x", "whk_b"],
    ]);
    expect(() => bareCheckStatements("org_x", unchangedCheck("mon_x"), [], { browserRender: 0, deliveryId: () => "dlv" })).toThrow(/changed check/);
  });

  it("numberPlaceholders numbers placeholders for PostgreSQL", () => {
    expect(numberPlaceholders("UPDATE t SET a = ?, b = ? WHERE id = ?")).toBe("UPDATE t SET a = $1, b = $2 WHERE id = $3");
  });
});

describe("runNodeScript", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-testkit-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const script = (name: string, source: string): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, source);
    return file;
  };

  it("resolves with the lines before `done`", async () => {
    const file = script("ok.mjs", 'console.log(process.argv[2]); console.log("b"); console.log("done");');
    expect(await runNodeScript({ script: file, args: ["a"] })).toEqual(["a", "b"]);
  });

  it("rejects with stderr when the script fails or does not print `done`", async () => {
    await expect(runNodeScript({ script: script("fail.mjs", 'console.error("boom"); process.exit(3);'), args: [] })).rejects.toThrow(/exited with 3: boom/);
    await expect(runNodeScript({ script: script("silent.mjs", 'console.log("x");'), args: [] })).rejects.toThrow(/exited with 0/);
  });
});
