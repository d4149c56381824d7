export {
  CheckError,
  contentHash,
  createCheckService,
  toPublicSnapshot,
  type CheckErrorCode,
  type CheckObserver,
  type CheckOutcome,
  type CheckServiceOptions,
  type EngineCheckService,
} from "../pipeline/check-service.js";
export { createNoiseLearner, mergeSuggestedPolicy, NOISE_MAX_BYTES, type LearnedNoise, type NoiseLearner, type NoiseLearnerOptions } from "../pipeline/noise.js";
export { CHECK_JITTER_RATIO, FAILING_THRESHOLD, MAX_BACKOFF_MS, nextCheckTime } from "../pipeline/schedule.js";
export {
  createMetrics,
  type CheckMetricResult,
  type DeliveryMetricOutcome,
  type EngineMetrics,
  type MetricsOptions,
} from "./metrics.js";
export {
  createDeliveryService,
  DEFAULT_ENDPOINT_CONCURRENCY,
  DELIVERY_LEASE_MS,
  DELIVERY_TIMEOUT_MS,
  type DeliverDueOptions,
  type DeliverDueResult,
  type DeliveryServiceOptions,
  type EngineDeliveryService,
} from "./delivery.js";
export { createDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions, type StopOptions } from "./delivery-worker.js";
export {
  DELIVERY_JITTER_RATIO,
  DELIVERY_RETRY_DELAYS_MS,
  MAX_DELIVERY_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  nextDeliveryDelayMs,
  parseRetryAfter,
} from "./retry.js";
export {
  createScheduler,
  DEFAULT_SPREAD_WINDOW_MS,
  MONITOR_LEASE_MS,
  type Scheduler,
  type SchedulerOptions,
  type SchedulerStopOptions,
} from "./scheduler.js";
