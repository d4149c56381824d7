// npm run bench (server): webhook deliveries per second from the SQLite outbox to a loopback
// receiver: claim with a lease, sign (Standard Webhooks), POST, record the attempt. Side by side,
// the peer: the same signed bodies POSTed with bare undici at the same concurrency, no store.
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { buildPendingDiffDetectedEvent, createSignedDelivery, diffJson, generateWebhookSecret, newId } from "@driftwatch/core";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { Agent, request } from "undici";
import { createDeliveryService } from "@driftwatch/engine";
import { createWebhookTransport } from "@driftwatch/fetcher-http";

const reportModule = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../tooling/bench-report.mjs");
const { writeBenchSection, median } = (await import(reportModule)) as { writeBenchSection(name: string, markdown: string): void; median(values: number[]): number };

const DELIVERIES = 2000;
const CONCURRENCY = 32;
const BATCH = 200;
const TARGET_PER_SECOND = 500;

let received = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    received++;
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hook`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-bench-deliveries-"));
const store = await createSqliteStore({ filename: path.join(dir, "bench.db") });
const org = await store.createOrganization({ slug: "bench" });
const secret = generateWebhookSecret();
await store.createWebhook(org.id, {
  url: receiverUrl,
  description: null,
  events: ["diff.detected"],
  monitorIds: null,
  minSeverity: "info",
  enabled: true,
  secret,
});
const monitor = await store.createMonitor(org.id, {
  type: "api",
  name: "bench",
  url: "http://127.0.0.1:9/",
  method: "GET",
  headers: {},
  body: null,
  intervalSeconds: 3600,
  selector: null,
  browserOptionsJson: null,
  state: "paused",
  nextCheckAt: null,
});

const payloads: string[] = [];
/** Writes `count` diffs, each with its outbox delivery, as the check pipeline does. */
async function seed(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const at = new Date(Date.now() - 60_000);
    const after = { price: i, currency: "EUR", items: [{ id: 1, stock: i % 7 }] };
    const found = diffJson({ price: -1, currency: "EUR", items: [{ id: 1, stock: 99 }] }, after)!;
    const body = JSON.stringify(after);
    const snapshotId = newId("snapshot");
    const diffId = newId("diff");
    const event = buildPendingDiffDetectedEvent(found, { monitorId: monitor.id, snapshotId, diffId, occurredAt: at });
    if (payloads.length < count) payloads.push(JSON.stringify(event));
    await store.recordCheck(org.id, {
      monitorId: monitor.id,
      monitor: { lastCheckedAt: at.toISOString() },
      snapshot: {
        id: snapshotId,
        fetchedAt: at.toISOString(),
        status: 200,
        latencyMs: 1,
        contentType: "application/json",
        contentHash: `sha256:${createHash("sha256").update(body).digest("hex")}`,
        size: body.length,
        browserRender: false,
        body,
      },
      diff: { ...found, id: diffId, previousSnapshotId: null, requestId: "req_bench0000", status: 200, latencyMs: 1, createdAt: at.toISOString() },
      event,
      retention: 5,
    });
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
  const agent = new Agent();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < DELIVERIES; i = next++) {
        const signed = createSignedDelivery({ event: payloads[i]!, secrets: [secret] });
        const response = await request(receiverUrl, { method: "POST", body: signed.body, headers: signed.headers, dispatcher: agent });
        await response.body.dump();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return DELIVERIES / seconds;
}

const loadBefore = os.loadavg()[0]!.toFixed(2);
await engineRound(); // warm-up
await peerRound();
const engine: number[] = [];
const peer: number[] = [];
for (let round = 0; round < 3; round++) {
  engine.push(await engineRound());
  peer.push(await peerRound());
}
const perSecond = median(engine);
const peerPerSecond = median(peer);

await deliveries.close();
await store.close();
server.close();
fs.rmSync(dir, { recursive: true, force: true });

const verdict = perSecond >= TARGET_PER_SECOND ? "meets" : "MISSES";
const markdown = `## Server engine: webhook deliveries per second

${String(DELIVERIES)} pending deliveries in the SQLite outbox (temp file, WAL), one process, claimed in batches of
${String(BATCH)} with a lease, ${String(CONCURRENCY)} POSTs in flight, each signed (Standard Webhooks, HMAC-SHA256) and its
attempt recorded; the receiver on loopback answers 204. Median of 3 rounds.

| | deliveries/s |
|---|---|
| driftwatch delivery service (claim, sign, POST, record) | ${perSecond.toFixed(0)} |
| peer: bare undici POST of the same signed bodies, same concurrency, no store | ${peerPerSecond.toFixed(0)} |
| ratio (engine / peer) | ${(perSecond / peerPerSecond).toFixed(2)} |

Target (the server's performance budget): at least ${String(TARGET_PER_SECOND)} deliveries/s: **${verdict}** (${perSecond.toFixed(0)}/s).
Load average during the run: ${loadBefore} before, ${os.loadavg()[0]!.toFixed(2)} after (other work on the machine lowers both columns).`;

writeBenchSection("server-engine-deliveries", markdown);
console.log(markdown);
