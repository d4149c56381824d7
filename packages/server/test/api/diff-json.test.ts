import { DiffSchema } from "@driftwatch/schema";
import { afterEach, describe, expect, it } from "vitest";
import { presentDiff } from "../../src/routes/present.js";
import { apiMonitor, createHarness, expectProblem, json, seedCheck, type Harness } from "./harness.js";

// GET /api/monitors/{id}/diffs/{diffId} answers the store's getDiffJson: SQLite returns the stored
// text as is, memory serialises its record; either way the bytes are JSON.stringify(presentDiff(getDiff)).

let harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses) await h.close();
  harnesses = [];
});

type StoreKind = "sqlite" | "memory";

async function harness(kind: StoreKind): Promise<Harness> {
  const h = await createHarness({
    store: async () => {
      const store =
        kind === "sqlite"
          ? await (await import("@driftwatch/store-sqlite")).createSqliteStore({ filename: ":memory:" })
          : await (await import("@driftwatch/store-memory")).createMemoryStore();
      return { store, close: () => store.close() };
    },
  });
  harnesses.push(h);
  return h;
}

async function oneDiff(h: Harness): Promise<{ url: string; expected: string; monitorId: string; diffId: string }> {
  const monitorId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id as string;
  const seeded = await seedCheck(h.store, h.a.orgId, monitorId);
  const stored = await h.store.getDiff(h.a.orgId, monitorId, seeded.diffId);
  return { url: `/api/monitors/${monitorId}/diffs/${seeded.diffId}`, expected: JSON.stringify(presentDiff(stored!)), monitorId, diffId: seeded.diffId };
}

describe("GET one diff", () => {
  for (const kind of ["sqlite", "memory"] as const) {
    it(`answers JSON.stringify(presentDiff(diff)) exactly (${kind} store)`, async () => {
      const h = await harness(kind);
      const { url, expected } = await oneDiff(h);
      const res = await h.request(h.a.admin, { method: "GET", url });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(res.body).toBe(expected);
      expect(json(res)).not.toHaveProperty("orgId");
      DiffSchema.parse(json(res));
      expect(res.headers["x-request-id"]).toEqual(expect.any(String));
      expect(res.headers["ratelimit"]).toEqual(expect.any(String));
    });

    it(`is 404 for another organization and another monitor (${kind} store)`, async () => {
      const h = await harness(kind);
      const { url, diffId } = await oneDiff(h);
      expectProblem(await h.request(h.b.admin, { method: "GET", url }), 404, "not_found");
      const other = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, name: "other" } })).id as string;
      expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${other}/diffs/${diffId}` }), 404, "not_found");
    });
  }

  it("answers the same shape from the SQLite and the memory store", async () => {
    const [withJson, without] = [await harness("sqlite"), await harness("memory")];
    const a = await oneDiff(withJson);
    const b = await oneDiff(without);
    const bodyA = (await withJson.request(withJson.a.admin, { method: "GET", url: a.url })).body;
    const bodyB = (await without.request(without.a.admin, { method: "GET", url: b.url })).body;
    // different ids and times; the same shape and key order
    expect(Object.keys(JSON.parse(bodyA) as object)).toEqual(Object.keys(JSON.parse(bodyB) as object));
  });
});
