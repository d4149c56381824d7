import http from "node:http";
import type { AddressInfo } from "node:net";
import { beforeEach, describe, expect, it } from "vitest";
import { BrowserOptionsSchema, FetchError, type Fetcher } from "@driftwatch/core";
import { createCheckService, createMetrics, FAILING_THRESHOLD, MAX_BACKOFF_MS, type EngineMetrics } from "../src/index.js";
import { createMonitor, createWebhook, manualClock, newChannel, startGatedTarget, startTarget, useCheckSetup } from "./fixtures.js";

describe("check pipeline (SQLite, loopback target)", () => {
  let metrics: EngineMetrics;
  const clock = manualClock();
  const setup = useCheckSetup(clock.now);

  beforeEach(() => {
    metrics = createMetrics();
  });

  function service(random = () => 0.5) {
    return createCheckService({ store: setup.store, httpFetcher: setup.fetcher, now: clock.now, random, metrics });
  }

  it("stores a first snapshot without a diff, then a diff with one outbox delivery per matching webhook", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/prices` });
    const all = await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/all" });
    const scoped = await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/scoped", monitorIds: [monitor.id] });
    await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/other", monitorIds: ["mon_00000000000000000000000000"] });
    await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/critical-only", minSeverity: "critical" });
    await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/disabled", enabled: false });
    const checks = service();

    setup.target.setJson({ price: 10, currency: "EUR", items: [{ id: 1, name: "a" }] });
    const first = await checks.runCheck(monitor, { requestId: "req_first" });
    expect(first.result).toBe("new_snapshot");
    expect(first.diff).toBeNull();
    expect(first.snapshot?.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(first.monitor.lastStatus).toBe(200);
    expect(first.monitor.lastCheckedAt).toBe(clock.now().toISOString());
    expect(first.monitor.lastChangedAt).toBeNull();

    clock.advance(60_000);
    setup.target.setJson({ price: 12, currency: "EUR", items: [{ id: 1, name: "a" }] });
    const second = await checks.runCheck(first.monitor, { requestId: "req_second" });
    expect(second.result).toBe("changed");
    expect(second.diff).toMatchObject({ classification: "value_change", topSeverity: "info", requestId: "req_second", status: 200 });
    expect(second.diff?.previousSnapshotId).toBe(first.snapshot?.id);
    expect(second.diff?.snapshotId).toBe(second.snapshot?.id);
    expect(second.monitor.lastChangedAt).toBe(clock.now().toISOString());
    // info-level change: the webhook for all monitors and the one scoped to this monitor, nothing else
    expect(second.deliveries).toBe(2);
    const forAll = await setup.store.listDeliveries(setup.orgId, all.id, { limit: 10 });
    const forScoped = await setup.store.listDeliveries(setup.orgId, scoped.id, { limit: 10 });
    expect(forAll.data).toHaveLength(1);
    expect(forScoped.data).toHaveLength(1);
    expect(forAll.data[0]).toMatchObject({ diffId: second.diff?.id, eventType: "diff.detected", state: "pending" });
    const payload = JSON.parse(forAll.data[0]!.payload) as Record<string, unknown>;
    expect(payload).toMatchObject({ schemaVersion: "v1", eventVersion: 1, monitorId: monitor.id, diffId: second.diff?.id, snapshotId: second.snapshot?.id });
    expect(payload).not.toHaveProperty("deliveredAt");

    // the same content again: no snapshot, no diff
    clock.advance(60_000);
    const third = await checks.runCheck(second.monitor, { requestId: "req_third" });
    expect(third.result).toBe("unchanged");
    expect(third.snapshot?.id).toBe(second.snapshot?.id);
    expect((await setup.store.listSnapshots(setup.orgId, monitor.id, { limit: 10 })).data).toHaveLength(2);

    // a critical change (member removed) also reaches the critical-only webhook
    clock.advance(60_000);
    setup.target.setJson({ price: 12, items: [{ id: 1, name: "a" }] });
    const fourth = await checks.runCheck(third.monitor, { requestId: "req_fourth" });
    expect(fourth.diff).toMatchObject({ classification: "schema_change", topSeverity: "critical" });
    expect(fourth.diff?.changes).toEqual([expect.objectContaining({ path: "$.currency", op: "remove", severity: "critical" })]);
    expect(fourth.deliveries).toBe(3);

    const text = await metrics.render();
    expect(text).toMatch(/driftwatch_checks_total\{result="changed"\} 2/);
    expect(text).toMatch(/driftwatch_checks_total\{result="unchanged"\} 1/);
    expect(text).toMatch(/driftwatch_diffs_total\{classification="schema_change"\} 1/);
    expect(text).toMatch(/driftwatch_diffs_total\{classification="value_change"\} 1/);
  });

  it("records no diff when the policy ignores every change, and honours notify.minSeverity", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/policy` });
    const hook = await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/policy", monitorIds: [monitor.id] });
    // a channel that takes every change (minSeverity info, no tags): the policy's minimum still applies
    const channel = await setup.store.createChannel(setup.orgId, newChannel({ name: "all" }));
    await setup.store.updateSettings(setup.orgId, monitor.id, {
      policyRulesJson: { rules: [{ path: "$..updatedAt", action: "ignore" }], notify: { minSeverity: "high" } },
      updatedAt: clock.now().toISOString(),
    });
    const checks = service();
    setup.target.setJson({ value: 1, updatedAt: "a" });
    let outcome = await checks.runCheck(monitor, { requestId: "req_p1" });
    setup.target.setJson({ value: 1, updatedAt: "b" });
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_p2" });
    // new content is stored (the hash changed) but every change was ignored: no diff
    expect(outcome.result).toBe("new_snapshot");
    expect(outcome.diff).toBeNull();
    expect((await setup.store.listDiffs(setup.orgId, monitor.id, { limit: 10 })).data).toEqual([]);

    // an info change: a diff, but below notify.minSeverity, so no delivery
    setup.target.setJson({ value: 2, updatedAt: "c" });
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_p3" });
    expect(outcome.result).toBe("changed");
    expect(outcome.diff?.changes.map((c) => c.path)).toEqual(["$.value"]);
    expect(outcome.deliveries).toBe(0);
    expect((await setup.store.listDeliveries(setup.orgId, hook.id, { limit: 10 })).data).toEqual([]);
    expect((await setup.store.listChannelDeliveries(setup.orgId, channel.id, { limit: 10 })).data).toEqual([]);

    // without the policy's minimum, the same kind of change reaches the channel
    await setup.store.updateSettings(setup.orgId, monitor.id, { policyRulesJson: { rules: [{ path: "$..updatedAt", action: "ignore" }] }, updatedAt: clock.now().toISOString() });
    setup.target.setJson({ value: 3, updatedAt: "d" });
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_p4" });
    expect(outcome.result).toBe("changed");
    expect((await setup.store.listChannelDeliveries(setup.orgId, channel.id, { limit: 10 })).data.map((m) => m.diffId)).toEqual([outcome.diff!.id]);
  });

  it("turns a monitor failing after three failed checks, backs off, and recovers on success", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/flaky`, intervalSeconds: 600 });
    const checks = service(() => 0.5); // no jitter
    setup.target.setJson({ ok: true });
    let current = (await checks.runCheck(monitor, { requestId: "req_f0" })).monitor;
    expect(current.state).toBe("active");
    expect(Date.parse(current.nextCheckAt!) - clock.ms()).toBe(600_000);

    setup.target.setStatus(500);
    const delays: number[] = [];
    for (let i = 1; i <= FAILING_THRESHOLD + 1; i++) {
      const outcome = await checks.runCheck(current, { requestId: `req_f${String(i)}` });
      expect(outcome.result).toBe("failed");
      expect(outcome.error?.code).toBe("bad_status");
      current = outcome.monitor;
      expect(current.consecutiveFailures).toBe(i);
      expect(current.lastStatus).toBe(500);
      expect(current.lastError).toContain("HTTP 500");
      expect(current.state).toBe(i >= FAILING_THRESHOLD ? "failing" : "active");
      delays.push(Date.parse(current.nextCheckAt!) - clock.ms());
    }
    // interval x 2^k, capped at one hour
    expect(delays).toEqual([1_200_000, 2_400_000, MAX_BACKOFF_MS, MAX_BACKOFF_MS]);

    setup.target.setStatus(200);
    const recovered = await checks.runCheck(current, { requestId: "req_ok" });
    expect(recovered.result).toBe("unchanged");
    expect(recovered.monitor).toMatchObject({ state: "active", consecutiveFailures: 0, lastError: null, lastStatus: 200 });
    expect(Date.parse(recovered.monitor.nextCheckAt!) - clock.ms()).toBe(600_000);
  });

  it("records connection failures and raises them from checkNow as FetchError", async () => {
    const dead = await startTarget();
    const url = `${dead.url}/gone`;
    await dead.close();
    const monitor = await createMonitor(setup.store, setup.orgId, { url });
    const checks = service();
    await expect(checks.checkNow(setup.orgId, monitor.id, { requestId: "req_dead" })).rejects.toMatchObject({ name: "FetchError", code: "connection_failed" });
    const stored = await setup.store.getMonitor(setup.orgId, monitor.id);
    expect(stored).toMatchObject({ consecutiveFailures: 1, lastStatus: null, state: "active" });
    expect(stored?.lastError).toMatch(/connection_failed/);
    expect(await checks.checkNow(setup.orgId, "mon_00000000000000000000000000", { requestId: "req_x" })).toBeNull();
  });

  it("records a failed browser step structured in lastFailure (reason, message, step), lastError as text, both cleared by a success", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, {
      url: `${setup.target.url}/steps`,
      type: "website",
      browserOptionsJson: BrowserOptionsSchema.parse({ steps: [{ action: "goto", url: `${setup.target.url}/login` }, { action: "click", selector: "#go" }] }),
    });
    let fail = true;
    const browserFetcher: Fetcher = {
      fetch: async (request) => {
        if (fail) throw new FetchError("browser_step_failed", "Browser step 1 (click on #go) failed: timeout", { step: { index: 1, action: "click", selector: "#go" } });
        return setup.fetcher.fetch({ ...request, browserOptions: undefined });
      },
      close: async () => undefined,
    };
    const checks = createCheckService({ store: setup.store, httpFetcher: setup.fetcher, browserFetcher, now: clock.now, random: () => 0.5, metrics });
    setup.target.setJson({ ok: true });
    const failed = await checks.runCheck(monitor, { requestId: "req_step" });
    expect(failed.result).toBe("failed");
    const expected = { reason: "browser_step_failed", message: "Browser step 1 (click on #go) failed: timeout", step: { index: 1, action: "click", selector: "#go" } };
    expect(failed.monitor.lastFailure).toEqual(expected);
    expect(failed.monitor.lastError).toBe("browser_step_failed: Browser step 1 (click on #go) failed: timeout");
    expect((await setup.store.getMonitor(setup.orgId, monitor.id))!.lastFailure).toEqual(expected);
    // a failure without a step: the reason and message, step null
    setup.target.setStatus(500);
    fail = false;
    const bad = await checks.runCheck(failed.monitor, { requestId: "req_500" });
    expect(bad.monitor.lastFailure).toMatchObject({ reason: "bad_status", step: null });
    expect(bad.monitor.lastFailure!.message).toContain("500");
    setup.target.setStatus(200);
    const ok = await checks.runCheck(bad.monitor, { requestId: "req_ok" });
    expect(ok.monitor).toMatchObject({ lastError: null, lastFailure: null });
  });

  it("does not undo a pause made while the check ran", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/pause` });
    await setup.store.updateMonitor(setup.orgId, monitor.id, { state: "paused", updatedAt: clock.now().toISOString() });
    setup.target.setJson({ a: 1 });
    const outcome = await service().runCheck(monitor, { requestId: "req_pause" });
    expect(outcome.monitor.state).toBe("paused");
  });

  it("flags a non-JSON body of an api monitor as invalid_body", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/html` });
    setup.target.setHtml("<p>not json</p>");
    const outcome = await service().runCheck(monitor, { requestId: "req_html" });
    expect(outcome.result).toBe("failed");
    expect(outcome.error?.code).toBe("invalid_body");
    expect(outcome.monitor.consecutiveFailures).toBe(1);
  });

  it("sends the previous snapshot's ETag and treats 304 Not Modified as unchanged", async () => {
    const seen: (string | undefined)[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.headers["if-none-match"]);
      if (req.headers["if-none-match"] === '"v1"') {
        res.writeHead(304, { etag: '"v1"' });
        res.end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json", etag: '"v1"' });
      res.end(JSON.stringify({ v: 1 }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const monitor = await createMonitor(setup.store, setup.orgId, { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/etag` });
      const checks = service();
      const first = await checks.runCheck(monitor, { requestId: "req_e1" });
      const second = await checks.runCheck(first.monitor, { requestId: "req_e2" });
      expect(seen).toEqual([undefined, '"v1"']);
      expect(second.result).toBe("unchanged");
      expect(second.snapshot?.id).toBe(first.snapshot?.id);
      expect(second.monitor).toMatchObject({ lastStatus: 304, lastError: null, consecutiveFailures: 0 });
      expect((await setup.store.listSnapshots(setup.orgId, monitor.id, { limit: 10 })).data).toHaveLength(1);
    } finally {
      server.close();
    }
  });

  it("runs two checks of one monitor one after the other, so a change is recorded once", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/twice` });
    const hook = await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/twice", monitorIds: [monitor.id] });
    const checks = service();
    setup.target.setJson({ n: 1 });
    const first = await checks.runCheck(monitor, { requestId: "req_t0" });
    setup.target.setJson({ n: 2 });
    // the scheduler's check and a "check now" at the same time, both holding the same monitor record
    const [a, b] = await Promise.all([
      checks.runCheck(first.monitor, { requestId: "req_t1" }),
      checks.checkNow(setup.orgId, monitor.id, { requestId: "req_t2" }),
    ]);
    expect(a.result).toBe("changed");
    expect(b?.diff).toBeNull();
    expect(b?.snapshot.id).toBe(a.snapshot?.id);
    expect((await setup.store.listDiffs(setup.orgId, monitor.id, { limit: 10 })).data).toHaveLength(1);
    expect((await setup.store.listDeliveries(setup.orgId, hook.id, { limit: 10 })).data).toHaveLength(1);
  });

  it("two processes checking one monitor at once record the change once: the store refuses the stale record, which is compared again", async () => {
    const gated = await startGatedTarget({ n: 2 });
    try {
      const created = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/raced` });
      const hook = await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/raced", monitorIds: [created.id] });
      setup.target.setJson({ n: 1 });
      await service().runCheck(created, { requestId: "req_r0" });
      const monitor = (await setup.store.updateMonitor(setup.orgId, created.id, { url: `${gated.url}/raced` }))!;
      // Two check services stand for two processes: neither waits for the other's check.
      const running = Promise.all([service().runCheck(monitor, { requestId: "req_r1" }), service().runCheck(monitor, { requestId: "req_r2" })]);
      while (gated.parked < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      gated.releaseAll(true);
      const results = await running;
      expect(results.map((r) => r.result).sort()).toEqual(["changed", "unchanged"]);
      const changed = results.find((r) => r.result === "changed")!;
      expect(results.find((r) => r.result === "unchanged")?.snapshot?.id).toBe(changed.snapshot?.id);
      expect((await setup.store.listSnapshots(setup.orgId, monitor.id, { limit: 10 })).data).toHaveLength(2);
      expect((await setup.store.listDiffs(setup.orgId, monitor.id, { limit: 10 })).data).toHaveLength(1);
      expect((await setup.store.listDeliveries(setup.orgId, hook.id, { limit: 10 })).data).toHaveLength(1);
    } finally {
      await gated.close();
    }
  });
});
