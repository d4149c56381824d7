import type { NotifyError } from "./errors.js";
import type { MessageModel, Notification, NotificationEvent } from "./notification.js";
import type { CompiledTemplate } from "./template.js";
import type { HttpAnswer, HttpRequest } from "./transport.js";
import type { GuardOptions } from "@driftwatch/fetcher-http";

/** How a service answered a send. */
export type SendResult =
  | { outcome: "delivered"; status?: number | undefined; detail?: string | undefined }
  /** Try again: after `afterSeconds` when the service said (`Retry-After`, `retry_after`), else on the caller's schedule. */
  | { outcome: "retry"; afterSeconds: number | undefined; status?: number | undefined; reason: string }
  /** The hook, bot or chat is gone (revoked, deleted, blocked): stop sending, mark the channel failing. */
  | { outcome: "gone"; status?: number | undefined; reason: string }
  /** The service refused this message (a bad request): retrying the same message will not help. */
  | { outcome: "failed"; status?: number | undefined; reason: string };

/** A parsed channel URL: the service, its typed options, and which options are secrets. */
export interface ChannelConfig<Options extends object = Record<string, unknown>> {
  readonly service: string;
  readonly options: Options;
  /** Dotted paths into `options` whose values are secrets (`token`, `headers.authorization`). */
  readonly secrets: readonly string[];
}

/** What a channel's parser returns. */
export interface ParsedChannel<Options extends object> {
  options: Options;
  secrets: readonly string[];
}

/** Everything a channel may use while formatting and sending. */
export interface ChannelContext {
  /** The service's endpoint, with `DRIFTWATCH_<SERVICE>_API_URL` applied to its origin. */
  endpoint(url: string): string;
  /** Sends one HTTP request through the guard; never throws for an HTTP status. */
  http(request: HttpRequest): Promise<HttpAnswer>;
  /** Guard options for connections that are not HTTP (SMTP). */
  readonly guard: GuardOptions;
  /** Checks a URL or host against the SSRF guard before a non-HTTP connection (SMTP). */
  checkHost(host: string): Promise<string>;
  readonly signal: AbortSignal;
  readonly now: () => Date;
  /** The template's output for the message body, escaped by `escape`; undefined without a template. */
  renderTemplate(escape: (text: string) => string): string | undefined;
}

/**
 * A notification service, as Apprise lays them out: one module per service owning its URL
 * grammar, its message format and the reading of its answers. Register your own with
 * `createNotifier({ channels: [myChannel] })`.
 */
export interface ChannelDefinition<Options extends object = any, Payload = any> {
  /** Lower-case id (`slack`); also the `<SERVICE>` of `DRIFTWATCH_<SERVICE>_API_URL`. */
  readonly service: string;
  /** Human name (`Slack`). */
  readonly title: string;
  /** URL schemes this channel parses (`slack`, `mailto`, `mailtos`). */
  readonly schemes: readonly string[];
  /** Events it can send; default every event. */
  readonly events?: readonly NotificationEvent[];
  /** True for a provider https URL this channel owns (a Slack webhook URL). */
  matchesUrl?(url: URL): boolean;
  /** Parses a URL; throws `invalid_channel_url` naming the problem (never the secret). */
  parse(url: string): ParsedChannel<Options>;
  /** The service's request(s) for a message (pure, no I/O). */
  format(message: MessageModel, options: Options, context: Pick<ChannelContext, "renderTemplate">, notification: Notification): Payload;
  /** Sends the formatted payload and classifies the answer. */
  send(payload: Payload, options: Options, context: ChannelContext): Promise<SendResult>;
}

/** The `Channel` port: what the engine delivers through and embedders implement. */
export type Channel<Options extends object = any, Payload = any> = ChannelDefinition<Options, Payload>;

/** Identity helper that types a channel definition. */
export function defineChannel<Options extends object, Payload>(definition: ChannelDefinition<Options, Payload>): ChannelDefinition<Options, Payload> {
  return definition;
}

export type { CompiledTemplate, NotifyError };
