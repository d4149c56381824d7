import { isFetchError, resolveGuarded, assertSafeUrl, type GuardOptions } from "@driftwatch/fetcher-http";
import type { ChannelConfig, ChannelContext, ChannelDefinition, SendResult } from "./channel.js";
import { BUILTIN_CHANNELS } from "./channels/index.js";
import { NotifyError, isNotifyError } from "./errors.js";
import { buildMessage, parseNotification, type Notification } from "./notification.js";
import { maskSecretsInUrl, redactConfig } from "./secrets.js";
import { compileTemplate, templateView, type CompiledTemplate } from "./template.js";
import { createDefaultTransport, type HttpTransport } from "./transport.js";

export interface NotifierOptions {
  /** Extra channels (yours), added to the built-in ones; a scheme may not be taken twice. */
  channels?: readonly ChannelDefinition[];
  /** Leave the built-in channels out (only `channels`). Default false. */
  builtins?: boolean;
  /**
   * The environment to read `DRIFTWATCH_<SERVICE>_API_URL` and `DRIFTWATCH_PUBLIC_URL` from.
   * Not read from `process.env` unless you pass it.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** The dashboard's base URL for links (overrides `env.DRIFTWATCH_PUBLIC_URL`). */
  publicUrl?: string;
  /** SSRF guard of the default transport and of SMTP connections (`@driftwatch/fetcher-http`). */
  guard?: GuardOptions;
  /**
   * Checks every URL before it is sent to (default: `assertSafeUrl` with `guard`). The server
   * passes its own guard here; it should throw a `FetchError` with code `unsafe_url`.
   */
  checkUrl?: (url: string) => Promise<void>;
  /** Sends HTTP requests (default: undici through the guarded dispatcher). */
  transport?: HttpTransport;
  /** Time allowed for one send, every request of it included. Default 15 000 ms. */
  timeoutMs?: number;
  now?: () => Date;
}

export interface SendOptions {
  /** A template source or a compiled template for the message body. */
  template?: string | CompiledTemplate | undefined;
  signal?: AbortSignal;
}

export interface Notifier {
  /** The registered channels. */
  readonly channels: readonly ChannelDefinition[];
  /** Parses a channel URL; throws `invalid_channel_url` / `unsupported_channel`. */
  parse(url: string): ChannelConfig;
  /** Formats without sending (previews, tests): the service's request payload. */
  format(target: string | ChannelConfig, notification: Notification, options?: Pick<SendOptions, "template">): unknown;
  /** Formats and sends; never throws for what the service or the network did, only for bad input. */
  send(target: string | ChannelConfig, notification: Notification, options?: SendOptions): Promise<SendResult>;
  /** Compiles a template, throwing `invalid_template` naming the problem. */
  compileTemplate(source: string): CompiledTemplate;
  /** The config with every secret replaced by `***`. */
  redact(config: ChannelConfig): ChannelConfig;
  /** The URL with every secret replaced by `***`; safe to log and to return. */
  maskUrl(url: string): string;
  close(): Promise<void>;
}

/** Environment variable of a service's API base: `DRIFTWATCH_SLACK_API_URL`. */
export function apiUrlVariable(service: string): string {
  return `DRIFTWATCH_${service.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_URL`;
}

function overrideBase(service: string, env: NotifierOptions["env"]): URL | undefined {
  const value = env?.[apiUrlVariable(service)];
  if (value === undefined || value === "") return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new NotifyError("invalid_options", `${apiUrlVariable(service)} is not a URL`, { service });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new NotifyError("invalid_options", `${apiUrlVariable(service)} must be an http(s) URL`, { service });
  }
  return parsed;
}

