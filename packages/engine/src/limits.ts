import { availableParallelism } from "node:os";

/**
 * Every bound and default of the engine in one place: what a target or a tenant can make it
 * compute, store and send, and how much work it holds at once. docs/deployment.md ("Limits")
 * lists the ones the server exposes as settings.
 */

/** Limits of the comparison step of a check (the first five are settings of the server). */
export interface CompareLimits {
  /** Bodies (new or previous) larger than this are compared in a worker thread. */
  workerThresholdBytes: number;
  /** A comparison in a worker running longer is stopped (the worker is terminated): `analysis_timeout`. */
  compareTimeoutMs: number;
  /** Content larger than this is not compared at all: `target_too_large`. */
  maxTargetBytes: number;
  /** Heap of one worker thread (old generation), in MB; a comparison past it fails with `target_too_large`. */
  workerMemoryMb: number;
  /** Worker threads at most (they start on demand and end when idle). */
  workers: number;
  /** A stored diff lists at most this many changes ... */
  maxDiffChanges: number;
  /** ... and at most this many bytes of them; past either cap it says `truncated: true`. */
  maxDiffBytes: number;
}

export const DEFAULT_COMPARE_LIMITS: CompareLimits = {
  workerThresholdBytes: 256 * 1024,
  compareTimeoutMs: 30_000,
  maxTargetBytes: 10 * 1024 * 1024,
  workerMemoryMb: 512,
  workers: Math.max(1, Math.min(4, availableParallelism() - 1)),
  maxDiffChanges: 1000,
  maxDiffBytes: 1024 * 1024,
};

/**
 * OpenAPI documents (a monitor's, a contract's) up to this many bytes in all (and never more than
 * `workerThresholdBytes`) are read, diffed and checked against on the calling thread; bigger ones
 * in a comparison worker thread. YAML takes about 4 ms per KiB to read at worst (a million compact
 * nodes, the most `maxYamlNodes` lets through, about 7 s), and a diff of two 250 KB JSON documents
 * can take 3 s: 16 KiB of either costs about 100 ms at most.
 */
export const OPENAPI_INLINE_YAML_BYTES = 16 * 1024;

/** A comparison worker thread idle this long ends (a new one starts on demand). */
export const COMPARE_WORKER_IDLE_MS = 30_000;
/** Young-generation heap of a comparison worker thread, in MB. */
export const COMPARE_WORKER_YOUNG_GENERATION_MB = 64;
/** Stack of a comparison worker thread, in MB (deep documents are walked iteratively past a depth). */
export const COMPARE_WORKER_STACK_MB = 8;

/** The limits `createEngine` takes (each may be changed alone). */
export interface EngineLimits extends CompareLimits {
  /** A webhook payload lists changes up to this size; past it `data.truncated` and `data.diffUrl`. */
  maxWebhookPayloadBytes: number;
}

export const DEFAULT_MAX_WEBHOOK_PAYLOAD_BYTES = 256 * 1024;

export const DEFAULT_ENGINE_LIMITS: EngineLimits = {
  ...DEFAULT_COMPARE_LIMITS,
  maxWebhookPayloadBytes: DEFAULT_MAX_WEBHOOK_PAYLOAD_BYTES,
};

/** Snapshots kept per monitor when its settings name no retention. */
export const DEFAULT_SNAPSHOT_RETENTION = 100;

// Checks and the scheduler

/** Checks in flight at once in one scheduler. */
export const DEFAULT_CHECK_CONCURRENCY = 8;
/** Checks in flight at once against one host (`hostname:port`). */
export const DEFAULT_PER_HOST_CONCURRENCY = 2;
/**
 * A claim (of a monitor to check or a delivery to attempt) holds this long without a heartbeat.
 * The heartbeat renews it every third of the lease while the work is held, so work that runs
 * long is never taken over, and the work of a process that died is taken over within one lease.
 */
export const DEFAULT_LEASE_MS = 20_000;
/** The shortest lease the engine accepts (the heartbeat must fit in it). */
export const MIN_LEASE_MS = 1_000;
/** How often held claims are renewed: a third of the lease, so two renewals may fail before it runs out. */
export function leaseRenewalMs(leaseMs: number): number {
  return Math.max(100, Math.floor(leaseMs / 3));
}
/**
 * @deprecated Claims are renewed by a heartbeat now; use {@link DEFAULT_LEASE_MS} (the default
 * lease of checks and deliveries alike).
 */
