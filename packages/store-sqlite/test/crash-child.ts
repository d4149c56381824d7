// Records checks in a loop on a SQLite file until killed, printing each committed check as
// "<diffId> <snapshotId>" on its own line. Run by crash.test.ts (node --import tsx).
import { recordChecksUntilKilled } from "@driftwatch/store-testkit";
import { createSqliteStore } from "../src/index.js";

const [file, orgId, monitorId] = process.argv.slice(2);
if (file === undefined || orgId === undefined || monitorId === undefined) {
  throw new Error("usage: crash-child.ts <file> <orgId> <monitorId>");
}
await recordChecksUntilKilled(await createSqliteStore({ filename: file }), orgId, monitorId);
