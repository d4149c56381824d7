import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { runCrashScenario, type StoredChecks } from "@driftwatch/store-testkit";
import { createSqliteStore } from "../src/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
});

/** The checks in the file, after SQLite's own integrity and foreign-key checks pass. */
function readBack(file: string): StoredChecks {
  const db = new BetterSqlite3(file);
  try {
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(db.pragma("foreign_key_check")).toEqual([]);
    const diffs = db.prepare("SELECT id, snapshot_id AS snapshotId, previous_snapshot_id AS previousSnapshotId FROM diffs").all() as StoredChecks["diffs"];
    const snapshotIds = (db.prepare("SELECT id FROM snapshots").all() as Array<{ id: string }>).map((r) => r.id);
    const deliveries = db.prepare("SELECT diff_id, COUNT(*) AS n FROM deliveries GROUP BY diff_id").all() as Array<{ diff_id: string; n: number }>;
    return { diffs, snapshotIds, deliveriesPerDiff: new Map(deliveries.map((r) => [r.diff_id, r.n])) };
  } finally {
    db.close();
  }
}

describe("crash safety", () => {
  it("keeps every check whole when two recording processes are killed with SIGKILL, and keeps working", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-sqlite-crash-"));
    const file = path.join(dir, "crash.db");
    // three rounds: each kills both writers mid-run, the next round continues on the same file
    await runCrashScenario({
      open: () => createSqliteStore({ filename: file }),
      recorder: (seed) => ({
        script: path.join(here, "crash-child.ts"),
        args: [file, seed.orgId, seed.monitorId],
        cwd: here,
        nodeArgs: ["--conditions=@driftwatch/source", "--import", "tsx"],
      }),
      readBack: async () => readBack(file),
    });
  }, 120_000);
});
