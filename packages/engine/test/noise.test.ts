// The service learns: a monitor with autoApplySuggestions stops reporting a noisy target's noise
// once it has a few snapshots, and still reports a real change. Real SQLite file, real HTTP.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { diffJson, type Fetcher, newId, type PolicyRules, type Store } from "@driftwatch/core";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckService, createComparePool, createNoiseLearner, learnContent, learnedOriginOf, mergeSuggestedPolicy, rejectionBlocks, withoutRejected } from "../src/index.js";
import { createMonitor, manualClock, openTempStore } from "./fixtures.js";

interface NoisyTarget {
  url: string;
  /** The meaningful content: what a real change changes. */
  state: { items: Array<{ id: number; name: string; price: number }>; currency: string };
  close(): Promise<void>;
}

/** Stamps generated_at and a request id into every answer and returns the items in a new order each time. */
async function startNoisyTarget(): Promise<NoisyTarget> {
  const state = {
    currency: "EUR",
    items: [
      { id: 1, name: "apple", price: 3 },
      { id: 2, name: "pear", price: 5 },
      { id: 3, name: "plum", price: 7 },
      { id: 4, name: "fig", price: 11 },
    ],
  };
  let served = 0;
  const server = http.createServer((_request, response) => {
    served++;
    const items = state.items.map((item) => ({ ...item }));
    // a rotation by the number of requests served: never the same order twice in a row
    const rotated = [...items.slice(served % items.length), ...items.slice(0, served % items.length)];
    const body = JSON.stringify({
      generated_at: new Date(Date.UTC(2026, 0, 1) + served * 61_000).toISOString(),
      request_id: randomUUID(),
      currency: state.currency,
      items: rotated,
    });
    response.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/catalog`,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("autoApplySuggestions on a noisy target (SQLite file, loopback HTTP)", () => {
  let dir: string;
  let store: Store;
  let orgId: string;
  let target: NoisyTarget;
  let fetcher: Fetcher;
  const clock = manualClock();

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-noise-"));
    store = await createSqliteStore({ filename: path.join(dir, "noise.db"), now: clock.now });
    orgId = (await store.createOrganization({ slug: "noise" })).id;
    target = await startNoisyTarget();
    fetcher = createHttpFetcher({ allowPrivateNetworks: true });
  });
  afterAll(async () => {
    await fetcher.close();
    await target.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function service() {
    return createCheckService({ store, httpFetcher: fetcher, now: clock.now, noise: createNoiseLearner(store) });
  }
  async function check(checks: ReturnType<typeof service>, monitorId: string) {
    clock.advance(60_000);
    const monitor = (await store.getMonitor(orgId, monitorId))!;
    return checks.runCheck(monitor, { requestId: `req_${String(clock.ms())}` });
  }

  it("with the setting off, every fetch of noise is a diff", async () => {
    const monitor = await createMonitor(store, orgId, { url: target.url });
    const checks = service();
    expect((await check(checks, monitor.id)).result).toBe("new_snapshot");
    for (let i = 0; i < 4; i++) {
      const outcome = await check(checks, monitor.id);
      expect(outcome.result).toBe("changed");
      expect(outcome.diff?.changes.map((c) => c.path)).toEqual(expect.arrayContaining(["$.generated_at", "$.request_id"]));
    }
  });

  it("with it on: a learning diff on the second fetch, none for noise from the third (also after a restart), one for a real change", async () => {
    const monitor = await createMonitor(store, orgId, { url: target.url });
    await store.updateSettings(orgId, monitor.id, { autoApplySuggestions: true, updatedAt: clock.now().toISOString() });
    await store.createWebhook(orgId, { url: "https://hooks.example.com/noise", description: null, events: ["diff.detected"], monitorIds: [monitor.id], minSeverity: "info", enabled: true, secret: "whsec_YQ==" });
    let checks = service();
    expect((await check(checks, monitor.id)).result).toBe("new_snapshot");
    // the second fetch: two contents are too few to tell noise from change; recorded as learning, not sent
    const second = await check(checks, monitor.id);
    expect(second.result).toBe("changed");
    expect(second.diff?.learning).toBe(true);
    expect(second.deliveries).toBe(0);
    // from the third fetch: three contents (this one included), the noise is learned: new snapshots, no diff,
    // and each snapshot says what was silenced and by which learned entry
    for (let i = 0; i < 4; i++) {
      const outcome = await check(checks, monitor.id);
      expect(outcome.result).toBe("new_snapshot");
      expect(outcome.diff).toBeNull();
      const silenced = outcome.snapshot?.silenced;
      expect(silenced?.count).toBeGreaterThanOrEqual(2);
      expect(silenced?.learnedCount).toBe(silenced?.count);
      expect(silenced?.changes.map((c) => c.path)).toEqual(expect.arrayContaining(["$.generated_at", "$.request_id"]));
      for (const change of silenced!.changes) expect(change.learned).toMatchObject({ kind: expect.any(String), index: expect.any(Number) });
      const stored = await store.getSnapshot(orgId, monitor.id, outcome.snapshot!.id);
      expect(stored?.silenced).toEqual(silenced);
    }
    const noise = await createNoiseLearner(store).profile((await store.getMonitor(orgId, monitor.id))!);
    const viaGeneratedAt = (await store.getLatestSnapshot(orgId, monitor.id))!.silenced!.changes.find((c) => c.path === "$.generated_at")!;
    // the learned entry named is the one the profile lists at that index
    expect(noise.policy.volatile?.[viaGeneratedAt.learned!.index]?.path).toBe(viaGeneratedAt.learned!.path);
    // a restart: a new learner on the reopened file learns the same from the stored snapshots
    await store.close();
    store = await createSqliteStore({ filename: path.join(dir, "noise.db"), now: clock.now });
    checks = service();
    expect((await check(checks, monitor.id)).result).toBe("new_snapshot");

    // a real change: a price
    target.state.items[1]!.price = 6;
    const changed = await check(checks, monitor.id);
    expect(changed.result).toBe("changed");
    expect(changed.diff?.learning).toBeUndefined();
    expect(changed.deliveries).toBe(1);
    const paths = changed.diff!.changes.map((c) => c.path);
    expect(paths.some((p) => p.includes("price"))).toBe(true);
    expect(paths).not.toContain("$.generated_at");
    expect(paths).not.toContain("$.request_id");
    expect((await check(checks, monitor.id)).result).toBe("new_snapshot");

    // and another: the currency, a field that never changed while learning
    target.state.currency = "USD";
    const currency = await check(checks, monitor.id);
    expect(currency.result).toBe("changed");
    expect(currency.diff!.changes).toEqual([expect.objectContaining({ path: "$.currency", op: "replace" })]);

    // the user's own rule wins over what was learned: generated_at rated critical is reported again
    await store.updateSettings(orgId, monitor.id, {
      policyRulesJson: { rules: [{ path: "$.generated_at", severity: "critical" }] },
      updatedAt: clock.now().toISOString(),
    });
    const ruled = await check(checks, monitor.id);
    expect(ruled.result).toBe("changed");
    expect(ruled.diff!.changes).toEqual([expect.objectContaining({ path: "$.generated_at", severity: "critical" })]);
  });
});

describe("the profile follows the target (SQLite file, loopback HTTP)", () => {
  // Issue 25: every new snapshot updates the profile, so a field that becomes volatile later is
  // learned, and one that settles is un-learned once its changes pass out of the newest samples.
  let dir: string;
  let store: Store;
  let orgId: string;
  let fetcher: Fetcher;
  let server: http.Server;
  let url: string;
  const clock = manualClock();
  /** `session`: a fixed text, or null for a new random one on every answer. */
  const state: { session: string | null } = { session: "fixed" };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-noise-follow-"));
    store = await createSqliteStore({ filename: path.join(dir, "noise.db"), now: clock.now });
    orgId = (await store.createOrganization({ slug: "follow" })).id;
    fetcher = createHttpFetcher({ allowPrivateNetworks: true });
    server = http.createServer((_request, response) => {
      const body = { plan: "pro", request_id: randomUUID(), session: state.session ?? randomUUID().replaceAll("-", "").slice(0, 20) };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/follow`;
  });
  afterAll(async () => {
    await fetcher.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a field that starts changing later is learned; once it settles it is un-learned, and its next change is reported", async () => {
    const monitor = await createMonitor(store, orgId, { url });
    await store.updateSettings(orgId, monitor.id, { autoApplySuggestions: true, updatedAt: clock.now().toISOString() });
    const checks = createCheckService({ store, httpFetcher: fetcher, now: clock.now, noise: createNoiseLearner(store) });
    const check = async () => {
      clock.advance(60_000);
      return checks.runCheck((await store.getMonitor(orgId, monitor.id))!, { requestId: `req_${String(clock.ms())}` });
    };
    const reported = (outcome: Awaited<ReturnType<typeof check>>) => outcome.diff?.changes.map((c) => c.path) ?? [];
    const learnedSession = async () => {
      const profile = await createNoiseLearner(store).profile((await store.getMonitor(orgId, monitor.id))!);
      expect(profile.samples).toBeLessThanOrEqual(10);
      return (profile.policy.volatile ?? []).some((v) => v.path === "$.session");
    };
    for (let i = 0; i < 5; i++) await check();
    expect(reported(await check())).toEqual([]);
    expect(await learnedSession()).toBe(false);

    // session becomes a new token on every answer: reported while it is new, then learned. Its
    // stable text stays in the samples until it passes out of the newest ten (the learner judges
    // the field's shape from every value it holds: "fixed" is no token), so today it is learned
    // within that window, not at once: each check until then is an alarm.
    state.session = null;
    let alarms = 0;
    while (alarms <= 10 && !(await learnedSession())) {
      expect(reported(await check())).toEqual(["$.session"]);
      alarms++;
    }
    expect(await learnedSession()).toBe(true);
    expect(alarms).toBeLessThanOrEqual(10);
    const quiet = await check();
    expect(quiet.diff).toBeNull();
    expect(quiet.snapshot?.silenced?.changes.map((c) => c.path)).toContain("$.session");

    // it settles: ten samples later it is no longer learned, and its next change is reported
    state.session = "settled";
    await check(); // a token replaced by a text: hidden by the learned entry, or reported when it only silenced the token's parts
    for (let i = 0; i < 10; i++) expect(reported(await check())).toEqual([]);
    expect(await learnedSession()).toBe(false);
    state.session = "changed-once";
    const changed = await check();
    expect(reported(changed)).toEqual(["$.session"]);
    expect(changed.diff?.learning).toBeUndefined();
  });
});

