import { expect } from "vitest";
import type { Store } from "@driftwatch/core";
import { recordChanges } from "./fixtures.js";
import { rejectionCode } from "./harness.js";

/**
 * The settings row a SQL adapter's migration test writes with its first schema version (before
 * `auto_apply_suggestions` existed), for monitor `mon_1` of organization `org_1`.
 */
export const FIRST_VERSION_SETTINGS = { policyRules: { rules: [{ path: "$.a", action: "ignore" }] }, snapshotRetention: 7 } as const;

/** Checks that the store, opened on that old database, reads the row with the new field's default and can set it. */
export async function expectFirstVersionSettingsMigrated(store: Store, updatedAt: string): Promise<void> {
  expect(await store.getSettings("org_1", "mon_1")).toEqual({
    orgId: "org_1",
    monitorId: "mon_1",
    policyRulesJson: FIRST_VERSION_SETTINGS.policyRules,
    snapshotRetention: FIRST_VERSION_SETTINGS.snapshotRetention,
    autoApplySuggestions: false,
    rejectedSuggestions: [],
    track: [],
    alert: null,
    learning: null,
    updatedAt,
  });
  // the organization written before learning became the default: new monitors of it learn
  expect((await store.getOrganization("org_1"))?.learnNoiseByDefault).toBe(true);
  expect(await store.updateSettings("org_1", "mon_1", { autoApplySuggestions: true, updatedAt })).toMatchObject({
    snapshotRetention: FIRST_VERSION_SETTINGS.snapshotRetention,
    autoApplySuggestions: true,
  });
}

/** What `writeVersion2Data` wrote: the ids to read it back by. */
interface Version2Data {
  orgId: string;
  monitorId: string;
  webhookIds: [string, string];
  tokenHash: string;
  snapshotIds: string[];
  diffIds: string[];
  deliveryIds: string[];
}

const V2_AT = "2026-02-01T00:00:00.000Z";

/**
 * Writes one or more of everything schema version 2 holds (an organization with a token,
 * settings, two checks with their snapshots, diffs and deliveries, a delivery attempt, an
 * idempotency key, a rate-limit counter), through methods that touch only version 2 tables:
 * run it on a store over a database migrated to version 2 only.
 */
async function writeVersion2Data(store: Store): Promise<Version2Data> {
  const org = await store.ensureOrganization("before-people", "Before people");
  const monitor = await store.createMonitor(org.id, {
    type: "api",
    name: "orders",
    url: "https://api.example.com/orders",
    method: "GET",
    headers: { accept: "application/json" },
    body: null,
    intervalSeconds: 60,
    selector: null,
    browserOptionsJson: null,
    state: "active",
    nextCheckAt: V2_AT,
  });
  const webhooks = [
    await store.createWebhook(org.id, { url: "https://hooks.example.com/a", description: "a", events: ["diff.detected"], monitorIds: null, minSeverity: "info", enabled: true, secret: "whsec_YQ==" }),
    await store.createWebhook(org.id, { url: "https://hooks.example.com/b", description: null, events: ["diff.detected"], monitorIds: [monitor.id], minSeverity: "info", enabled: true, secret: "whsec_Yg==" }),
  ] as const;
  const tokenHash = "7".repeat(64);
  await store.createToken(org.id, { name: "ci", scopes: ["admin"], tokenHash });
  await store.updateSettings(org.id, monitor.id, { policyRulesJson: { rules: [{ path: "$..updatedAt", action: "ignore" }] }, snapshotRetention: 5, autoApplySuggestions: true, updatedAt: V2_AT });
  const checks = await recordChanges(store, org.id, monitor.id, 2, { at: V2_AT });
  const [claimed] = await store.claimDueDeliveries({ now: V2_AT, limit: 1, leaseMs: 60_000, owner: "w", orgId: org.id });
  await store.recordDeliveryAttempt(claimed!.id, "w", { at: V2_AT, state: "pending", nextAttemptAt: "2026-02-01T00:00:05.000Z", responseStatus: 503, error: "HTTP 503", durationMs: 12 });
  await store.claimIdempotencyKey(org.id, { key: "create-1", requestHash: "h", now: V2_AT, expiresAt: "2999-01-01T00:00:00.000Z" });
  await store.completeIdempotencyKey(org.id, "create-1", { status: 201, body: '{"id":"mon_1"}' });
  await store.hitRateLimit?.("org:before-people:GET /api/monitors", 60_000, Date.parse("2999-01-01T00:00:00.000Z"));
  const deliveries = await Promise.all(webhooks.map((w) => store.listDeliveries(org.id, w.id, { limit: 10 })));
  return {
    orgId: org.id,
    monitorId: monitor.id,
    webhookIds: [webhooks[0].id, webhooks[1].id],
    tokenHash,
    snapshotIds: checks.map((c) => c.snapshot!.id),
    diffIds: checks.map((c) => c.diff!.id),
    deliveryIds: deliveries.flatMap((page) => page.data.map((d) => d.id)),
  };
}

