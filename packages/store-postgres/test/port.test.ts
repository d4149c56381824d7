// Every port method against real PostgreSQL, with two pools on one schema where concurrency
// matters. The shared contract suite (contract.test.ts) covers the port for every adapter;
// these cases pin down what this adapter's SQL does (filters, cascades, ON CONFLICT races).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { StoreError, type Store } from "@driftwatch/core";
import { createPostgresStore } from "../src/index.js";
import { createTestDatabase, freshSchema, postgresSkipReason, type TestDatabase } from "./database.js";
import { apiMonitor, changedCheck, seedOrganization, webhookInput } from "@driftwatch/store-testkit";

const skipReason = await postgresSkipReason();
const at = (ms: number): string => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();

describe.skipIf(skipReason !== null)(`store-postgres port methods${skipReason === null ? "" : ` (skipped: ${skipReason})`}`, () => {
  let database: TestDatabase;
  let store: Store;
  let peer: Store;
  const opened: Store[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  beforeEach(async () => {
    const schema = freshSchema();
    store = await createPostgresStore({ connectionString: database.url, schema, max: 4 });
    peer = await createPostgresStore({ connectionString: database.url, schema, max: 4 });
    opened.push(store, peer);
  });
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await database?.drop();
  });

  it("organizations: create, look up, ensure under a race, count, duplicate slug", async () => {
    const created = await store.createOrganization({ slug: "acme", name: "Acme" });
    expect(await store.getOrganization(created.id)).toEqual(created);
    expect(await store.getOrganizationBySlug("acme")).toEqual(created);
    await expect(store.createOrganization({ slug: "acme" })).rejects.toMatchObject({ code: "conflict" });
    const ensured = await Promise.all([
      store.ensureOrganization("beta"),
      peer.ensureOrganization("beta"),
      store.ensureOrganization("beta"),
    ]);
    expect(new Set(ensured.map((org) => org.id)).size).toBe(1);
    expect(ensured[0]?.name).toBe("beta");
    expect(await store.countOrganizations()).toBe(2);
    expect(await store.getOrganization("org_00000000000000000000000000")).toBeNull();
  });

  it("tokens: by hash, paging, revoke keeps the first time, touch, tenant scoping", async () => {
    const org = await store.ensureOrganization("acme");
    const other = await store.ensureOrganization("other");
    const tokens = [];
    for (let i = 0; i < 3; i++)
      tokens.push(await store.createToken(org.id, { name: `t${i}`, scopes: ["monitors:read"], tokenHash: `hash-${i}` }));
    expect(await store.findTokenByHash("hash-1")).toEqual(tokens[1]);
    const first = await store.listTokens(org.id, { limit: 2 });
    expect(first.data.map((t) => t.id)).toEqual([tokens[2]!.id, tokens[1]!.id]);
    const second = await store.listTokens(org.id, { limit: 2, cursor: first.nextCursor });
    expect(second).toEqual({ data: [tokens[0]], nextCursor: null });
    const exact = await store.listTokens(org.id, { limit: 3 });
    expect(exact.nextCursor).toBeNull();
    await expect(store.listTokens(org.id, { limit: 2, cursor: "not-a-cursor" })).rejects.toMatchObject({ code: "invalid_cursor" });
    expect(await store.getToken(other.id, tokens[0]!.id)).toBeNull();
    expect(await store.revokeToken(other.id, tokens[0]!.id, at(1))).toBeNull();
    expect((await store.revokeToken(org.id, tokens[0]!.id, at(1)))?.revokedAt).toBe(at(1));
    expect((await store.revokeToken(org.id, tokens[0]!.id, at(2)))?.revokedAt).toBe(at(1));
    await store.touchToken(tokens[0]!.id, at(3));
    expect((await store.getToken(org.id, tokens[0]!.id))?.lastUsedAt).toBe(at(3));
    await expect(store.createToken("org_00000000000000000000000000", { name: "x", scopes: [], tokenHash: "h" })).rejects.toMatchObject({
      code: "not_found",
    });
    expect((await store.listTokens(other.id, { limit: 10 })).data).toEqual([]);
  });

  it("monitors: partial update, tenant scoping, delete cascades but keeps the delivery log", async () => {
    const { orgId, monitorId, webhookIds } = await seedOrganization(store);
    const other = await store.ensureOrganization("other");
    const updated = await store.updateMonitor(orgId, monitorId, {
      name: "renamed",
      headers: { a: "b" },
      state: "paused",
      updatedAt: at(5),
    });
    expect(updated).toMatchObject({ name: "renamed", headers: { a: "b" }, state: "paused", updatedAt: at(5), url: apiMonitor().url });
    expect(await store.updateMonitor(other.id, monitorId, { name: "stolen" })).toBeNull();
    expect(await store.getMonitor(other.id, monitorId)).toBeNull();
    expect(await store.deleteMonitor(other.id, monitorId)).toBe(false);
    await store.updateSettings(orgId, monitorId, { snapshotRetention: 5, updatedAt: at(6) });
    const check = await store.recordCheck(orgId, changedCheck(monitorId, { sequence: 1 }));
    expect(await store.deleteMonitor(orgId, monitorId)).toBe(true);
    expect(await store.getMonitor(orgId, monitorId)).toBeNull();
    expect(await store.getSnapshot(orgId, monitorId, check.snapshot!.id)).toBeNull();
    expect(await store.getDiff(orgId, monitorId, check.diff!.id)).toBeNull();
    expect(await store.getSettings(orgId, monitorId)).toBeNull();
    expect((await store.listDeliveries(orgId, webhookIds[0]!, { limit: 10 })).data).toHaveLength(1);
    expect(await store.deleteMonitor(orgId, monitorId)).toBe(false);
  });

  it("snapshots: latest, list without body, get with body", async () => {
    const { orgId, monitorId } = await seedOrganization(store);
    const a = changedCheck(monitorId, { sequence: 1 });
    await store.recordCheck(orgId, a);
    const b = changedCheck(monitorId, { previousSnapshotId: a.snapshot!.id, sequence: 2 });
    await store.recordCheck(orgId, { ...b, monitor: {} });
    expect((await store.getLatestSnapshot(orgId, monitorId))?.id).toBe(b.snapshot!.id);
    const listed = await store.listSnapshots(orgId, monitorId, { limit: 10 });
    expect(listed.data.map((s) => s.id)).toEqual([b.snapshot!.id, a.snapshot!.id]);
    expect(listed.data[0]).not.toHaveProperty("body");
    const full = await store.getSnapshot(orgId, monitorId, a.snapshot!.id);
    expect(full?.body).toBe(a.snapshot!.body);
    expect(full?.etag).toBe(a.snapshot!.etag);
    expect(full?.lastModified).toBeNull();
  });

  it("recordCheck: invariants, webhook matching by event, monitor, severity and enabled", async () => {
    const org = await store.ensureOrganization("acme");
    const monitor = await store.createMonitor(org.id, apiMonitor());
    const elsewhere = await store.createMonitor(org.id, apiMonitor({ name: "elsewhere" }));
    const all = await store.createWebhook(org.id, webhookInput());
    await store.createWebhook(org.id, webhookInput({ enabled: false }));
    await store.createWebhook(org.id, webhookInput({ minSeverity: "high" }));
    await store.createWebhook(org.id, webhookInput({ monitorIds: [elsewhere.id] }));
    const exact = await store.createWebhook(org.id, webhookInput({ minSeverity: "medium", monitorIds: [monitor.id] }));
    const result = await store.recordCheck(org.id, changedCheck(monitor.id, { sequence: 1 }));
    expect(result.deliveries.map((d) => d.webhookId).sort()).toEqual([all.id, exact.id].sort());
    expect(result.deliveries.every((d) => d.state === "pending" && d.attempts === 0 && d.nextAttemptAt === result.diff!.createdAt)).toBe(
      true
    );

    const noDiff = changedCheck(monitor.id, { sequence: 2 });
    await expect(store.recordCheck(org.id, { ...noDiff, snapshot: null })).rejects.toMatchObject({ code: "invariant_violation" });
    await expect(store.recordCheck(org.id, { ...noDiff, diff: null })).rejects.toMatchObject({ code: "invariant_violation" });
    const foreign = changedCheck(monitor.id, { previousSnapshotId: (await store.recordCheck(org.id, changedCheck(elsewhere.id, { sequence: 3 }))).snapshot!.id, sequence: 4 });
    const error = await store.recordCheck(org.id, foreign).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe("invariant_violation");
    expect(await store.getSnapshot(org.id, monitor.id, foreign.snapshot!.id)).toBeNull();

    // no event: no deliveries; no snapshot: only the monitor's fields change
    const quiet = changedCheck(monitor.id, { previousSnapshotId: result.snapshot!.id, sequence: 5 });
    expect((await store.recordCheck(org.id, { ...quiet, event: null })).deliveries).toEqual([]);
    const failed = await store.recordCheck(org.id, {
      monitorId: monitor.id,
      monitor: { lastStatus: 503, lastError: "down" },
      snapshot: null,
      diff: null,
      event: null,
    });
    expect(failed).toMatchObject({ snapshot: null, diff: null, deliveries: [], monitor: { lastStatus: 503, lastError: "down" } });
  });

  it("diffs: newest first with since, until, minSeverity and classification", async () => {
    const { orgId, monitorId } = await seedOrganization(store);
    let previous: string | null = null;
    const ids: string[] = [];
    const severities = ["info", "medium", "high", "critical"] as const;
    for (let i = 0; i < 4; i++) {
      const check = changedCheck(monitorId, { previousSnapshotId: previous, sequence: i });
      const diff = { ...check.diff!, createdAt: at(i * 1000), topSeverity: severities[i]! };
      if (i % 2 === 1) Object.assign(diff, { classification: "schema_change" });
      await store.recordCheck(orgId, { ...check, diff });
      previous = check.snapshot!.id;
      ids.push(diff.id);
    }
    const list = async (query: Parameters<Store["listDiffs"]>[2]): Promise<string[]> =>
      (await store.listDiffs(orgId, monitorId, query)).data.map((d) => d.id);
    expect(await list({ limit: 10 })).toEqual([...ids].reverse());
    expect(await list({ limit: 10, since: at(1000), until: at(2000) })).toEqual([ids[2], ids[1]]);
    expect(await list({ limit: 10, minSeverity: "high" })).toEqual([ids[3], ids[2]]);
    expect(await list({ limit: 10, classification: "schema_change" })).toEqual([ids[3], ids[1]]);
    const diff = await store.getDiff(orgId, monitorId, ids[0]!);
    expect(diff).toMatchObject({ id: ids[0], monitorId, orgId, createdAt: at(0), topSeverity: "info" });
    expect(await store.getDiff((await store.ensureOrganization("other")).id, monitorId, ids[0]!)).toBeNull();
  });

  // settings: the contract's settings and isolation cases (contract.test.ts) cover them
  it("webhooks and deliveries: claim filters, attempts by the lease holder, requeue, counts, cascade", async () => {
    const { orgId, monitorId, webhookIds } = await seedOrganization(store);
    const [first, second] = webhookIds as [string, string];
    const updated = await store.updateWebhook(orgId, first, {
      description: "main",
      monitorIds: [monitorId],
      previousSecretExpiresAt: at(9),
    });
    expect(updated).toMatchObject({ description: "main", monitorIds: [monitorId], previousSecretExpiresAt: at(9) });
    expect((await store.listWebhooks(orgId, { limit: 10 })).data.map((w) => w.id)).toEqual([second, first]);
    for (let i = 0; i < 3; i++) await store.recordCheck(orgId, changedCheck(monitorId, { sequence: i }));
    expect(await store.countPendingDeliveries(orgId)).toBe(6);
    expect(await store.countPendingDeliveries()).toBe(6);

    const future = at(-1); // the events occurred "now"; a time in the past claims nothing without force
    expect(await store.claimDueDeliveries({ now: future, limit: 10, leaseMs: 1000, owner: "w" })).toEqual([]);
    const forced = await store.claimDueDeliveries({
      now: future,
      limit: 10,
      leaseMs: 365 * 86_400_000,
      owner: "w",
      force: true,
      webhookId: second,
    });
    expect(forced.map((d) => d.webhookId)).toEqual([second, second, second]);
    const now = new Date(Date.now() + 1000).toISOString();
    await store.updateWebhook(orgId, first, { enabled: false });
    expect(await store.claimDueDeliveries({ now, limit: 10, leaseMs: 60_000, owner: "x", orgId })).toEqual([]);
    await store.updateWebhook(orgId, first, { enabled: true });
    const claimed = await store.claimDueDeliveries({ now, limit: 10, leaseMs: 60_000, owner: "x", orgId });
    expect(claimed).toHaveLength(3);
    const target = claimed[0]!;
    expect(
      await store.recordDeliveryAttempt(target.id, "someone-else", {
        at: now,
        state: "succeeded",
        nextAttemptAt: null,
        responseStatus: 200,
        error: null,
        durationMs: 3,
      })
    ).toBeNull();
    const retry = await store.recordDeliveryAttempt(target.id, "x", {
      at: now,
      state: "pending",
      nextAttemptAt: at(99),
      responseStatus: 500,
      error: "boom",
      durationMs: 4.6,
    });
    expect(retry).toMatchObject({
      state: "pending",
      attempts: 1,
      nextAttemptAt: at(99),
      lastResponseStatus: 500,
      lastError: "boom",
      lastAttemptAt: now,
    });
    const [again] = await store.claimDueDeliveries({ now, limit: 1, leaseMs: 60_000, owner: "y", webhookId: first });
    expect(again?.id).toBe(target.id);
    const done = await store.recordDeliveryAttempt(target.id, "y", {
      at: now,
      state: "failed",
      nextAttemptAt: null,
      responseStatus: null,
      error: "gone",
      durationMs: 1,
    });
    expect(done).toMatchObject({ state: "failed", attempts: 2, nextAttemptAt: null });
    expect(await store.listDeliveryAttempts(orgId, target.id)).toEqual([
      { deliveryId: target.id, attempt: 1, at: now, responseStatus: 500, error: "boom", durationMs: 5 },
      { deliveryId: target.id, attempt: 2, at: now, responseStatus: null, error: "gone", durationMs: 1 },
    ]);
    const other = await store.ensureOrganization("other");
    expect(await store.listDeliveryAttempts(other.id, target.id)).toEqual([]);
    expect(await store.getDelivery(other.id, first, target.id)).toBeNull();
    expect(await store.requeueDelivery(other.id, first, target.id, now)).toBeNull();
    expect(await store.requeueDelivery(orgId, first, target.id, now)).toMatchObject({ state: "pending", nextAttemptAt: now });
    expect(await store.getDelivery(orgId, first, target.id)).toMatchObject({ state: "pending", attempts: 2 });

    expect(await store.deleteWebhook(other.id, first)).toBe(false);
    expect(await store.deleteWebhook(orgId, first)).toBe(true);
    expect(await store.getWebhook(orgId, first)).toBeNull();
    expect(await store.getDelivery(orgId, first, target.id)).toBeNull();
    expect(await store.countPendingDeliveries(orgId)).toBe(3);
  });

  it("deliveries: two pools claiming at once never share one", async () => {
    const { orgId, monitorId } = await seedOrganization(store);
    for (let i = 0; i < 15; i++) await store.recordCheck(orgId, changedCheck(monitorId, { sequence: i }));
    const now = new Date(Date.now() + 1000).toISOString();
    const rounds = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? store : peer).claimDueDeliveries({ now, limit: 5, leaseMs: 60_000, owner: `w${i}` })
      )
    );
    const ids = rounds.flat().map((d) => d.id);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
  });

  it("idempotency keys: one winner under a race, in flight, completed, released, expired", async () => {
    const org = await store.ensureOrganization("acme");
    const claim = { key: "k1", requestHash: "h1", now: at(0), expiresAt: at(60_000) };
    const racing = await Promise.all([
      store.claimIdempotencyKey(org.id, claim),
      peer.claimIdempotencyKey(org.id, claim),
      peer.claimIdempotencyKey(org.id, claim),
    ]);
    expect(racing.filter((r) => r.state === "new")).toHaveLength(1);
    expect(racing.filter((r) => r.state === "existing")).toEqual([
      { state: "existing", requestHash: "h1", response: null },
      { state: "existing", requestHash: "h1", response: null },
    ]);
    await store.completeIdempotencyKey(org.id, "k1", { status: 201, body: '{"id":1}' });
    expect(await store.claimIdempotencyKey(org.id, { ...claim, requestHash: "h2" })).toEqual({
      state: "existing",
      requestHash: "h1",
      response: { status: 201, body: '{"id":1}' },
    });
    const other = await store.ensureOrganization("other");
    expect(await store.claimIdempotencyKey(other.id, claim)).toEqual({ state: "new" });
    expect(await store.claimIdempotencyKey(org.id, { ...claim, now: at(60_000), expiresAt: at(120_000) })).toEqual({ state: "new" });
    await store.releaseIdempotencyKey(org.id, "k1");
    expect(await store.claimIdempotencyKey(org.id, { ...claim, now: at(61_000), expiresAt: at(120_000) })).toEqual({ state: "new" });
  });

  it("rate limits: fixed windows shared by two pools", async () => {
    const windowMs = 60_000;
    const now = Date.UTC(2026, 0, 1, 0, 0, 30);
    const hits = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? store : peer).hitRateLimit!("ip:1", windowMs, now)));
    expect(hits.map((h) => h.count).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(hits[0]?.resetAt).toBe(Date.UTC(2026, 0, 1, 0, 1, 0));
    expect(await store.hitRateLimit!("ip:2", windowMs, now)).toEqual({ count: 1, resetAt: Date.UTC(2026, 0, 1, 0, 1, 0) });
    expect(await peer.hitRateLimit!("ip:1", windowMs, now + windowMs)).toEqual({ count: 1, resetAt: Date.UTC(2026, 0, 1, 0, 2, 0) });
    expect(store.capabilities).toEqual({ rateLimits: true, durable: true });
  });
});
