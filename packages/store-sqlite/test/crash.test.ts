import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { createSqliteStore } from "../src/index.js";
import { changedCheck, seedOrganization } from "@driftwatch/store-testkit";

const here = path.dirname(fileURLToPath(import.meta.url));
const childScript = path.join(here, "crash-child.ts");

interface Recorder {
  child: ChildProcess;
  printed: Array<{ diffId: string; snapshotId: string }>;
  /** Resolves once `count` checks were printed. */
  waitFor(count: number): Promise<void>;
  exited: Promise<NodeJS.Signals | number | null>;
}

function startRecorder(file: string, orgId: string, monitorId: string): Recorder {
  const child = spawn(process.execPath, ["--conditions=@driftwatch/source", "--import", "tsx", childScript, file, orgId, monitorId], {
    cwd: here,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const printed: Recorder["printed"] = [];
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

const children: ChildProcess[] = [];
let dir: string | undefined;
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
});

describe("crash safety", () => {
  it("keeps every check whole when two recording processes are killed with SIGKILL, and keeps working", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-sqlite-crash-"));
    const file = path.join(dir, "crash.db");
    const setup = await createSqliteStore({ filename: file });
    const first = await seedOrganization(setup, "first");
    const second = await seedOrganization(setup, "second");
    await setup.close();

    const printed: Recorder["printed"] = [];
    // three rounds: each kills both writers mid-run, the next round continues on the same file
    for (let round = 0; round < 3; round++) {
      const recorders = [startRecorder(file, first.orgId, first.monitorId), startRecorder(file, second.orgId, second.monitorId)];
      children.push(...recorders.map((r) => r.child));
      await Promise.all(recorders.map((r) => r.waitFor(40)));
      for (const recorder of recorders) recorder.child.kill("SIGKILL");
      const signals = await Promise.all(recorders.map((r) => r.exited));
      expect(signals).toEqual(["SIGKILL", "SIGKILL"]);
      for (const recorder of recorders) printed.push(...recorder.printed);
    }

    const db = new BetterSqlite3(file);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(db.pragma("foreign_key_check")).toEqual([]);
    const diffs = db.prepare("SELECT id, snapshot_id, monitor_id FROM diffs").all() as Array<{
      id: string;
      snapshot_id: string;
      monitor_id: string;
    }>;
    const snapshotIds = new Set((db.prepare("SELECT id FROM snapshots").all() as Array<{ id: string }>).map((r) => r.id));
    const deliveriesPerDiff = new Map(
      (db.prepare("SELECT diff_id, COUNT(*) AS n FROM deliveries GROUP BY diff_id").all() as Array<{ diff_id: string; n: number }>).map(
        (r) => [r.diff_id, r.n]
      )
    );
    db.close();

    // every printed (committed) check is there
    const diffIds = new Set(diffs.map((d) => d.id));
    for (const { diffId, snapshotId } of printed) {
      expect(diffIds.has(diffId)).toBe(true);
      expect(snapshotIds.has(snapshotId)).toBe(true);
    }
    // every stored check is whole: each diff has its snapshot and both deliveries, each snapshot has its diff
    for (const diff of diffs) {
      expect(snapshotIds.has(diff.snapshot_id)).toBe(true);
      expect(deliveriesPerDiff.get(diff.id)).toBe(2);
    }
    expect(snapshotIds.size).toBe(diffs.length);
    expect(deliveriesPerDiff.size).toBe(diffs.length);
    expect(diffs.length).toBeGreaterThanOrEqual(printed.length);

    // and the store keeps working
    const store = await createSqliteStore({ filename: file });
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
