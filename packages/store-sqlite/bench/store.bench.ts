// npm run bench: checks recorded per second and due-monitor claims per second on a file
// database, each against a bare better-sqlite3 peer doing the same rows in one transaction.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { Bench } from "tinybench";
import type { RecordCheckInput, Store } from "@driftwatch/core";
import { createSqliteStore, migrateSqlite } from "../src/index.js";
import { bareCheckStatements, changedCheck, prepareClaimRound, seedDueMonitors, seedOrganization } from "@driftwatch/store-testkit";

const CHECKS_BUDGET = 300; // SPEC section 7: checks/s the server must sustain on SQLite
const CLAIM_BATCH = 10;
const DUE_MONITORS = 2000;

const reportModule = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../tooling/bench-report.mjs");
const { writeBenchSection } = (await import(reportModule)) as { writeBenchSection(name: string, markdown: string): void };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-sqlite-bench-"));

/** The bare peer: the rows `recordCheck` writes, as plain prepared statements in one transaction. */
function barePeer(
  file: string,
  synchronous: "NORMAL" | "FULL"
): { record(orgId: string, input: RecordCheckInput, webhookIds: string[]): void; db: BetterSqlite3.Database } {
  const db = new BetterSqlite3(file);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma("foreign_keys = ON");
  migrateSqlite(db);
  const prepared = new Map<string, BetterSqlite3.Statement>();
  let sequence = 0;
  const options = { browserRender: 0, deliveryId: () => `dlv_bench${String(sequence++).padStart(20, "0")}` };
  const record = db.transaction((orgId: string, input: RecordCheckInput, webhookIds: string[]) => {
    for (const { sql, params } of bareCheckStatements(orgId, input, webhookIds, options)) {
      let statement = prepared.get(sql);
      if (statement === undefined) prepared.set(sql, (statement = db.prepare(sql)));
      statement.run(...params);
    }
  });
  return { record: (orgId, input, webhookIds) => record.immediate(orgId, input, webhookIds), db };
}

/** The body of every snapshot: a small JSON document of about 560 bytes. */
const body = (sequence: number): string => JSON.stringify({ orders: [{ id: sequence, total: sequence * 3 }], padding: "x".repeat(512) });

async function checkTasks(bench: Bench, synchronous: "normal" | "full"): Promise<() => Promise<void>> {
  const store = await createSqliteStore({ filename: path.join(dir, `store-${synchronous}.db`), synchronous });
  const seeded = await seedOrganization(store);
  let previous: string | null = null;
  let sequence = 0;
  bench.add(`recordCheck, synchronous=${synchronous.toUpperCase()}`, async () => {
    const check = changedCheck(seeded.monitorId, { previousSnapshotId: previous, sequence, body: body(sequence++) });
    await store.recordCheck(seeded.orgId, check);
    previous = check.snapshot!.id;
  });

  const peer = barePeer(path.join(dir, `peer-${synchronous}.db`), synchronous === "full" ? "FULL" : "NORMAL");
  const peerStore = await createSqliteStore({ database: peer.db, synchronous });
  const peerSeeded = await seedOrganization(peerStore);
  await peerStore.close();
  let peerPrevious: string | null = null;
  bench.add(`bare INSERTs, synchronous=${synchronous.toUpperCase()}`, () => {
    const check = changedCheck(peerSeeded.monitorId, { previousSnapshotId: peerPrevious, sequence, body: body(sequence++) });
    peer.record(peerSeeded.orgId, check, peerSeeded.webhookIds);
    peerPrevious = check.snapshot!.id;
  });
  return async () => {
    await store.close();
    peer.db.close();
  };
}

