// The public API of @driftwatch/engine: `createEngine`, and the parts it is made of for callers
// that compose their own (check pipeline, scheduler, delivery service and worker, metrics).
export {
  createEngine,
  type Engine,
  type EngineFetchers,
  type EngineOptions,
  type EngineStopOptions,
} from "./engine.js";
export type { CheckService, DeliveryService, EngineLogger, MetricsRegistry, UrlGuard, WebhookPost, WebhookTransport } from "./ports.js";
export * from "./limits.js";
export {
  ALL_SCOPES,
  bootstrapStore,
  rotateWebhookSecret,
  type BootstrapOptions,
  type BootstrapResult,
} from "./accounts.js";
export { generateTokenSecret, hashTokenSecret, isWellFormedToken, TOKEN_PREFIX, tokenHashesEqual } from "./tokens.js";
export { inferJsonSchema, normalizeJsonPath, VOLATILE_KEYWORD, type InferredSchema } from "./openapi/infer-schema.js";
export { ContractChecker, type ContractCheckerOptions } from "./openapi/contract-checker.js";
export {
  boundEvent,
  CheckError,
  contentHash,
  createCheckService,
  learningDiffNotifies,
  type ChangedPlace,
  silencedOf,
  toPublicSnapshot,
  type CheckErrorCode,
  type LearnedPolicy,
  type CheckObserver,
  type CheckOutcome,
  type CheckServiceOptions,
  type EngineCheckService,
  type RunCheckContext,
  type WarmupOptions,
} from "./pipeline/check-service.js";
export {
  createNoiseLearner,
  learnedOriginOf,
  mergeSuggestedPolicy,
  withoutRejected,
  type LearnedNoise,
  type LearnedOrigin,
  type NoiseCandidate,
  type NoiseLearner,
  type NoiseLearnerOptions,
} from "./pipeline/noise.js";
/** The rule `withoutRejected` applies (defined in @driftwatch/schema, shared with the dashboard). */
export { rejectionBlocks } from "@driftwatch/schema";
export { CHECK_JITTER_RATIO, FAILING_THRESHOLD, MAX_BACKOFF_MS, nextCheckTime } from "./pipeline/schedule.js";
export { createComparePool, type ComparePool, type ComparePoolErrorCode, type PooledBatchResult, type PooledCompareResult } from "./workers/compare-pool.js";
export {
  compareBatch,
  compareContent,
  hiddenOf,
  learnContent,
  truncateChanges,
  type CompareBatchTask,
  type CompareErrorCode,
  type CompareResult,
  type CompareTask,
  type ComparedDiff,
  type HiddenChanges,
  type LearnResult,
  type LearnTask,
} from "./workers/compare.js";
export {
  createMetrics,
  type CheckMetricResult,
  type DeliveryMetricOutcome,
  type EngineMetrics,
  type JobCounts,
  type JobStateCounts,
  type MetricsOptions,
  type WorkMetricKind,
  MAX_HOST_LAG_LABELS,
  MAX_ORG_LABELS,
} from "./metrics.js";
export {
  createDeliveryService,
  defaultOwner,
  type DeliverDueOptions,
  type DeliverDueResult,
  type DeliveryServiceOptions,
  type EngineDeliveryService,
} from "./delivery/delivery.js";
export { createFetchTransport } from "./delivery/fetch-transport.js";
export {
  createChannelDeliveryService,
  type ChannelDeliveryService,
  type ChannelDeliveryServiceOptions,
  type ChannelSender,
  type ChannelSendResult,
} from "./delivery/channel-delivery.js";
export { channelMessagesFor, notificationOf, CHANNEL_MESSAGE_MAX_CHANGES, MAX_CHANNELS, type ChannelNotice } from "./pipeline/channel-messages.js";
export { createDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions, type StopOptions } from "./delivery/delivery-worker.js";
export {
  DELIVERY_JITTER_RATIO,
  DELIVERY_RETRY_DELAYS_MS,
  MAX_DELIVERY_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  nextDeliveryDelayMs,
  parseRetryAfter,
} from "./delivery/retry.js";
export { createScheduler, type Scheduler, type SchedulerOptions, type SchedulerStopOptions } from "./scheduler.js";
export { createHeartbeat, createStoreWorkQueue, type Heartbeat, type StoreWorkQueueOptions, type WorkKind, type WorkQueue, type WorkQueueContext, type WorkQueueFactory } from "./queue/work-queue.js";
export { createFairQueue, orgSlots, type FairQueue, type FairQueueOptions } from "./queue/fair-queue.js";
export { createVisualChecks, DEFAULT_MAX_STORED_SCREENSHOT_BYTES, screenshotMaskOf, takesScreenshots, withVisual, type VisualChecks } from "./pipeline/visual.js";
