// A webhook receiver for driftwatch's diff.detected events.
//   DRIFTWATCH_WEBHOOK_SECRET=whsec_... PORT=3000 npm start
// It verifies the signature over the RAW body, answers 2xx fast, and handles each eventId once
// (delivery is at least once: a retry after a lost 200 sends the same event again).
import http from "node:http";
import { pathToFileURL } from "node:url";
import { verifyWebhook } from "@driftwatch/client";

/**
 * @param {{ secret: string, onEvent: (event: import("@driftwatch/client").DiffDetectedEvent) => void | Promise<void>, seen?: Set<string> }} options
 */
export function createReceiver({ secret, onEvent, seen = new Set() }) {
  return http.createServer(async (req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    let event;
    try {
      event = await verifyWebhook(rawBody, req.headers, secret);
    } catch (error) {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: error.reason ?? "invalid" }));
      return;
    }
    // Dedupe on eventId. A real receiver keeps this in its database, in the same transaction
    // as the work the event triggers.
    if (seen.has(event.eventId)) {
      res.writeHead(200).end("duplicate");
      return;
    }
    seen.add(event.eventId);
    await onEvent(event);
    res.writeHead(204).end();
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const secret = process.env.DRIFTWATCH_WEBHOOK_SECRET;
  if (!secret) {
    console.error("Set DRIFTWATCH_WEBHOOK_SECRET to the webhook's secret (whsec_...).");
    process.exit(2);
  }
  const port = Number(process.env.PORT ?? 3000);
  createReceiver({
    secret,
    onEvent: (event) => {
      const { classification, changes } = event.data;
      console.log(`${event.eventId}: ${classification} on ${event.monitorId}, ${changes.length} change(s)`);
      for (const change of changes) console.log(`  ${change.severity.padEnd(8)} ${change.op.padEnd(7)} ${change.path}`);
    },
  }).listen(port, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${port}/`));
}
