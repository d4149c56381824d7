// The channel outbox's claim on PostgreSQL locks only the rows it takes: a claim of N messages
// among several organizations holds N row locks while its transaction is open (not N per
// organization it looked at), and a second claimer meanwhile gets other messages without waiting.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewChannelDelivery, Store } from "@driftwatch/core";
import { createPostgresStore } from "../src/index.js";
import { createTestDatabase, freshSchema, postgresSkipReason, type TestDatabase } from "./database.js";

const skipReason = await postgresSkipReason();
const T0 = "2026-06-01T08:00:00.000Z";
/** The advisory lock key the test's trigger waits on. */
const GATE = 727_027;

describe.skipIf(skipReason !== null)("channel claims on PostgreSQL lock only the rows they take", () => {
  let database: TestDatabase;
  let admin: pg.Pool;
  const stores: Store[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    admin = new pg.Pool({ connectionString: database.url, max: 4 });
    admin.on("error", () => undefined);
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await admin?.end();
    await database?.drop();
  });

  async function open(schema: string): Promise<Store> {
    const store = await createPostgresStore({ connectionString: database.url, schema, max: 3 });
    stores.push(store);
    return store;
  }

  /** `orgs` organizations with one channel each and `perOrg` due messages on it. */
  async function seed(store: Store, orgs: number, perOrg: number, prefix = "org"): Promise<string[]> {
    const ids: string[] = [];
    for (let o = 0; o < orgs; o++) {
      const org = await store.createOrganization({ slug: `${prefix}-${String(o)}` });
      const channel = await store.createChannel(org.id, {
        name: "chat",
        service: "slack",
        urlSealed: "v1.k1.c2VhbGVk.c2VhbGVk",
        urlMasked: "slack://***/***/***",
        minSeverity: "info",
        tags: [],
        events: ["diff.detected"],
        groupSeconds: 0,
        quietHours: null,
        template: null,
        paused: false,
      });
      const messages: NewChannelDelivery[] = Array.from({ length: perOrg }, (_, i) => ({
        channelId: channel.id,
        dedupKey: `k${String(i)}`,
        eventType: "diff.detected",
        monitorId: null,
        diffId: null,
        payload: "{}",
        createdAt: T0,
        nextAttemptAt: T0,
      }));
      ids.push(...(await store.enqueueChannelDeliveries(org.id, messages)).map((m) => m.id));
    }
    return ids;
  }

  /**
   * A trigger that holds a claim of `owner` open after its update (it waits on an advisory lock the
   * test holds), so the test can look at what the open transaction has locked.
   */
  async function gateClaimsOf(schema: string, owner: string): Promise<void> {
    await admin.query(`
      CREATE FUNCTION "${schema}".hold_claim() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM taken WHERE lease_owner = '${owner}') THEN PERFORM pg_advisory_xact_lock(${String(GATE)}); END IF;
        RETURN NULL;
      END $$`);
    await admin.query(`CREATE TRIGGER hold_claim AFTER UPDATE ON "${schema}".channel_deliveries REFERENCING NEW TABLE AS taken
      FOR EACH STATEMENT EXECUTE FUNCTION "${schema}".hold_claim()`);
  }

  async function waitForGate(): Promise<void> {
    for (const until = Date.now() + 10_000; Date.now() < until; ) {
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted",
        [GATE],
      );
      if (rows[0]!.n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error("the claim never reached the gate");
  }

  /** Rows of the outbox some open transaction holds a row lock on. */
  async function lockedRows(schema: string): Promise<number> {
    const client = await admin.connect();
    try {
      await client.query("BEGIN");
      const all = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".channel_deliveries`);
      const free = await client.query(`SELECT id FROM "${schema}".channel_deliveries FOR UPDATE SKIP LOCKED`);
      await client.query("ROLLBACK");
      return all.rows[0]!.n - free.rowCount!;
    } finally {
      client.release();
    }
  }

  it("holds locks on exactly the messages a claim takes while it is open; a second claimer gets others without waiting", async () => {
    const schema = freshSchema();
    const first = await open(schema);
    const second = await open(schema);
    const ids = await seed(first, 4, 12);
    await gateClaimsOf(schema, "w1");

    const gate = await admin.connect();
    let claimedFirst: Promise<{ id: string }[]> | null = null;
    try {
      await gate.query("SELECT pg_advisory_lock($1)", [GATE]);
      claimedFirst = first.claimDueChannelDeliveries({ now: T0, limit: 6, leaseMs: 60_000, owner: "w1" });
      await waitForGate();
      // w1's transaction is open, its claim made: it locks the 6 rows it took and nothing else.
      expect(await lockedRows(schema)).toBe(6);
      // Meanwhile another claimer takes other messages, without waiting for w1.
      const started = Date.now();
      const claimedSecond = await second.claimDueChannelDeliveries({ now: T0, limit: 10, leaseMs: 60_000, owner: "w2" });
      // Waiting for w1 would wait for the gate, held until below (the test would time out): 20 s is room for a loaded machine.
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(claimedSecond).toHaveLength(10);
      // Organizations in turn: the four organizations' oldest first.
      expect(new Set(claimedSecond.map((m) => m.orgId)).size).toBe(4);
      await gate.query("SELECT pg_advisory_unlock($1)", [GATE]);
      const taken = await claimedFirst;
      expect(taken).toHaveLength(6);
      const both = [...taken, ...claimedSecond].map((m) => m.id);
      expect(new Set(both).size).toBe(16);
      // The rest is claimed once, by whoever comes next.
      const rest = await second.claimDueChannelDeliveries({ now: T0, limit: 100, leaseMs: 60_000, owner: "w3" });
      expect(new Set([...both, ...rest.map((m) => m.id)])).toEqual(new Set(ids));
      expect(rest).toHaveLength(ids.length - 16);
    } finally {
      await gate.query("SELECT pg_advisory_unlock_all()").catch(() => undefined);
      gate.release();
      await claimedFirst?.catch(() => undefined);
    }
  });

  it("many claimers at once on many organizations: every message claimed once, none waits on another's locks", async () => {
    const schema = freshSchema();
    const stores = [await open(schema), await open(schema), await open(schema)];
    // More organizations than a claim walks one by one (the ranked query's path), and fewer.
    for (const [orgs, perOrg] of [
      [40, 3],
      [5, 20],
    ] as const) {
      const ids = await seed(stores[0]!, orgs, perOrg, `r${String(orgs)}`);
      const rounds = await Promise.all(
        Array.from({ length: 12 }, (_, i) => stores[i % 3]!.claimDueChannelDeliveries({ now: T0, limit: 7, leaseMs: 60_000, owner: `w${String(i)}` })),
      );
      const taken = rounds.flat().map((m) => m.id);
      expect(new Set(taken).size).toBe(taken.length);
      const rest = await stores[0]!.claimDueChannelDeliveries({ now: T0, limit: 1000, leaseMs: 60_000, owner: "last" });
      expect(new Set([...taken, ...rest.map((m) => m.id)])).toEqual(new Set(ids));
      expect(taken.length + rest.length).toBe(ids.length);
    }
  });

  /** Holds a row lock on the `perOrg` oldest messages of each organization in an open transaction (until `release`). */
  async function holdOldest(schema: string, perOrg: number): Promise<{ held: Set<string>; release: () => Promise<void> }> {
    const client = await admin.connect();
    await client.query("BEGIN");
    const { rows } = await client.query<{ id: string }>(
      `SELECT id FROM "${schema}".channel_deliveries WHERE id IN (
         SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY org_id ORDER BY id) AS n FROM "${schema}".channel_deliveries) r WHERE n <= $1)
       FOR UPDATE`,
      [perOrg],
    );
    return {
      held: new Set(rows.map((row) => row.id)),
      release: async () => {
        await client.query("ROLLBACK").catch(() => undefined);
        client.release();
      },
    };
  }

  it("a large claim past held messages binds its tried ids as one parameter, and its limit is clamped", async () => {
    const schema = freshSchema();
    const store = await open(schema);
    // 32 organizations (each walked on its own), the 100 oldest of each held by another transaction
    const ids = await seed(store, 32, 150, "big");
    const { held, release } = await holdOldest(schema, 100);
    try {
      expect(held.size).toBe(3200);
      const claimed = await store.claimDueChannelDeliveries({ now: T0, limit: 1000, leaseMs: 60_000, owner: "w1" });
      expect(claimed).toHaveLength(1000);
      expect(claimed.filter((m) => held.has(m.id))).toEqual([]);
      expect(new Set(claimed.map((m) => m.id)).size).toBe(1000);
      // a limit past MAX_CHANNEL_CLAIM claims that many: the 600 left here
      const rest = await store.claimDueChannelDeliveries({ now: T0, limit: 100_000, leaseMs: 60_000, owner: "w2" });
      expect(rest).toHaveLength(ids.length - 3200 - 1000);
      expect(rest.filter((m) => held.has(m.id))).toEqual([]);
    } finally {
      await release();
    }
    const capped = await store.claimDueChannelDeliveries({ now: T0, limit: 100_000, leaseMs: 60_000, owner: "w3" });
    expect(capped).toHaveLength(1000);
  });

  it("does not come back empty while messages no one holds are due, when a long transaction holds the oldest", async () => {
    const schema = freshSchema();
    const store = await open(schema);
    await seed(store, 5, 100, "long");
    const { held, release } = await holdOldest(schema, 40);
    try {
      expect(held.size).toBe(200);
      const claimed = await store.claimDueChannelDeliveries({ now: T0, limit: 50, leaseMs: 60_000, owner: "w1" });
      expect(claimed).toHaveLength(50);
      expect(claimed.filter((m) => held.has(m.id))).toEqual([]);
      // and the next claims go on until the 300 free ones are taken, none twice
      const taken = new Set(claimed.map((m) => m.id));
      for (let i = 0; i < 5; i++) for (const m of await store.claimDueChannelDeliveries({ now: T0, limit: 50, leaseMs: 60_000, owner: `w${String(i + 2)}` })) taken.add(m.id);
      expect(taken.size).toBe(300);
      expect(await store.claimDueChannelDeliveries({ now: T0, limit: 50, leaseMs: 60_000, owner: "w9" })).toEqual([]);
    } finally {
      await release();
    }
  });

  it("releases the leases of earlier rounds when a later round of the claim fails", async () => {
    const schema = freshSchema();
    const store = await open(schema);
    const ids = await seed(store, 4, 20, "fail");
    // the second leasing statement of w1 fails (a statement after one that already leased rows)
    await admin.query(`
      CREATE FUNCTION "${schema}".fail_second() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM taken WHERE lease_owner = 'w1')
           AND EXISTS (SELECT 1 FROM "${schema}".channel_deliveries d WHERE d.lease_owner = 'w1' AND d.id NOT IN (SELECT id FROM taken)) THEN
          RAISE EXCEPTION 'round failed';
        END IF;
        RETURN NULL;
      END $$`);
    await admin.query(`CREATE TRIGGER fail_second AFTER UPDATE ON "${schema}".channel_deliveries REFERENCING NEW TABLE AS taken
      FOR EACH STATEMENT EXECUTE FUNCTION "${schema}".fail_second()`);
    // the 3 oldest of each organization held: the first round leases the one free per organization it read
    const { release } = await holdOldest(schema, 3);
    try {
      await expect(store.claimDueChannelDeliveries({ now: T0, limit: 16, leaseMs: 60_000, owner: "w1" })).rejects.toThrow(/round failed/);
      const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".channel_deliveries WHERE lease_owner IS NOT NULL`);
      expect(rows[0]!.n).toBe(0);
    } finally {
      await release();
    }
    const next = await store.claimDueChannelDeliveries({ now: T0, limit: 1000, leaseMs: 60_000, owner: "w2" });
    expect(next).toHaveLength(ids.length);
  });
});
