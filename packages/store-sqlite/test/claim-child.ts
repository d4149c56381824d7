// A worker process for multiprocess.test.ts: opens the store on a file (migrating it when new),
// then, in `claim` mode, claims due monitors and deliveries until none are left, printing each id.
import { createSqliteStore } from "../src/index.js";

const [mode, file, owner] = process.argv.slice(2);
if ((mode !== "open" && mode !== "claim") || file === undefined || owner === undefined) {
  throw new Error("usage: claim-child.ts open|claim <file> <owner>");
}
const store = await createSqliteStore({ filename: file, busyTimeoutMs: 20_000 });
if (mode === "claim") {
  const now = new Date().toISOString();
  for (;;) {
    const monitors = await store.claimDueMonitors({ now, limit: 3, leaseMs: 600_000, owner });
    const deliveries = await store.claimDueDeliveries({ now, limit: 3, leaseMs: 600_000, owner });
    for (const record of [...monitors, ...deliveries]) process.stdout.write(`${record.id}\n`);
    if (monitors.length === 0 && deliveries.length === 0) break;
  }
}
await store.close();
process.stdout.write("done\n");
