import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiMonitor, createHarness, expectProblem, json, websiteMonitor, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe("monitors", () => {
  it("creates, reads, lists, updates and deletes a monitor", async () => {
    const created = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor });
    expect(created.statusCode).toBe(201);
    expect(created.headers["x-request-id"]).toMatch(/^req_/);
    const monitor = json(created);
    expect(monitor).toMatchObject({
      type: "api",
      name: "Prices",
      url: apiMonitor.url,
      method: "GET",
      intervalSeconds: 300,
      state: "active",
      browserOptionsJson: null,
      headers: {},
      consecutiveFailures: 0,
    });
    expect(monitor.id).toMatch(/^mon_/);
    expect(monitor).not.toHaveProperty("orgId");
    expect(h.guard.calls).toContain(apiMonitor.url);

    const got = await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitor.id}` });
    expect(json(got)).toEqual(monitor);

    const list = json(await h.request(h.a.admin, { method: "GET", url: "/api/monitors" }));
    expect(list.data.map((m: { id: string }) => m.id)).toContain(monitor.id);
    expect(list).toHaveProperty("nextCursor");

    h.clock.now = new Date(h.clock.now.getTime() + 1000);
    const patched = await h.request(h.a.admin, {
      method: "PATCH",
      url: `/api/monitors/${monitor.id}`,
      payload: { name: "Prices v2", state: "paused", intervalSeconds: 60 },
    });
    expect(patched.statusCode).toBe(200);
    expect(json(patched)).toMatchObject({ name: "Prices v2", state: "paused", intervalSeconds: 60 });
    expect(json(patched).updatedAt).not.toBe(monitor.updatedAt);

    const resumed = json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitor.id}`, payload: { state: "active" } }));
    expect(resumed.state).toBe("active");
    expect(resumed.nextCheckAt).toBe(h.clock.now.toISOString());

    const deleted = await h.request(h.a.admin, { method: "DELETE", url: `/api/monitors/${monitor.id}` });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe("");
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitor.id}` }), 404, "not_found");
    expectProblem(await h.request(h.a.admin, { method: "DELETE", url: `/api/monitors/${monitor.id}` }), 404, "not_found");
  });

  it("masks credential headers and keeps them when sent back masked", async () => {
    const headers = { Authorization: "Bearer s3cret", "X-Api-Key": "k", Cookie: "a=b", "X-Session-Token": "t", Accept: "application/json" };
    const created = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, headers } }));
    expect(created.headers).toEqual({ Authorization: "***", "X-Api-Key": "***", Cookie: "***", "X-Session-Token": "***", Accept: "application/json" });
    const stored = await h.store.getMonitor(h.a.orgId, created.id);
    expect(stored!.headers).toEqual(headers);

    // round trip: PATCH with the masked values keeps the secrets; a new value replaces one
    const patched = await h.request(h.a.admin, {
      method: "PATCH",
      url: `/api/monitors/${created.id}`,
      payload: { headers: { ...created.headers, Cookie: "c=d" } },
    });
    expect(json(patched).headers.Cookie).toBe("***");
    expect((await h.store.getMonitor(h.a.orgId, created.id))!.headers).toEqual({ ...headers, Cookie: "c=d" });

    // "***" stands for a stored value: where there is none (a copied monitor, a new credential
    // header), it would be sent as the credential itself, so it is refused
    const copied = expectProblem(
      await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, headers: created.headers } }),
      422,
      "validation_failed",
    );
    expect(copied.errors.map((e: { path: string }) => e.path).sort()).toEqual(["headers.Authorization", "headers.Cookie", "headers.X-Api-Key", "headers.X-Session-Token"]);
    const added = expectProblem(
      await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${created.id}`, payload: { headers: { ...created.headers, "X-Other-Secret": "***" } } }),
      422,
      "validation_failed",
    );
    expect(added.errors).toEqual([{ path: "headers.X-Other-Secret", message: expect.stringContaining("stored") }]);
    expect((await h.store.getMonitor(h.a.orgId, created.id))!.headers).toEqual({ ...headers, Cookie: "c=d" });
    // a header that is not a credential may hold "***" as it is
    expect((await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, headers: { "X-Stars": "***" } } })).statusCode).toBe(201);
  });

  it("accepts browserOptions for website monitors and returns them as browserOptionsJson (seed 4.2)", async () => {
    const created = await h.request(h.a.admin, {
      method: "POST",
      url: "/api/monitors",
      payload: { ...websiteMonitor, selector: "#main", browserOptions: { waitStrategy: "load", viewport: { width: 1280, height: 800 } } },
    });
    expect(created.statusCode).toBe(201);
    const monitor = json(created);
    expect(monitor).not.toHaveProperty("browserOptions");
    expect(monitor.browserOptionsJson).toEqual({ waitStrategy: "load", timeoutMs: 30000, viewport: { width: 1280, height: 800 } });

    const updated = json(
      await h.request(h.a.admin, {
        method: "PATCH",
        url: `/api/monitors/${monitor.id}`,
        payload: { browserOptions: { waitStrategy: "networkidle", blockResources: ["image", "font"], extraWaitMs: 500 } },
      }),
    );
    expect(updated.browserOptionsJson).toEqual({ waitStrategy: "networkidle", timeoutMs: 30000, blockResources: ["image", "font"], extraWaitMs: 500 });
    const read = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitor.id}` }));
    expect(read.browserOptionsJson).toEqual(updated.browserOptionsJson);

    const off = json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitor.id}`, payload: { browserOptions: null } }));
    expect(off.browserOptionsJson).toBeNull();
  });

  it("pages monitors with limit and cursor", async () => {
    const fresh = await createHarness();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(json(await fresh.request(fresh.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, name: `m${i}` } })).id);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const url: string = `/api/monitors?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const page = json(await fresh.request(fresh.a.admin, { method: "GET", url }));
        expect(page.data.length).toBeLessThanOrEqual(2);
        seen.push(...page.data.map((m: { id: string }) => m.id));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect([...seen].sort()).toEqual([...ids].sort());
      expect(new Set(seen).size).toBe(5);
    } finally {
      await fresh.close();
    }
  });

  it("takes tags on create and update, shows them, and lists by tag (GET /api/monitors?tag=)", async () => {
    const fresh = await createHarness();
    try {
      const create = (payload: object) => fresh.request(fresh.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, ...payload } });
      const untagged = json(await create({ name: "untagged" }));
      expect(untagged.tags).toEqual([]);
      const first = await create({ name: "a", tags: [" Prod", "team:payments", "prod"] });
      expect(first.statusCode).toBe(201);
      const a = json(first);
      expect(a.tags).toEqual(["prod", "team:payments"]);
      const b = json(await create({ name: "b", tags: ["prod", "eu"] }));
      expect(json(await fresh.request(fresh.a.admin, { method: "GET", url: `/api/monitors/${a.id}` })).tags).toEqual(["prod", "team:payments"]);

      const list = (query: string) => fresh.request(fresh.a.admin, { method: "GET", url: `/api/monitors${query}` });
      expect(json(await list("?tag=prod")).data.map((m: { name: string }) => m.name)).toEqual(["b", "a"]);
      expect(json(await list("?tag=PROD&limit=1")).data.map((m: { name: string }) => m.name)).toEqual(["b"]);
      const second = json(await list(`?tag=prod&limit=1&cursor=${encodeURIComponent(json(await list("?tag=prod&limit=1")).nextCursor)}`));
      expect(second.data.map((m: { name: string }) => m.name)).toEqual(["a"]);
      expect(second.nextCursor).toBeNull();
      expect(json(await list("?tag=team%3Apayments")).data.map((m: { id: string }) => m.id)).toEqual([a.id]);
      expect(json(await list("?tag=nobody-has-this"))).toEqual({ data: [], nextCursor: null });
      expect(json(await list("")).data).toHaveLength(3);
      // another organization's monitors with the tag are not listed
      await fresh.request(fresh.b.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, tags: ["prod"] } });
      expect(json(await list("?tag=prod")).data).toHaveLength(2);

      const patched = await fresh.request(fresh.a.admin, { method: "PATCH", url: `/api/monitors/${b.id}`, payload: { tags: ["EU", "staging"] } });
      expect(patched.statusCode).toBe(200);
      expect(json(patched).tags).toEqual(["eu", "staging"]);
      expect(json(await fresh.request(fresh.a.admin, { method: "PATCH", url: `/api/monitors/${b.id}`, payload: { name: "b2" } })).tags).toEqual(["eu", "staging"]);
      expect(json(await list("?tag=prod")).data.map((m: { id: string }) => m.id)).toEqual([a.id]);
      expect(json(await fresh.request(fresh.a.admin, { method: "PATCH", url: `/api/monitors/${b.id}`, payload: { tags: [] } })).tags).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it("refuses bad tags with a problem and keeps the stored ones", async () => {
    const created = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, tags: ["keep"] } }));
    const tooMany = Array.from({ length: 21 }, (_, i) => `t${i}`);
    for (const tags of [["has space"], [""], ["x".repeat(65)], ["ünïcode"], tooMany, "prod", [42]]) {
      const bad = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, tags } });
      const problem = expectProblem(bad, 422, "validation_failed");
      expect(problem.errors.map((e: { path: string }) => e.path.split(/[.[]/)[0])).toContain("tags");
      expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${created.id}`, payload: { tags } }), 422, "validation_failed");
    }
    expect((await h.store.getMonitor(h.a.orgId, created.id))!.tags).toEqual(["keep"]);
    for (const tag of ["a%20b", "a%2Fb", "", "x".repeat(65)]) {
      const problem = expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors?tag=${tag}` }), 400, "invalid_request");
      expect(problem.errors.map((e: { path: string }) => e.path)).toContain("tag");
    }
  });
});
