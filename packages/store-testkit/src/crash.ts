import type { ChildProcess } from "node:child_process";
import { expect } from "vitest";
import type { Store } from "@driftwatch/core";
import { changedCheck, seedOrganization, type SeededOrganization } from "./fixtures.js";
import { spawnNodeScript, type NodeScript } from "./processes.js";

// Crash-safety scenario shared by the SQL adapters: child processes record checks in a loop,
// are killed with SIGKILL mid-run, and the parent then checks that every committed check is
// whole and the store keeps working. Only reading the database back is dialect-specific.

/** A check a recorder printed, so committed before the print. */
export interface PrintedCheck {
  diffId: string;
  snapshotId: string;
}

export interface CheckRecorder {
  child: ChildProcess;
  printed: PrintedCheck[];
  /** Resolves once `count` checks were printed; rejects (with the child's stderr) if it exits first. */
  waitFor(count: number): Promise<void>;
  /** The signal (or exit code) the child ended with. */
  exited: Promise<NodeJS.Signals | number | null>;
}

/** A script that ends in `recordChecksUntilKilled`. */
export type CheckRecorderCommand = NodeScript;

/** Starts one recorder child and collects the `<diffId> <snapshotId>` lines it prints. */
export function startCheckRecorder(command: CheckRecorderCommand): CheckRecorder {
  const child = spawnNodeScript(command);
  const printed: PrintedCheck[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let buffered = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on("data", (chunk: Buffer) => {
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

export interface CrashRoundsOptions {
  /** Rounds of start, wait, SIGKILL; each continues on what the previous one left. Default 3. */
  rounds?: number;
  /** Checks every recorder must have printed before it is killed. Default 40. */
  checksPerRound?: number;
}

/**
 * Runs `rounds` rounds: `start()` starts the recorders, each prints `checksPerRound` checks, then
 * all are killed with SIGKILL (most likely mid-transaction). Returns every printed check.
 * Recorders still alive when this throws are killed before it returns.
 */
export async function crashCheckRecorders(start: () => CheckRecorder[], options: CrashRoundsOptions = {}): Promise<PrintedCheck[]> {
  const printed: PrintedCheck[] = [];
  const started: CheckRecorder[] = [];
  try {
    for (let round = 0; round < (options.rounds ?? 3); round++) {
      const recorders = start();
      started.push(...recorders);
      await Promise.all(recorders.map((r) => r.waitFor(options.checksPerRound ?? 40)));
      for (const recorder of recorders) recorder.child.kill("SIGKILL");
      const signals = await Promise.all(recorders.map((r) => r.exited));
      expect(signals).toEqual(recorders.map(() => "SIGKILL"));
      for (const recorder of recorders) printed.push(...recorder.printed);
    }
    return printed;
  } finally {
    for (const { child } of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

/**
 * The child side: records changed checks on `monitorId` forever, each against the previous
 * snapshot, printing `<diffId> <snapshotId>` after each commit. Prints `ready` first.
 */
export async function recordChecksUntilKilled(store: Store, orgId: string, monitorId: string): Promise<never> {
  let previous = (await store.getLatestSnapshot(orgId, monitorId))?.id ?? null;
  process.stdout.write("ready\n");
  for (let sequence = 0; ; sequence++) {
    const check = changedCheck(monitorId, { previousSnapshotId: previous, sequence });
    // keep every snapshot so the parent can check each diff against its own
    await store.recordCheck(orgId, { ...check, retention: 1_000_000 });
    previous = check.snapshot!.id;
    // stdout is a pipe: writes are synchronous on Linux, so a printed id was committed before it
    process.stdout.write(`${check.diff!.id} ${check.snapshot!.id}\n`);
  }
}

/** What the adapter read back from its tables after the crash. */
export interface StoredChecks {
  diffs: Array<{ id: string; snapshotId: string; previousSnapshotId: string | null }>;
  snapshotIds: string[];
  /** Number of delivery rows per diff id. */
  deliveriesPerDiff: Map<string, number>;
}

/**
 * Every printed (committed) check is stored, and every stored check is whole: each diff has its
 * snapshot, its previous snapshot and `deliveriesPerCheck` deliveries; each snapshot has its diff.
 */
export function expectEveryCheckWhole(printed: PrintedCheck[], stored: StoredChecks, deliveriesPerCheck: number): void {
  const diffIds = new Set(stored.diffs.map((d) => d.id));
  const snapshotIds = new Set(stored.snapshotIds);
  for (const { diffId, snapshotId } of printed) {
    expect(diffIds.has(diffId)).toBe(true);
    expect(snapshotIds.has(snapshotId)).toBe(true);
  }
  for (const diff of stored.diffs) {
    expect(snapshotIds.has(diff.snapshotId)).toBe(true);
    if (diff.previousSnapshotId !== null) expect(snapshotIds.has(diff.previousSnapshotId)).toBe(true);
    expect(stored.deliveriesPerDiff.get(diff.id)).toBe(deliveriesPerCheck);
  }
  expect(snapshotIds.size).toBe(stored.diffs.length);
  expect(stored.deliveriesPerDiff.size).toBe(stored.diffs.length);
  expect(stored.diffs.length).toBeGreaterThanOrEqual(printed.length);
}

/**
 * After the crash a new store on the same database records a check on `seeds[0]`, claims both
 * seeded monitors and the pending deliveries (two webhooks per check, `storedDiffs` checks before).
 */
export async function expectStoreWorksAfterCrash(store: Store, seeds: [SeededOrganization, SeededOrganization], storedDiffs: number): Promise<void> {
  const [first, second] = seeds;
  const latest = await store.getLatestSnapshot(first.orgId, first.monitorId);
  const result = await store.recordCheck(first.orgId, changedCheck(first.monitorId, { previousSnapshotId: latest?.id ?? null, sequence: 9_999 }));
  expect(result.deliveries).toHaveLength(2);
  const claimed = await store.claimDueMonitors({ now: new Date().toISOString(), limit: 10, leaseMs: 30_000, owner: "after-crash" });
  expect(claimed.map((m) => m.id).sort()).toEqual([first.monitorId, second.monitorId].sort());
  const deliveries = await store.claimDueDeliveries({ now: new Date().toISOString(), limit: 100, leaseMs: 30_000, owner: "after-crash" });
  expect(deliveries.length).toBeGreaterThan(0);
  expect(await store.countPendingDeliveries()).toBe(2 * (storedDiffs + 1));
}

export interface CrashScenario extends CrashRoundsOptions {
  /** Opens a store on the database under test (for seeding, then again after the crash). */
  open(): Promise<Store>;
  /** The recorder child for one seeded organization (a script ending in `recordChecksUntilKilled`). */
  recorder(seed: SeededOrganization): CheckRecorderCommand;
  /** Reads the tables back after the crash, running any dialect-specific integrity checks first. */
  readBack(): Promise<StoredChecks>;
}

/**
 * The whole crash-safety test: seeds two organizations (a monitor and two webhooks each), runs
 * the SIGKILL rounds with one recorder per organization, checks every check is whole and the
 * store keeps working.
 */
export async function runCrashScenario(scenario: CrashScenario): Promise<void> {
  const setup = await scenario.open();
  let seeds: [SeededOrganization, SeededOrganization];
  try {
    seeds = [await seedOrganization(setup, "first"), await seedOrganization(setup, "second")];
  } finally {
    await setup.close();
  }
  const printed = await crashCheckRecorders(() => seeds.map((seed) => startCheckRecorder(scenario.recorder(seed))), scenario);
  const stored = await scenario.readBack();
  expectEveryCheckWhole(printed, stored, 2);
  const store = await scenario.open();
  try {
    await expectStoreWorksAfterCrash(store, seeds, stored.diffs.length);
  } finally {
    await store.close();
  }
}