export const MONITOR_LEASE_MS = DEFAULT_LEASE_MS;
/**
 * While another organization's work waits, one organization runs at most this share of the check
 * slots (and of the delivery slots) at once; alone it may use them all.
 */
export const DEFAULT_ORG_SHARE = 0.5;
/** Wait between claims (monitors or deliveries) when nothing more is due. */
export const DEFAULT_POLL_INTERVAL_MS = 1000;
/** Monitors overdue at start are spread over at most this window (or their interval, when shorter). */
export const DEFAULT_SPREAD_WINDOW_MS = 60_000;
/** Only monitors overdue by more than this at start are spread; the others run as usual. */
export const DEFAULT_OVERDUE_AFTER_MS = 10_000;
/** Overdue monitors claimed per batch while they are spread at start. */
export const SPREAD_BATCH_SIZE = 200;
/** Most monitors one host may queue for its slots. */
export const MAX_HOST_QUEUE = 1000;
/** Most claimed monitors one scheduler holds (running and waiting). */
export const MAX_HELD_MONITORS = 10_000;
/** Hosts (or webhook endpoints) whose mean duration is remembered. */
export const MAX_DURATION_STATS = 10_000;
/** @deprecated Queues behind a host or receiver are no longer sized by measured durations (claims are renewed while they wait). */
export const ASSUMED_DURATION_MS = 1000;
/** Failure back-off never waits longer than this (unless the interval itself is longer). */
export const MAX_BACKOFF_MS = 3_600_000;
/** The next check is at least this far ahead, whatever the interval and jitter. */
export const MIN_CHECK_DELAY_MS = 1000;
/** Attempts to record one fetched content when other processes keep recording newer snapshots. */
export const MAX_STALE_RETRIES = 3;

// Noise learning

/** The snapshots a monitor's noise is learned from add up to at most this many bytes (see pipeline/noise.ts). */
export const NOISE_MAX_BYTES = 1024 * 1024;
/** Longest `rules`, `volatile`, `tolerance` and `unordered` list a policy may have (as PolicyRulesSchema allows). */
export const POLICY_LIST_MAX = 500;
/** How many monitors' learned noise one process keeps (least recently used are dropped). */
export const NOISE_CACHE_ENTRIES = 1000;
/**
 * The warm-up of a learning monitor (see docs/signal.md, "The first fetches"): extra fetches in
 * the check that stores its first content (at creation, after its target changed), each this long
 * after the one before (and warm-up requests of one process to one host at least this far apart).
 */
export const DEFAULT_WARMUP_SAMPLES = 2;
export const DEFAULT_WARMUP_INTERVAL_MS = 1000;
/**
 * A learning monitor's diff is a `learning` one while its noise profile was learned from fewer
 * than this many stored contents (see docs/signal.md, "Young monitors"): its third content is
 * judged from one pair, which cannot tell a rotating block from a changed headline.
 */
export const DEFAULT_LEARNING_SAMPLES = 3;
/** The most warm-up fetches and the most learning samples a monitor's settings may ask for. */
export const MAX_WARMUP_SAMPLES = 5;
export const MAX_LEARNING_SAMPLES = 10;

// Webhook deliveries

/** A receiver must answer with a 2xx within this time. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** @deprecated Claims are renewed by a heartbeat now; use {@link DEFAULT_LEASE_MS}. */
export const DELIVERY_LEASE_MS = DEFAULT_LEASE_MS;
/** Attempts in flight at once in one delivery service (a forced run starts all it claimed at once). */
export const DEFAULT_DELIVERY_CONCURRENCY = 16;
/** Attempts in flight at once to one webhook URL, over all orgs. */
export const DEFAULT_ENDPOINT_CONCURRENCY = 4;
/** Most deliveries one endpoint may queue, whatever its speed. */
export const MAX_ENDPOINT_QUEUE = 1000;
/** Deliveries the background worker claims per batch. */
export const DELIVERY_BATCH_SIZE = 100;
/** Most deliveries one `runWorker` call (`POST /api/webhooks/worker/run`) attempts. */
export const MAX_DELIVERIES_PER_RUN = 100;
/** How much of a receiver's answer the default transport reads (so the connection can be reused). */
export const RECEIVER_DRAIN_BYTES = 64 * 1024;
/** The longest `Retry-After` honoured; a receiver asking for more is retried after this. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;
/** How long the previous webhook secret keeps signing after a rotation. */
export const SECRET_ROTATION_GRACE_MS = 24 * 3_600_000;
