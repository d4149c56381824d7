import { request, type Dispatcher } from "undici";
import { toFetchError } from "./errors.js";
import { createGuardedDispatcher, type GuardOptions } from "./guard.js";

/** One signed webhook POST, as the delivery engine hands it over. */
export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Aborted at the attempt's deadline or when the engine stops. */
  signal: AbortSignal;
}

/** The receiver's answer: only the status and `Retry-After` are used. */
export interface WebhookPostResult {
  status: number;
  retryAfter?: string | undefined;
}

export interface WebhookTransportOptions extends GuardOptions {
  /** Connect timeout of the default guarded dispatcher (default 15 s). */
  connectTimeoutMs?: number;
  /** Sends through this dispatcher instead of a guarded one built from the guard options (yours: `close()` leaves it open). */
  dispatcher?: Dispatcher;
}

/** What `@driftwatch/engine` delivers webhooks through (its `WebhookTransport` port). */
export interface GuardedWebhookTransport {
  post(post: WebhookPost): Promise<WebhookPostResult>;
  close(): Promise<void>;
}

/** How much of a receiver's answer is read, so the connection can be reused. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * Webhook POSTs through the SSRF guard: every connection's resolved address is checked (the
 * guarded dispatcher), redirects are never followed, and network errors become `FetchError`s
 * (`unsafe_url`, `dns_failure`, `timeout`, `connection_failed`, ...).
 */
export function createWebhookTransport(options: WebhookTransportOptions = {}): GuardedWebhookTransport {
  const { dispatcher: given, connectTimeoutMs, ...guard } = options;
  const dispatcher = given ?? createGuardedDispatcher({ ...guard, connectTimeoutMs: connectTimeoutMs ?? 15_000 });
  return {
    async post({ url, body, headers, signal }) {
      try {
        const response = await request(url, { method: "POST", body, headers, dispatcher, signal });
        await response.body.dump({ limit: DRAIN_LIMIT_BYTES }).catch(() => undefined);
        const retryAfter = response.headers["retry-after"];
        return { status: response.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
      } catch (error) {
        if (signal.aborted) throw error;
        throw toFetchError(error, url);
      }
    },
    async close() {
      if (given === undefined) await dispatcher.close();
    },
  };
}
