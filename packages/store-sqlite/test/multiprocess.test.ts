import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { SQLITE_MIGRATIONS, createSqliteStore } from "../src/index.js";
import { apiMonitor, changedCheck, runNodeScript, seedOrganization } from "@driftwatch/store-testkit";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs claim-child.ts to completion and returns the ids it printed. */
const runWorker = (mode: "open" | "claim", file: string, owner: string): Promise<string[]> =>
  runNodeScript({ script: path.join(here, "claim-child.ts"), args: [mode, file, owner], cwd: here, nodeArgs: ["--conditions=@driftwatch/source", "--import", "tsx"] });

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
});

describe("several processes on one file", () => {
  it("migrate a new file once when they open it at the same time", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-sqlite-mp-"));
    const file = path.join(dir, "fresh", "driftwatch.db");
    await Promise.all(["a", "b", "c"].map((owner) => runWorker("open", file, owner)));
    const db = new BetterSqlite3(file, { readonly: true });
    expect(db.prepare("SELECT version FROM driftwatch_migrations").all()).toEqual(SQLITE_MIGRATIONS.map((m) => ({ version: m.version })));
    db.close();
  }, 60_000);

  it("never claim the same monitor or delivery twice", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-sqlite-mp-"));
    const file = path.join(dir, "claims.db");
    const store = await createSqliteStore({ filename: file });
    const { orgId, monitorId } = await seedOrganization(store);
    const monitorIds = [monitorId];
    for (let i = 0; i < 89; i++) monitorIds.push((await store.createMonitor(orgId, apiMonitor({ name: `m${i}` }))).id);
    const deliveryIds: string[] = [];
    let previous: string | null = null;
    for (let i = 0; i < 45; i++) {
      const check = changedCheck(monitorId, { previousSnapshotId: previous, sequence: i });
      deliveryIds.push(...(await store.recordCheck(orgId, check)).deliveries.map((d) => d.id));
      previous = check.snapshot!.id;
    }
    await store.close();

    const claimed = (await Promise.all(["w1", "w2", "w3"].map((owner) => runWorker("claim", file, owner)))).flat();
    expect(claimed).toHaveLength(monitorIds.length + deliveryIds.length);
    expect(new Set(claimed)).toEqual(new Set([...monitorIds, ...deliveryIds]));
  }, 60_000);
});
