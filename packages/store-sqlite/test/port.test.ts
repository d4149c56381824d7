// The port methods the contract suite also covers, checked here against SQLite specifics:
// paging over real rows, filters in SQL, tenant scoping in every query, the outbox life cycle.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeCursor, isDriftwatchError, type Store } from "@driftwatch/core";
import { createSqliteStore } from "../src/index.js";
import { apiMonitor, changedCheck, seedOrganization, webhookInput } from "@driftwatch/store-testkit";

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-sqlite-port-"));
  store = await createSqliteStore({ filename: path.join(dir, "port.db") });
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function errorCode(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e
  );
  return isDriftwatchError(error) ? error.code : undefined;
}

describe("paging", () => {
  it("walks newest first with cursors: empty, exact page, last page", async () => {
    const org = await store.ensureOrganization("pages");
    expect(await store.listMonitors(org.id, { limit: 5 })).toEqual({ data: [], nextCursor: null });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await store.createMonitor(org.id, apiMonitor({ name: `m${i}` }))).id);
    const newestFirst = [...ids].reverse();

    const exact = await store.listMonitors(org.id, { limit: 10 });
    expect(exact.data.map((m) => m.id)).toEqual(newestFirst);
    expect(exact.nextCursor).toBeNull();

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await store.listMonitors(org.id, { limit: 4, cursor });
      seen.push(...page.data.map((m) => m.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(newestFirst);

    expect(await errorCode(store.listMonitors(org.id, { limit: 4, cursor: "not-a-cursor" }))).toBe("invalid_cursor");
  });
});

describe("diff filters", () => {
  it("filters by time window, minimum severity and classification in SQL", async () => {
    const { orgId, monitorId } = await seedOrganization(store);
    const severities = ["low", "high", "critical"] as const;
    const times = ["2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z", "2026-01-03T00:00:00.000Z"];
    let previous: string | null = null;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const check = changedCheck(monitorId, { previousSnapshotId: previous, sequence: i });
      const diff = { ...check.diff!, topSeverity: severities[i]!, createdAt: times[i]! };
      if (i === 2) Object.assign(diff, { classification: "schema_change", schemaChanges: 1, valueChanges: 0 });
      await store.recordCheck(orgId, { ...check, diff });
      previous = check.snapshot!.id;
      ids.push(diff.id);
    }
    const list = async (query: object): Promise<string[]> =>
      (await store.listDiffs(orgId, monitorId, { limit: 10, ...query })).data.map((d) => d.id);
    expect(await list({})).toEqual([...ids].reverse());
    expect(await list({ since: times[1] })).toEqual([ids[2], ids[1]]);
    expect(await list({ until: times[1] })).toEqual([ids[1], ids[0]]);
    expect(await list({ since: times[1], until: times[1] })).toEqual([ids[1]]);
    expect(await list({ minSeverity: "high" })).toEqual([ids[2], ids[1]]);
    expect(await list({ classification: "schema_change" })).toEqual([ids[2]]);
    expect(await list({ classification: "value_change", minSeverity: "medium" })).toEqual([ids[1]]);
  });
});

