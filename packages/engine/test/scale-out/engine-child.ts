// One engine process on a PostgreSQL database, for scale-out.test.ts (run with
// `node --conditions=@driftwatch/source --import tsx`): checks monitors and delivers webhooks until
// it is killed, or until SIGTERM, when it stops gracefully (in-flight work gets `graceMs`) and
// prints "stopped". Prints "ready" once it runs. With a sixth argument, the path of a module
// exporting `openQueue(url, store, leaseMs)` (see `ChildQueue`), its work queue comes from there;
// otherwise from the store's leases.
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { createPostgresStore } from "@driftwatch/store-postgres";
import type { Store } from "@driftwatch/core";
import { createEngine, type WorkQueueFactory } from "../../src/index.js";

/** What a queue module given to the child opens. */
export interface ChildQueue {
  queue: WorkQueueFactory;
  close(): Promise<void>;
}
export type OpenChildQueue = (url: string, store: Store, leaseMs: number) => Promise<ChildQueue>;

const [url, owner, lease, poll, grace, queueModule] = process.argv.slice(2);
if (url === undefined || owner === undefined || lease === undefined || poll === undefined || grace === undefined) {
  throw new Error("usage: engine-child.ts <postgres url> <owner> <leaseMs> <pollMs> <graceMs>");
}
const store = await createPostgresStore({ connectionString: url, max: 6 });
const http = createHttpFetcher({ allowPrivateNetworks: true });
const opened = queueModule === undefined ? null : await ((await import(queueModule)) as { openQueue: OpenChildQueue }).openQueue(url, store, Number(lease));
const log = (level: string) => (fields: Record<string, unknown>, message: string) => {
  const err = fields.err as Error | undefined;
  process.stderr.write(`${level} ${owner} ${message} ${err?.message ?? ""}\n`);
};
const engine = createEngine({
  store,
  fetchers: { http },
  owner,
  leaseMs: Number(lease),
  schedulerPollMs: Number(poll),
  deliveryPollMs: Number(poll),
  checkConcurrency: 8,
  perHostConcurrency: 8,
  logger: { error: log("error"), warn: log("warn"), info: () => undefined },
  ...(opened === null ? {} : { queue: opened.queue }),
});
engine.start();
process.once("SIGTERM", () => {
  void (async () => {
    await engine.close({ graceMs: Number(grace) });
    await http.close();
    await opened?.close();
    await store.close();
    process.stdout.write("stopped\n");
    process.exit(0);
  })();
});
process.stdout.write("ready\n");
