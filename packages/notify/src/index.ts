export { createNotifier, apiUrlVariable, maskUrl, type Notifier, type NotifierOptions, type SendOptions } from "./notifier.js";
export { defineChannel, type Channel, type ChannelConfig, type ChannelContext, type ChannelDefinition, type ParsedChannel, type SendResult } from "./channel.js";
export { NotifyError, isNotifyError, invalidUrl, type NotifyErrorCode } from "./errors.js";
export {
  buildMessage,
  changeLine,
  changeValues,
  createTestNotification,
  parseNotification,
  DiffNotificationSchema,
  HealthNotificationSchema,
  NotificationSchema,
  type DiffNotification,
  type HealthNotification,
  type MessageChange,
  type MessageModel,
  type MessageOptions,
  type Notification,
  type NotificationEvent,
} from "./notification.js";
export { compileTemplate, templateView, type CompiledTemplate, type TemplateView, type TemplateValue } from "./template.js";
export { redactConfig as redact, maskSecretsInUrl, MASK } from "./secrets.js";
export { parseAppriseUrl, type AppriseUrl } from "./url.js";
export { classifyAnswer, combineResults, retryAfter, retryAfterHeader, answerReason, type ClassifyOptions } from "./answer.js";
export { createDefaultTransport, type HttpAnswer, type HttpRequest, type HttpTransport } from "./transport.js";
export { cleanText, escapeHtml, escapeMarkdown, escapeSlack, neutraliseMentions, oneLine, truncate } from "./text.js";
export * from "./channels/index.js";
export { groupDiffNotifications, groupNotifications, sendAll, GROUP_MAX_CHANGES } from "./group.js";
