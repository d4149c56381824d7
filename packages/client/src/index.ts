export { Driftwatch } from "./client.js";
export { API_VERSION, APIPromise, backoffDelay, parseRetryAfter, type ClientOptions, type FetchLike, type RequestOptions, type ResponseMeta } from "./core.js";
export { PagePromise, PageResult } from "./pagination.js";
export * from "./errors.js";
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookHeaders } from "./webhooks.js";
export { parseEventBlock } from "./resources.js";
export type { DiffListParams, ListParams, LiveEvent, StreamEvent } from "./resources.js";
export type {
  ApiDiff,
  Change,
  CheckResult,
  Delivery,
  DeliveryAttemptLogEntry,
  DeliveryDetail,
  Diff,
  DiffDetectedEvent,
  Monitor,
  MonitorCreate,
  MonitorUpdate,
  NoiseEvidence,
  NoiseProfile,
  Page,
  PolicyRules,
  PolicyRulesInput,
  Problem,
  Settings,
  SettingsPreview,
  SettingsPreviewRequest,
  PreviewDiff,
  SettingsUpdate,
  Severity,
  Snapshot,
  Token,
  TokenCreate,
  Webhook,
  WebhookCreate,
  WebhookUpdate,
  WebsiteDiff,
  WorkerRunResult,
} from "@driftwatch/schema";
