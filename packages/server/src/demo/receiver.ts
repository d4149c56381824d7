import http from "node:http";
import type { AddressInfo } from "node:net";
import { type DiffDetectedEvent, verifyWebhook } from "@driftwatch/core";

export interface DemoReceiver {
  /** `http://127.0.0.1:<port>/webhook` */
  url: string;
  origin: string;
  /** Verified events, oldest first, each once (deduplicated on eventId). */
  events(): DiffDetectedEvent[];
  close(): Promise<void>;
}

export interface DemoReceiverOptions {
  /** The secrets the webhook signs with now (checked on every request, so a rotation is picked up). */
  secrets(): Promise<string[]> | string[];
  /** Called once per newly verified event. */
  onEvent?(event: DiffDetectedEvent): void;
  /** Called for a request that failed verification. */
  onRejected?(reason: string): void;
}

/**
 * A webhook receiver on loopback for the demo: verifies the Standard Webhooks signature of each
 * delivery, deduplicates on `eventId` (delivery is at least once), and answers 204.
 */
export async function startDemoReceiver(options: DemoReceiverOptions): Promise<DemoReceiver> {
  const seen = new Map<string, DiffDetectedEvent>();
  const server = http.createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const secrets = await options.secrets();
        let lastError = "no webhook secret";
        for (const secret of secrets) {
          try {
            const event = verifyWebhook(body, req.headers, secret);
            if (!seen.has(event.eventId)) {
              seen.set(event.eventId, event);
              options.onEvent?.(event);
            }
            res.writeHead(204).end();
            return;
          } catch (error) {
            lastError = (error as Error).message;
          }
        }
        options.onRejected?.(lastError);
        res.writeHead(400, { "content-type": "text/plain" }).end(`verification failed: ${lastError}\n`);
      })().catch(() => res.writeHead(500).end());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/webhook`,
    origin,
    events: () => [...seen.values()],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
