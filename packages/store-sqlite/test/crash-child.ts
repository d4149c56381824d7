// Records checks in a loop on a SQLite file until killed, printing each committed check as
// "<diffId> <snapshotId>" on its own line. Run by crash.test.ts (node --import tsx).
import { createSqliteStore } from "../src/index.js";
import { changedCheck } from "@driftwatch/store-testkit";

const [file, orgId, monitorId] = process.argv.slice(2);
if (file === undefined || orgId === undefined || monitorId === undefined) {
  throw new Error("usage: crash-child.ts <file> <orgId> <monitorId>");
}
const store = await createSqliteStore({ filename: file });
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
