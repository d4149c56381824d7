// npm run bench (server): notification channels. 10,000 changes routed to 5 Slack channels: the
// checks' routing and outbox writes (recordCheck with and without the channel messages), then the
// messages per second from the outbox to a loopback server speaking Slack's webhook API (claim
// with a lease, open the sealed URL, format Block Kit, POST, record the attempt) in rounds, each
// with the peer (the same messages sent by the same notifier straight to the service, no outbox)
// and the outboxes one after the other: SQLite with the attempts recorded one transaction per
// message, then in group commits (recordChannelDeliveryAttempts), and the same on PostgreSQL when
// it answers (tooling/test-postgres.ts, DRIFTWATCH_TEST_POSTGRES_URL; a database of its own,
// dropped after). DRIFTWATCH_BENCH_CHANGES (default 10,000) sets the changes per recording phase,
// DRIFTWATCH_BENCH_ROUNDS (5) and DRIFTWATCH_BENCH_ROUND_MESSAGES (2,000) the rounds.
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createSecretBox, generateSecretKey, parseSecretKeys, type MonitorRecord, type NewChannelDelivery, type Store } from "@driftwatch/core";
import { channelMessagesFor, createChannelDeliveryService } from "@driftwatch/engine";
import { createNotifier } from "@driftwatch/notify";
import { createPostgresStore } from "@driftwatch/store-postgres";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { changedCheck } from "@driftwatch/store-testkit";
import { createChannelSender } from "../src/notify/channel-sender.js";
import { channelSecretContext } from "../src/routes/channels.js";
import { createPostgresDatabase, postgresSkipReason } from "../../../tooling/test-postgres.js";
import { benchMonitor, listenLoopback, loadAverage, median, tempDir, writeBenchSection } from "./support.js";

