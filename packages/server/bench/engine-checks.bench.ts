// npm run bench (server): API checks per second through the whole engine path: the scheduler
// claims due monitors from SQLite, fetches a 10 KB JSON document over loopback, diffs it with
// the monitor's policy, records snapshot + diff + outbox delivery in one transaction and releases
// the lease. Side by side, the peer: bare undici GETs of the same document with JSON.parse (what
// any checker has to do at minimum), same concurrency, same run.
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { webhookInput } from "@driftwatch/store-testkit";
import { request } from "undici";
import { createCheckService, createScheduler } from "@driftwatch/engine";
import { benchMonitor, engineSection, listenLoopback, loadAverage, peerRate, sideBySide, tempDir, writeBenchSection } from "./support.js";

const MONITORS = 400;
const CONCURRENCY = 16;
const TARGET_CHECKS_PER_SECOND = 300;

// A 10 KB JSON document; every response changes a few values, so every check records a diff.
let version = 0;
function documentBody(): string {
  version++;
  const items = Array.from({ length: 50 }, (_, i) => ({
    id: i,
    sku: `SKU-${String(1000 + i)}`,
    name: `Product number ${String(i)}`,
    price: i === version % 50 ? 10 + version : 10 + i,
    stock: (i * 7) % 13,
    tags: ["catalog", "bench", `group-${String(i % 5)}`],
    description: `A product used to make the benchmark document about ten kilobytes; entry ${String(i)}.`,
  }));
  return JSON.stringify({ version, generatedAt: "2026-01-01T00:00:00Z", currency: "EUR", items });
}
const sample = documentBody();
const server = await listenLoopback((_req, res) => {
  const body = documentBody();
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
});
const url = `${server.url}/catalog.json`;

const temp = tempDir("dw-bench-checks-");
const store = await createSqliteStore({ filename: path.join(temp.dir, "bench.db") });
const org = await store.createOrganization({ slug: "bench" });
await store.createWebhook(org.id, webhookInput({ url: "http://127.0.0.1:9/unused" }));
const ids: string[] = [];
for (let i = 0; i < MONITORS; i++) {
  const monitor = await store.createMonitor(org.id, benchMonitor({ name: `bench ${String(i)}`, url, state: "active", nextCheckAt: new Date(Date.now() - 1000).toISOString() }));
  ids.push(monitor.id);
}

const fetcher = createHttpFetcher({ allowPrivateNetworks: true });
const checks = createCheckService({ store, httpFetcher: fetcher });

/** One scheduler pass over every monitor (all due): checks per second. */
async function engineRound(): Promise<{ perSecond: number; changed: number }> {
  const due = new Date(Date.now() - 1000).toISOString();
  for (const id of ids) await store.updateMonitor(org.id, id, { nextCheckAt: due, updatedAt: due });
  let done = 0;
  let changed = 0;
  let finished!: () => void;
  const all = new Promise<void>((resolve) => (finished = resolve));
  const scheduler = createScheduler({
    store,
    checks,
    concurrency: CONCURRENCY,
    // One loopback host serves every monitor here; the per-host bound is the overall one.
    perHostConcurrency: CONCURRENCY,
    pollIntervalMs: 5,
    onCheck(outcome) {
      if (outcome.result === "changed") changed++;
      if (++done === ids.length) finished();
    },
    onError(error) {
      console.error(error);
    },
  });
  const started = performance.now();
  scheduler.start();
  await all;
  const seconds = (performance.now() - started) / 1000;
  await scheduler.stop();
  return { perSecond: ids.length / seconds, changed };
}

/** The peer: bare GET + JSON.parse of the same document, same concurrency. */
async function peerRound(): Promise<number> {
  return peerRate(ids.length, CONCURRENCY, async (_i, agent) => {
    const response = await request(url, { dispatcher: agent });
    JSON.parse(await response.body.text());
  });
}

const loadBefore = loadAverage();
const { engine, peer, last } = await sideBySide(engineRound, peerRound, (r) => r.perSecond);

await fetcher.close();
await store.close();
await server.close();
temp.remove();

const markdown = engineSection({
  title: "Server engine: checks per second",
  setting: `${String(MONITORS)} API monitors due at once on SQLite (temp file, WAL), one process, ${String(CONCURRENCY)} checks in flight,
a ${String(Math.round(Buffer.byteLength(sample) / 1024))} KB JSON target on loopback that changes on every request, so every
check fetches, diffs, and records a snapshot, a diff and an outbox delivery in one transaction
(${String(last.changed)} of ${String(MONITORS)} checks recorded a diff in the last round). Median of 3 rounds.`,
  unit: "checks",
  engine: { label: "driftwatch scheduler + check pipeline", perSecond: engine },
  peer: { label: "peer: bare undici GET + JSON.parse, same concurrency", perSecond: peer },
  target: TARGET_CHECKS_PER_SECOND,
  loadBefore,
});
writeBenchSection("server-engine-checks", markdown);
console.log(markdown);
