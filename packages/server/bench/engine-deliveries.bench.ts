// npm run bench (server): webhook deliveries per second from the SQLite outbox to a loopback
// receiver: claim with a lease, sign (Standard Webhooks), POST, record the attempt. Side by side,
// the peer: the same signed bodies POSTed with bare undici at the same concurrency, no store.
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createSignedDelivery, generateWebhookSecret } from "@driftwatch/core";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { changedCheck, webhookInput } from "@driftwatch/store-testkit";
import { request } from "undici";
import { createDeliveryService } from "@driftwatch/engine";
import { createWebhookTransport } from "@driftwatch/fetcher-http";
import { benchMonitor, engineSection, listenLoopback, loadAverage, peerRate, sideBySide, tempDir, writeBenchSection } from "./support.js";

const DELIVERIES = 2000;
const CONCURRENCY = 32;
const BATCH = 200;
const TARGET_PER_SECOND = 500;

let received = 0;
const server = await listenLoopback((req, res) => {
  req.resume();
  req.on("end", () => {
    received++;
    res.writeHead(204).end();
  });
});
const receiverUrl = `${server.url}/hook`;

const temp = tempDir("dw-bench-deliveries-");
const store = await createSqliteStore({ filename: path.join(temp.dir, "bench.db") });
const org = await store.createOrganization({ slug: "bench" });
const secret = generateWebhookSecret();
await store.createWebhook(org.id, webhookInput({ url: receiverUrl, secret }));
const monitor = await store.createMonitor(org.id, benchMonitor({ name: "bench", url: "http://127.0.0.1:9/", state: "paused", nextCheckAt: null }));

const payloads: string[] = [];
/** Writes `count` diffs, each with its outbox delivery, as the check pipeline does. */
async function seed(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const check = changedCheck(monitor.id, { sequence: i, at: new Date(Date.now() - 60_000).toISOString(), retention: 5 });
    if (payloads.length < count) payloads.push(JSON.stringify(check.event));
    await store.recordCheck(org.id, check);
  }
}

// The server's transport: undici through the SSRF-guarded dispatcher (lifted for the loopback receiver).
// One receiver takes all 2000: it may have every slot (the per-endpoint cap, 4 by default, is for
// fairness between tenants' receivers; at 4 a burst beyond its queue waits for its lease to expire).
const deliveries = createDeliveryService({
  store,
  transport: createWebhookTransport({ allowPrivateNetworks: true }),
  concurrency: CONCURRENCY,
  endpointConcurrency: CONCURRENCY,
});

async function engineRound(): Promise<number> {
  await seed(DELIVERIES);
  const before = received;
  const started = performance.now();
  let sent = 0;
  for (;;) {
    const result = await deliveries.deliverDue({ limit: BATCH });
    if (result.claimed === 0) break;
    sent += result.succeeded;
  }
  const seconds = (performance.now() - started) / 1000;
  if (sent !== DELIVERIES || received - before !== DELIVERIES) throw new Error(`expected ${String(DELIVERIES)} deliveries, sent ${String(sent)}`);
  return DELIVERIES / seconds;
}

async function peerRound(): Promise<number> {
  return peerRate(DELIVERIES, CONCURRENCY, async (i, agent) => {
    const signed = createSignedDelivery({ event: payloads[i]!, secrets: [secret] });
    const response = await request(receiverUrl, { method: "POST", body: signed.body, headers: signed.headers, dispatcher: agent });
    await response.body.dump();
  });
}

const loadBefore = loadAverage();
const { engine: perSecond, peer: peerPerSecond } = await sideBySide(engineRound, peerRound, (r) => r);

await deliveries.close();
await store.close();
await server.close();
temp.remove();

const markdown = engineSection({
  title: "Server engine: webhook deliveries per second",
  setting: `${String(DELIVERIES)} pending deliveries in the SQLite outbox (temp file, WAL), one process, claimed in batches of
${String(BATCH)} with a lease, ${String(CONCURRENCY)} POSTs in flight, each signed (Standard Webhooks, HMAC-SHA256) and its
attempt recorded; the receiver on loopback answers 204. Median of 3 rounds.`,
  unit: "deliveries",
  engine: { label: "driftwatch delivery service (claim, sign, POST, record)", perSecond },
  peer: { label: "peer: bare undici POST of the same signed bodies, same concurrency, no store", perSecond: peerPerSecond },
  target: TARGET_PER_SECOND,
  loadBefore,
});
writeBenchSection("server-engine-deliveries", markdown);
console.log(markdown);