describe("organization isolation", () => {
  it("makes another organization's rows invisible and unchangeable through every method", async () => {
    const a = await seedOrganization(store, "a");
    const b = await store.ensureOrganization("b");
    const check = changedCheck(a.monitorId, { sequence: 1 });
    const recorded = await store.recordCheck(a.orgId, check);
    const token = await store.createToken(a.orgId, { name: "ci", scopes: ["admin"], tokenHash: "hash-a" });
    const delivery = recorded.deliveries[0]!;

    expect(await store.getMonitor(b.id, a.monitorId)).toBeNull();
    expect(await store.updateMonitor(b.id, a.monitorId, { name: "stolen" })).toBeNull();
    expect(await store.deleteMonitor(b.id, a.monitorId)).toBe(false);
    expect((await store.listMonitors(b.id, { limit: 10 })).data).toEqual([]);
    expect(await store.getLatestSnapshot(b.id, a.monitorId)).toBeNull();
    expect(await store.getSnapshot(b.id, a.monitorId, check.snapshot!.id)).toBeNull();
    expect((await store.listSnapshots(b.id, a.monitorId, { limit: 10 })).data).toEqual([]);
    expect(await store.getDiff(b.id, a.monitorId, check.diff!.id)).toBeNull();
    expect((await store.listDiffs(b.id, a.monitorId, { limit: 10 })).data).toEqual([]);
    expect(await store.getSettings(b.id, a.monitorId)).toBeNull();
    expect(await store.updateSettings(b.id, a.monitorId, { snapshotRetention: 1, updatedAt: new Date().toISOString() })).toBeNull();
    expect(await store.getToken(b.id, token.id)).toBeNull();
    expect(await store.revokeToken(b.id, token.id, new Date().toISOString())).toBeNull();
    expect(await store.getWebhook(b.id, a.webhookIds[0]!)).toBeNull();
    expect(await store.updateWebhook(b.id, a.webhookIds[0]!, { enabled: false })).toBeNull();
    expect(await store.deleteWebhook(b.id, a.webhookIds[0]!)).toBe(false);
    expect(await store.getDelivery(b.id, delivery.webhookId, delivery.id)).toBeNull();
    expect((await store.listDeliveries(b.id, delivery.webhookId, { limit: 10 })).data).toEqual([]);
    expect(await store.requeueDelivery(b.id, delivery.webhookId, delivery.id, new Date().toISOString())).toBeNull();
    expect(await store.claimDueDeliveries({ now: new Date().toISOString(), limit: 10, leaseMs: 1000, owner: "b", orgId: b.id })).toEqual(
      []
    );
    expect(await store.countPendingDeliveries(b.id)).toBe(0);
    expect(await errorCode(store.recordCheck(b.id, changedCheck(a.monitorId, { sequence: 2 })))).toBe("not_found");

    // org A's data is as it was
    expect((await store.getMonitor(a.orgId, a.monitorId))?.name).toBe("orders API");
    expect(await store.getWebhook(a.orgId, a.webhookIds[0]!)).toMatchObject({ enabled: true });
    expect(await store.countPendingDeliveries(a.orgId)).toBe(2);
    expect((await store.getToken(a.orgId, token.id))?.revokedAt).toBeNull();
  });

  it("refuses a diff against another monitor's snapshot and writes nothing", async () => {
    const a = await seedOrganization(store, "a");
    const other = await store.createMonitor(a.orgId, apiMonitor({ name: "other" }));
    const first = changedCheck(other.id, { sequence: 1 });
    await store.recordCheck(a.orgId, first);
    const before = await store.getMonitor(a.orgId, a.monitorId);
    const bad = changedCheck(a.monitorId, { previousSnapshotId: first.snapshot!.id, sequence: 2 });
    expect(await errorCode(store.recordCheck(a.orgId, bad))).toBe("invariant_violation");
    expect(await errorCode(store.recordCheck(a.orgId, { ...bad, snapshot: null }))).toBe("invariant_violation");
    expect(await errorCode(store.recordCheck(a.orgId, { ...bad, diff: null }))).toBe("invariant_violation");
    expect(await store.getMonitor(a.orgId, a.monitorId)).toEqual(before);
    expect(await store.getLatestSnapshot(a.orgId, a.monitorId)).toBeNull();
    // only the first check's delivery: the second webhook covers a.monitorId alone
    expect(await store.countPendingDeliveries()).toBe(1);
  });
});

