import { diffJson, type Store } from "@driftwatch/core";
import { describe, expect, it } from "vitest";
import { createCheckService } from "../src/index.js";
import { boundEvent } from "../src/pipeline/check-service.js";
import { createMonitor, createWebhook, manualClock, openCheckSetup, useCheckSetup } from "./fixtures.js";

function wideJson(keys: number, value: (i: number) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys; i++) out[`key${String(i)}`] = value(i);
  return out;
}

describe("check pipeline limits: worker pool, recorded content errors, capped diffs and payloads (SQLite)", () => {
  const clock = manualClock();
  const setup = useCheckSetup(clock.now);

  it("compares big contents in a worker thread and stores a capped diff whose counts and fingerprint cover every change", async () => {
    const compare = setup.pool({ workerThresholdBytes: 1024, maxDiffChanges: 10, maxDiffBytes: 1024 * 1024 });
    const checks = createCheckService({ store: setup.store, httpFetcher: setup.fetcher, now: clock.now, compare, maxWebhookPayloadBytes: 4096, publicUrl: "https://dw.example.com" });
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/wide` });
    await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/all" });
    const before = wideJson(500, (i) => i);
    const after = wideJson(500, (i) => i + 1);
    setup.target.setJson(before);
    const first = await checks.runCheck(monitor, { requestId: "req_1" });
    expect(first.result).toBe("new_snapshot");
    clock.advance(60_000);
    setup.target.setJson(after);
    const second = await checks.runCheck(first.monitor, { requestId: "req_2" });
    expect(compare.offloaded).toBe(2); // the first body was validated in the worker too
    expect(second.result).toBe("changed");
    const full = diffJson(before, after)!;
    expect(full.changes).toHaveLength(500);
    const stored = await setup.store.getDiff(setup.orgId, monitor.id, second.diff!.id);
    expect(stored).toMatchObject({ truncated: true, valueChanges: 500, schemaChanges: 0, diffFingerprint: full.diffFingerprint, topSeverity: full.topSeverity });
    expect(stored!.changes).toEqual(full.changes.slice(0, 10));

    // The webhook payload: under its cap, with the counts of all changes and a link to the diff.
    const deliveries = await setup.store.listDeliveries(setup.orgId, (await setup.store.listWebhooks(setup.orgId, { limit: 10 })).data[0]!.id, { limit: 10 });
    const payload = deliveries.data[0]!.payload;
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(4096);
    const event = JSON.parse(payload) as { data: Record<string, unknown> };
    expect(event.data).toMatchObject({
      truncated: true,
      valueChanges: 500,
      diffUrl: `https://dw.example.com/api/monitors/${monitor.id}/diffs/${second.diff!.id}`,
    });
    expect((event.data.changes as unknown[]).length).toBe(10);
  });

  it("caps diffs by bytes too, and a small diff is neither truncated nor offloaded", async () => {
    const compare = setup.pool({ workerThresholdBytes: 1024 * 1024, maxDiffChanges: 1000, maxDiffBytes: 2000 });
    const checks = createCheckService({ store: setup.store, httpFetcher: setup.fetcher, now: clock.now, compare });
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/bytes` });
    setup.target.setJson({ a: 1, b: 1 });
    const first = await checks.runCheck(monitor, { requestId: "req_1" });
    clock.advance(60_000);
    setup.target.setJson({ a: 2, b: 1 });
    const small = await checks.runCheck(first.monitor, { requestId: "req_2" });
    expect(small.diff).not.toHaveProperty("truncated");
    clock.advance(60_000);
    setup.target.setJson(wideJson(100, () => "x".repeat(100)));
    const big = await checks.runCheck(small.monitor, { requestId: "req_3" });
    expect(big.diff?.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(big.diff!.changes))).toBeLessThanOrEqual(2000);
    expect(big.diff!.changes.length).toBeGreaterThan(0);
    expect(compare.offloaded).toBe(0);
  });

  it("records hostile content as a check error with a code instead of throwing (worker and inline)", async () => {
    for (const threshold of [0, 1024 * 1024]) {
      const compare = setup.pool({ workerThresholdBytes: threshold, maxTargetBytes: 200_000 });
      const checks = createCheckService({ store: setup.store, httpFetcher: setup.fetcher, now: clock.now, compare });
      const cases: Array<{ type: "api" | "website"; body: () => void; code: string; policy?: unknown }> = [
        { type: "api", body: () => setup.target.setHtml("{not json"), code: "invalid_body" },
        { type: "website", body: () => setup.target.setHtml(`${"<div>x".repeat(5000)}`), code: "too_deep" },
        { type: "api", body: () => setup.target.setJson({ big: "x".repeat(250_000) }), code: "target_too_large" },
      ];
      for (const c of cases) {
        const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/hostile-${c.code}-${String(threshold)}`, type: c.type });
        setup.target.setHtml(c.type === "api" ? "{}" : "<p>start</p>");
        const first = await checks.runCheck(monitor, { requestId: "req_1" });
        expect(first.result).toBe("new_snapshot");
        c.body();
        clock.advance(60_000);
        const outcome = await checks.runCheck(first.monitor, { requestId: "req_2" });
        expect(outcome.result, c.code).toBe("failed");
        expect(outcome.error?.code).toBe(c.code);
        expect(outcome.monitor.consecutiveFailures).toBe(1);
        expect(outcome.monitor.lastError).toMatch(new RegExp(`^${c.code}: `));
        const stored = await setup.store.getMonitor(setup.orgId, monitor.id);
        expect(stored?.lastError).toBe(outcome.monitor.lastError);
      }
    }
  });

  it("records rule_budget_exceeded for selector lists too heavy for the page", async () => {
    const compare = setup.pool({ workerThresholdBytes: 0 });
    const checks = createCheckService({ store: setup.store, httpFetcher: setup.fetcher, now: clock.now, compare });
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/selectors`, type: "website" });
    const rules = Array.from({ length: 420 }, (_, i) => ({
      selector: Array.from({ length: 120 }, (_, j) => `.r${String(i)}c${String(j)}`).join(",").slice(0, 990).replace(/,[^,]*$/, ""),
      action: "ignore" as const,
    }));
    await setup.store.updateSettings(setup.orgId, monitor.id, { policyRulesJson: { rules }, updatedAt: clock.now().toISOString() });
    const page = (text: string): string => `<html><body>${"<p>row</p>".repeat(2000)}<p>${text}</p></body></html>`;
    setup.target.setHtml(page("a"));
    const first = await checks.runCheck(monitor, { requestId: "req_1" });
    setup.target.setHtml(page("b"));
    clock.advance(60_000);
    const outcome = await checks.runCheck(first.monitor, { requestId: "req_2" });
    expect(outcome.error?.code).toBe("rule_budget_exceeded");
    expect(outcome.monitor.lastError).toMatch(/^rule_budget_exceeded: /);
  });

  it("stops a comparison past the time limit (the worker is terminated) and records analysis_timeout", async () => {
    const compare = setup.pool({ workerThresholdBytes: 0, compareTimeoutMs: 100 });
    const checks = createCheckService({ store: setup.store, httpFetcher: setup.fetcher, now: clock.now, compare });
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/slow` });
    setup.target.setJson({});
    const first = await checks.runCheck(monitor, { requestId: "req_1" });
    // Whatever the machine, 400,000 changed members take far longer than 100 ms to compare.
    setup.target.setJson(wideJson(400_000, (i) => i));
    clock.advance(60_000);
    const outcome = await checks.runCheck(first.monitor, { requestId: "req_2" });
    expect(outcome.error?.code).toBe("analysis_timeout");
    expect(outcome.monitor.lastError).toMatch(/^analysis_timeout: /);
  });

  it("boundEvent keeps a small event as it is", () => {
    const event = {
      schemaVersion: "v1" as const,
      eventVersion: 1 as const,
      eventId: "evt_1",
      eventType: "diff.detected" as const,
      occurredAt: "2026-01-01T00:00:00.000Z",
      monitorId: "mon_1",
      diffId: "diff_1",
      snapshotId: "snap_1",
      data: { classification: "value_change" as const, schemaChanges: 0, valueChanges: 1, changes: [{ path: "$.a", category: "value" as const, op: "replace" as const, severity: "info" as const }] },
    };
    const diff = { classification: "value_change", changes: [] } as unknown as Parameters<typeof boundEvent>[1];
    expect(boundEvent(event, diff, { maxBytes: 10_000, publicUrl: null })).toBe(event);
    const bounded = boundEvent(event, diff, { maxBytes: 100, publicUrl: null });
    expect(bounded.data).toMatchObject({ truncated: true, diffUrl: "/api/monitors/mon_1/diffs/diff_1", changes: [], valueChanges: 1 });
  });
});