/** Creates the registry of channels and the sender. */
export function createNotifier(options: NotifierOptions = {}): Notifier {
  const channels: ChannelDefinition[] = [...(options.builtins === false ? [] : BUILTIN_CHANNELS), ...(options.channels ?? [])];
  const bySchemes = new Map<string, ChannelDefinition>();
  const byService = new Map<string, ChannelDefinition>();
  for (const channel of channels) {
    if (byService.has(channel.service)) throw new NotifyError("invalid_options", `two channels are named ${channel.service}`);
    byService.set(channel.service, channel);
    for (const scheme of channel.schemes) {
      const key = scheme.toLowerCase();
      if (bySchemes.has(key)) throw new NotifyError("invalid_options", `the scheme ${key}:// is taken by ${bySchemes.get(key)?.service}`);
      bySchemes.set(key, channel);
    }
  }
  const overrides = new Map<string, URL>();
  for (const channel of channels) {
    const base = overrideBase(channel.service, options.env);
    if (base !== undefined) overrides.set(channel.service, base);
  }
  const publicUrl = options.publicUrl ?? options.env?.["DRIFTWATCH_PUBLIC_URL"];
  const guard = options.guard ?? {};
  // The default transport (an undici Agent) is made on the first send, so a notifier used only
  // to parse and mask URLs holds no connection pool.
  let fallback: ReturnType<typeof createDefaultTransport> | undefined;
  const transport: HttpTransport =
    options.transport ??
    ((request) => {
      fallback ??= createDefaultTransport(guard);
      return fallback.transport(request);
    });
  const checkUrl = options.checkUrl ?? ((url: string) => assertSafeUrl(url, guard));
  const now = options.now ?? (() => new Date());
  const timeoutMs = options.timeoutMs ?? 15_000;

  function definitionFor(url: string): ChannelDefinition {
    if (typeof url !== "string") throw new NotifyError("invalid_channel_url", "a channel URL must be a string");
    const scheme = /^\s*([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
    if (scheme === undefined) throw new NotifyError("invalid_channel_url", "not a URL of the form scheme://...", { details: [{ path: "url", message: "no scheme" }] });
    if (scheme === "http" || scheme === "https") {
      let parsed: URL;
      try {
        parsed = new URL(url.trim());
      } catch {
        throw new NotifyError("invalid_channel_url", "not a valid URL", { details: [{ path: "url", message: "invalid" }] });
      }
      const match = channels.find((channel) => channel.matchesUrl?.(parsed) === true);
      if (match !== undefined) return match;
      throw new NotifyError("unsupported_channel", `no channel takes ${parsed.protocol}//${parsed.host} URLs; use json:// or webhook:// for an endpoint of your own`, {
        details: [{ path: "url", message: "unknown provider URL" }],
      });
    }
    const channel = bySchemes.get(scheme);
    if (channel === undefined) {
      throw new NotifyError("unsupported_channel", `no channel takes ${scheme}:// URLs`, { details: [{ path: "url", message: `unknown scheme ${scheme}` }] });
    }
    return channel;
  }

  function parse(url: string): ChannelConfig {
    const definition = definitionFor(url);
    const parsed = definition.parse(url.trim());
    return { service: definition.service, options: parsed.options as Record<string, unknown>, secrets: parsed.secrets };
  }

  function resolve(target: string | ChannelConfig): { definition: ChannelDefinition; config: ChannelConfig } {
    const config = typeof target === "string" ? parse(target) : target;
    const definition = byService.get(config.service);
    if (definition === undefined) throw new NotifyError("unsupported_channel", `no channel named ${config.service}`);
    return { definition, config };
  }

  function templateRenderer(template: SendOptions["template"], model: ReturnType<typeof buildMessage>): (escape: (text: string) => string) => string | undefined {
    const compiled = template === undefined || template === "" ? undefined : typeof template === "string" ? compileTemplate(template) : template;
    return (escape: (text: string) => string): string | undefined => compiled?.render(templateView(model), escape);
  }

  function formatWith(definition: ChannelDefinition, config: ChannelConfig, input: Notification, template: SendOptions["template"]): unknown {
    const notification = parseNotification(input);
    if (definition.events !== undefined && !definition.events.includes(notification.event)) {
      throw new NotifyError("unsupported_event", `${definition.title} channels do not send ${notification.event} events`, { service: definition.service });
    }
    const model = buildMessage(notification, { publicUrl });
    return definition.format(model, config.options, { renderTemplate: templateRenderer(template, model) }, notification);
  }

  return {
    channels,
    parse,
    format(target, notification, sendOptions = {}) {
      const { definition, config } = resolve(target);
      return formatWith(definition, config, notification, sendOptions.template);
    },
    async send(target, notification, sendOptions = {}) {
      const { definition, config } = resolve(target);
      const payload = formatWith(definition, config, notification, sendOptions.template);
      const signals = [AbortSignal.timeout(timeoutMs), ...(sendOptions.signal ? [sendOptions.signal] : [])];
      const signal = AbortSignal.any(signals);
      const override = overrides.get(definition.service);
      const context: ChannelContext = {
        endpoint(url) {
          if (override === undefined) return url;
          const service = new URL(url);
          const prefix = override.pathname.replace(/\/+$/, "");
          return `${override.origin}${prefix}${service.pathname}${service.search}`;
        },
        async http(request) {
          await checkUrl(request.url);
          return transport({ ...request, signal });
        },
        guard,
        async checkHost(host) {
          const [first] = await resolveGuarded(host, guard);
          return (first as { address: string }).address;
        },
        signal,
        now,
        renderTemplate: () => undefined,
      };
      try {
        return await definition.send(payload, config.options, context);
      } catch (error) {
        return errorResult(error, signal);
      }
    },
    compileTemplate,
    redact: redactConfig,
    maskUrl(url) {
      try {
        return maskSecretsInUrl(url, parse(url));
      } catch {
        return maskSecretsInUrl(url, undefined);
      }
    },
    async close() {
      await fallback?.close();
    },
  };
}

/**
 * Masks the secrets of a channel URL with the built-in channels' parsers (an unparseable URL is
 * masked whole). Safe to log and to return in an API answer.
 */
export function maskUrl(url: string): string {
  return createNotifier().maskUrl(url);
}

/** A send that got no answer: network trouble retries, a refused or invalid destination fails. */
function errorResult(error: unknown, signal: AbortSignal): SendResult {
  if (isFetchError(error)) {
    const code = (error as { code: string }).code;
    if (code === "unsafe_url" || code === "invalid_url") return { outcome: "failed", reason: `${code}: the destination is refused by the SSRF guard or invalid` };
    return { outcome: "retry", afterSeconds: undefined, reason: `${code}: no answer from the service` };
  }
  if (signal.aborted) return { outcome: "retry", afterSeconds: undefined, reason: "timeout: no answer in time" };
  if (isNotifyError(error)) return { outcome: "failed", reason: error.message };
  const code = (error as { code?: unknown } | null)?.code;
  return { outcome: "retry", afterSeconds: undefined, reason: `send failed${typeof code === "string" ? ` (${code})` : ""}` };
}