async function claimTasks(bench: Bench): Promise<() => Promise<void>> {
  const store: Store = await createSqliteStore({ filename: path.join(dir, "claims.db") });
  bench.add(`claimDueMonitors(${CLAIM_BATCH}) + releaseMonitor each`, await prepareClaimRound(store, { dueMonitors: DUE_MONITORS, batch: CLAIM_BATCH }));

  const peerDb = new BetterSqlite3(path.join(dir, "claims-peer.db"));
  const peerStore = await createSqliteStore({ database: peerDb });
  await seedDueMonitors(peerStore, "claims", DUE_MONITORS);
  await peerStore.close();
  const claim = peerDb.prepare(
    "UPDATE monitors SET lease_owner = ?, lease_expires_at = ? WHERE id IN (SELECT id FROM monitors WHERE state IN ('active', 'failing') AND next_check_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?) ORDER BY next_check_at LIMIT ?) RETURNING id"
  );
  const release = peerDb.prepare(
    "UPDATE monitors SET lease_owner = NULL, lease_expires_at = NULL, next_check_at = ? WHERE id = ? AND lease_owner = ?"
  );
  const claimTx = peerDb.transaction(
    (now: string, until: string) => claim.all("bench", until, now, now, CLAIM_BATCH) as Array<{ id: string }>
  );
  const releaseTx = peerDb.transaction((id: string, next: string) => release.run(next, id, "bench"));
  let peerTick = DUE_MONITORS;
  bench.add(`bare claim UPDATE + release UPDATEs`, () => {
    const now = new Date().toISOString();
    const claimed = claimTx.immediate(now, new Date(Date.now() + 60_000).toISOString());
    if (claimed.length !== CLAIM_BATCH) throw new Error(`claimed ${claimed.length}`);
    for (const { id } of claimed) releaseTx.immediate(id, new Date(peerTick++).toISOString());
  });
  return async () => {
    await store.close();
    peerDb.close();
  };
}

const bench = new Bench({ time: 2000, warmupTime: 300 });
const cleanups = [await checkTasks(bench, "normal"), await checkTasks(bench, "full"), await claimTasks(bench)];
await bench.run();
for (const cleanup of cleanups) await cleanup();
fs.rmSync(dir, { recursive: true, force: true });

const perSecond = (name: string): number => {
  const task = bench.tasks.find((t) => t.name.startsWith(name));
  const result = task?.result;
  if (result === undefined || result.error !== undefined) throw new Error(`task ${name} failed: ${String(result?.error)}`);
  return result.throughput.mean;
};
const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");
const rows: Array<[string, number, number, number]> = [
  [
    "checks recorded/s (snapshot + diff + 2 deliveries), synchronous=NORMAL (default)",
    perSecond("recordCheck, synchronous=NORMAL"),
    perSecond("bare INSERTs, synchronous=NORMAL"),
    1,
  ],
  ["checks recorded/s, synchronous=FULL", perSecond("recordCheck, synchronous=FULL"), perSecond("bare INSERTs, synchronous=FULL"), 1],
  [`due monitors claimed and released/s (batches of ${CLAIM_BATCH})`, perSecond("claimDueMonitors"), perSecond("bare claim"), CLAIM_BATCH],
];
const checksPerSecond = rows[0]![1];
const markdown = [
  "## @driftwatch/store-sqlite",
  "",
  "File database in a temp folder, WAL. The peer is bare better-sqlite3 writing the same rows with prepared statements in one `BEGIN IMMEDIATE` transaction (no validation, no webhook matching, no retention, no record mapping).",
  "",
  "| operation | store-sqlite | bare better-sqlite3 | ratio |",
  "|---|---:|---:|---:|",
  ...rows.map(
    ([label, store, peer, scale]) => `| ${label} | ${fmt(store * scale)} | ${fmt(peer * scale)} | ${(store / peer).toFixed(2)} |`
  ),
  "",
  `Budget: the server must sustain ${CHECKS_BUDGET} checks/s on SQLite (SPEC section 7); recordCheck alone runs at ${fmt(
    checksPerSecond
  )}/s, ${(checksPerSecond / CHECKS_BUDGET).toFixed(1)}x that budget, leaving ${Math.max(
    0,
    100 - (100 * CHECKS_BUDGET) / checksPerSecond
  ).toFixed(0)} % of a core for fetching and diffing at 300 checks/s.`,
].join("\n");
writeBenchSection("store-sqlite", markdown);
console.log(markdown);
