// Child of channels-crash.test.ts: a channel delivery worker on the SQLite file (or the PostgreSQL
// database and schema given as `postgres://...#schema`), sending each message's keys to the test's
// service, until the test kills it with SIGKILL. Never run by vitest.
import { createPostgresStore } from "@driftwatch/store-postgres";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { createChannelDeliveryService, type ChannelSender } from "../../src/index.js";

const [file = "", service = ""] = process.argv.slice(2);
const store = file.startsWith("postgres")
  ? await createPostgresStore({ connectionString: file.slice(0, file.indexOf("#")), schema: file.slice(file.indexOf("#") + 1) })
  : await createSqliteStore({ filename: file });
const sender: ChannelSender = {
  async send(channel, payloads, signal) {
    const res = await fetch(service, { method: "POST", body: JSON.stringify({ channel: channel.id, keys: payloads.map((p) => (p as { key: string }).key) }), signal });
    await res.text();
    return res.ok ? { outcome: "delivered", status: res.status } : { outcome: "retry", status: res.status, reason: `HTTP ${String(res.status)}` };
  },
};
const worker = createChannelDeliveryService({ store, sender, owner: "child", leaseMs: 1_000, concurrency: 16, channelConcurrency: 4 });
process.stdout.write("ready\n");
for (;;) {
  const result = await worker.deliverDue({ limit: 100 });
  if (result.claimed === 0) await new Promise((resolve) => setTimeout(resolve, 20));
}
