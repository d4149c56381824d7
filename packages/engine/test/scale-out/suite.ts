// The scale-out suite, run per work queue (scale-out.test.ts here, and the PostgreSQL job queue's
// own package): several engine processes on one PostgreSQL database, killed with SIGKILL or stopped with SIGTERM
// while they hold work. The lease settings are lowered so that the suite runs fast; the bounds
// asserted are derived from them (a takeover comes within one lease, one poll and one renewal
// period of the kill), as the defaults bound it in production (20 s + 1 s + 6.7 s < 30 s).
import { type ChildProcessByStdio, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { Store } from "@driftwatch/core";
import { createPostgresStore } from "@driftwatch/store-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { leaseRenewalMs } from "../../src/index.js";
import { createPostgresDatabase, postgresSkipReason, type TestPostgresDatabase } from "../../../../tooling/test-postgres.js";
import { createMonitor, createWebhook } from "../fixtures.js";

const LEASE_MS = 3000;
const POLL_MS = 200;
const GRACE_MS = 5000;
const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "engine-child.ts");

export interface ScaleOutSuiteOptions {
  /** What the suite's title names (the queue under test). */
  queue: string;
  /**
   * A module the engine processes load their work queue from (see `engine-child.ts`); none: the
   * store's leases.
   */
  queueModule?: string;
  /** Added to the takeover bound: how late the queue may notice a dead process after its lease (e.g. a job engine's expiry sweep). */
  takeoverSlackMs?: number;
}

interface EngineProcess {
  owner: string;
  process: ChildProcessByStdio<null, Readable, Readable>;
  output(): string;
  exited: Promise<number | null>;
}

/** A JSON target whose every answer differs (so each check records a diff), optionally slow. */
function startTarget() {
  const counters = new Map<string, number>();
  const requests: { path: string; at: number }[] = [];
  let delayMs = 0;
  const server = http.createServer((req, res) => {
    const at = Date.now();
    const key = req.url ?? "/";
    requests.push({ path: key, at });
    const n = (counters.get(key) ?? 0) + 1;
    counters.set(key, n);
    setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path: key, n })), delayMs);
  });
  return {
    server,
    requests,
    setDelay: (ms: number) => void (delayMs = ms),
  };
}

/** A webhook receiver that logs the `webhook-id` and the event id of every POST, optionally slow. */
function startReceiver() {
  const received: { webhookId: string; eventId: string; at: number }[] = [];
  let delayMs = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      let eventId = "";
      try {
        eventId = String((JSON.parse(body) as { eventId?: unknown }).eventId);
      } catch {
        eventId = "(unparsable)";
      }
      received.push({ webhookId: String(req.headers["webhook-id"]), eventId, at: Date.now() });
      setTimeout(() => res.writeHead(204).end(), delayMs);
    });
  });
  return { server, received, setDelay: (ms: number) => void (delayMs = ms) };
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

