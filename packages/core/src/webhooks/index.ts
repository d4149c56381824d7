export {
  buildDiffDetectedEvent,
  buildPendingDiffDetectedEvent,
  completeEventForDelivery,
  serializeEventForDelivery,
  type BuildEventOptions,
  type DiffForEvent,
  type PendingDiffDetectedEvent,
  type PendingEventOptions,
} from "./envelope.js";
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  WebhookVerificationError,
  activeWebhookSecrets,
  decodeWebhookSecret,
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  type SignWebhookOptions,
  type VerifyWebhookOptions,
  type WebhookHeaderValues,
  type WebhookHeadersInput,
  type WebhookSecretState,
  type WebhookVerificationReason,
} from "./signing.js";
export { createSignedDelivery, type SignedDelivery, type SignedDeliveryInput } from "./delivery.js";
