// The service learns: a monitor with autoApplySuggestions stops reporting a noisy target's noise
// once it has a few snapshots, and still reports a real change. Real SQLite file, real HTTP.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { diffJson, type Fetcher, type PolicyRules, type Store } from "@driftwatch/core";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckService, createNoiseLearner, mergeSuggestedPolicy } from "../src/index.js";
import { createMonitor, manualClock } from "./fixtures.js";

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

  it("with it on: diffs only while learning, then none for noise (also after a restart), one for a real change", async () => {
    const monitor = await createMonitor(store, orgId, { url: target.url });
    await store.updateSettings(orgId, monitor.id, { autoApplySuggestions: true, updatedAt: clock.now().toISOString() });
    let checks = service();
    // learning: fewer than 3 snapshots, nothing suggested yet, noise is still reported
    expect((await check(checks, monitor.id)).result).toBe("new_snapshot");
    expect((await check(checks, monitor.id)).result).toBe("changed");
    expect((await check(checks, monitor.id)).result).toBe("changed");
    // learned: new snapshots (the content differs) but no diff
    for (let i = 0; i < 3; i++) {
      const outcome = await check(checks, monitor.id);
      expect(outcome.result).toBe("new_snapshot");
      expect(outcome.diff).toBeNull();
    }
    // a restart: a new learner on the reopened file learns the same from the stored snapshots
    await store.close();
    store = await createSqliteStore({ filename: path.join(dir, "noise.db"), now: clock.now });
    checks = service();
    expect((await check(checks, monitor.id)).result).toBe("new_snapshot");

    // a real change: a price
    target.state.items[1]!.price = 6;
    const changed = await check(checks, monitor.id);
    expect(changed.result).toBe("changed");
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
  const state = { price: "12 EUR" };
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
          `<p class="stamp">Generated ${stamp}</p><p class="age">Refreshed ${String((served % 50) + 2)} minutes ago</p></main></body></html>`,
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
    expect((await check()).result).toBe("changed");
    expect((await check()).result).toBe("changed");
    for (let i = 0; i < 3; i++) expect((await check()).result).toBe("new_snapshot");
    state.price = "15 EUR";
    const changed = await check();
    expect(changed.result).toBe("changed");
    expect(changed.diff!.changes.some((c) => String(c.after ?? "").includes("15 EUR") || c.path.includes("price"))).toBe(true);
  });
});
