import http from "node:http";
import type { AddressInfo } from "node:net";
import { DiffDetectedEventSchema, type Alert, type TrackedValueSpec } from "@driftwatch/schema";
import { describe, expect, it } from "vitest";
import { createCheckService } from "../src/index.js";
import { createMonitor, createWebhook, manualClock, newChannel, useCheckSetup } from "./fixtures.js";

/** A shop page: price and availability in its JSON-LD, plus a visible clock line that changes on every check. */
function shop(price: string, availability: "InStock" | "OutOfStock", tick = 0): string {
  return `<html lang="de"><head><script type="application/ld+json">
    {"@context":"https://schema.org","@type":"Product","name":"Kettle",
     "offers":{"@type":"Offer","price":"${price}","priceCurrency":"EUR","availability":"https://schema.org/${availability}"}}
  </script></head><body><h1>Kettle</h1><p class="price">${price.replace(".", ",")} €</p><p id="tick">Seen ${tick} times</p></body></html>`;
}

/** A channel that takes every change of the organization. */
const opsChannel = newChannel();

describe("tracked values and alert conditions in the check pipeline (SQLite, loopback target)", () => {
  const clock = manualClock();
  const setup = useCheckSetup(clock.now);

  function service() {
    return createCheckService({ store: setup.store, httpFetcher: setup.fetcher, now: clock.now, random: () => 0.5 });
  }

  async function configure(monitorId: string, track: TrackedValueSpec[], alert: Alert | null): Promise<void> {
    await setup.store.updateSettings(setup.orgId, monitorId, { track, alert, updatedAt: clock.now().toISOString() });
  }

  async function values(monitorId: string, name: string): Promise<unknown[]> {
    return (await setup.store.listTrackedValues(setup.orgId, monitorId, name, { limit: 100 })).data.map((r) => r.value);
  }

  async function pendingPayloads(webhookId: string): Promise<Record<string, any>[]> {
    return (await setup.store.listDeliveries(setup.orgId, webhookId, { limit: 100 })).data.map((d) => JSON.parse(d.payload) as Record<string, any>).reverse();
  }

  it("records each tracked value on every check, also when the content did not change; webhooks only when the conditions hold", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { type: "website", url: `${setup.target.url}/kettle` });
    await configure(
      monitor.id,
      [
        { name: "price", extract: "price" },
        { name: "stock", extract: "availability" },
      ],
      { when: "all", conditions: [{ value: "stock", op: "eq", to: "in_stock" }, { value: "price", op: "lt", to: 200 }] },
    );
    const hook = await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/alerts", monitorIds: [monitor.id] });
    const checks = service();

    setup.target.setHtml(shop("219.00", "OutOfStock"));
    let outcome = await checks.runCheck(monitor, { requestId: "req_1" });
    expect(outcome.result).toBe("new_snapshot");
    // the same page again: no snapshot, but the values are read and recorded
    clock.advance(60_000);
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_2" });
    expect(outcome.result).toBe("unchanged");
    // the price drops, still out of stock: a diff with the alert's results, and no webhook
    clock.advance(60_000);
    setup.target.setHtml(shop("189.00", "OutOfStock"));
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_3" });
    expect(outcome.result).toBe("changed");
    expect(outcome.diff?.alert).toEqual({
      matched: false,
      results: [
        { index: 0, matched: false, reason: 'stock is "out_of_stock", not equal to "in_stock"' },
        { index: 1, matched: true, reason: "price is 189 EUR, below 200" },
      ],
    });
    expect(outcome.deliveries).toBe(0);
    // back in stock: the conditions hold, the diff notifies
    clock.advance(60_000);
    setup.target.setHtml(shop("189.00", "InStock"));
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_4" });
    expect(outcome.diff?.alert?.matched).toBe(true);
    expect(outcome.deliveries).toBe(1);
    // a price rise above the line: recorded, not sent
    clock.advance(60_000);
    setup.target.setHtml(shop("249.00", "InStock"));
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_5" });
    expect(outcome.diff?.alert?.matched).toBe(false);
    expect(outcome.deliveries).toBe(0);

    expect(await values(monitor.id, "price")).toEqual([
      { amount: 249, currency: "EUR" },
      { amount: 189, currency: "EUR" },
      { amount: 189, currency: "EUR" },
      { amount: 219, currency: "EUR" },
      { amount: 219, currency: "EUR" },
    ]);
    expect(await values(monitor.id, "stock")).toEqual(["in_stock", "in_stock", "out_of_stock", "out_of_stock", "out_of_stock"]);
    // each reading names the snapshot it was read from: the unchanged check's is the first snapshot
    const readings = (await setup.store.listTrackedValues(setup.orgId, monitor.id, "price", { limit: 100 })).data;
    const snapshots = (await setup.store.listSnapshots(setup.orgId, monitor.id, { limit: 100 })).data.map((s) => s.id).reverse();
    expect(readings.map((r) => r.snapshotId).reverse()).toEqual([snapshots[0], snapshots[0], snapshots[1], snapshots[2], snapshots[3]]);

    const payloads = await pendingPayloads(hook.id);
    expect(payloads).toHaveLength(1);
    expect(DiffDetectedEventSchema.omit({ deliveredAt: true }).parse(payloads[0])).toBeTruthy();
    expect(payloads[0]!.data.alert).toEqual({ matched: true, results: [expect.objectContaining({ index: 0, matched: true }), expect.objectContaining({ index: 1, matched: true })] });
  });

  it("with conditions, channels follow the webhooks: the policy's notify.minSeverity does not hold back a matched alert", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/gated` });
    await setup.store.updateSettings(setup.orgId, monitor.id, {
      policyRulesJson: { rules: [], notify: { minSeverity: "high" } },
      track: [{ name: "status", path: "$.status" }],
      alert: { when: "all", conditions: [{ value: "status", op: "eq", to: "down" }] },
      updatedAt: clock.now().toISOString(),
    });
    const hook = await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/gated", monitorIds: [monitor.id] });
    const channel = await setup.store.createChannel(setup.orgId, opsChannel);
    const checks = service();
    setup.target.setJson({ status: "up" });
    let outcome = await checks.runCheck(monitor, { requestId: "req_g1" });
    clock.advance(60_000);
    // an info change the conditions match: the webhook and the channel both hear of it
    setup.target.setJson({ status: "down" });
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_g2" });
    expect(outcome.diff).toMatchObject({ topSeverity: "info", alert: { matched: true } });
    expect(await pendingPayloads(hook.id)).toHaveLength(1);
    const messages = (await setup.store.listChannelDeliveries(setup.orgId, channel.id, { limit: 10 })).data;
    expect(messages.map((m) => m.diffId)).toEqual([outcome.diff!.id]);
    // the message carries the conditions' results, so the channel can say why it alerts
    expect(JSON.parse(messages[0]!.payload).diff.alert).toEqual({ matched: true, results: [{ index: 0, matched: true, reason: 'status is "down", equal to "down"' }] });
  });

  it("a condition that becomes true while the content stays the same (forChecks) alerts once, with an alert-only diff", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/status` });
    await configure(monitor.id, [{ name: "status", path: "$.status" }], { when: "all", conditions: [{ value: "status", op: "ne", to: "operational", forChecks: 3 }] });
    const hook = await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/status", monitorIds: [monitor.id] });
    const channel = await setup.store.createChannel(setup.orgId, opsChannel);
    const checks = service();
    setup.target.setJson({ status: "operational" });
    let outcome = await checks.runCheck(monitor, { requestId: "req_a" });
    clock.advance(60_000);
    setup.target.setJson({ status: "degraded" });
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_b" });
    expect(outcome.result).toBe("changed");
    expect(outcome.diff?.alert?.results[0]?.reason).toContain("held 1 of 3 consecutive checks");
    expect(outcome.deliveries).toBe(0);
    clock.advance(60_000);
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_c" });
    expect(outcome.result).toBe("unchanged");
    expect(outcome.deliveries).toBe(0);
    // the third consecutive check: the condition holds, the content is the same
    clock.advance(60_000);
    const before = outcome.snapshot!;
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_d" });
    expect(outcome.result).toBe("changed");
    expect(outcome.diff).toMatchObject({ alertOnly: true, changes: [], topSeverity: "medium", classification: "value_change", previousSnapshotId: before.id, alert: { matched: true } });
    expect(outcome.snapshot?.contentHash).toBe(before.contentHash);
    expect(outcome.monitor.lastChangedAt).not.toBe(clock.now().toISOString());
    expect(outcome.deliveries).toBe(1);
    const [payload] = await pendingPayloads(hook.id);
    expect(payload!.data).toMatchObject({ alertOnly: true, changes: [], alert: { matched: true } });
    const [message] = (await setup.store.listChannelDeliveries(setup.orgId, channel.id, { limit: 10 })).data;
    expect(JSON.parse(message!.payload).diff).toMatchObject({ alertOnly: true, changes: [], alert: { matched: true } });
    // still degraded: it held already, nothing more is sent
    clock.advance(60_000);
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_e" });
    expect(outcome.result).toBe("unchanged");
    expect(outcome.deliveries).toBe(0);
    expect(await values(monitor.id, "status")).toEqual(["degraded", "degraded", "degraded", "degraded", "operational"]);
    expect(await setup.store.getAlertState(setup.orgId, monitor.id)).toMatchObject({ matched: true, streaks: [4] });
  });

  it("a value the learned policy treats as noise still alerts when it crosses the line (an alert-only diff on the new snapshot)", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/metrics` });
    // the user's policy hides the measurement, as a learned tolerance would
    await setup.store.updateSettings(setup.orgId, monitor.id, { policyRulesJson: { rules: [{ path: "$.errorRate", action: "ignore" }] }, updatedAt: clock.now().toISOString() });
    await configure(monitor.id, [{ name: "errorRate", path: "$.errorRate", extract: "number" }], { when: "all", conditions: [{ value: "errorRate", op: "gt", to: 2 }] });
    const hook = await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/rate", monitorIds: [monitor.id] });
    const checks = service();
    setup.target.setJson({ errorRate: 0.4 });
    let outcome = await checks.runCheck(monitor, { requestId: "req_r1" });
    clock.advance(60_000);
    setup.target.setJson({ errorRate: 1.1 });
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_r2" });
    expect(outcome.result).toBe("new_snapshot");
    expect(outcome.deliveries).toBe(0);
    clock.advance(60_000);
    setup.target.setJson({ errorRate: 2.7 });
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_r3" });
    expect(outcome.diff).toMatchObject({ alertOnly: true, alert: { matched: true, results: [{ index: 0, matched: true, reason: "errorRate is 2.7, above 2" }] } });
    expect(outcome.snapshot?.silenced?.count).toBe(1);
    expect(outcome.deliveries).toBe(1);
    clock.advance(60_000);
    setup.target.setJson({ errorRate: 3.1 });
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_r4" });
    expect(outcome.diff).toBeNull();
    expect(outcome.deliveries).toBe(0);
    expect((await pendingPayloads(hook.id)).map((p) => p.data.alertOnly)).toEqual([true]);
    expect(await values(monitor.id, "errorRate")).toEqual([3.1, 2.7, 1.1, 0.4]);
  });

  it("without alert, tracked values are recorded and diffs notify as before; a missing value is recorded with its reason", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/plain` });
    await configure(monitor.id, [{ name: "price", path: "$.price", extract: "number" }], null);
    await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/plain", monitorIds: [monitor.id] });
    const checks = service();
    setup.target.setJson({ price: 10 });
    let outcome = await checks.runCheck(monitor, { requestId: "req_p1" });
    clock.advance(60_000);
    setup.target.setJson({ cost: 11 });
    outcome = await checks.runCheck(outcome.monitor, { requestId: "req_p2" });
    expect(outcome.diff).not.toBeNull();
    expect(outcome.diff?.alert).toBeUndefined();
    expect(outcome.deliveries).toBe(1);
    const readings = (await setup.store.listTrackedValues(setup.orgId, monitor.id, "price", { limit: 10 })).data;
    expect(readings.map((r) => [r.value, r.reason])).toEqual([
      [null, "$.price selects nothing in this document"],
      [10, null],
    ]);
    expect(await setup.store.getAlertState(setup.orgId, monitor.id)).toBeNull();
  });

  it("a failed check breaks a forChecks streak: ok, ok, failed, ok, ok does not alert with forChecks 3", async () => {
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/flaky` });
    await configure(monitor.id, [{ name: "status", path: "$.status" }], { when: "all", conditions: [{ value: "status", op: "eq", to: "degraded", forChecks: 3 }] });
    const hook = await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/flaky", monitorIds: [monitor.id] });
    const checks = service();
    setup.target.setJson({ status: "degraded" });
    const results: string[] = [];
    let current = monitor;
    for (const step of ["ok", "ok", "fail", "ok", "ok", "ok"] as const) {
      setup.target.setStatus(step === "ok" ? 200 : 503);
      const outcome = await checks.runCheck(current, { requestId: `req_f${results.length}` });
      if (step === "fail") expect(outcome.result).toBe("failed");
      const state = (await setup.store.getAlertState(setup.orgId, monitor.id)) as { streaks: number[] } | null;
      results.push(`${outcome.result} streak ${String(state?.streaks[0])} deliveries ${outcome.deliveries}`);
      current = outcome.monitor;
      clock.advance(60_000);
    }
    expect(results).toEqual([
      "new_snapshot streak 1 deliveries 0",
      "unchanged streak 2 deliveries 0",
      "failed streak 0 deliveries 0",
      "unchanged streak 1 deliveries 0",
      "unchanged streak 2 deliveries 0",
      "changed streak 3 deliveries 1",
    ]);
    expect(await values(monitor.id, "status")).toEqual(["degraded", "degraded", "degraded", "degraded", "degraded"]);
    expect(await pendingPayloads(hook.id)).toHaveLength(1);
  });

  it("a 304 Not Modified reads the values from the stored content, and counts for forChecks", async () => {
    let body = JSON.stringify({ status: "degraded" });
    let notModified = 0;
    const server = http.createServer((req, res) => {
      const etag = `"${String(body.length)}-${body.slice(12, 20)}"`;
      if (req.headers["if-none-match"] === etag) {
        notModified++;
        res.writeHead(304, { etag }).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json", etag }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/status`;
      const monitor = await createMonitor(setup.store, setup.orgId, { url });
      await configure(monitor.id, [{ name: "status", path: "$.status" }], { when: "all", conditions: [{ value: "status", op: "eq", to: "degraded", forChecks: 2 }] });
      const hook = await createWebhook(setup.store, setup.orgId, { url: "http://127.0.0.1:9/etag", monitorIds: [monitor.id] });
      const checks = service();
      const first = await checks.runCheck(monitor, { requestId: "req_e1" });
      expect(first.result).toBe("new_snapshot");
      expect(first.deliveries).toBe(0);
      clock.advance(60_000);
      const second = await checks.runCheck(first.monitor, { requestId: "req_e2" });
      expect(notModified).toBe(1);
      // the second consecutive check (a 304): the alert, on a copy of the stored content
      expect(second.diff).toMatchObject({ alertOnly: true, status: 200, alert: { matched: true } });
      expect(second.snapshot?.contentHash).toBe(first.snapshot?.contentHash);
      expect(second.deliveries).toBe(1);
      expect(await values(monitor.id, "status")).toEqual(["degraded", "degraded"]);
      expect((await setup.store.listTrackedValues(setup.orgId, monitor.id, "status", { limit: 10 })).data.map((r) => r.snapshotId)).toEqual([second.snapshot!.id, first.snapshot!.id]);
      expect(await pendingPayloads(hook.id)).toHaveLength(1);
      body = JSON.stringify({ status: "fine" });
      clock.advance(60_000);
      const third = await checks.runCheck(second.monitor, { requestId: "req_e3" });
      expect(third.diff?.alert?.matched).toBe(false);
      expect(third.deliveries).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
