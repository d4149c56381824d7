// Learning by default, through the API on the real check pipeline and SQLite: the organization's
// default, what a check silenced, the comparison with and without the learned policy, and
// rejected learned entries.
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Fetcher } from "@driftwatch/core";
import { assertSafeUrl, createHttpFetcher } from "@driftwatch/fetcher-http";
import { OrgSchema, SettingsSchema, SnapshotCompareSchema, SnapshotSchema } from "@driftwatch/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckService, createNoiseLearner } from "../../src/index.js";
import { createHarness, expectProblem, json, type Harness } from "./harness.js";

let h: Harness;
let target: Server;
let base: string;
let fetcher: Fetcher;
/** The stable part of the answer; every answer also gets a new `request_id` and `served_at`. */
const state: { doc: Record<string, unknown> } = { doc: { plan: "pro", price: 10 } };
let served = 0;
/** The website page at /scoped-page: a price in its <main>, an offer in its <aside>. */
const page = { price: "10", ad: "one" };
/** Per path: the values `pos` takes, one per fetch, in turn. */
const jitter: Record<string, { values: number[]; at: number }> = {
  // by less than 1 %: learned as a tolerance
  "/jitter-small": { values: [48.8566, 48.85661, 48.85659, 48.85662, 48.8566, 48.85663, 48.85658], at: 0 },
  // by varying amounts: a measurement, learned as volatile
  "/jitter-big": { values: [20.1, 23.5, 19.2, 27.3, 21.4, 25.9, 18.7], at: 0 },
};

