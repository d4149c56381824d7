import { performance } from "node:perf_hooks";
import type { ChannelAttemptEntry, ChannelDeliveryRecord, ChannelRecord, ClaimedChannelDelivery, DeliveryAttempt, Store } from "@driftwatch/core";
import { DEFAULT_DELIVERY_CONCURRENCY, DEFAULT_ENDPOINT_CONCURRENCY, DEFAULT_ORG_SHARE, MAX_RETRY_AFTER_MS } from "../limits.js";
import { createFairQueue, orgSlots } from "../queue/fair-queue.js";
import { defaultOwner } from "../queue/work-queue.js";
import type { DeliverDueOptions, DeliverDueResult } from "./delivery.js";
import { MAX_DELIVERY_ATTEMPTS, nextDeliveryDelayMs } from "./retry.js";

/** What a service answered to one message (see `SendResult` of `@driftwatch/notify`). */
export type ChannelSendResult =
  | { outcome: "delivered"; status?: number | undefined }
  /** Try again: after `afterSeconds` when the service said so (`Retry-After`, `retry_after`), never sooner than the schedule. */
  | { outcome: "retry"; status?: number | undefined; afterSeconds?: number | undefined; reason: string }
  /** The hook, bot or chat is gone: the channel is marked failing, its messages wait until it is fixed. */
  | { outcome: "gone"; status?: number | undefined; reason: string }
  /** The service refused this message: retrying it will not help. */
  | { outcome: "failed"; status?: number | undefined; reason: string };

/**
 * Sends a message to a channel's service. Several payloads (the notifications of one grouping
 * window, or those held by quiet hours) are one message. Never throws for what the service or the
 * network did; a throw is counted as a failed attempt to retry.
 */
export interface ChannelSender {
  send(channel: ChannelRecord, payloads: readonly unknown[], signal: AbortSignal): Promise<ChannelSendResult>;
}

export interface ChannelDeliveryServiceOptions {
  store: Store;
  sender: ChannelSender;
  now?: () => Date;
  random?: () => number;
  /** Lease owner (default `channels:<hostname>:<pid>:<random>`). */
  owner?: string;
  /** A claimed message's lease: longer than a send may take (default 60 s; sends time out after 15 s). */
  leaseMs?: number;
  /** Sends in flight at once (default 16). */
  concurrency?: number;
  /** Sends in flight at once to one channel (default 4). */
  channelConcurrency?: number;
  /** Share of the slots one organization may hold while another's messages wait (default 0.5). */
  orgShare?: number;
  /** Per send (default 20 s: the notifier's own 15 s deadline and a margin). */
  timeoutMs?: number;
}

export interface ChannelDeliveryService {
  /** Claims due messages, sends each channel's claimed messages as one, records the attempts. */
  deliverDue(options: DeliverDueOptions & { channelId?: string | undefined }): Promise<DeliverDueResult>;
  /** Hands back the leases this service holds (a graceful stop). */
  releaseAll(): Promise<number>;
}

interface Batch {
  channel: ChannelRecord | null;
  channelId: string;
  orgId: string;
  messages: ClaimedChannelDelivery[];
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Most attempts one write records (one transaction). */
const MAX_ATTEMPTS_PER_WRITE = 256;

/**
 * Records the attempts of finished sends with a group commit: the sends that finish while a write
 * runs (or in the same turn of the event loop) are recorded together by the next one, in one
 * transaction (`store.recordChannelDeliveryAttempts`), instead of one transaction per message. A
 * send's attempt is written as soon as the write before it ends, so the window in which a sent
 * message is not yet recorded (and would be sent again after its lease, with the same dedup key,
 * if the process died) is no longer than before. When a write of several fails, each is tried on
 * its own, so one bad row fails only its own message.
 */
function createAttemptWriter(store: Store, owner: string): (entries: ChannelAttemptEntry[]) => Promise<(ChannelDeliveryRecord | null)[]> {
  interface Waiting {
    entries: ChannelAttemptEntry[];
    resolve: (saved: (ChannelDeliveryRecord | null)[]) => void;
    reject: (error: unknown) => void;
  }
  const one = async (entries: readonly ChannelAttemptEntry[]): Promise<(ChannelDeliveryRecord | null)[]> => {
    const saved: (ChannelDeliveryRecord | null)[] = [];
    for (const { id, attempt } of entries) saved.push(await store.recordChannelDeliveryAttempt(id, owner, attempt));
    return saved;
  };
  const many = store.recordChannelDeliveryAttempts?.bind(store);
  if (many === undefined) return one;
  const queue: Waiting[] = [];
  let running = false;
  async function drain(): Promise<void> {
    running = true;
    try {
      // The sends that finish in this turn of the event loop join the first write.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (queue.length > 0) {
        const take: Waiting[] = [];
        let count = 0;
        while (queue.length > 0 && (take.length === 0 || count + queue[0]!.entries.length <= MAX_ATTEMPTS_PER_WRITE)) {
          const next = queue.shift()!;
          take.push(next);
          count += next.entries.length;
        }
        try {
          const saved = await many!(owner, take.flatMap((w) => w.entries));
          let at = 0;
          for (const waiting of take) {
            waiting.resolve(saved.slice(at, at + waiting.entries.length));
            at += waiting.entries.length;
          }
        } catch (error) {
          if (take.length === 1) {
            take[0]!.reject(error);
            continue;
          }
          for (const waiting of take) await one(waiting.entries).then(waiting.resolve, waiting.reject);
        }
      }
    } finally {
      running = false;
    }
  }
  return (entries) =>
    new Promise((resolve, reject) => {
      queue.push({ entries, resolve, reject });
      if (!running) void drain();
    });
}