describe("mergeSuggestedPolicy", () => {
  const suggested: PolicyRules = {
    rules: [{ path: "$.status", op: "replace", severity: "medium" }],
    arrayKeys: { "$.items": "id", "$.tags": "slug" },
    volatile: [{ path: "$.generated_at" }, { path: "$.items[*].updated_at" }, { path: "$.price" }],
    tolerance: [{ path: "$.items[*].score", relative: 1e-6 }],
    unordered: ["$.tags", "$.ids"],
  };

  it("is the suggestion when the user has no rules, and the user's policy when nothing is suggested", () => {
    expect(mergeSuggestedPolicy({ rules: [] }, suggested, "json")).toEqual(suggested);
    const user: PolicyRules = { rules: [{ path: "$.a", action: "ignore" }], notify: { minSeverity: "high" } };
    expect(mergeSuggestedPolicy(user, { rules: [] }, "json")).toEqual(user);
  });

  it("puts the user's rules first and keeps the user's array keys, notify and normalize", () => {
    const user: PolicyRules = {
      rules: [{ path: "$.status", severity: "critical" }],
      arrayKeys: { "$.items": "sku" },
      notify: { minSeverity: "medium" },
      normalize: { relativeTimes: false },
    };
    const merged = mergeSuggestedPolicy(user, suggested, "json");
    expect(merged.rules).toEqual([{ path: "$.status", severity: "critical" }, { path: "$.status", op: "replace", severity: "medium" }]);
    expect(merged.arrayKeys).toEqual({ "$.items": "sku", "$.tags": "slug" });
    expect(merged.notify).toEqual({ minSeverity: "medium" });
    expect(merged.normalize).toEqual({ relativeTimes: false });
  });

  it("drops learned volatile, tolerance and unordered entries on fields a user rule covers or the user already names", () => {
    const user: PolicyRules = {
      rules: [
        { path: "$.price", severity: "critical" },
        { path: "$.items", category: "value", severity: "high" },
        // a removal-only rule says nothing about value changes: generated_at stays volatile
        { path: "$.generated_at", op: "remove", severity: "high" },
      ],
      volatile: [{ path: "$.etag" }],
      unordered: ["$.ids"],
    };
    const merged = mergeSuggestedPolicy(user, suggested, "json");
    expect(merged.volatile).toEqual([{ path: "$.etag" }, { path: "$.generated_at" }]);
    expect(merged.tolerance).toBeUndefined();
    expect(merged.unordered).toEqual(["$.ids", "$.tags"]);
  });

  it("a user's rule wins in the diff itself: a learned volatile field the user rates is reported", () => {
    const before = { generated_at: "2026-01-01T00:00:00.000Z", price: 1 };
    const after = { generated_at: "2026-01-01T00:01:00.000Z", price: 1 };
    const learned: PolicyRules = { rules: [], volatile: [{ path: "$.generated_at" }] };
    expect(diffJson(before, after, { policy: mergeSuggestedPolicy({ rules: [] }, learned, "json") })).toBeNull();
    const user: PolicyRules = { rules: [{ path: "$.generated_at", severity: "high" }] };
    const found = diffJson(before, after, { policy: mergeSuggestedPolicy(user, learned, "json") });
    expect(found?.changes).toEqual([expect.objectContaining({ path: "$.generated_at", severity: "high" })]);
  });

  it("website monitors: a learned volatile selector under a user's selector rule is dropped", () => {
    const merged = mergeSuggestedPolicy(
      { rules: [{ selector: "#prices", severity: "high" }] },
      { rules: [], volatile: [{ selector: "#prices > .updated" }, { selector: "footer .clock" }] },
      "html",
    );
    expect(merged.volatile).toEqual([{ selector: "footer .clock" }]);
  });

  it("keeps every list within the schema's 500 entries, the user's entries first", () => {
    const many = Array.from({ length: 400 }, (_, i) => ({ path: `$.u${String(i)}`, action: "ignore" as const }));
    const learnedRules = Array.from({ length: 300 }, (_, i) => ({ path: `$.s${String(i)}`, severity: "medium" as const }));
    const merged = mergeSuggestedPolicy({ rules: many }, { rules: learnedRules }, "json");
    expect(merged.rules).toHaveLength(500);
    expect(merged.rules.slice(0, 400)).toEqual(many);
  });
});