beforeAll(async () => {
  target = createServer((req, res) => {
    served++;
    if (req.url === "/scoped-page") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html><body><main><p id="price">Price ${page.price}</p></main><aside><p id="ad">Offer ${page.ad}</p></aside></body></html>`);
      return;
    }
    const series = req.url === undefined ? undefined : jitter[req.url];
    res.writeHead(200, { "content-type": "application/json" });
    if (series !== undefined) {
      // a number that moves on every fetch, nothing else does
      res.end(JSON.stringify({ plan: "pro", pos: series.values[series.at++ % series.values.length] }));
      return;
    }
    res.end(JSON.stringify({ ...state.doc, request_id: randomUUID(), served_at: new Date(Date.UTC(2026, 0, 1) + served * 60_000).toISOString() }));
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  fetcher = createHttpFetcher({ allowPrivateNetworks: true, timeoutMs: 5000 });
  h = await createHarness({
    checks: (store, now) => createCheckService({ store, httpFetcher: fetcher, now, noise: createNoiseLearner(store) }),
    urlGuard: { assertSafeUrl: (url) => assertSafeUrl(url, { allowPrivateNetworks: true }) },
  });
});
afterAll(async () => {
  await h?.close();
  await fetcher?.close();
  await new Promise<void>((resolve) => target?.close(() => resolve()));
});

const check = async (id: string) => json(await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${id}/check` }));
const create = async (path: string) => json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { url: `${base}${path}` } })).id as string;
const settingsOf = async (id: string) => SettingsSchema.parse(json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/settings` })));

describe("the organization's learnNoiseByDefault", () => {
  it("is true, so a monitor created with no settings learns; an admin turns it off for new monitors only", async () => {
    const org = OrgSchema.parse(json(await h.request(h.a.admin, { method: "GET", url: `/api/orgs/${h.a.orgId}` })));
    expect(org.learnNoiseByDefault).toBe(true);
    const before = await create("/a");
    expect((await settingsOf(before)).autoApplySuggestions).toBe(true);

    const reader = await h.a.token(["monitors:read", "monitors:write"], "not-admin");
    expectProblem(await h.request(reader.secret, { method: "PATCH", url: `/api/orgs/${h.a.orgId}`, payload: { learnNoiseByDefault: false } }), 403, "insufficient_scope");
    expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/orgs/${h.a.orgId}`, payload: {} }), 422, "validation_failed");
    const bad = expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/orgs/${h.a.orgId}`, payload: { learnNoiseByDefault: "no" } }), 422, "validation_failed");
    expect(bad.errors).toEqual([expect.objectContaining({ path: "learnNoiseByDefault" })]);

    const off = json(await h.request(h.a.admin, { method: "PATCH", url: `/api/orgs/${h.a.orgId}`, payload: { learnNoiseByDefault: false } }));
    expect(off).toMatchObject({ learnNoiseByDefault: false, name: org.name });
    const after = await create("/b");
    expect((await settingsOf(after)).autoApplySuggestions).toBe(false);
    // the monitor made before keeps its setting; the other organization is untouched
    expect((await settingsOf(before)).autoApplySuggestions).toBe(true);
    expect(json(await h.request(h.b.admin, { method: "GET", url: `/api/orgs/${h.b.orgId}` })).learnNoiseByDefault).toBe(true);
    // renaming keeps it
    expect(json(await h.request(h.a.admin, { method: "PATCH", url: `/api/orgs/${h.a.orgId}`, payload: { name: "Renamed" } }))).toMatchObject({ name: "Renamed", learnNoiseByDefault: false });
    expect(json(await h.request(h.a.admin, { method: "PATCH", url: `/api/orgs/${h.a.orgId}`, payload: { learnNoiseByDefault: true } })).learnNoiseByDefault).toBe(true);
  });
});

describe("a monitor's target changes", () => {
  it("a new URL, method, body or selector starts a new learning history (learningSince); other edits keep it", async () => {
    const id = await create("/target-one");
    const stored = async () => (await h.store.getMonitor(h.a.orgId, id))!;
    expect((await stored()).learningSince ?? null).toBeNull();
    const patch = async (payload: Record<string, unknown>) => {
      h.clock.now = new Date(h.clock.now.getTime() + 1000);
      const response = await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}`, payload });
      expect(response.statusCode).toBe(200);
      return { at: h.clock.now.toISOString(), since: (await stored()).learningSince ?? null };
    };
    expect((await patch({ name: "renamed", intervalSeconds: 600, tags: ["x"] })).since).toBeNull();
    // the same URL again is no new target
    expect((await patch({ url: `${base}/target-one` })).since).toBeNull();
    const moved = await patch({ url: `${base}/target-two` });
    expect(moved.since).toBe(moved.at);
    expect((await patch({ name: "again" })).since).toBe(moved.at);
    const posted = await patch({ method: "POST", body: "{}" });
    expect(posted.since).toBe(posted.at);
    const body = await patch({ body: "{\"q\":1}" });
    expect(body.since).toBe(body.at);

    const page = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { type: "website", url: `${base}/page`, selector: "main" } })).id as string;
    h.clock.now = new Date(h.clock.now.getTime() + 1000);
    expect(json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${page}`, payload: { selector: "main" } })).selector).toBe("main");
    expect((await h.store.getMonitor(h.a.orgId, page))!.learningSince ?? null).toBeNull();
    h.clock.now = new Date(h.clock.now.getTime() + 1000);
    expect(json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${page}`, payload: { selector: "#prices" } })).selector).toBe("#prices");
    expect((await h.store.getMonitor(h.a.orgId, page))!.learningSince).toBe(h.clock.now.toISOString());
  });
});

