import { createHash } from "node:crypto";
import { newId } from "@driftwatch/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiMonitor, createHarness, json, type Harness } from "./harness.js";

let h: Harness;
let monitorId: string;
const MAX = 1024 * 1024;

beforeAll(async () => {
  h = await createHarness({ config: { maxListResponseBytes: MAX } });
  monitorId = json(await h.request(h.a.admin, { method: "GET", url: "/api/monitors" })).data[0]?.id;
  monitorId ??= json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id;
});
afterAll(() => h.close());

/** A diff of about `bytes` bytes (one change with a long `after`). */
async function seedBigDiff(at: Date, bytes: number, previous: string | null): Promise<{ snapshotId: string; diffId: string }> {
  const snapshotId = newId("snapshot", at.getTime());
  const diffId = newId("diff", at.getTime());
  const body = JSON.stringify({ at: at.toISOString() });
  await h.store.recordCheck(h.a.orgId, {
    monitorId,
    monitor: { lastCheckedAt: at.toISOString() },
    snapshot: {
      id: snapshotId,
      fetchedAt: at.toISOString(),
      status: 200,
      latencyMs: 1,
      contentType: "application/json",
      contentHash: `sha256:${createHash("sha256").update(body).digest("hex")}`,
      size: body.length,
      browserRender: false,
      body,
    },
    diff: {
      id: diffId,
      previousSnapshotId: previous,
      classification: "value_change",
      schemaChanges: 0,
      valueChanges: 1,
      topSeverity: "info",
      diffFingerprint: `sha256:${createHash("sha256").update(diffId).digest("hex")}`,
      changes: [{ path: "$.text", category: "value", op: "replace", severity: "info", before: "a", after: "x".repeat(bytes) }],
      requestId: newId("request"),
      status: 200,
      latencyMs: 1,
      createdAt: at.toISOString(),
    },
    event: null,
    retention: 1000,
  });
  return { snapshotId, diffId };
}

describe("list endpoints bound the response bytes, not only the item count", () => {
  it("a diff list stops before passing the byte bound and nextCursor continues from there", async () => {
    const ids: string[] = [];
    let previous: string | null = null;
    const start = Date.now() - 60_000;
    for (let i = 0; i < 8; i++) {
      const seeded = await seedBigDiff(new Date(start + i * 1000), 300_000, previous);
      previous = seeded.snapshotId;
      ids.unshift(seeded.diffId); // newest first
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/diffs?limit=8${cursor ? `&cursor=${cursor}` : ""}` });
      expect(res.statusCode).toBe(200);
      expect(Buffer.byteLength(res.body)).toBeLessThanOrEqual(MAX + 1024);
      const page = json(res) as { data: Array<{ id: string }>; nextCursor: string | null };
      expect(page.data.length).toBeGreaterThan(0);
      expect(page.data.length).toBeLessThanOrEqual(3); // 3 x 300 KB fit in 1 MB, 4 do not
      seen.push(...page.data.map((d) => d.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);
  });

  it("a single item larger than the bound is still returned (every page makes progress)", async () => {
    const res = await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/diffs?limit=1` });
    expect(json(res).data).toHaveLength(1);
    const harness = await createHarness({ config: { maxListResponseBytes: 100 } });
    try {
      const id = json(await harness.request(harness.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id as string;
      const store = harness.store;
      const at = new Date();
      const body = "{}";
      const snapshotId = newId("snapshot", at.getTime());
      await store.recordCheck(harness.a.orgId, {
        monitorId: id,
        monitor: {},
        snapshot: { id: snapshotId, fetchedAt: at.toISOString(), status: 200, latencyMs: 1, contentType: null, contentHash: `sha256:${"0".repeat(64)}`, size: 2, browserRender: false, body },
        diff: {
          id: newId("diff", at.getTime()),
          previousSnapshotId: null,
          classification: "value_change",
          schemaChanges: 0,
          valueChanges: 1,
          topSeverity: "info",
          diffFingerprint: `sha256:${"1".repeat(64)}`,
          changes: [{ path: "$.a", category: "value", op: "add", severity: "info", after: "y".repeat(500) }],
          requestId: newId("request"),
          status: 200,
          latencyMs: 1,
          createdAt: at.toISOString(),
        },
        event: null,
      });
      const page = json(await harness.request(harness.a.admin, { method: "GET", url: `/api/monitors/${id}/diffs?limit=20` }));
      expect(page.data).toHaveLength(1);
      expect(page.nextCursor).toBeNull();
    } finally {
      await harness.close();
    }
  });
});
