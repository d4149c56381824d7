import { describe, expect, it } from "vitest";
import {
  buildDiffDetectedEvent,
  buildPendingDiffDetectedEvent,
  DiffDetectedEventSchema,
  isId,
  serializeEventForDelivery,
  type ApiDiff,
  type WebsiteDiff,
} from "../src/index.js";

const common = {
  id: "dif_01JABCDEFGHJKMNPQRSTVWXYZ0",
  monitorId: "mon_01JABCDEFGHJKMNPQRSTVWXYZ0",
  snapshotId: "snp_01JABCDEFGHJKMNPQRSTVWXYZ1",
  previousSnapshotId: "snp_01JABCDEFGHJKMNPQRSTVWXYZ0",
  diffFingerprint: `sha256:${"a".repeat(64)}`,
  requestId: "req_01JABCDEFGHJKMNPQRSTVWXYZ0",
  status: 200,
  latencyMs: 12,
  createdAt: "2026-11-23T07:00:00.000Z",
};

const apiDiff: ApiDiff = {
  ...common,
  classification: "schema_change",
  schemaChanges: 2,
  valueChanges: 1,
  topSeverity: "critical",
  changes: [
    { path: "$.price", category: "schema", op: "replace", severity: "critical", detail: "number became string", before: 1, after: "1" },
    { path: "$.tags", category: "schema", op: "add", severity: "info", after: [] },
    { path: "$.name", category: "value", op: "replace", severity: "info", before: "a", after: "b" },
  ],
};

const websiteDiff: WebsiteDiff = {
  ...common,
  classification: "content_change",
  topSeverity: "high",
  summary: { additions: 1, removals: 0, modifications: 1 },
  changedTargets: ["#price", "main > p:nth-of-type(2)"],
  browserRender: true,
  waitStrategy: "networkidle",
  selector: "main",
  changes: [
    { path: "#price", category: "value", op: "replace", severity: "high", before: "$10", after: "$12", detail: "text changed in <span>" },
    { path: "main > p:nth-of-type(2)", category: "value", op: "add", severity: "info", after: "New paragraph" },
  ],
};

const times = { occurredAt: "2026-11-23T07:00:00.000Z", deliveredAt: "2026-11-23T07:00:05.000Z" };

