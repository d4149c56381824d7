// The testkit's own checks: what it hands adapters is valid, and a mis-declared capability fails loudly.
import { describe, expect, it } from "vitest";
import { ApiDiffSchema, DiffDetectedEventSchema, SnapshotSchema } from "@driftwatch/core";
import { changedCheck, runStoreContract, unchangedCheck } from "../src/index.js";

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