/** Everything `writeVersion2Data` wrote, read through the store (reading changes nothing). */
async function readVersion2Data(store: Store, data: Version2Data): Promise<unknown> {
  const { orgId, monitorId } = data;
  return {
    org: await store.getOrganization(orgId),
    monitors: await store.listMonitors(orgId, { limit: 10 }),
    settings: await store.getSettings(orgId, monitorId),
    snapshots: await Promise.all(data.snapshotIds.map((id) => store.getSnapshot(orgId, monitorId, id))),
    diffs: await Promise.all(data.diffIds.map((id) => store.getDiffJson(orgId, monitorId, id))),
    webhooks: await store.listWebhooks(orgId, { limit: 10 }),
    deliveries: await Promise.all(data.webhookIds.map((id) => store.listDeliveries(orgId, id, { limit: 10 }))),
    attempts: await Promise.all(data.deliveryIds.map((id) => store.listDeliveryAttempts(orgId, id))),
    token: await store.findTokenByHash(data.tokenHash),
    idempotency: await store.claimIdempotencyKey(orgId, { key: "create-1", requestHash: "h", now: V2_AT, expiresAt: "2999-01-01T00:00:00.000Z" }),
  };
}

/**
 * After the migration to the people schema: the organization written before it gets an owner,
 * a session, an invite and an audit entry, and deleting it removes its old rows with the new.
 */
async function expectPeopleOnVersion2Organization(store: Store, data: Version2Data): Promise<void> {
  const { orgId } = data;
  const owner = await store.createUser({ email: "Owner@Example.com", displayName: "Owner", passwordHash: "h", createdAt: V2_AT });
  await store.addMembership(orgId, owner.id, "owner", V2_AT);
  const session = await store.createSession({ userId: owner.id, orgId, sessionHash: "5".repeat(64), createdAt: V2_AT, expiresAt: "2999-01-01T00:00:00.000Z", userAgent: null, ip: null });
  await store.createInvite(orgId, { email: "new@example.com", role: "member", tokenHash: "6".repeat(64), invitedBy: owner.id, createdAt: V2_AT, expiresAt: "2999-01-01T00:00:00.000Z" });
  await store.appendAudit(orgId, { actorType: "user", actorId: owner.id, action: "auth.setup", targetId: null, data: {}, ip: null, at: V2_AT });
  expect((await store.listMembers(orgId, { limit: 10 })).data.map((m) => [m.email, m.role])).toEqual([["owner@example.com", "owner"]]);
  expect(await rejectionCode(store.setMemberRole(orgId, owner.id, "admin"))).toBe("last_owner");

  expect(await store.deleteOrganization(orgId)).toBe(true);
  expect(await store.getOrganization(orgId)).toBeNull();
  expect(await store.findTokenByHash(data.tokenHash)).toBeNull();
  expect(await store.getSnapshot(orgId, data.monitorId, data.snapshotIds[0]!)).toBeNull();
  expect(await store.countPendingDeliveries()).toBe(0);
  expect(await store.findSessionByHash(session.sessionHash)).toBeNull();
  expect(await store.findInviteByHash("6".repeat(64))).toBeNull();
  expect(await store.getUser(owner.id)).toEqual(owner);
}

/** After the migration that adds tags: the monitor written before it reads back with none, then takes tags and is found by them. */
async function expectTagsOnVersion2Monitor(store: Store, data: Version2Data): Promise<void> {
  const { orgId, monitorId } = data;
  expect((await store.listMonitors(orgId, { limit: 10 })).data.map((m) => [m.id, m.tags])).toEqual([[monitorId, []]]);
  expect(await store.listMonitors(orgId, { limit: 10, tag: "legacy" })).toEqual({ data: [], nextCursor: null });
  expect((await store.updateMonitor(orgId, monitorId, { tags: ["legacy"] }))?.tags).toEqual(["legacy"]);
  expect((await store.listMonitors(orgId, { limit: 10, tag: "legacy" })).data.map((m) => m.id)).toEqual([monitorId]);
}

/** What `expectVersion2UpgradeKeepsData` needs of an adapter's migration test. */
export interface Version2UpgradeHarness {
  /** The tables of schema version 2. */
  tables: readonly string[];
  /** A store over a fresh database migrated to version 2 only (the adapter's statements on the old schema). */
  openVersion2(): Promise<Store>;
  /** Each table's number of rows, read from the database itself, in the order of `tables`. */
  countRows(): Promise<number[]>;
  /** The adapter's store opened on that database as a user would: it migrates it to the newest version. */
  openMigrated(): Promise<Store>;
}

/**
 * A database at schema version 2 with rows in every table, migrated up by opening the store,
 * keeps every row (counted in the database and read through the store); its monitor has no tags
 * and can take some; then people work on its organization and deleting it removes the old rows with the new.
 */
export async function expectVersion2UpgradeKeepsData(harness: Version2UpgradeHarness): Promise<void> {
  const v2 = await harness.openVersion2();
  const data = await writeVersion2Data(v2);
  const before = await readVersion2Data(v2, data);
  const counts = await harness.countRows();
  expect(counts.every((n) => n > 0), `rows in every table of ${harness.tables.join(", ")}: ${counts.join(", ")}`).toBe(true);
  await v2.close();

  const store = await harness.openMigrated();
  expect(await harness.countRows()).toEqual(counts);
  expect(await readVersion2Data(store, data)).toEqual(before);
  await expectTagsOnVersion2Monitor(store, data);
  await expectPeopleOnVersion2Organization(store, data);
}