describe("autoApplySuggestions on a noisy web page (SQLite, loopback HTTP)", () => {
  let cleanup: () => Promise<void>;
  let store: Store;
  let orgId: string;
  let fetcher: Fetcher;
  let server: http.Server;
  let url: string;
  const state = { price: "12 EUR", mostRead: ["Council approves the tram line", "Storm closes the coast road", "Local team wins the final", "Library opens on Sundays"] };
  let served = 0;
  const clock = manualClock();

  beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-noise-web-"));
    store = await createSqliteStore({ filename: path.join(dir, "web.db"), now: clock.now });
    orgId = (await store.createOrganization({ slug: "web" })).id;
    cleanup = async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    };
    server = http.createServer((_request, response) => {
      served++;
      const stamp = new Date(Date.UTC(2026, 0, 1) + served * 60_000).toISOString();
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
        `<!doctype html><html><body><main><h1>Plans</h1><p class="price">${state.price}</p>` +
          `<p class="stamp">Generated ${stamp}</p><p class="age">Refreshed ${String((served % 50) + 2)} minutes ago</p>` +
          `<h2>Most read</h2><ol class="most-read">${state.mostRead.map((story) => `<li><a href="/s">${story}</a></li>`).join("")}</ol></main></body></html>`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/plans`;
    fetcher = createHttpFetcher({ allowPrivateNetworks: true });
  });
  afterAll(async () => {
    await fetcher.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await cleanup();
  });

  it("learns the volatile blocks of the page and still reports a price change", async () => {
    const monitor = await createMonitor(store, orgId, { url, type: "website", selector: "main" });
    await store.updateSettings(orgId, monitor.id, { autoApplySuggestions: true, updatedAt: clock.now().toISOString() });
    const checks = createCheckService({ store, httpFetcher: fetcher, now: clock.now, noise: createNoiseLearner(store) });
    const check = async () => {
      clock.advance(60_000);
      return checks.runCheck((await store.getMonitor(orgId, monitor.id))!, { requestId: `req_${String(clock.ms())}` });
    };
    expect((await check()).result).toBe("new_snapshot");
    // "Generated <time>" and "Refreshed N minutes ago" are lines that state when the page was made:
    // compared by skeleton from the first content on (a learned prior), so the second check is quiet too
    for (let i = 0; i < 5; i++) {
      const quiet = await check();
      expect(quiet.result).toBe("new_snapshot");
      expect(quiet.snapshot?.silenced?.changes.every((c) => c.outcome === "volatile" && c.learned?.selector !== undefined)).toBe(true);
    }
    state.price = "15 EUR";
    const changed = await check();
    expect(changed.result).toBe("changed");
    expect(changed.diff!.changes.some((c) => String(c.after ?? "").includes("15 EUR") || c.path.includes("price"))).toBe(true);
  });

  it("a list whose items reorder for the first time is quiet, and the check says so; an item added is reported", async () => {
    const monitor = await createMonitor(store, orgId, { url, type: "website", selector: "main" });
    await store.updateSettings(orgId, monitor.id, { autoApplySuggestions: true, updatedAt: clock.now().toISOString() });
    const checks = createCheckService({ store, httpFetcher: fetcher, now: clock.now, noise: createNoiseLearner(store) });
    const check = async () => {
      clock.advance(60_000);
      return checks.runCheck((await store.getMonitor(orgId, monitor.id))!, { requestId: `req_${String(clock.ms())}` });
    };
    for (let i = 0; i < 4; i++) expect((await check()).result).toBe("new_snapshot");
    // the list was in the same order on every fetch so far: nothing learned about it
    const [a, b, c, d] = state.mostRead as [string, string, string, string];
    state.mostRead = [c, a, d, b];
    const reordered = await check();
    expect(reordered.result).toBe("new_snapshot");
    const moves = reordered.snapshot!.silenced!.changes.filter((change) => change.rule === "normalize.listOrder");
    expect(moves.length).toBeGreaterThan(0);
    for (const move of moves) {
      expect(move.outcome).toBe("unordered");
      expect(move.path).toContain("ol:nth-of-type(1) > li:nth-of-type(");
      expect(move.learned).toBeUndefined();
    }
    state.mostRead = [d, c, "Harbour reopens after repairs", a, b];
    const added = await check();
    expect(added.result).toBe("changed");
    expect(added.diff!.changes.map((change) => [change.op, change.after])).toEqual([["add", "Harbour reopens after repairs"]]);
  });
});

describe("learning monitors: what is never hidden, and rejected entries", () => {
  let dir: string;
  let store: Store;
  let orgId: string;
  let fetcher: Fetcher;
  let server: http.Server;
  let url: string;
  let served = 0;
  /** The document served, with `tick` set to the number of requests served (noise on every fetch). */
  let doc: Record<string, unknown> = {};
  const clock = manualClock();

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-noise-never-"));
    store = await createSqliteStore({ filename: path.join(dir, "never.db"), now: clock.now });
    orgId = (await store.createOrganization({ slug: "never" })).id;
    server = http.createServer((_request, response) => {
      served++;
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...doc, tick: randomUUID() }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/doc`;
    fetcher = createHttpFetcher({ allowPrivateNetworks: true });
  });
  afterAll(async () => {
    await fetcher.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function learningMonitor() {
    const monitor = await createMonitor(store, orgId, { url });
    await store.updateSettings(orgId, monitor.id, { autoApplySuggestions: true, updatedAt: clock.now().toISOString() });
    await store.createWebhook(orgId, { url: "https://hooks.example.com/never", description: null, events: ["diff.detected"], monitorIds: [monitor.id], minSeverity: "info", enabled: true, secret: "whsec_YQ==" });
    const checks = createCheckService({ store, httpFetcher: fetcher, now: clock.now, noise: createNoiseLearner(store) });
    const check = async () => {
      clock.advance(60_000);
      return checks.runCheck((await store.getMonitor(orgId, monitor.id))!, { requestId: `req_${String(clock.ms())}` });
    };
    return { monitor, check };
  }

  it("a removal or a type change on the second fetch is a learning diff that still notifies", async () => {
    doc = { plan: "pro", seats: 5, region: "eu" };
    const removal = await learningMonitor();
    await removal.check();
    doc = { plan: "pro", seats: 5 };
    const removed = await removal.check();
    expect(removed.diff?.learning).toBe(true);
    expect(removed.diff?.changes).toEqual(expect.arrayContaining([expect.objectContaining({ path: "$.region", op: "remove" })]));
    expect(removed.deliveries).toBe(1);

    doc = { plan: "pro", seats: 5 };
    const retyped = await learningMonitor();
    await retyped.check();
    doc = { plan: "pro", seats: "5" };
    const typed = await retyped.check();
    expect(typed.diff?.learning).toBe(true);
    expect(typed.diff?.changes).toEqual(expect.arrayContaining([expect.objectContaining({ path: "$.seats", category: "schema", op: "replace" })]));
    expect(typed.deliveries).toBe(1);

    // a value change alone while learning is kept for the record, not sent
    doc = { plan: "pro", seats: 5 };
    const valued = await learningMonitor();
    await valued.check();
    doc = { plan: "team", seats: 5 };
    const value = await valued.check();
    expect(value.diff?.learning).toBe(true);
    expect(value.deliveries).toBe(0);
  });

  it("a learned entry the user rejected is not applied again: its field is reported", async () => {
    doc = { plan: "pro" };
    const { monitor, check } = await learningMonitor();
    await check();
    await check();
    const quiet = await check();
    expect(quiet.diff).toBeNull();
    const entry = quiet.snapshot!.silenced!.changes.find((c) => c.path === "$.tick")!;
    expect(entry.learned?.kind).toBe("volatile");
    await store.updateSettings(orgId, monitor.id, { rejectedSuggestions: [{ kind: "volatile", path: entry.learned!.path! }], updatedAt: clock.now().toISOString() });
    const loud = await check();
    expect(loud.result).toBe("changed");
    expect(loud.diff?.changes.map((c) => c.path)).toEqual(["$.tick"]);
    // taking the rejection back silences it again
    await store.updateSettings(orgId, monitor.id, { rejectedSuggestions: [], updatedAt: clock.now().toISOString() });
    expect((await check()).diff).toBeNull();
  });
});

describe("withoutRejected and learnedOriginOf", () => {
  const learned: PolicyRules = {
    rules: [{ path: "$.status", op: "replace", severity: "medium" }],
    arrayKeys: { "$.items": "id", "$.tags": "slug" },
    volatile: [{ path: "$.generated_at" }, { selector: ".promo" }],
    tolerance: [{ path: "$.temp", relative: 0.1 }],
    unordered: ["$.tags"],
  };

  it("drops each rejected entry by kind and path or selector, and nothing else", () => {
    const rejected = [
      { kind: "volatile" as const, selector: ".promo" },
      { kind: "arrayKey" as const, path: "$.items" },
      { kind: "unordered" as const, path: "$.tags" },
      // another path: nothing learned there
      { kind: "tolerance" as const, path: "$.elsewhere" },
    ];
    expect(withoutRejected(learned, rejected)).toEqual({ ...learned, volatile: [{ path: "$.generated_at" }], arrayKeys: { "$.tags": "slug" }, unordered: [] });
    expect(mergeSuggestedPolicy({ rules: [] }, learned, "json", rejected).volatile).toEqual([{ path: "$.generated_at" }]);
  });

  it("a rejected noise entry blocks every noise kind at the same path, not array keys, severity rules or other paths", () => {
    const noisy: PolicyRules = {
      rules: [{ path: "$.temp", category: "value", op: "replace", severity: "medium" }],
      arrayKeys: { "$.tags": "slug" },
      volatile: [{ path: "$.temp" }, { path: "$.tags" }, { path: "$.temp.unit" }, { selector: ".promo" }],
      tolerance: [{ path: "$.temp", relative: 0.1 }],
      unordered: ["$.tags"],
    };
    // rejecting the volatile entry: the tolerance at the same path is not applied either
    expect(withoutRejected(noisy, [{ kind: "volatile", path: "$.temp" }])).toEqual({ ...noisy, volatile: [{ path: "$.tags" }, { path: "$.temp.unit" }, { selector: ".promo" }], tolerance: [] });
    // and the reverse
    expect(withoutRejected(noisy, [{ kind: "tolerance", path: "$.temp" }]).volatile).toEqual([{ path: "$.tags" }, { path: "$.temp.unit" }, { selector: ".promo" }]);
    // an array's order is noise too: a rejected unordered blocks volatile there, the array key stays
    expect(withoutRejected(noisy, [{ kind: "unordered", path: "$.tags" }])).toEqual({ ...noisy, volatile: [{ path: "$.temp" }, { path: "$.temp.unit" }, { selector: ".promo" }], unordered: [] });
    // an array key is no noise: its rejection blocks the key only, a noise rejection never the key
    expect(withoutRejected(noisy, [{ kind: "arrayKey", path: "$.tags" }])).toEqual({ ...noisy, arrayKeys: {} });
    expect(withoutRejected(noisy, [{ kind: "volatile", path: "$.tags" }]).arrayKeys).toEqual({ "$.tags": "slug" });
    // a selector blocks that selector only
    expect(withoutRejected(noisy, [{ kind: "volatile", selector: ".promo" }]).volatile).toEqual([{ path: "$.temp" }, { path: "$.tags" }, { path: "$.temp.unit" }]);
    expect(rejectionBlocks({ kind: "tolerance", path: "$.temp" }, { kind: "volatile", path: "$.temp" })).toBe(true);
    expect(rejectionBlocks({ kind: "volatile", path: "$.temp" }, { kind: "volatile", path: "$.temp.unit" })).toBe(false);
    expect(rejectionBlocks({ kind: "volatile", path: "$.tags" }, { kind: "arrayKey", path: "$.tags" })).toBe(false);
    expect(rejectionBlocks({ kind: "arrayKey", path: "$.tags" }, { kind: "unordered", path: "$.tags" })).toBe(false);
    expect(rejectionBlocks({ kind: "volatile", selector: ".promo" }, { kind: "volatile", path: ".promo" })).toBe(false);
    // merged with the user's policy: the severity rule stays, so a change of the field is rated
    const merged = mergeSuggestedPolicy({ rules: [] }, noisy, "json", [{ kind: "volatile", path: "$.temp" }]);
    expect(merged.rules).toEqual(noisy.rules);
    expect(merged.tolerance).toBeUndefined();
  });

  it("names the learned entry behind an entry of the merged policy, and none for the user's", () => {
    const user: PolicyRules = { rules: [{ path: "$.a", action: "ignore" }], volatile: [{ path: "$.etag" }] };
    const merged = mergeSuggestedPolicy(user, learned, "json");
    expect(learnedOriginOf("volatile[0]", merged, learned, user)).toBeNull();
    expect(learnedOriginOf("volatile[1]", merged, learned, user)).toEqual({ kind: "volatile", index: 0, path: "$.generated_at" });
    expect(learnedOriginOf("volatile[2]", merged, learned, user)).toEqual({ kind: "volatile", index: 1, selector: ".promo" });
    expect(learnedOriginOf("tolerance[0]", merged, learned, user)).toEqual({ kind: "tolerance", index: 0, path: "$.temp" });
    expect(learnedOriginOf("unordered[0]", merged, learned, user)).toEqual({ kind: "unordered", index: 0, path: "$.tags" });
    expect(learnedOriginOf("rules[0]", merged, learned, user)).toBeNull();
    expect(learnedOriginOf("rules[1]", merged, learned, user)).toEqual({ kind: "rule", index: 0, path: "$.status" });
    expect(learnedOriginOf("floatEpsilon", merged, learned, user)).toBeNull();
    expect(learnedOriginOf("volatile[9]", merged, learned, user)).toBeNull();
  });
});

describe("learning off the event loop", () => {
  it("the compare pool learns in a worker thread above its threshold, with the same result as inline", async () => {
    const bodies = Array.from({ length: 5 }, (_, i) =>
      JSON.stringify({ generated_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), request_id: randomUUID(), status: "ok", items: [{ id: 1, n: "a" }] }),
    );
    const task = { kind: "json" as const, bodies, selector: null, minSamples: 3 };
    const pool = createComparePool({ workerThresholdBytes: 64 });
    try {
      const offloaded = await pool.learn(task);
      expect(pool.offloaded).toBe(1);
      expect(offloaded).toEqual(learnContent(task));
      expect(offloaded.ok && offloaded.policy.volatile?.map((v) => v.path)).toEqual(expect.arrayContaining(["$.generated_at", "$.request_id"]));
      // below the threshold: inline
      const small = createComparePool();
      expect(await small.learn(task)).toEqual(offloaded);
      expect(small.offloaded).toBe(0);
      await small.close();
      // a body that is not JSON ends the usable history: the three newest are learned from
      expect(learnContent({ ...task, bodies: ["<html>", ...bodies.slice(2)] })).toMatchObject({ ok: true, samples: 3 });
      expect(learnContent({ ...task, bodies: ["<html>", ...bodies.slice(3)] })).toEqual({ ok: true, samples: 2, policy: { rules: [] }, evidence: [] });
    } finally {
      await pool.close();
    }
  });

  it("the noise learner hands its work to the learn function it is given", async () => {
    const { store: s, orgId: org, cleanup } = await openTempStore();
    try {
      const monitor = await createMonitor(s, org, { url: "https://api.example.com/x" });
      const tasks: number[] = [];
      const learner = createNoiseLearner(s, {
        learn: async (task) => {
          tasks.push(task.bodies.length);
          return learnContent(task);
        },
      });
      const one = await learner.profile(monitor, { body: JSON.stringify({ a: 1 }), hash: "sha256:x" });
      // one content: only what stays put is learned (no volatile entry), in a task of its own
      expect(one.samples).toBe(1);
      expect(one.policy.volatile ?? []).toEqual([]);
      expect(tasks).toEqual([1]);
      let previous: string | null = null;
      for (let i = 0; i < 2; i++) {
        const body = JSON.stringify({ a: 1, at: `2026-01-01T00:0${String(i)}:00Z` });
        const id = newId("snapshot");
        const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
        await s.recordCheck(org, {
          monitorId: monitor.id,
          monitor: { lastCheckedAt: at, updatedAt: at },
          snapshot: { id, fetchedAt: at, status: 200, latencyMs: 1, contentType: "application/json", contentHash: `sha256:${String(i).repeat(64)}`, size: body.length, browserRender: false, body },
          diff: null,
          event: null,
          previousSnapshotId: previous,
        });
        previous = id;
      }
      const learned = await learner.profile(monitor, { body: JSON.stringify({ a: 1, at: "2026-01-01T00:02:00Z" }), hash: "sha256:y" });
      // two stored contents and the candidate, oldest first, in one task
      expect(tasks).toEqual([1, 3]);
      expect(learned.samples).toBe(3);
      expect(learned.policy.volatile?.map((v) => v.path)).toEqual(["$.at"]);
    } finally {
      await cleanup();
    }
  });
});