describe("what a learning monitor silenced, through the API", () => {
  let id: string;
  let quiet: Record<string, any>;

  it("the second check is a learning diff; from the third, noise records no diff and the snapshot says what was silenced", async () => {
    state.doc = { plan: "pro", price: 10 };
    id = await create("/noisy");
    expect((await check(id)).diff).toBeNull();
    const second = await check(id);
    expect(second.diff).toMatchObject({ learning: true });
    for (let i = 0; i < 3; i++) {
      quiet = await check(id);
      expect(quiet.diff).toBeNull();
      const snapshot = SnapshotSchema.parse(quiet.snapshot);
      expect(snapshot.silenced?.learnedCount).toBe(snapshot.silenced?.count);
      expect(snapshot.silenced?.changes.map((c) => c.path).sort()).toEqual(["$.request_id", "$.served_at"]);
      expect(snapshot.silenced?.changes.every((c) => c.learned?.kind === "volatile" && typeof c.learned.path === "string")).toBe(true);
    }
    // the timeline (snapshot list) carries it; the diffs list has only the learning diff
    const listed = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/snapshots?limit=10` }));
    expect(listed.data[0]).toMatchObject({ id: quiet.snapshot.id, silenced: quiet.snapshot.silenced });
    expect(listed.data.at(-1).silenced).toBeUndefined();
    const diffs = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/diffs` }));
    expect(diffs.data).toHaveLength(1);
    expect(diffs.data[0].learning).toBe(true);
    // a real change is reported, not learning
    state.doc = { plan: "pro", price: 12 };
    const real = await check(id);
    expect(real.diff.learning).toBeUndefined();
    expect(real.diff.changes.map((c: { path: string }) => c.path)).toEqual(["$.price"]);
  });

  it("compares the silenced pair again with the effective policy, the user's rules only, or none", async () => {
    const { previousSnapshotId } = quiet.snapshot.silenced;
    const url = (policy?: string) => `/api/monitors/${id}/compare?from=${previousSnapshotId}&to=${quiet.snapshot.id}${policy ? `&policy=${policy}` : ""}`;
    const effective = SnapshotCompareSchema.parse(json(await h.request(h.a.admin, { method: "GET", url: url() })));
    expect(effective).toMatchObject({ policy: "effective", includesLearned: true, diff: null });
    expect(effective.hidden.learnedCount).toBe(2);
    const user = SnapshotCompareSchema.parse(json(await h.request(h.a.admin, { method: "GET", url: url("user") })));
    expect(user.includesLearned).toBe(false);
    expect(user.diff?.changes.map((c) => c.path).sort()).toEqual(["$.request_id", "$.served_at"]);
    expect(user.hidden.count).toBe(0);
    // a user's ignore rule hides served_at in both; the learned policy alone hides request_id
    await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { policyRules: { rules: [{ path: "$.served_at", action: "ignore" }] } } });
    const ruled = SnapshotCompareSchema.parse(json(await h.request(h.a.admin, { method: "GET", url: url("user") })));
    expect(ruled.diff?.changes.map((c) => c.path)).toEqual(["$.request_id"]);
    expect(ruled.hidden.changes).toEqual([{ path: "$.served_at", outcome: "ignored", rule: "rules[0]" }]);
    const none = SnapshotCompareSchema.parse(json(await h.request(h.a.admin, { method: "GET", url: url("none") })));
    expect(none.diff?.changes).toHaveLength(2);

    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/compare?from=snp_nope&to=${quiet.snapshot.id}` }), 404, "not_found");
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `${url()}&policy=learned` }), 400, "invalid_request");
    expectProblem(await h.request(h.b.admin, { method: "GET", url: url() }), 404, "not_found");
    await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { policyRules: { rules: [] } } });
  });

  it("a rejected learned entry is not applied again, and is validated", async () => {
    const entry = quiet.snapshot.silenced.changes.find((c: { path: string }) => c.path === "$.request_id");
    const bad = expectProblem(
      await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { rejectedSuggestions: [{ kind: "volatile", path: "$.a", selector: ".b" }] } }),
      422,
      "validation_failed",
    );
    expect(bad.errors?.[0]?.path).toContain("rejectedSuggestions");
    const twice = { kind: "volatile", path: entry.learned.path };
    const set = json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { rejectedSuggestions: [twice, twice] } }));
    expect(set.rejectedSuggestions).toEqual([twice]);
    const loud = await check(id);
    expect(loud.diff.changes.map((c: { path: string }) => c.path)).toEqual(["$.request_id"]);
    expect(loud.diff.learning).toBeUndefined();
  });
});

describe("a rejected noise entry blocks every kind that would silence its path", () => {
  /** Checks until one records no diff (the learned policy silenced `pos`); the learned entries at `$.pos` then. */
  async function quietMonitor(path: string): Promise<{ id: string; kinds: string[] }> {
    const id = await create(path);
    expect((await check(id)).diff).toBeNull(); // the first content
    let quiet = false;
    for (let i = 0; i < 12 && !quiet; i++) quiet = (await check(id)).diff === null;
    expect(quiet, "the learner silences pos before the rejection").toBe(true);
    const noise = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/noise` }));
    const kinds = (noise.evidence as Array<{ kind: string; path?: string }>).filter((e) => e.path === "$.pos" && e.kind !== "severity" && e.kind !== "kept").map((e) => e.kind);
    return { id, kinds };
  }

  for (const [path, learned, rejected] of [
    ["/jitter-small", "tolerance", "volatile"],
    ["/jitter-big", "volatile", "tolerance"],
  ] as const) {
    it(`rejecting ${rejected} $.pos keeps a ${learned} learned at $.pos from silencing it; the rejection is kept as made`, async () => {
      const { id, kinds } = await quietMonitor(path);
      expect(kinds).toEqual([learned]);
      const rejection = [{ kind: rejected, path: "$.pos" }];
      const set = SettingsSchema.parse(json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { rejectedSuggestions: rejection } })));
      expect(set.rejectedSuggestions).toEqual(rejection);
      const loud = await check(id);
      expect(loud.diff?.changes.map((c: { path: string }) => c.path)).toEqual(["$.pos"]);
      expect(loud.diff.learning).toBeUndefined();
      // the learner still finds it (the rules page shows it), the stored rejection is unchanged
      const noise = json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/noise` }));
      expect((noise.evidence as Array<{ kind: string; path?: string }>).some((e) => e.kind === learned && e.path === "$.pos")).toBe(true);
      expect((await settingsOf(id)).rejectedSuggestions).toEqual(rejection);
      // the comparison under the effective policy leaves it out too
      const compared = SnapshotCompareSchema.parse(
        json(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/compare?from=${loud.diff.previousSnapshotId}&to=${loud.diff.snapshotId}` })),
      );
      expect(compared.diff?.changes.map((c) => c.path)).toEqual(["$.pos"]);
      // an array key or another path is no rejection of this one: silenced again
      await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { rejectedSuggestions: [{ kind: "arrayKey", path: "$.pos" }, { kind: rejected, path: "$.pos.x" }] } });
      expect((await check(id)).diff).toBeNull();
    });
  }
});

