// One engine process of scale-out.bench.ts (run with `node --conditions=@driftwatch/source
// --import tsx`, an IPC channel open): a full engine (scheduler, check service, delivery worker) on
// the store its database URL names, its work queue chosen by DRIFTWATCH_QUEUE (see `makeQueue`). It
// records every scheduled check's start lag and counts checks; each "mark" message answers with what
// it recorded since the previous mark (and restarts the count), so the parent measures any window.
// SIGTERM stops it gracefully. Prints "ready" once the engine runs.
import type { Store } from "@driftwatch/core";
import { createEngine, createMetrics, createStoreWorkQueue, type EngineMetrics, type WorkQueueFactory } from "@driftwatch/engine";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { openStore } from "../src/config/store-url.js";

/** What the child answers to a mark: the checks since the previous mark. */
export interface ChildWindow {
  owner: string;
  checks: number;
  failed: number;
  /** Start lag of each scheduled check (start minus due time), in seconds. */
  lagSeconds: number[];
  /** CPU time of this process (user + system), in µs. */
  cpuUs: number;
}

/** The queue kinds a child knows, and the one it uses unless DRIFTWATCH_QUEUE names another. */
const QUEUE_KINDS = ["leases", "pgboss"] as const;
const DEFAULT_QUEUE = "leases";

/** A child's work queue: what the engine is given (a factory it calls with its owner, clock and metrics), and what to close after it. */
interface ChildQueue {
  queue: WorkQueueFactory;
  close(): Promise<void>;
}

/**
 * The work queue a child claims through, by kind: `leases`, the store's own
 * (`createStoreWorkQueue`); `pgboss`, pg-boss on the same PostgreSQL database
 * (@driftwatch/queue-postgres). Another kind is one more case.
 */
async function makeQueue(kind: string, store: Store, databaseUrl: string): Promise<ChildQueue> {
  switch (kind) {
    case "leases":
      return { queue: (context) => createStoreWorkQueue({ store, ...context }), close: async () => undefined };
    case "pgboss": {
      const { startPostgresJobs } = await import("@driftwatch/queue-postgres");
      const jobs = await startPostgresJobs({ connectionString: databaseUrl });
      return { queue: (context) => jobs.workQueue(store, context), close: () => jobs.close() };
    }
    default:
      throw new Error(`DRIFTWATCH_QUEUE=${kind}: unknown work queue; known: ${QUEUE_KINDS.join(", ")}`);
  }
}

async function main(): Promise<void> {
  const [databaseUrl, owner, concurrency, perHost, poolSize] = process.argv.slice(2);
  if (databaseUrl === undefined || owner === undefined || concurrency === undefined || perHost === undefined || poolSize === undefined) {
    throw new Error("usage: scale-out-child.ts <database url> <owner> <check concurrency> <per-host concurrency> <postgres pool size>");
  }
  if (process.send === undefined) throw new Error("scale-out-child.ts needs an IPC channel (spawn it with stdio 'ipc')");
  const send = process.send.bind(process);

  const store = await openStore(databaseUrl, { adapterOptions: databaseUrl.startsWith("postgres") ? { max: Number(poolSize) } : {} });
  const http = createHttpFetcher({ allowPrivateNetworks: true });

  let checks = 0;
  let failed = 0;
  let lagSeconds: number[] = [];
  let cpu = process.cpuUsage();
  const base = createMetrics({ store });
  const metrics: EngineMetrics = {
    ...base,
    observeCheckStart(start) {
      lagSeconds.push(start.lagSeconds);
      base.observeCheckStart(start);
    },
    observeCheck(result, durationSeconds, orgId) {
      checks++;
      if (result === "failed") failed++;
      base.observeCheck(result, durationSeconds, orgId);
    },
  };
  const queue = await makeQueue(process.env.DRIFTWATCH_QUEUE ?? DEFAULT_QUEUE, store, databaseUrl);
  // Errors of background work go to stderr, which the bench shows when checks fail.
  const report = (level: string, fields: Record<string, unknown>, message: string): void => {
    process.stderr.write(`${level} ${owner}: ${message}${fields.err instanceof Error ? `: ${fields.err.message}` : ""}\n`);
  };
  const engine = createEngine({
    queue: queue.queue,
    metrics,
    store,
    owner,
    fetchers: { http },
    checkConcurrency: Number(concurrency),
    perHostConcurrency: Number(perHost),
    logger: { error: (fields, message) => report("error", fields, message), warn: (fields, message) => report("warn", fields, message), info: () => undefined },
  });

  process.on("message", (message) => {
    if (message !== "mark") return;
    const used = process.cpuUsage(cpu);
    const window: ChildWindow = { owner, checks, failed, lagSeconds, cpuUs: used.user + used.system };
    checks = 0;
    failed = 0;
    lagSeconds = [];
    cpu = process.cpuUsage();
    send(window);
  });
  // The bench died without stopping its children: so does this one.
  process.once("disconnect", () => process.exit(1));
  process.once("SIGTERM", () => {
    void (async () => {
      await engine.close({ graceMs: 5000 });
      await queue.close();
      await http.close();
      await store.close();
      process.exit(0);
    })();
  });
  engine.start();
  process.stdout.write("ready\n");
}

await main();
