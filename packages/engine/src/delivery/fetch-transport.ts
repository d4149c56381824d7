import { RECEIVER_DRAIN_BYTES } from "../limits.js";
import type { WebhookTransport } from "../ports.js";

/** Reads at most `limit` bytes of a response body and drops the rest. */
async function drain(body: ReadableStream<Uint8Array> | null, limit: number): Promise<void> {
  if (body === null) return;
  const reader = body.getReader();
  let read = 0;
  try {
    while (read < limit) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The default webhook transport: Node's `fetch`, redirects not followed (a 3xx is an answer that
 * is not a 2xx: retried). It has no SSRF guard: use it where webhook URLs are yours.
 */
export function createFetchTransport(): WebhookTransport {
  return {
    async post({ url, body, headers, signal }) {
      const response = await fetch(url, { method: "POST", body, headers, signal, redirect: "manual" });
      await drain(response.body, RECEIVER_DRAIN_BYTES).catch(() => undefined);
      return { status: response.status, retryAfter: response.headers.get("retry-after") ?? undefined };
    },
    async close() {},
  };
}
