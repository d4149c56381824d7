import { createGuardedDispatcher, isFetchError, toFetchError, type GuardOptions } from "@driftwatch/fetcher-http";
import { request, type Dispatcher } from "undici";

/** One request a channel sends. */
export interface HttpRequest {
  method: "POST" | "PUT" | "GET";
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The service's answer: status, lower-case headers, and the start of the body. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends a request. The default goes through `@driftwatch/fetcher-http`'s guarded dispatcher;
 * pass your own (the server's guard, a proxy, a recorder) as `transport`. It must not follow
 * redirects, and should throw a `FetchError` (`unsafe_url`, `timeout`, `connection_failed`, ...)
 * when it cannot get an answer.
 */
export type HttpTransport = (request: HttpRequest & { signal: AbortSignal }) => Promise<HttpAnswer>;

/** Services' error bodies are short; more is not read. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface DefaultTransport {
  transport: HttpTransport;
  close(): Promise<void>;
}

/** The default transport: undici through the SSRF-guarded dispatcher, no redirects. */
export function createDefaultTransport(guard: GuardOptions = {}, dispatcher?: Dispatcher): DefaultTransport {
  const agent = dispatcher ?? createGuardedDispatcher({ ...guard, connectTimeoutMs: 15_000 });
  return {
    async transport({ method, url, headers, body, signal }) {
      try {
        const response = await request(url, { method, headers, body: body ?? null, dispatcher: agent, signal });
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of response.body as AsyncIterable<Buffer>) {
          if (size < MAX_ANSWER_BYTES) chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - size));
          size += chunk.length;
          if (size >= MAX_ANSWER_BYTES) {
            response.body.destroy();
            break;
          }
        }
        const answerHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) answerHeaders[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
        }
        return { status: response.statusCode, headers: answerHeaders, body: Buffer.concat(chunks).toString("utf8") };
      } catch (error) {
        if (isFetchError(error)) throw error;
        throw toFetchError(error, url);
      }
    },
    async close() {
      if (dispatcher === undefined) await agent.close();
    },
  };
}