describe("webhook matching and the outbox", () => {
  it("creates deliveries only for enabled, subscribed, covering webhooks at or below the diff's severity", async () => {
    const { orgId, monitorId, webhookIds } = await seedOrganization(store);
    await store.createWebhook(orgId, webhookInput({ enabled: false }));
    await store.createWebhook(orgId, webhookInput({ minSeverity: "high" }));
    await store.createWebhook(orgId, webhookInput({ monitorIds: ["mon_01J00000000000000000000000"] }));
    const result = await store.recordCheck(orgId, changedCheck(monitorId, { sequence: 1 }));
    expect(result.deliveries.map((d) => d.webhookId).sort()).toEqual([...webhookIds].sort());
    expect(result.deliveries[0]).toMatchObject({
      state: "pending",
      attempts: 0,
      monitorId,
      diffId: result.diff!.id,
      eventType: "diff.detected",
    });
  });

  it("leases, records attempts, retries, gives up and requeues", async () => {
    const { orgId, monitorId, webhookIds } = await seedOrganization(store);
    await store.updateWebhook(orgId, webhookIds[1]!, { enabled: false });
    const { deliveries } = await store.recordCheck(orgId, changedCheck(monitorId, { sequence: 1 }));
    expect(deliveries).toHaveLength(1);
    const id = deliveries[0]!.id;
    const t0 = Date.now();
    const at = (ms: number): string => new Date(t0 + ms).toISOString();

    const [claimed] = await store.claimDueDeliveries({ now: at(1000), limit: 10, leaseMs: 30_000, owner: "w1" });
    expect(claimed?.id).toBe(id);
    expect(await store.claimDueDeliveries({ now: at(2000), limit: 10, leaseMs: 30_000, owner: "w2" })).toEqual([]);
    expect(
      await store.recordDeliveryAttempt(id, "w2", {
        at: at(2000),
        state: "succeeded",
        nextAttemptAt: null,
        responseStatus: 200,
        error: null,
        durationMs: 5,
      })
    ).toBeNull();

    const retry = await store.recordDeliveryAttempt(id, "w1", {
      at: at(3000),
      state: "pending",
      nextAttemptAt: at(8000),
      responseStatus: 503,
      error: "unavailable",
      durationMs: 12,
    });
    expect(retry).toMatchObject({
      state: "pending",
      attempts: 1,
      nextAttemptAt: at(8000),
      lastResponseStatus: 503,
      lastError: "unavailable",
    });
    expect(await store.claimDueDeliveries({ now: at(4000), limit: 10, leaseMs: 30_000, owner: "w1" })).toEqual([]);
    expect(await store.claimDueDeliveries({ now: at(4000), limit: 10, leaseMs: 30_000, owner: "w1", force: true })).toHaveLength(1);
    const failed = await store.recordDeliveryAttempt(id, "w1", {
      at: at(5000),
      state: "failed",
      nextAttemptAt: null,
      responseStatus: null,
      error: "timeout",
      durationMs: 15000,
    });
    expect(failed).toMatchObject({ state: "failed", attempts: 2, nextAttemptAt: null });
    expect(await store.countPendingDeliveries(orgId)).toBe(0);
    expect((await store.listDeliveryAttempts(orgId, id)).map((a) => [a.attempt, a.responseStatus, a.error])).toEqual([
      [1, 503, "unavailable"],
      [2, null, "timeout"],
    ]);

    const requeued = await store.requeueDelivery(orgId, webhookIds[0]!, id, at(6000));
    expect(requeued).toMatchObject({ state: "pending", nextAttemptAt: at(6000), attempts: 2 });
    // a disabled webhook's deliveries are not handed out
    await store.updateWebhook(orgId, webhookIds[0]!, { enabled: false });
    expect(await store.claimDueDeliveries({ now: at(7000), limit: 10, leaseMs: 30_000, owner: "w1" })).toEqual([]);
    // deleting the webhook deletes its deliveries and attempts
    expect(await store.deleteWebhook(orgId, webhookIds[0]!)).toBe(true);
    expect(await store.getDelivery(orgId, webhookIds[0]!, id)).toBeNull();
    expect(await store.listDeliveryAttempts(orgId, id)).toEqual([]);
  });
});

