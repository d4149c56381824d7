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
export { CHECK_JITTER_RATIO, FAILING_THRESHOLD, MAX_BACKOFF_MS, nextCheckTime } from "../pipeline/schedule.js";
export {
  createMetrics,
  type CheckMetricResult,
  type DeliveryMetricOutcome,
  type EngineMetrics,
  type MetricsOptions,
} from "./metrics.js";
