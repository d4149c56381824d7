import { createSleeper, finishWithin } from "../background-loop.js";
import { DELIVERY_BATCH_SIZE, DEFAULT_POLL_INTERVAL_MS } from "../limits.js";
import type { EngineDeliveryService } from "./delivery.js";

export interface DeliveryWorkerOptions {
  deliveries: Pick<EngineDeliveryService, "deliverDue">;
  /** Wait between polls when the outbox had nothing more due. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Deliveries claimed per batch. Default 100. */
  batchSize?: number;
  /** Called with an error of one batch (store unavailable, ...); the worker keeps polling. */
  onError?: (error: unknown) => void;
}

export interface StopOptions {
  /**
   * How long in-flight attempts may run before they are abandoned (unrecorded: their deliveries
   * stay pending and are retried when the lease expires). Default: wait for them.
   */
  graceMs?: number;
}

export interface DeliveryWorker {
  start(): void;
  /** No new claims; resolves when the in-flight batch has finished (or was abandoned after `graceMs`). */
  stop(options?: StopOptions): Promise<void>;
  /** Polls at once (e.g. after a check wrote to the outbox) instead of waiting for the interval. */
  wake(): void;
  readonly running: boolean;
}

/** The background delivery loop: claims due deliveries in batches, polling when the outbox is empty. */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const batchSize = Math.max(1, options.batchSize ?? DELIVERY_BATCH_SIZE);
  let running = false;
  let loop: Promise<void> | null = null;
  let abort = new AbortController();
  const sleeper = createSleeper();

  async function run(): Promise<void> {
    while (running) {
      let full = false;
      try {
        const result = await options.deliveries.deliverDue({ limit: batchSize, signal: abort.signal, pollMs: pollIntervalMs });
        full = result.claimed >= batchSize;
      } catch (error) {
        options.onError?.(error);
      }
      if (!running) break;
      if (!full) await sleeper.sleep(pollIntervalMs);
    }
  }

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      abort = new AbortController();
      loop = run();
    },
    async stop(stopOptions = {}) {
      running = false;
      sleeper.interrupt();
      const current = loop;
      if (current === null) return;
      try {
        await finishWithin(() => current, abort, stopOptions.graceMs, "delivery worker stopped");
      } finally {
        loop = null;
      }
    },
    wake() {
      sleeper.wake();
    },
  };
}