describe("monitors", () => {
  it("deletes a monitor with its snapshots, diffs and settings, keeping the delivery log", async () => {
    const { orgId, monitorId, webhookIds } = await seedOrganization(store);
    const check = changedCheck(monitorId, { sequence: 1 });
    await store.recordCheck(orgId, check);
    await store.updateSettings(orgId, monitorId, { snapshotRetention: 5, updatedAt: new Date().toISOString() });
    expect(await store.deleteMonitor(orgId, monitorId)).toBe(true);
    expect(await store.deleteMonitor(orgId, monitorId)).toBe(false);
    expect(await store.getSnapshot(orgId, monitorId, check.snapshot!.id)).toBeNull();
    expect(await store.getDiff(orgId, monitorId, check.diff!.id)).toBeNull();
    expect(await store.getSettings(orgId, monitorId)).toBeNull();
    expect((await store.listDeliveries(orgId, webhookIds[0]!, { limit: 10 })).data).toHaveLength(1);
  });

  it("releases a lease only for its holder", async () => {
    const org = await store.ensureOrganization("leases");
    const monitor = await store.createMonitor(org.id, apiMonitor());
    const now = new Date().toISOString();
    expect((await store.claimDueMonitors({ now, limit: 5, leaseMs: 60_000, owner: "w1" })).map((m) => m.id)).toEqual([monitor.id]);
    expect(await store.releaseMonitor(monitor.id, "w2", now)).toBe(false);
    expect(await store.releaseMonitor(monitor.id, "w1", "2999-01-01T00:00:00.000Z")).toBe(true);
    expect(await store.claimDueMonitors({ now, limit: 5, leaseMs: 60_000, owner: "w2" })).toEqual([]);
    await store.updateMonitor(org.id, monitor.id, { nextCheckAt: now, state: "paused" });
    expect(await store.claimDueMonitors({ now, limit: 5, leaseMs: 60_000, owner: "w2" })).toEqual([]);
  });

  it("returns copies: mutating a record does not change the store", async () => {
    const org = await store.ensureOrganization("copies");
    const monitor = await store.createMonitor(org.id, apiMonitor());
    monitor.headers["x-evil"] = "1";
    expect((await store.getMonitor(org.id, monitor.id))?.headers).toEqual(apiMonitor().headers);
  });
});

// settings: the contract's settings and isolation cases (contract.test.ts) cover them
describe("tokens and idempotency", () => {
  it("finds tokens by hash, keeps the first revocation and records use", async () => {
    const org = await store.ensureOrganization("tokens");
    const token = await store.createToken(org.id, { name: "ci", scopes: ["monitors:read"], tokenHash: "h1" });
    expect(await store.findTokenByHash("h1")).toEqual(token);
    await store.touchToken(token.id, "2026-01-01T00:00:00.000Z");
    await store.revokeToken(org.id, token.id, "2026-01-02T00:00:00.000Z");
    const again = await store.revokeToken(org.id, token.id, "2026-01-03T00:00:00.000Z");
    expect(again).toMatchObject({ lastUsedAt: "2026-01-01T00:00:00.000Z", revokedAt: "2026-01-02T00:00:00.000Z" });
    expect(await errorCode(store.createToken(org.id, { name: "dup", scopes: ["admin"], tokenHash: "h1" }))).toBe("conflict");
    expect((await store.listTokens(org.id, { limit: 10 })).data).toHaveLength(1);
  });

  it("claims, completes, releases and expires idempotency keys", async () => {
    const org = await store.ensureOrganization("idem");
    const claim = { key: "k1", requestHash: "r1", now: "2026-01-01T00:00:00.000Z", expiresAt: "2026-01-02T00:00:00.000Z" };
    expect(await store.claimIdempotencyKey(org.id, claim)).toEqual({ state: "new" });
    expect(await store.claimIdempotencyKey(org.id, claim)).toEqual({ state: "existing", requestHash: "r1", response: null });
    await store.completeIdempotencyKey(org.id, "k1", { status: 201, body: "{}" });
    expect(await store.claimIdempotencyKey(org.id, { ...claim, requestHash: "r2" })).toEqual({
      state: "existing",
      requestHash: "r1",
      response: { status: 201, body: "{}" },
    });
    expect(
      await store.claimIdempotencyKey(org.id, { ...claim, now: "2026-01-03T00:00:00.000Z", expiresAt: "2026-01-04T00:00:00.000Z" })
    ).toEqual({
      state: "new",
    });
    await store.releaseIdempotencyKey(org.id, "k1");
    expect(await store.claimIdempotencyKey(org.id, claim)).toEqual({ state: "new" });
    const other = await store.ensureOrganization("idem-other");
    expect(await store.claimIdempotencyKey(other.id, claim)).toEqual({ state: "new" });
  });

  it("accepts only cursors this store issued", async () => {
    const org = await store.ensureOrganization("cursor");
    expect((await store.listTokens(org.id, { limit: 5, cursor: encodeCursor("tok_01J00000000000000000000000") })).data).toEqual([]);
  });
});
