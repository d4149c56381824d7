// Records checks in a loop on a PostgreSQL schema until killed, printing each committed check as
// "<diffId> <snapshotId>" on its own line. Run by crash.test.ts (node --import tsx).
import { recordChecksUntilKilled } from "@driftwatch/store-testkit";
import { createPostgresStore } from "../src/index.js";

const [url, schema, orgId, monitorId] = process.argv.slice(2);
if (url === undefined || schema === undefined || orgId === undefined || monitorId === undefined) {
  throw new Error("usage: crash-child.ts <url> <schema> <orgId> <monitorId>");
}
await recordChecksUntilKilled(await createPostgresStore({ connectionString: url, schema, max: 2 }), orgId, monitorId);