/**
 * Notification delivery from the channels' outbox, on the webhook delivery's machinery: the
 * claims are the store's leases (organizations in turn), the retry schedule is the webhooks'
 * (`DELIVERY_RETRY_DELAYS_MS` with jitter, a service's `Retry-After` / `retry_after` honoured but
 * never sooner than the schedule), and the claimed work waits in a fair queue (per channel and per
 * organization). A channel with a grouping window or quiet hours gets its changes claimed together
 * (the window's, or what quiet hours held) as one message; other channels get each on its own. A "gone" answer marks the channel failing with the service's
 * reason: its messages stay pending, unclaimed, until the channel is fixed.
 */
export function createChannelDeliveryService(options: ChannelDeliveryServiceOptions): ChannelDeliveryService {
  const { store, sender } = options;
  const now = options.now ?? ((): Date => new Date());
  const random = options.random ?? Math.random;
  const owner = options.owner ?? defaultOwner("channels");
  const leaseMs = options.leaseMs ?? 60_000;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_DELIVERY_CONCURRENCY);
  const channelCap = Math.max(1, options.channelConcurrency ?? DEFAULT_ENDPOINT_CONCURRENCY);
  const orgShare = options.orgShare ?? DEFAULT_ORG_SHARE;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const writeAttempts = createAttemptWriter(store, owner);

  async function attempt(batch: Batch, signal: AbortSignal | undefined): Promise<{ succeeded: number; failed: number } | "aborted"> {
    const at = now();
    const started = performance.now();
    let result: ChannelSendResult;
    if (batch.channel === null) {
      result = { outcome: "failed", reason: "the channel no longer exists" };
    } else {
      const deadline = AbortSignal.timeout(timeoutMs);
      try {
        const payloads = batch.messages.map((m) => JSON.parse(m.payload) as unknown);
        result = await sender.send(batch.channel, payloads, signal ? AbortSignal.any([deadline, signal]) : deadline);
      } catch (error) {
        if (signal?.aborted) return "aborted";
        result = { outcome: "retry", reason: deadline.aborted ? `timeout: no answer within ${String(timeoutMs)} ms` : `send failed: ${errorText(error)}` };
      }
      if (signal?.aborted && result.outcome === "retry") return "aborted";
    }
    const durationMs = performance.now() - started;
    const end = now();
    if (result.outcome === "gone" && batch.channel !== null) {
      // Stops retrying for days: the channel is failing until someone fixes it (PATCH url, or unpause).
      await store.updateChannel(batch.orgId, batch.channelId, { status: "failing", statusReason: result.reason.slice(0, 500), updatedAt: end.toISOString() });
    }
    const entries: ChannelAttemptEntry[] = batch.messages.map((message) => {
      const attemptNumber = message.attempts + 1;
      let state: DeliveryAttempt["state"];
      let nextAttemptAt: string | null = null;
      if (result.outcome === "delivered") state = "succeeded";
      else if (result.outcome === "failed") state = "failed";
      else if (result.outcome === "gone") {
        // Pending and due: sent as soon as the channel is fixed (a failing channel's messages are never claimed).
        state = "pending";
        nextAttemptAt = end.toISOString();
      } else if (attemptNumber >= MAX_DELIVERY_ATTEMPTS) state = "failed";
      else {
        state = "pending";
        const scheduled = nextDeliveryDelayMs(attemptNumber, random) ?? 0;
        const asked = result.afterSeconds === undefined ? 0 : Math.min(result.afterSeconds * 1000, MAX_RETRY_AFTER_MS);
        nextAttemptAt = new Date(end.getTime() + Math.max(scheduled, asked)).toISOString();
      }
      const error = result.outcome === "delivered" ? null : result.reason;
      return { id: message.id, attempt: { at: at.toISOString(), state, nextAttemptAt, responseStatus: result.status ?? null, error, durationMs } };
    });
    let succeeded = 0;
    let failed = 0;
    const saved = await writeAttempts(entries);
    for (const [index, record] of saved.entries()) {
      if (record === null) continue; // the lease was lost: another worker took it over
      if (entries[index]!.attempt.state === "succeeded") succeeded++;
      else failed++;
    }
    return { succeeded, failed };
  }

  async function deliverDue(run: DeliverDueOptions & { channelId?: string | undefined }): Promise<DeliverDueResult> {
    const result: DeliverDueResult = { claimed: 0, attempted: 0, succeeded: 0, failed: 0 };
    const limit = Math.max(0, Math.floor(run.limit));
    if (limit === 0) return result;
    const claimed = await store.claimDueChannelDeliveries({
      now: now().toISOString(),
      limit,
      leaseMs,
      owner,
      ...(run.orgId === undefined ? {} : { orgId: run.orgId }),
      ...(run.channelId === undefined ? {} : { channelId: run.channelId }),
      ...(run.force === true ? { force: true } : {}),
    });
    result.claimed = claimed.length;
    if (claimed.length === 0) return result;

    const channels = new Map<string, Promise<ChannelRecord | null>>();
    for (const message of claimed) if (!channels.has(message.channelId)) channels.set(message.channelId, store.getChannel(message.orgId, message.channelId));
    const channelOf = new Map<string, ChannelRecord | null>();
    await Promise.all([...channels.entries()].map(async ([id, read]) => channelOf.set(id, await read)));
    // A channel that groups (a grouping window, or quiet hours' summary) gets its claimed changes as
    // one message, oldest first; otherwise each message goes on its own, and a health event always
    // does, so a message the service refuses never takes another one's outcome.
    const batches = new Map<string, Batch>();
    for (const message of claimed) {
      const channel = channelOf.get(message.channelId) ?? null;
      const groups = channel !== null && (channel.groupSeconds > 0 || channel.quietHours !== null);
      const key = `${message.channelId}\u0000${groups && message.eventType === "diff.detected" ? "changes" : message.id}`;
      let batch = batches.get(key);
      if (batch === undefined) {
        batch = { channel, channelId: message.channelId, orgId: message.orgId, messages: [] };
        batches.set(key, batch);
      }
      batch.messages.push(message);
    }
    const waiting = createFairQueue<Batch>({ keyConcurrency: channelCap, orgSlots: orgSlots(concurrency, orgShare) });
    for (const batch of batches.values()) waiting.push(batch.orgId, batch.channelId, batch);
    const inFlight = new Set<Promise<void>>();
    let failure: unknown = null;
    const pump = (): void => {
      while (inFlight.size < concurrency && failure === null && run.signal?.aborted !== true) {
        const next = waiting.next();
        if (next === null) return;
        const task = (async () => {
          try {
            const outcome = await attempt(next.item, run.signal);
            if (outcome === "aborted") return;
            result.attempted += next.item.messages.length;
            result.succeeded += outcome.succeeded;
            result.failed += outcome.failed;
          } catch (error) {
            failure ??= error;
          }
        })();
        inFlight.add(task);
        void task.finally(() => {
          inFlight.delete(task);
          waiting.finish(next.orgId, next.key);
          pump();
        });
      }
    };
    pump();
    while (inFlight.size > 0) await Promise.race(inFlight);
    // What was not sent (aborted, or a store failure) keeps its lease until it expires, then is claimed again.
    waiting.drain();
    if (failure !== null) throw failure;
    return result;
  }

  return {
    deliverDue,
    releaseAll: () => store.releaseChannelDeliveryLeases(owner),
  };
}