describe("a check result the store refuses is recorded, not thrown", () => {
  it("records store_rejected on the monitor when recordCheck refuses the snapshot, and passes not_found on", async () => {
    const clock = manualClock();
    const setup = await openCheckSetup(clock.now);
    try {
      const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/refused` });
      // A store that refuses any check carrying a snapshot (as PostgreSQL refuses a NUL byte in text).
      const refusing = new Proxy(setup.store, {
        get(t, property, receiver) {
          if (property === "recordCheck") {
            return (o: string, input: Parameters<Store["recordCheck"]>[1]) =>
              input.snapshot !== null ? Promise.reject(new Error("invalid byte sequence for encoding \"UTF8\": 0x00")) : t.recordCheck(o, input);
          }
          const value = Reflect.get(t, property, receiver);
          return typeof value === "function" ? value.bind(t) : value;
        },
      });
      const checks = createCheckService({ store: refusing, httpFetcher: setup.fetcher, now: clock.now });
      setup.target.setJson({ a: "\u0000" });
      const outcome = await checks.runCheck(monitor, { requestId: "req_1" });
      expect(outcome.result).toBe("failed");
      expect(outcome.error?.code).toBe("store_rejected");
      expect((await setup.store.getMonitor(setup.orgId, monitor.id))?.lastError).toMatch(/^store_rejected: .*0x00/);
      await checks.close();

      await setup.store.deleteMonitor(setup.orgId, monitor.id);
      const plain = createCheckService({ store: setup.store, httpFetcher: setup.fetcher, now: clock.now });
      await expect(plain.runCheck(monitor, { requestId: "req_2" })).rejects.toMatchObject({ code: "not_found" });
      await plain.close();
    } finally {
      await setup.close();
    }
  });
});