describe("buildDiffDetectedEvent", () => {
  it("builds the seed 6.1 envelope from a stored API diff", () => {
    const event = buildDiffDetectedEvent(apiDiff, { ...times, eventId: "evt_01JABCDEFGHJKMNPQRSTVWXYZ0" });
    expect(event).toStrictEqual({
      schemaVersion: "v1",
      eventVersion: 1,
      eventId: "evt_01JABCDEFGHJKMNPQRSTVWXYZ0",
      eventType: "diff.detected",
      occurredAt: times.occurredAt,
      deliveredAt: times.deliveredAt,
      monitorId: apiDiff.monitorId,
      diffId: apiDiff.id,
      snapshotId: apiDiff.snapshotId,
      data: {
        classification: "schema_change",
        schemaChanges: 2,
        valueChanges: 1,
        changes: [
          { path: "$.price", category: "schema", op: "replace", severity: "critical" },
          { path: "$.tags", category: "schema", op: "add", severity: "info" },
          { path: "$.name", category: "value", op: "replace", severity: "info" },
        ],
      },
    });
    expect(DiffDetectedEventSchema.parse(event)).toStrictEqual(event);
    expect(Object.keys(event)).toEqual([
      "schemaVersion", "eventVersion", "eventId", "eventType", "occurredAt", "deliveredAt", "monitorId", "diffId", "snapshotId", "data",
    ]);
  });

  it("carries no detail, before, after or topSeverity", () => {
    const json = JSON.stringify(buildDiffDetectedEvent(apiDiff, times));
    for (const key of ["detail", "before", "after", "topSeverity", "diffFingerprint"]) expect(json).not.toContain(`"${key}"`);
  });

  it("counts a website diff as 0 schema changes and changes.length value changes", () => {
    const event = buildDiffDetectedEvent(websiteDiff, times);
    expect(event.data).toStrictEqual({
      classification: "content_change",
      schemaChanges: 0,
      valueChanges: 2,
      changes: [
        { path: "#price", category: "value", op: "replace", severity: "high" },
        { path: "main > p:nth-of-type(2)", category: "value", op: "add", severity: "info" },
      ],
    });
  });

  it("mints a new evt_ id unless one is given, and accepts Dates", () => {
    const a = buildDiffDetectedEvent(apiDiff, { occurredAt: new Date(times.occurredAt), deliveredAt: new Date(times.deliveredAt) });
    const b = buildDiffDetectedEvent(apiDiff, times);
    expect(isId("event", a.eventId)).toBe(true);
    expect(a.eventId).not.toBe(b.eventId);
    expect(a.occurredAt).toBe(times.occurredAt);
    expect(a.deliveredAt).toBe(times.deliveredAt);
  });

  it("takes ids from the options for a fresh engine result, and derives counts from the changes", () => {
    const { id: _id, monitorId: _m, snapshotId: _s, schemaChanges: _sc, valueChanges: _vc, ...engineResult } = apiDiff;
    const event = buildDiffDetectedEvent(engineResult, { ...times, diffId: "dif_x0000000", monitorId: "mon_x0000000", snapshotId: "snp_x0000000" });
    expect(event).toMatchObject({ diffId: "dif_x0000000", monitorId: "mon_x0000000", snapshotId: "snp_x0000000" });
    expect(event.data.schemaChanges).toBe(2);
    expect(event.data.valueChanges).toBe(1);
  });

  it("refuses a missing id or a bad timestamp with invalid_input", () => {
    const { id: _id, ...noId } = apiDiff;
    expect(() => buildDiffDetectedEvent(noId, times)).toThrowError(expect.objectContaining({ code: "invalid_input" }));
    expect(() => buildDiffDetectedEvent({ ...apiDiff, snapshotId: undefined }, times)).toThrowError(
      expect.objectContaining({ code: "invalid_input" }),
    );
    expect(() => buildDiffDetectedEvent(apiDiff, { ...times, occurredAt: "yesterday" })).toThrowError(
      expect.objectContaining({ code: "invalid_input", details: [expect.objectContaining({ path: "occurredAt" })] }),
    );
    expect(() => buildDiffDetectedEvent(apiDiff, { ...times, deliveredAt: new Date(Number.NaN) })).toThrowError(
      expect.objectContaining({ code: "invalid_input" }),
    );
    expect(() => buildDiffDetectedEvent(null as unknown as ApiDiff, times)).toThrowError(expect.objectContaining({ code: "invalid_input" }));
  });
});

describe("serializeEventForDelivery", () => {
  it("sets deliveredAt on the outbox envelope (object or stored JSON) in specification order", () => {
    const pending = buildPendingDiffDetectedEvent(websiteDiff, { occurredAt: times.occurredAt, eventId: "evt_01JABCDEFGHJKMNPQRSTVWXYZ0" });
    expect(pending).not.toHaveProperty("deliveredAt");
    const fromObject = serializeEventForDelivery(pending, times.deliveredAt);
    const fromText = serializeEventForDelivery(JSON.stringify(pending), new Date(times.deliveredAt));
    expect(fromText).toBe(fromObject);
    expect(fromObject).toBe(JSON.stringify(buildDiffDetectedEvent(websiteDiff, { ...times, eventId: "evt_01JABCDEFGHJKMNPQRSTVWXYZ0" })));
    const parsed = JSON.parse(fromObject) as Record<string, unknown>;
    expect(Object.keys(parsed).indexOf("deliveredAt")).toBe(Object.keys(parsed).indexOf("occurredAt") + 1);
  });

  it("refuses a stored payload that is not an envelope", () => {
    expect(() => serializeEventForDelivery("{", times.deliveredAt)).toThrowError(expect.objectContaining({ code: "invalid_input" }));
    expect(() => serializeEventForDelivery('{"eventId":"evt_1"}', times.deliveredAt)).toThrowError(
      expect.objectContaining({ code: "invalid_input" }),
    );
  });
});