export async function scaleOutSuite(options: ScaleOutSuiteOptions): Promise<void> {
const skip = await postgresSkipReason();
if (skip !== null) console.warn(`skipping the scale-out suite: ${skip}`);
/** How long after a kill the work the dead process held is claimed by another one. */
const TAKEOVER_BOUND_MS = LEASE_MS + POLL_MS + leaseRenewalMs(LEASE_MS) + (options.takeoverSlackMs ?? 0);

describe.skipIf(skip !== null)(`engine processes on one PostgreSQL database (${options.queue}): crash takeover, graceful hand-back, exactly the same effects`, () => {
  let database: TestPostgresDatabase;
  let store: Store;
  let sql: pg.Pool;
  let orgId: string;
  const target = startTarget();
  const receiver = startReceiver();
  let targetUrl = "";
  let receiverUrl = "";
  const processes = new Set<EngineProcess>();
  let started = 0;

  beforeAll(async () => {
    database = await createPostgresDatabase("dw_scale");
    store = await createPostgresStore({ connectionString: database.url, max: 4 });
    sql = new pg.Pool({ connectionString: database.url, max: 2 });
    sql.on("error", () => undefined);
    targetUrl = await listen(target.server);
    receiverUrl = await listen(receiver.server);
  });

  afterAll(async () => {
    for (const p of processes) p.process.kill("SIGKILL");
    await Promise.all([...processes].map((p) => p.exited));
    await store?.close();
    await sql?.end();
    target.server.closeAllConnections();
    receiver.server.closeAllConnections();
    await new Promise<void>((resolve) => target.server.close(() => resolve()));
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
    await database?.drop();
  });

  async function spawnEngine(): Promise<EngineProcess> {
    const owner = `engine-${String(++started)}`;
    const proc = spawn(process.execPath, ["--conditions=@driftwatch/source", "--import", "tsx", child, database.url, owner, String(LEASE_MS), String(POLL_MS), String(GRACE_MS), ...(options.queueModule === undefined ? [] : [options.queueModule])], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    proc.stdout.on("data", (d: Buffer) => (log += d.toString()));
    proc.stderr.on("data", (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
    const engine: EngineProcess = { owner, process: proc, output: () => log, exited };
    processes.add(engine);
    void exited.then(() => processes.delete(engine));
    await vi.waitFor(() => expect(log).toContain("ready"), { timeout: 60_000, interval: 50 });
    return engine;
  }

  /** SIGKILL; resolves at the kill, once the process is gone. */
  async function kill(engine: EngineProcess): Promise<number> {
    const at = Date.now();
    engine.process.kill("SIGKILL");
    await engine.exited;
    return at;
  }

  async function held(owner: string, table: "monitors" | "deliveries"): Promise<string[]> {
    const { rows } = await sql.query<{ id: string }>(`SELECT id FROM ${table} WHERE lease_owner = $1`, [owner]);
    return rows.map((row) => row.id);
  }

  /** Polls `condition` until it holds; on timeout the error names it and shows the processes' output. */
  async function until(what: string, condition: () => Promise<boolean> | boolean, timeout = 60_000): Promise<void> {
    await vi.waitFor(async () => expect(await condition(), `${what}\n${[...processes].map((p) => `${p.owner}: ${p.output().slice(-2000)}`).join("\n")}`).toBe(true), { timeout, interval: 50 });
  }

  /**
   * When each of `ids`, leased by `owner` (dead), was claimed by another process: the first poll
   * (every 20 ms) that finds its lease held by someone else or already released.
   */
  async function takenOver(table: "monitors" | "deliveries", ids: string[], owner: string): Promise<Map<string, number>> {
    const seen = new Map<string, number>();
    await until(`every ${table} lease of ${owner} taken over`, async () => {
      const { rows } = await sql.query<{ id: string; lease_owner: string | null }>(`SELECT id, lease_owner FROM ${table} WHERE id = ANY($1)`, [ids]);
      const at = Date.now();
      for (const row of rows) if (row.lease_owner !== owner && !seen.has(row.id)) seen.set(row.id, at);
      return seen.size === ids.length;
    });
    return seen;
  }

  /** Makes every monitor due now; resolves with the round's start. */
  async function dueNow(ids: string[]): Promise<number> {
    const at = Date.now();
    await sql.query("UPDATE monitors SET next_check_at = $1 WHERE id = ANY($2)", [new Date(at).toISOString(), ids]);
    return at;
  }

  /** Every monitor checked since `at`, and none leased any more (its claim completed, or its holder died). */
  async function roundDone(ids: string[], at: number): Promise<boolean> {
    const { rows } = await sql.query<{ n: number }>(
      "SELECT COUNT(*)::int AS n FROM monitors WHERE id = ANY($1) AND last_checked_at >= $2 AND (lease_owner IS NULL OR lease_expires_at <= now())",
      [ids, new Date(at).toISOString()],
    );
    return rows[0]!.n === ids.length;
  }

  async function checkedSince(ids: string[], at: number): Promise<boolean> {
    const { rows } = await sql.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM monitors WHERE id = ANY($1) AND last_checked_at >= $2", [ids, new Date(at).toISOString()]);
    return rows[0]!.n === ids.length;
  }

  async function createMonitors(prefix: string, count: number): Promise<{ ids: string[]; paths: Map<string, string> }> {
    const ids: string[] = [];
    const paths = new Map<string, string>();
    const far = new Date(Date.now() + 3_600_000).toISOString();
    for (let i = 0; i < count; i++) {
      // Only the test's rounds make a monitor due.
      const monitor = await createMonitor(store, orgId, { name: `${prefix}-${String(i)}`, url: `${targetUrl}/${prefix}/${String(i)}`, intervalSeconds: 3600, nextCheckAt: far });
      ids.push(monitor.id);
      paths.set(monitor.id, `/${prefix}/${String(i)}`);
    }
    return { ids, paths };
  }

  it("after kill -9 every monitor and delivery the dead process held is started again by another within the takeover bound; SIGTERM hands work back at once", async () => {
    orgId = (await store.createOrganization({ slug: "takeover" })).id;
    await createWebhook(store, orgId, { url: `${receiverUrl}/hook` });
    const { ids, paths } = await createMonitors("takeover", 24);
    const engines = [await spawnEngine(), await spawnEngine(), await spawnEngine()];

    // Round 1: first snapshots (no diffs yet).
    let round = await dueNow(ids);
    await until("every monitor checked in the round", () => checkedSince(ids, round));

    // Round 2, slow target: checks are in flight when one process is killed.
    target.setDelay(1500);
    // Round 2's deliveries must still be in flight once the replacement below has started (which
    // takes seconds on a loaded machine): 6 s each, below the delivery timeout (15 s).
    receiver.setDelay(6000);
    round = await dueNow(ids);
    const holder = async (kind: "monitors" | "deliveries", among: EngineProcess[]): Promise<EngineProcess> => {
      let found: EngineProcess | undefined;
      await until(`a process holds ${kind}`, async () => {
        for (const engine of among) if ((await held(engine.owner, kind)).length > 0) found = engine;
        return found !== undefined;
      });
      return found!;
    };
    const crashed = await holder("monitors", engines);
    const killedAt = await kill(crashed);
    const orphans = await held(crashed.owner, "monitors");
    expect(orphans.length).toBeGreaterThan(0);
    for (const [id, at] of await takenOver("monitors", orphans, crashed.owner)) expect(at - killedAt, `monitor ${id} taken over`).toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
    await until("every monitor checked in the round", () => checkedSince(ids, round));
    // ... and checked by the process that took it over (its check had not been recorded)
    for (const id of orphans) expect(target.requests.some((r) => r.path === paths.get(id) && r.at >= killedAt), `monitor ${id} checked again`).toBe(true);
    const replacement = await spawnEngine();

    // Round 2's diffs are being delivered to a slow receiver: kill a process that holds deliveries.
    const survivors = [...engines.filter((engine) => engine !== crashed), replacement];
    const victim = await holder("deliveries", survivors);
    const deliveryKilledAt = await kill(victim);
    const orphanDeliveries = await held(victim.owner, "deliveries");
    expect(orphanDeliveries.length).toBeGreaterThan(0);
    const { rows: orphanEvents } = await sql.query<{ id: string; event_id: string }>("SELECT id, event_id FROM deliveries WHERE id = ANY($1)", [orphanDeliveries]);
    for (const [id, at] of await takenOver("deliveries", orphanDeliveries, victim.owner)) expect(at - deliveryKilledAt, `delivery ${id} taken over`).toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
    await until("the orphaned deliveries delivered", async () => {
      const { rows } = await sql.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM deliveries WHERE id = ANY($1) AND state = 'succeeded'", [orphanDeliveries]);
      return rows[0]!.n === orphanDeliveries.length;
    });
    // ... delivered again, with the same webhook-id (the event id), so the receiver can dedupe
    for (const { event_id } of orphanEvents) expect(receiver.received.some((r) => r.webhookId === event_id && r.at >= deliveryKilledAt), `event ${event_id} delivered again`).toBe(true);

    // SIGTERM while checks are in flight: the process finishes them, exits 0 and leaves no lease behind.
    round = await dueNow(ids);
    const stopping = await holder("monitors", survivors.filter((engine) => engine !== victim));
    stopping.process.kill("SIGTERM");
    expect(await stopping.exited).toBe(0);
    expect(stopping.output()).toContain("stopped");
    expect(await held(stopping.owner, "monitors")).toEqual([]);
    expect(await held(stopping.owner, "deliveries")).toEqual([]);
    await until("every monitor checked in the round", () => checkedSince(ids, round));
    target.setDelay(0);
    receiver.setDelay(0);
    for (const engine of [...processes]) await kill(engine);
  }, 240_000);

  it("processes killed at random points during thousands of checks and deliveries: one check per due time, one diff per snapshot pair, every event delivered with its webhook-id", async () => {
    const MONITORS = 150;
    const ROUNDS = 14;
    const org = (orgId = (await store.createOrganization({ slug: "random-kills" })).id);
    await createWebhook(store, org, { url: `${receiverUrl}/random` });
    const { ids } = await createMonitors("random", MONITORS);
    for (let i = 0; i < 3; i++) await spawnEngine();

    let running = true;
    let kills = 0;
    const killer = (async () => {
      while (running) {
        await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 1500));
        const live = [...processes];
        if (!running || live.length === 0) break;
        await kill(live[Math.floor(Math.random() * live.length)]!);
        kills++;
        await spawnEngine();
      }
    })();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const start = await dueNow(ids);
        await until(`round ${String(round + 1)} done`, () => roundDone(ids, start), 120_000);
      }
    } finally {
      running = false;
      await killer;
    }
    expect(kills).toBeGreaterThan(0);

    // Every monitor was checked exactly once per round: no due time checked twice, none lost.
    const { rows: snapshots } = await sql.query<{ monitor_id: string; n: number }>(
      "SELECT monitor_id, COUNT(*)::int AS n FROM snapshots WHERE monitor_id = ANY($1) GROUP BY monitor_id",
      [ids],
    );
    expect(snapshots).toHaveLength(MONITORS);
    expect(snapshots.filter((row) => row.n !== ROUNDS)).toEqual([]);
    // At most one diff per pair of snapshots: here exactly one per change.
    const { rows: pairs } = await sql.query<{ n: number; pairs: number }>(
      "SELECT COUNT(*)::int AS n, COUNT(DISTINCT (snapshot_id, previous_snapshot_id))::int AS pairs FROM diffs WHERE monitor_id = ANY($1)",
      [ids],
    );
    expect(pairs[0]).toEqual({ n: MONITORS * (ROUNDS - 1), pairs: MONITORS * (ROUNDS - 1) });

    // Every event is delivered at least once, with its event id as webhook-id every time.
    await until("every delivery succeeded", async () => {
      const { rows } = await sql.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM deliveries WHERE org_id = $1 AND state <> 'succeeded'", [org]);
      return rows[0]!.n === 0;
    }, 120_000);
    const { rows: events } = await sql.query<{ event_id: string }>("SELECT event_id FROM deliveries WHERE org_id = $1", [org]);
    expect(events).toHaveLength(MONITORS * (ROUNDS - 1));
    const known = new Set(events.map((e) => e.event_id));
    const posts = receiver.received.filter((r) => known.has(r.webhookId) || known.has(r.eventId));
    const received = new Set(posts.map((r) => r.webhookId));
    expect(events.filter((e) => !received.has(e.event_id))).toEqual([]);
    expect(posts.filter((r) => r.webhookId !== r.eventId)).toEqual([]);
    console.info(`random kills: ${String(kills)} kills, ${String(MONITORS * ROUNDS)} checks, ${String(events.length)} events, ${String(posts.length - events.length)} redeliveries`);
    for (const engine of [...processes]) await kill(engine);
  }, 600_000);
});
}
