import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@driftwatch/core";
import { copySqlDatabase, verifySqlCopy, type SqlDatabase } from "@driftwatch/store-sql";
import { createSqliteStore, openSqliteDatabase } from "@driftwatch/store-sqlite";
import { createPostgresStore, openPostgresDatabase } from "@driftwatch/store-postgres";
import { apiMonitor, changedCheck, recordChanges, seedOrganization, unchangedCheck, webhookInput } from "@driftwatch/store-testkit";
import { runCli } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/io.js";
import { createPostgresDatabase, postgresSkipReason, type TestPostgresDatabase } from "../../../../tooling/test-postgres.js";

const postgresSkip = await postgresSkipReason();
const ORG_SLUGS = ["acme", "globex"];

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-store-copy-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function io(): CliIo & { out: string; err: string } {
  const result = {
    out: "",
    err: "",
    stdout: (text: string) => void (result.out += text),
    stderr: (text: string) => void (result.err += text),
    env: {},
    cwd: dir,
  };
  return result;
}

/** Data of every kind the copy must carry, with awkward values (U+0000, emoji, JSON with key order). */
async function seed(store: Store): Promise<void> {
  const acme = await seedOrganization(store, "acme");
  await recordChanges(store, acme.orgId, acme.monitorId, 3);
  const odd = await store.createMonitor(
    acme.orgId,
    apiMonitor({ name: "odd \u0000 ✓ 😀", headers: { z: "1", a: "2" }, browserOptionsJson: { waitStrategy: "load", timeoutMs: 15000, viewport: { width: 360, height: 640 } }, type: "website" }),
  );
  const oddCheck = changedCheck(odd.id, { body: '<p>nul \u0000 and "quotes" ✓</p>', sequence: 7 });
  await store.recordCheck(acme.orgId, oddCheck);
  // a screenshot with every byte value, a failure screenshot and a secret (migration 8)
  const png = new Uint8Array(8 + 256);
  png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  for (let i = 0; i < 256; i++) png[8 + i] = i;
  await store.putScreenshot(acme.orgId, odd.id, { snapshotId: oddCheck.snapshot!.id, type: "image/png", data: png, width: 16, height: 16, createdAt: "2026-01-02T03:04:05.678Z" });
  await store.putFailureScreenshot(acme.orgId, odd.id, { type: "image/png", data: png, width: 4, height: 2, createdAt: "2026-01-02T03:04:06.000Z", step: { index: 3, action: "click", selector: "#go ✓" } });
  await store.createSecret(acme.orgId, { id: "sec_01JD3Q8Z9K2M4N6P8R0T2V4X6Y", name: "shop.password", sealedValue: "dw1.abcdef01.sealed", createdAt: "2026-01-02T03:04:07.000Z", createdBy: null });
  await store.updateSettings(acme.orgId, acme.monitorId, {
    policyRulesJson: { rules: [{ path: "$.updatedAt", action: "ignore" }] } as never,
    snapshotRetention: 50,
    autoApplySuggestions: true,
    track: [{ name: "price", path: "$.orders[0].total", extract: "price" }, { name: "note", path: "$.note" }],
    alert: { when: "any", conditions: [{ value: "price", op: "lt", to: 5 }, { value: "note", op: "matches", to: "(?i)nul" }] },
    updatedAt: "2026-01-02T03:04:05.678Z",
  });
  // tracked values of two checks (JSON of every kind, a missing one with its reason) and an alert state
  const latest = (await store.getLatestSnapshot(acme.orgId, acme.monitorId))!;
  for (const [at, price, note] of [
    ["2026-01-02T03:05:00.000Z", { amount: 6, currency: "EUR" }, "nul \u0000 ✓"],
    ["2026-01-02T03:06:00.000Z", null, false],
  ] as const) {
    await store.recordCheck(acme.orgId, {
      ...unchangedCheck(acme.monitorId, at),
      tracked: {
        at,
        snapshotId: latest.id,
        readings: [price === null ? { name: "price", value: null, reason: "$.orders[0].total selects nothing 😀" } : { name: "price", value: price }, { name: "note", value: note }],
        alertState: { key: "k", previous: { values: { price, note } }, streaks: [0, 1], matched: true },
      },
    });
  }
  expect((await store.listTrackedValues(acme.orgId, acme.monitorId, "price", { limit: 10 })).data).toHaveLength(2);
  const token = await store.createToken(acme.orgId, { name: "ci", scopes: ["monitors:read", "admin"], tokenHash: "a".repeat(64) });
  await store.revokeToken(acme.orgId, token.id, "2026-02-03T04:05:06.789Z");
  await store.createToken(acme.orgId, { name: "live", scopes: ["webhooks:write"], tokenHash: "b".repeat(64) });
  // a delivery with an attempt, and one still pending
  const [delivery] = await store.claimDueDeliveries({ owner: "seed", now: new Date().toISOString(), leaseMs: 60_000, limit: 1, force: true });
  expect(delivery).toBeDefined();
  await store.recordDeliveryAttempt(delivery!.id, "seed", {
    at: new Date().toISOString(),
    state: "pending",
    responseStatus: 500,
    error: "boom",
    durationMs: 12,
    nextAttemptAt: new Date(Date.now() + 60_000).toISOString(),
  });
  await store.claimIdempotencyKey(acme.orgId, { key: "k1", requestHash: "h", now: new Date().toISOString(), expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
  await store.completeIdempotencyKey(acme.orgId, "k1", { status: 201, body: '{"ok":true}' });
  // people: a user with a password hash, an owner membership, a session, an invite, audit entries
  const at = "2026-03-04T05:06:07.890Z";
  const user = await store.createUser({ email: "Ada@Example.com", displayName: "Ada ✓", passwordHash: "scrypt$1$abc$def", createdAt: at });
  await store.addMembership(acme.orgId, user.id, "owner", at);
  await store.createSession({ userId: user.id, sessionHash: "c".repeat(64), orgId: acme.orgId, createdAt: at, expiresAt: "2026-04-04T05:06:07.890Z", userAgent: "test", ip: "127.0.0.1" });
  await store.createInvite(acme.orgId, { email: "bob@example.com", role: "viewer", tokenHash: "d".repeat(64), invitedBy: user.id, createdAt: at, expiresAt: "2026-03-11T05:06:07.890Z" });
  await store.appendAudit(acme.orgId, { actorType: "user", actorId: user.id, action: "auth.sign_in", targetId: null, data: { via: "password", nested: { b: 1, a: [1, "\u0000"] } }, ip: "127.0.0.1", at });
  await store.appendAudit(null, { actorType: "system", actorId: null, action: "auth.setup", targetId: user.id, data: {}, ip: null, at });
  const globex = await store.ensureOrganization("globex", "Globex Corp");
  await store.createWebhook(globex.id, webhookInput({ enabled: false, description: "off" }));
  await store.createMonitor(globex.id, apiMonitor({ state: "paused", nextCheckAt: null }));
}

async function all<T>(read: (cursor: string | null) => Promise<{ data: T[]; nextCursor: string | null }>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const page = await read(cursor);
    out.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return out;
}

/** Everything the Store port shows of the seeded organizations, for comparing two stores. */
async function dump(store: Store): Promise<unknown> {
  const result: Record<string, unknown> = {};
  for (const slug of ORG_SLUGS) {
    const org = (await store.getOrganizationBySlug(slug))!;
    const monitors = await all((cursor) => store.listMonitors(org.id, { limit: 100, cursor }));
    const webhooks = await all((cursor) => store.listWebhooks(org.id, { limit: 100, cursor }));
    result[slug] = {
      org,
      tokens: await all((cursor) => store.listTokens(org.id, { limit: 100, cursor })),
      members: await all((cursor) => store.listMembers(org.id, { limit: 100, cursor })),
      invites: await all((cursor) => store.listInvites(org.id, { limit: 100, cursor })),
      audit: await all((cursor) => store.listAudit(org.id, { limit: 100, cursor })),
      secrets: await store.listSecrets(org.id),
      monitors: await Promise.all(
        monitors.map(async (m) => {
          const snapshots = await all((cursor) => store.listSnapshots(org.id, m.id, { limit: 100, cursor }));
          const diffs = await all((cursor) => store.listDiffs(org.id, m.id, { limit: 100, cursor }));
          return {
            monitor: m,
            settings: await store.getSettings(org.id, m.id),
            values: [
              await all((cursor) => store.listTrackedValues(org.id, m.id, "price", { limit: 100, cursor })),
              await all((cursor) => store.listTrackedValues(org.id, m.id, "note", { limit: 100, cursor })),
            ],
            alertState: await store.getAlertState(org.id, m.id),
            snapshots: await Promise.all(snapshots.map((s) => store.getSnapshot(org.id, m.id, s.id))),
            screenshots: await Promise.all(snapshots.map(async (s) => Buffer.from((await store.getScreenshot(org.id, m.id, s.id))?.data ?? []).toString("hex"))),
            failure: await store.getFailureScreenshot(org.id, m.id).then((f) => (f === null ? null : { ...f, data: Buffer.from(f.data).toString("hex") })),
            // parsed: PostgreSQL's jsonb keeps its own key order
            diffs: await Promise.all(diffs.map(async (d) => [d, JSON.parse((await store.getDiffJson(org.id, m.id, d.id))!) as unknown])),
          };
        }),
      ),
      webhooks: await Promise.all(
        webhooks.map(async (w) => {
          const deliveries = await all((cursor) => store.listDeliveries(org.id, w.id, { limit: 100, cursor }));
          return { webhook: w, deliveries: await Promise.all(deliveries.map(async (d) => [d, await store.listDeliveryAttempts(org.id, d.id)])) };
        }),
      ),
    };
  }
  const user = await store.getUserByEmail("ada@example.com");
  result.people = { user, memberships: await store.listMembershipsOfUser(user!.id), session: await store.findSessionByHash("c".repeat(64)) };
  return result;
}

async function seededSqlite(name: string): Promise<{ url: string; file: string; dump: unknown }> {
  const file = path.join(dir, name);
  const store = await createSqliteStore({ filename: file });
  await seed(store);
  const snapshot = await dump(store);
  await store.close();
  return { url: `sqlite:${file}`, file, dump: snapshot };
}

async function dumpSqlite(file: string): Promise<unknown> {
  const store = await createSqliteStore({ filename: file });
  try {
    return await dump(store);
  } finally {
    await store.close();
  }
}

describe("driftwatch store copy", () => {
  it("copies a SQLite database to another one, verified, and the copy reads back the same through the Store", async () => {
    const source = await seededSqlite("a.db");
    const target = path.join(dir, "b.db");
    const out = io();
    expect(await runCli(["store", "copy", "--from", source.url, "--to", `sqlite:${target}`], out)).toBe(0);
    expect(out.err).toContain("Verified");
    expect(out.out).toMatch(/^snapshots\s+4\s+4\s+\w{12}\s+ok$/m);
    expect(out.out).not.toContain("MISMATCH");
    expect(await dumpSqlite(target)).toEqual(source.dump);
  });

  it("refuses a target that holds data unless --resume, and reports a tampered copy as a mismatch", async () => {
    const source = await seededSqlite("c.db");
    const target = path.join(dir, "d.db");
    expect(await runCli(["store", "copy", "--from", source.url, "--to", `sqlite:${target}`], io())).toBe(0);
    const again = io();
    expect(await runCli(["store", "copy", "--from", source.url, "--to", `sqlite:${target}`], again)).toBe(2);
    expect(again.err).toContain("not empty");
    expect(await dumpSqlite(target)).toEqual(source.dump);

    const db = await openSqliteDatabase({ filename: target });
    await db.driver.run("UPDATE monitors SET name = 'tampered' WHERE rowid = (SELECT MIN(rowid) FROM monitors)", []);
    await db.close();
    const resumed = io();
    expect(await runCli(["store", "copy", "--from", source.url, "--to", `sqlite:${target}`, "--resume"], resumed)).toBe(1);
    expect(resumed.out).toMatch(/^monitors\s+3\s+3\s+\w{12}\s+MISMATCH$/m);
    expect(resumed.out).toMatch(/^diffs\s+4\s+4\s+\w{12}\s+ok$/m);
  });

  it("resumes after an interruption without copying a row twice", async () => {
    const source = await seededSqlite("e.db");
    const targetFile = path.join(dir, "f.db");
    const from = await openSqliteDatabase({ filename: source.file });
    const to = await openSqliteDatabase({ filename: targetFile });
    const controller = new AbortController();
    const error = await copySqlDatabase(from, to, {
      batchSize: 1,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.table === "snapshots" && p.copied === 2) controller.abort();
      },
    }).catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
    const partial = await verifySqlCopy(from, to);
    expect(partial.verified).toBe(false);
    expect(partial.tables.find((t) => t.table === "snapshots")).toMatchObject({ sourceRows: 4, targetRows: 2 });
    expect(partial.tables.find((t) => t.table === "organizations")?.matches).toBe(true);
    await Promise.all([from.close(), to.close()]);

    const out = io();
    expect(await runCli(["store", "copy", "--from", source.url, "--to", `sqlite:${targetFile}`, "--resume", "--batch-size", "2"], out)).toBe(0);
    expect(out.out).not.toContain("MISMATCH");
    expect(await dumpSqlite(targetFile)).toEqual(source.dump);
  });

  it("refuses bad arguments with exit status 2", async () => {
    const cases = [
      [["store", "copy", "--from", "sqlite:x.db"], "--to <url> is required"],
      [["store", "copy", "--from", "memory:", "--to", "sqlite:y.db"], "memory:"],
      [["store", "copy", "--from", "sqlite:x.db", "--to", "sqlite:x.db"], "same database"],
      [["store", "copy", "--from", "sqlite:x.db", "--to", "sqlite:y.db", "--batch-size", "0"], "--batch-size"],
      [["store", "move"], "unknown subcommand"],
      [["store", "copy", "--from", "mysql://h/db", "--to", "sqlite:y.db"], "--from"],
    ] as const;
    for (const [args, message] of cases) {
      const out = io();
      expect(await runCli(args, out), args.join(" ")).toBe(2);
      expect(out.err).toContain(message);
    }
    expect(fs.existsSync(path.join(dir, "y.db"))).toBe(false);
  });

  describe.skipIf(postgresSkip !== null)(`to PostgreSQL and back${postgresSkip ? ` (skipped: ${postgresSkip})` : ""}`, () => {
    let pg: TestPostgresDatabase;
    beforeAll(async () => {
      pg = await createPostgresDatabase("dw_store_copy");
    });
    afterAll(async () => {
      await pg.drop();
    });

    it("moves SQLite up to PostgreSQL and back down with every record intact", async () => {
      const source = await seededSqlite("up.db");
      const up = io();
      expect(await runCli(["store", "copy", "--from", source.url, "--to", pg.url], up)).toBe(0);
      expect(up.out).not.toContain("MISMATCH");
      const postgres = await createPostgresStore({ connectionString: pg.url, max: 2 });
      try {
        expect(await dump(postgres)).toEqual(source.dump);
        // the copy is a working store: it takes new writes
        const org = (await postgres.getOrganizationBySlug("acme"))!;
        expect((await postgres.createMonitor(org.id, apiMonitor({ name: "after the move" }))).name).toBe("after the move");
      } finally {
        await postgres.close();
      }

      const back = path.join(dir, "down.db");
      const down = io();
      expect(await runCli(["store", "copy", "--from", pg.url, "--to", `sqlite:${back}`, "--batch-size", "3"], down)).toBe(0);
      expect(down.out).toMatch(/^monitors\s+4\s+4\s+\w{12}\s+ok$/m);
      const restored = (await dumpSqlite(back)) as Record<string, { monitors: { monitor: { name: string } }[] }>;
      restored.acme!.monitors = restored.acme!.monitors.filter((m) => m.monitor.name !== "after the move");
      expect(restored).toEqual(source.dump);

      // SQLite and PostgreSQL checksums agree on the same rows
      const fromPg: SqlDatabase = await openPostgresDatabase({ connectionString: pg.url, max: 2 });
      const toSqlite = await openSqliteDatabase({ filename: back });
      try {
        expect((await verifySqlCopy(fromPg, toSqlite)).verified).toBe(true);
      } finally {
        await Promise.all([fromPg.close(), toSqlite.close()]);
      }
    });
  });
});
