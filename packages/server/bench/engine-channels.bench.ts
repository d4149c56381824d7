// npm run bench (server): notification channels. 10,000 changes routed to 5 Slack channels: the
// checks' routing and outbox writes (recordCheck with and without the channel messages), then the
// messages per second from the SQLite outbox to a loopback server speaking Slack's webhook API
// (claim with a lease, open the sealed URL, format Block Kit, POST, record the attempt), twice in
// the same run: the attempts recorded one transaction per message (as before), then in group
// commits (recordChannelDeliveryAttempts). Side by side, the peer: the same messages sent by the
// same notifier straight to the service, no outbox. DRIFTWATCH_BENCH_CHANGES (default 10,000)
// sets the changes per phase, to keep a run short on a busy machine.
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createSecretBox, generateSecretKey, parseSecretKeys, type MonitorRecord, type NewChannelDelivery, type Store } from "@driftwatch/core";
import { channelMessagesFor, createChannelDeliveryService } from "@driftwatch/engine";
import { createNotifier } from "@driftwatch/notify";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { changedCheck } from "@driftwatch/store-testkit";
import { createChannelSender } from "../src/notify/channel-sender.js";
import { channelSecretContext } from "../src/routes/channels.js";
import { benchMonitor, listenLoopback, loadAverage, tempDir, writeBenchSection } from "./support.js";

const CHANGES = Number(process.env.DRIFTWATCH_BENCH_CHANGES ?? 10_000);
const CHANNELS = 5;
const CONCURRENCY = 32;
const BATCH = 200;
/** Messages the peer sends (its rate does not depend on the count). */
const PEER_MESSAGES = Math.min(10_000, CHANGES * CHANNELS);

let received = 0;
const slack = await listenLoopback((req, res) => {
  req.resume();
  req.on("end", () => {
    received++;
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
});

const temp = tempDir("dw-bench-channels-");
const store = await createSqliteStore({ filename: path.join(temp.dir, "bench.db") });
const org = await store.createOrganization({ slug: "bench" });
const box = createSecretBox(parseSecretKeys(generateSecretKey()));
const notifier = createNotifier({ env: { DRIFTWATCH_SLACK_API_URL: slack.url }, guard: { allowPrivateNetworks: true } });
const monitor: MonitorRecord = await store.createMonitor(org.id, { ...benchMonitor({ name: "bench", url: "http://127.0.0.1:9/", state: "paused", nextCheckAt: null }), tags: ["shop"] });
const urls: string[] = [];
for (let i = 0; i < CHANNELS; i++) {
  const url = `slack://T0BENCH0${String(i)}/B0BENCH0${String(i)}/benchS3cretT0ken000${String(i)}`;
  urls.push(url);
  const id = `ch_01BENCH0000000000000000000${String(i)}`;
  await store.createChannel(org.id, {
    id,
    name: `channel ${String(i)}`,
    service: "slack",
    urlSealed: box.seal(url, channelSecretContext(id)),
    urlMasked: notifier.maskUrl(url),
    minSeverity: "info",
    tags: i % 2 === 0 ? [] : ["shop"],
    events: ["diff.detected"],
    groupSeconds: 0,
    quietHours: null,
    template: null,
    paused: false,
  });
}

/** Records `CHANGES` changed checks, each routed to the channels (or not), as the check pipeline does; seconds taken. */
async function recordChanges(route: boolean, from: number): Promise<{ seconds: number; messages: number }> {
  let messages = 0;
  let previous: string | null = (await store.getLatestSnapshot(org.id, monitor.id))?.id ?? null;
  const started = performance.now();
  for (let i = 0; i < CHANGES; i++) {
    const at = new Date(Date.now() - 60_000);
    const check = changedCheck(monitor.id, { sequence: from + i, at: at.toISOString(), retention: 5, previousSnapshotId: previous });
    let channelMessages: NewChannelDelivery[] = [];
    if (route) channelMessages = await channelMessagesFor(store, { kind: "diff", monitor, diff: check.diff!, snapshotId: check.snapshot!.id, policyMinSeverity: undefined }, at);
    const recorded = await store.recordCheck(org.id, { ...check, event: null, previousSnapshotId: previous, ...(route ? { channelMessages } : {}) });
    messages += recorded.channelDeliveries?.length ?? 0;
    previous = recorded.snapshot!.id;
  }
  return { seconds: (performance.now() - started) / 1000, messages };
}

const loadBefore = loadAverage();
const plain = await recordChanges(false, 0);
const routed = await recordChanges(true, CHANGES);
if (routed.messages !== CHANGES * CHANNELS) throw new Error(`expected ${String(CHANGES * CHANNELS)} messages, routed ${String(routed.messages)}`);

const sender = createChannelSender(notifier, { box, source: "env" });
/** The store without `recordChannelDeliveryAttempts`: the worker records each attempt in its own transaction (as before). */
const oneByOne = new Proxy(store, {
  get(target, property) {
    if (property === "recordChannelDeliveryAttempts") return undefined;
    const value = Reflect.get(target, property, target) as unknown;
    return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  },
}) as Store;

/** Delivers every due message from the outbox; messages per second. */
async function deliverAll(from: Store, expected: number): Promise<number> {
  const service = createChannelDeliveryService({ store: from, sender, concurrency: CONCURRENCY, channelConcurrency: CONCURRENCY });
  const before = received;
  const started = performance.now();
  let sent = 0;
  for (;;) {
    const result = await service.deliverDue({ limit: BATCH });
    if (result.claimed === 0) break;
    sent += result.succeeded;
  }
  const seconds = (performance.now() - started) / 1000;
  if (sent !== expected || received - before !== expected) throw new Error(`expected ${String(expected)} messages, sent ${String(sent)}, received ${String(received - before)}`);
  const attempts = await store.listChannelDeliveries(org.id, "ch_01BENCH00000000000000000000", { limit: 1 });
  if (attempts.data[0]?.state !== "succeeded" || attempts.data[0].attempts !== 1) throw new Error("a message was not recorded once");
  return sent / seconds;
}

const perMessagePerSecond = await deliverAll(oneByOne, routed.messages);
const again = await recordChanges(true, CHANGES * 2);
if (again.messages !== CHANGES * CHANNELS) throw new Error(`expected ${String(CHANGES * CHANNELS)} messages, routed ${String(again.messages)}`);
const perSecond = await deliverAll(store, again.messages);

// The peer: the same notification, formatted and POSTed by the same notifier, no outbox.
const sample = JSON.parse((await store.listChannelDeliveries(org.id, "ch_01BENCH00000000000000000000", { limit: 1 })).data[0]!.payload) as Parameters<typeof notifier.send>[1];
let next = 0;
const peerStarted = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (let i = next++; i < PEER_MESSAGES; i = next++) {
      const result = await notifier.send(urls[i % CHANNELS]!, sample);
      if (result.outcome !== "delivered") throw new Error(`peer send: ${result.outcome}`);
    }
  }),
);
const peerPerSecond = PEER_MESSAGES / ((performance.now() - peerStarted) / 1000);

