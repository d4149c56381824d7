import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPostgresStore } from "../src/index.js";
import { createTestDatabase, freshSchema, postgresSkipReason, type TestDatabase } from "./database.js";
import { changedCheck, seedOrganization } from "@driftwatch/store-testkit";

const here = path.dirname(fileURLToPath(import.meta.url));
const childScript = path.join(here, "crash-child.ts");
const skipReason = await postgresSkipReason();

interface Printed {
  diffId: string;
  snapshotId: string;
}
interface Recorder {
  child: ChildProcess;
  printed: Printed[];
  /** Resolves once `count` checks were printed. */
  waitFor(count: number): Promise<void>;
  exited: Promise<NodeJS.Signals | number | null>;
}

function startRecorder(args: string[]): Recorder {
  const child = spawn(process.execPath, ["--conditions=@driftwatch/source", "--import", "tsx", childScript, ...args], {
    cwd: here,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const printed: Printed[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let buffered = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) {
      const [diffId, snapshotId] = line.split(" ");
      if (diffId !== undefined && snapshotId !== undefined) printed.push({ diffId, snapshotId });
    }
    for (const waiter of waiters.filter((w) => printed.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
  return {
    child,
    printed,
    exited,
    waitFor: (count) =>
      new Promise<void>((resolve, reject) => {
        if (printed.length >= count) return resolve();
        waiters.push({ count, resolve });
        void exited.then((how) => reject(new Error(`recorder exited (${String(how)}) before ${count} checks: ${stderr}`)));
      }),
  };
}

describe.skipIf(skipReason !== null)(`crash safety${skipReason === null ? "" : ` (skipped: ${skipReason})`}`, () => {
  let database: TestDatabase;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("keeps every check whole when recording processes are killed with SIGKILL, and keeps working", async () => {
    const schema = freshSchema();
    const setup = await createPostgresStore({ connectionString: database.url, schema });
    const first = await seedOrganization(setup, "first");
    const second = await seedOrganization(setup, "second");
    await setup.close();

    const printed: Printed[] = [];
    // three rounds: each kills both writers mid-run (mid-transaction, most likely), the next continues
    for (let round = 0; round < 3; round++) {
      const recorders = [first, second].map((seed) => startRecorder([database.url, schema, seed.orgId, seed.monitorId]));
      children.push(...recorders.map((r) => r.child));
      await Promise.all(recorders.map((r) => r.waitFor(40)));
      for (const recorder of recorders) recorder.child.kill("SIGKILL");
      const signals = await Promise.all(recorders.map((r) => r.exited));
      expect(signals).toEqual(["SIGKILL", "SIGKILL"]);
      for (const recorder of recorders) printed.push(...recorder.printed);
    }

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const q = async <R extends pg.QueryResultRow>(sql: string): Promise<R[]> => (await client.query<R>(sql)).rows;
    const diffs = await q<{ id: string; snapshot_id: string; previous_snapshot_id: string | null }>(
      `SELECT id, snapshot_id, previous_snapshot_id FROM "${schema}".diffs`
    );
    const snapshotIds = new Set((await q<{ id: string }>(`SELECT id FROM "${schema}".snapshots`)).map((r) => r.id));
    const deliveriesPerDiff = new Map(
      (await q<{ diff_id: string; n: number }>(`SELECT diff_id, COUNT(*)::int AS n FROM "${schema}".deliveries GROUP BY diff_id`)).map(
        (r) => [r.diff_id, r.n]
      )
    );
    await client.end();

    // every printed (committed) check is there
    const diffIds = new Set(diffs.map((d) => d.id));
    for (const { diffId, snapshotId } of printed) {
      expect(diffIds.has(diffId)).toBe(true);
      expect(snapshotIds.has(snapshotId)).toBe(true);
    }
    // every stored check is whole: each diff has its snapshot and both deliveries, each snapshot has its diff
    for (const diff of diffs) {
      expect(snapshotIds.has(diff.snapshot_id)).toBe(true);
      if (diff.previous_snapshot_id !== null) expect(snapshotIds.has(diff.previous_snapshot_id)).toBe(true);
      expect(deliveriesPerDiff.get(diff.id)).toBe(2);
    }
    expect(snapshotIds.size).toBe(diffs.length);
    expect(deliveriesPerDiff.size).toBe(diffs.length);
    expect(diffs.length).toBeGreaterThanOrEqual(printed.length);

    // and the store keeps working
    const store = await createPostgresStore({ connectionString: database.url, schema });
    try {
      const latest = await store.getLatestSnapshot(first.orgId, first.monitorId);
      const result = await store.recordCheck(first.orgId, changedCheck(first.monitorId, { previousSnapshotId: latest?.id ?? null, sequence: 9_999 }));
      expect(result.deliveries).toHaveLength(2);
      const claimed = await store.claimDueMonitors({ now: new Date().toISOString(), limit: 10, leaseMs: 30_000, owner: "after-crash" });
      expect(claimed.map((m) => m.id).sort()).toEqual([first.monitorId, second.monitorId].sort());
      const deliveries = await store.claimDueDeliveries({
        now: new Date().toISOString(),
        limit: 100,
        leaseMs: 30_000,
        owner: "after-crash",
      });
      expect(deliveries.length).toBeGreaterThan(0);
      expect(await store.countPendingDeliveries()).toBe(2 * (diffs.length + 1));
    } finally {
      await store.close();
    }
  }, 120_000);
});