const CHANGES = Number(process.env.DRIFTWATCH_BENCH_CHANGES ?? 10_000);
const CHANNELS = 5;
const CONCURRENCY = 32;
const BATCH = 200;
/** Messages each side sends in a round. */
const MESSAGES_PER_ROUND = Number(process.env.DRIFTWATCH_BENCH_ROUND_MESSAGES ?? 2_000);
const ROUNDS = Number(process.env.DRIFTWATCH_BENCH_ROUNDS ?? 5);

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
for (let i = 0; i < CHANNELS; i++) urls.push(`slack://T0BENCH0${String(i)}/B0BENCH0${String(i)}/benchS3cretT0ken000${String(i)}`);
/** The bench's channels in a store's organization (the same ids, URLs and routing in each store). */
async function createChannels(into: Store, orgId: string): Promise<void> {
  for (const [i, url] of urls.entries()) {
    const id = `ch_01BENCH0000000000000000000${String(i)}`;
    await into.createChannel(orgId, {
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
}
await createChannels(store, org.id);

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
const oneByOne = withoutGroupCommits(store);

/** `store` without `recordChannelDeliveryAttempts`. */
function withoutGroupCommits(of: Store): Store {
  return new Proxy(of, {
    get(target, property) {
      if (property === "recordChannelDeliveryAttempts") return undefined;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as Store;
}

/** Delivers every due message from the outbox; messages per second. */
async function deliverAll(from: Store, expected: number, orgId = org.id): Promise<number> {
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
  const attempts = await from.listChannelDeliveries(orgId, "ch_01BENCH00000000000000000000", { limit: 1 });
  if (attempts.data[0]?.state !== "succeeded" || attempts.data[0].attempts !== 1) throw new Error("a message was not recorded once");
  return sent / seconds;
}


// The routed messages delivered once (a warm-up: statements prepared, connections open), then
// rounds: each variant delivers MESSAGES_PER_ROUND fresh messages, and the peer sends as many,
// one after the other, so each round's ratios see the same machine load (the median of them).
await deliverAll(store, routed.messages);
const payload = (await store.listChannelDeliveries(org.id, "ch_01BENCH00000000000000000000", { limit: 1 })).data[0]!.payload;
const sample = JSON.parse(payload) as Parameters<typeof notifier.send>[1];

/** `count` messages (the channels' messages of `count / CHANNELS` changes, one call each), enqueued in `into`. */
async function enqueue(into: Store, orgId: string, round: string, count: number): Promise<void> {
  const createdAt = new Date(Date.now() - 60_000).toISOString();
  for (let i = 0; i < count / CHANNELS; i++) {
    await into.enqueueChannelDeliveries(
      orgId,
      urls.map((_, c) => ({
        channelId: `ch_01BENCH0000000000000000000${String(c)}`,
        dedupKey: `diff:${round}:${String(i)}`,
        eventType: "diff.detected" as const,
        monitorId: null,
        diffId: null,
        payload,
        createdAt,
        nextAttemptAt: createdAt,
      })),
    );
  }
}

/** The peer: the same notification, formatted and POSTed by the same notifier, no outbox; messages per second. */
async function peerRound(count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) {
        const result = await notifier.send(urls[i % CHANNELS]!, sample);
        if (result.outcome !== "delivered") throw new Error(`peer send: ${result.outcome}`);
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

interface Variant {
  name: string;
  store: Store;
  orgId: string;
}
const variants: Variant[] = [
  { name: "SQLite, one transaction per attempt", store: oneByOne, orgId: org.id },
  { name: "SQLite, group commits", store, orgId: org.id },
];
// PostgreSQL, when it answers: a database of its own, dropped after.
const postgresSkip = await postgresSkipReason().catch((error: unknown) => (error as Error).message);
const pgDatabase = postgresSkip === null ? await createPostgresDatabase("dw_bench_channels") : null;
const pgStore = pgDatabase === null ? null : await createPostgresStore({ connectionString: pgDatabase.url, max: 8 });
if (pgStore !== null) {
  const pgOrg = await pgStore.createOrganization({ slug: "bench" });
  await createChannels(pgStore, pgOrg.id);
  variants.push({ name: "PostgreSQL, one transaction per attempt", store: withoutGroupCommits(pgStore), orgId: pgOrg.id }, { name: "PostgreSQL, group commits", store: pgStore, orgId: pgOrg.id });
  // its warm-up
  await enqueue(pgStore, pgOrg.id, "warm-up", BATCH * 2);
  await deliverAll(pgStore, BATCH * 2, pgOrg.id);
}
const rates = new Map<string, number[]>(variants.map((v) => [v.name, []]));
const ratios = new Map<string, number[]>(variants.map((v) => [v.name, []]));
const peerRates: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const peer = await peerRound(MESSAGES_PER_ROUND);
  peerRates.push(peer);
  for (const variant of variants) {
    await enqueue(variant.store, variant.orgId, `round-${String(round)}-${variant.name}`, MESSAGES_PER_ROUND);
    const rate = await deliverAll(variant.store, MESSAGES_PER_ROUND, variant.orgId);
    rates.get(variant.name)!.push(rate);
    ratios.get(variant.name)!.push(rate / peer);
  }
}

await notifier.close();
await store.close();
await pgStore?.close();
await pgDatabase?.drop();
await slack.close();
temp.remove();

const routingOverheadMs = ((routed.seconds - plain.seconds) / CHANGES) * 1000;
const rows = variants
  .map((v) => {
    const ratio = median(ratios.get(v.name)!);
    return `| ${v.name} | ${median(rates.get(v.name)!).toFixed(0)} | ${ratio.toFixed(2)} | ${Math.max(0, (1 - ratio) * 100).toFixed(0)} % |`;
  })
  .join("\n");
const markdown = `## Server engine: notification channels (${CHANGES.toLocaleString("en")} changes to ${String(CHANNELS)} channels)

${String(CHANGES)} changes of one monitor recorded one after the other in SQLite (temp file, WAL), each routed to
${String(CHANNELS)} Slack channels (tags and severities checked; ${String(CHANGES * CHANNELS)} messages written with the check, in its
transaction). Then messages delivered from the outbox in claims of ${String(BATCH)} with a lease, ${String(CONCURRENCY)} sends in flight,
each opening the channel's sealed URL (AES-256-GCM), formatting Slack Block Kit and POSTing to a loopback server speaking
Slack's webhook API (\`DRIFTWATCH_SLACK_API_URL\`), its attempt recorded. The peer sends the same notification with the
same notifier and concurrency, straight to the service (no store, no outbox). ${String(ROUNDS)} rounds: in each, the peer sends
${String(MESSAGES_PER_ROUND)} messages, then each outbox delivers ${String(MESSAGES_PER_ROUND)} messages enqueued for it; the attempts recorded
one transaction per message (as the worker did before group commits), or those of sends that finish together in one
write (\`recordChannelDeliveryAttempts\`: one transaction on SQLite, one statement on PostgreSQL). Medians of the rounds; the
ratio is each round's outbox rate over that round's peer rate.${pgStore === null ? ` PostgreSQL not measured: ${postgresSkip ?? ""}.` : ""}

| | figure |
|---|---|
| checks recorded per second, without channels | ${(CHANGES / plain.seconds).toFixed(0)} |
| checks recorded per second, routed to ${String(CHANNELS)} channels | ${(CHANGES / routed.seconds).toFixed(0)} |
| routing and outbox writes per check (${String(CHANNELS)} messages) | ${routingOverheadMs.toFixed(2)} ms |
| peer: messages sent per second without the outbox | ${median(peerRates).toFixed(0)} |

| outbox | messages delivered per second | outbox / peer | the outbox's share of a message's time |
|---|---|---|---|
${rows}

Load average during the run: ${loadBefore} before, ${loadAverage()} after (other work on the machine lowers every figure).`;
writeBenchSection("server-engine-channels", markdown);
console.log(markdown);