describe("comparing snapshots a website monitor took before its selector changed", () => {
  it("compares a pair under the selector its check used (its recorded diff's), and refuses with 409 when that is not known", async () => {
    const id = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { type: "website", url: `${base}/scoped-page`, selector: "main" } })).id as string;
    await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { autoApplySuggestions: false } });
    const compare = async (from: string, to: string) => h.request(h.a.admin, { method: "GET", url: `/api/monitors/${id}/compare?from=${from}&to=${to}&policy=none` });
    const texts = (compared: { diff: { changes: Array<{ before?: unknown; after?: unknown }> } | null }) => JSON.stringify(compared.diff?.changes ?? []);
    Object.assign(page, { price: "10", ad: "one" });
    const first = await check(id);
    expect(first.diff).toBeNull();
    // the price in <main> changes (and the offer): a diff scoped to main
    Object.assign(page, { price: "12", ad: "two" });
    const priced = await check(id);
    expect(priced.diff).toMatchObject({ selector: "main" });
    // only the offer changes, outside the scope: a new snapshot, no diff
    Object.assign(page, { ad: "three" });
    const outside = await check(id);
    expect(outside.diff).toBeNull();
    expect(outside.snapshot.id).not.toBe(priced.snapshot.id);

    h.clock.now = new Date(h.clock.now.getTime() + 60_000);
    expect(json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}`, payload: { selector: "aside" } })).selector).toBe("aside");

    // the recorded diff's pair: compared under main, as its check did, not under the new aside
    const recorded = SnapshotCompareSchema.parse(json(await compare(first.snapshot.id, priced.snapshot.id)));
    expect(texts(recorded)).toContain("12");
    expect(texts(recorded)).not.toContain("two");
    expect(recorded.selector).toBe("main");
    // a pair whose check recorded no diff, before the change: its selector is not known
    const unknown = expectProblem(await compare(priced.snapshot.id, outside.snapshot.id), 409, "conflict");
    expect(unknown.detail).toContain("selector");
    expect(unknown.targetChangedAt).toBe((await h.store.getMonitor(h.a.orgId, id))!.learningSince);

    // since the change: the new selector, for the pair across the change as its check compared it
    Object.assign(page, { ad: "four" });
    h.clock.now = new Date(h.clock.now.getTime() + 60_000);
    const after = await check(id);
    expect(after.diff).toMatchObject({ selector: "aside" });
    const across = SnapshotCompareSchema.parse(json(await compare(outside.snapshot.id, after.snapshot.id)));
    expect(across.selector).toBe("aside");
    expect(texts(across)).toContain("four");
    // a snapshot since the change with no diff of its own: the current selector
    Object.assign(page, { price: "15" });
    h.clock.now = new Date(h.clock.now.getTime() + 60_000);
    const quiet = await check(id);
    expect(quiet.diff).toBeNull();
    const current = SnapshotCompareSchema.parse(json(await compare(after.snapshot.id, quiet.snapshot.id)));
    expect(current).toMatchObject({ selector: "aside", diff: null });
  });
});

describe("a monitor's own learning settings", () => {
  it("learning sets its warm-up fetches and learning samples, validated; null takes the service's defaults again", async () => {
    const id = await create("/own-learning");
    expect((await settingsOf(id)).learning).toBeNull();
    for (const bad of [{ warmupSamples: 6 }, { learningSamples: 1 }, { learningSamples: 2.5 }, { warmup: 1 }, "3"]) {
      const problem = expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { learning: bad } }), 422, "validation_failed");
      expect(problem.errors?.[0]?.path, JSON.stringify(bad)).toContain("learning");
    }
    const set = SettingsSchema.parse(json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { learning: { warmupSamples: 0, learningSamples: 4 } } })));
    expect(set.learning).toEqual({ warmupSamples: 0, learningSamples: 4 });
    // other settings leave it as it is
    expect(SettingsSchema.parse(json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { snapshotRetention: 50 } }))).learning).toEqual({ warmupSamples: 0, learningSamples: 4 });
    expect((await settingsOf(id)).learning).toEqual({ warmupSamples: 0, learningSamples: 4 });
    expect(SettingsSchema.parse(json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { learning: null } }))).learning).toBeNull();
    expect(SettingsSchema.parse(json(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${id}/settings`, payload: { learning: {} } }))).learning).toBeNull();
  });

  it("an organization's learningDefaults (admin, validated) is the learning setting new monitors start with; existing ones keep theirs", async () => {
    const before = await create("/org-learning-before");
    expect(OrgSchema.parse(json(await h.request(h.a.admin, { method: "GET", url: `/api/orgs/${h.a.orgId}` }))).learningDefaults).toBeNull();
    const bad = expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/orgs/${h.a.orgId}`, payload: { learningDefaults: { warmupSamples: -1 } } }), 422, "validation_failed");
    expect(bad.errors?.[0]?.path).toContain("learningDefaults");
    const set = OrgSchema.parse(json(await h.request(h.a.admin, { method: "PATCH", url: `/api/orgs/${h.a.orgId}`, payload: { learningDefaults: { warmupSamples: 1 } } })));
    expect(set.learningDefaults).toEqual({ warmupSamples: 1 });
    const after = await create("/org-learning-after");
    expect((await settingsOf(after)).learning).toEqual({ warmupSamples: 1 });
    expect((await settingsOf(before)).learning).toBeNull();
    expect(json(await h.request(h.b.admin, { method: "GET", url: `/api/orgs/${h.b.orgId}` })).learningDefaults).toBeNull();
    expect(OrgSchema.parse(json(await h.request(h.a.admin, { method: "PATCH", url: `/api/orgs/${h.a.orgId}`, payload: { learningDefaults: null } }))).learningDefaults).toBeNull();
    expect((await settingsOf(await create("/org-learning-cleared"))).learning).toBeNull();
  });
});