await notifier.close();
await store.close();
await slack.close();
temp.remove();

const routingOverheadMs = ((routed.seconds - plain.seconds) / CHANGES) * 1000;
const markdown = `## Server engine: notification channels (${CHANGES.toLocaleString("en")} changes to ${String(CHANNELS)} channels)

${String(CHANGES)} changes of one monitor recorded one after the other in SQLite (temp file, WAL), each routed to
${String(CHANNELS)} Slack channels (tags and severities checked; ${String(CHANGES * CHANNELS)} messages written with the check, in its
transaction); then the messages delivered from the outbox in claims of ${String(BATCH)} with a lease, ${String(CONCURRENCY)} sends in flight,
each opening the channel's sealed URL (AES-256-GCM), formatting Slack Block Kit and POSTing to a loopback server speaking
Slack's webhook API (\`DRIFTWATCH_SLACK_API_URL\`), its attempt recorded. The peer sends the same notification with the
same notifier and concurrency, straight to the service (no store, no outbox). The outbox is measured twice in the same run:
each attempt recorded in its own transaction (as the worker did before), then the attempts of sends that finish together
recorded in one transaction (group commit, \`recordChannelDeliveryAttempts\`); both claim on the index of pending messages by
organization (migration 12), the second time on ${String(CHANGES)} more changes).

| | figure |
|---|---|
| checks recorded per second, without channels | ${(CHANGES / plain.seconds).toFixed(0)} |
| checks recorded per second, routed to ${String(CHANNELS)} channels | ${(CHANGES / routed.seconds).toFixed(0)} |
| routing and outbox writes per check (${String(CHANNELS)} messages) | ${routingOverheadMs.toFixed(2)} ms |
| messages delivered per second from the outbox, one transaction per attempt | ${perMessagePerSecond.toFixed(0)} |
| messages delivered per second from the outbox, attempts in group commits (claim, open, format, POST, record) | ${perSecond.toFixed(0)} |
| peer: messages sent per second without the outbox | ${peerPerSecond.toFixed(0)} |
| outbox / peer, one transaction per attempt | ${(perMessagePerSecond / peerPerSecond).toFixed(2)} |
| outbox / peer, group commits | ${(perSecond / peerPerSecond).toFixed(2)} |
| the outbox's share of a delivered message's time, one transaction per attempt | ${Math.max(0, (1 - perMessagePerSecond / peerPerSecond) * 100).toFixed(0)} % |
| the outbox's share of a delivered message's time, group commits | ${Math.max(0, (1 - perSecond / peerPerSecond) * 100).toFixed(0)} % |

Load average during the run: ${loadBefore} before, ${loadAverage()} after (other work on the machine lowers every figure).`;
writeBenchSection("server-engine-channels", markdown);
console.log(markdown);
