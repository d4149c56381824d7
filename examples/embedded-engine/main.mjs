// The monitoring engine inside a plain Node script, without the HTTP server: a memory store, a
// local JSON target and a local webhook receiver. The engine's scheduler checks the monitor when
// it is due (the first snapshot), the target changes, a check records the diff, and the delivery
// worker POSTs the signed `diff.detected` webhook, which the receiver verifies. Then it stops.
import { once } from "node:events";
import http from "node:http";
import { pathToFileURL } from "node:url";
import { generateWebhookSecret, verifyWebhook } from "@driftwatch/core";
import { createEngine } from "@driftwatch/engine";
import { createHttpFetcher, createWebhookTransport } from "@driftwatch/fetcher-http";
import { createMemoryStore } from "@driftwatch/store-memory";

async function listen(server) {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${server.address().port}`;
}

export async function main({ log = console.log, timeoutMs = 30_000 } = {}) {
  // The target: a small JSON API on loopback.
  let catalog = { updatedAt: "2026-11-01T00:00:00Z", items: [{ sku: "A-1", price: 10 }] };
  const target = http.createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(catalog)));
  const targetUrl = await listen(target);

  // The receiver: resolves `delivered` with the first webhook whose signature verifies.
  let secret = "";
  let deliver;
  const delivered = new Promise((resolve) => (deliver = resolve));
  const receiver = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    try {
      deliver(verifyWebhook(Buffer.concat(chunks), req.headers, secret));
      res.writeHead(204).end();
    } catch (error) {
      log(`receiver: refused a delivery (${error.message})`);
      res.writeHead(400).end();
    }
  });
  const receiverUrl = await listen(receiver);

  const store = await createMemoryStore();
  // Both on loopback here: the guard is lifted. Where tenants choose URLs, leave it on.
  const fetcher = createHttpFetcher({ allowPrivateNetworks: true });
  const transport = createWebhookTransport({ allowPrivateNetworks: true });
  const engine = createEngine({
    store,
    fetchers: { http: fetcher, webhooks: transport },
    logger: { error: (fields, message) => log(`engine: ${message}`), warn: (fields, message) => log(`engine: ${message}`), info: () => {} },
    schedulerPollMs: 100,
    deliveryPollMs: 100,
  });
  let timer;
  try {
    const { orgId } = await engine.bootstrap();
    const monitor = await store.createMonitor(orgId, {
      type: "api",
      name: "catalog",
      url: `${targetUrl}/catalog.json`,
      method: "GET",
      headers: {},
      body: null,
      intervalSeconds: 3600,
      selector: null,
      browserOptionsJson: null,
      state: "active",
      nextCheckAt: new Date().toISOString(),
    });
    await store.updateSettings(orgId, monitor.id, {
      policyRulesJson: { rules: [{ path: "$..updatedAt", action: "ignore" }], arrayKeys: { "$.items": "sku" } },
      updatedAt: new Date().toISOString(),
    });
    const webhook = await store.createWebhook(orgId, {
      url: `${receiverUrl}/hooks/driftwatch`,
      description: "local receiver",
      events: ["diff.detected"],
      monitorIds: [monitor.id],
      minSeverity: "info",
      enabled: true,
      secret: generateWebhookSecret(),
    });
    secret = webhook.secret;
    log(`monitor ${monitor.id} -> ${monitor.url}; webhook ${webhook.id} -> ${webhook.url}`);

    const deadline = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`nothing delivered within ${timeoutMs} ms`)), timeoutMs);
    });
    engine.start();
    // The scheduler checks the due monitor: its first snapshot, the baseline.
    const baseline = (async () => {
      while ((await store.getLatestSnapshot(orgId, monitor.id)) === null) await new Promise((r) => setTimeout(r, 50));
    })();
    await Promise.race([baseline, deadline]);
    log("first check: baseline snapshot recorded");

    catalog = { updatedAt: "2026-11-02T00:00:00Z", items: [{ sku: "Z-0", price: 5 }, { sku: "A-1", price: "10" }] };
    const result = await engine.checkNow(orgId, monitor.id);
    const diff = result?.diff;
    if (!diff) throw new Error("expected a diff after the catalog changed");
    log(`second check: ${diff.classification}, top severity ${diff.topSeverity}`);
    for (const change of diff.changes) log(`  ${change.severity.padEnd(8)} ${change.op.padEnd(7)} ${change.path}`);

    const event = await Promise.race([delivered, deadline]);
    log(`webhook delivered and verified: ${event.eventType} ${event.eventId} for diff ${event.diffId}`);
    return { diff, event };
  } finally {
    clearTimeout(timer);
    await engine.close({ graceMs: 5000 });
    await Promise.all([fetcher.close(), transport.close()]);
    await store.close();
    target.close();
    receiver.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
