import { buildPendingDiffDetectedEvent, createSignedDelivery, decodeWebhookSecret } from "@driftwatch/core";
import { defineChannel } from "../channel.js";
import { NotifyError, invalidUrl } from "../errors.js";
import { origin, parseAppriseUrl, requireHost } from "../url.js";
import { sendAndClassify } from "./shared.js";

// driftwatch's signed webhook (docs/webhooks.md): the diff.detected envelope signed per the
// Standard Webhooks spec with `@driftwatch/core`'s signing. As a channel URL:
// webhooks://HOST[:PORT]/PATH?secret=whsec_... (webhook:// for plain http).

export interface WebhookOptions {
  url: string;
  secret: string;
}

export interface WebhookPayload {
  url: string;
  event: ReturnType<typeof buildPendingDiffDetectedEvent>;
}

export const webhookChannel = defineChannel<WebhookOptions, WebhookPayload>({
  service: "webhook",
  title: "Signed webhook",
  schemes: ["webhook", "webhooks"],
  events: ["diff.detected"],
  parse(raw) {
    const service = "webhook";
    const parts = parseAppriseUrl(raw, service);
    requireHost(service, parts.host);
    const secret = parts.query["secret"];
    if (secret === undefined || secret === "") throw invalidUrl(service, "query.secret", "a signing secret is required: webhooks://HOST/PATH?secret=whsec_...");
    try {
      decodeWebhookSecret(secret);
    } catch {
      throw invalidUrl(service, "query.secret", "the secret must be whsec_ followed by base64");
    }
    const rest = parts.rawQuery.filter(([key]) => key.toLowerCase() !== "secret");
    const search = new URLSearchParams(rest).toString();
    const url = `${origin(parts.scheme === "webhooks", parts.host, parts.port)}/${parts.path.map(encodeURIComponent).join("/")}${search === "" ? "" : `?${search}`}`;
    return { options: { url, secret }, secrets: ["secret"] };
  },
  format(_message, options, _context, notification) {
    if (notification.event !== "diff.detected") throw new NotifyError("unsupported_event", "signed webhooks send diff.detected only", { service: "webhook" });
    const { diff } = notification;
    if (diff.snapshotId === undefined) {
      throw new NotifyError("invalid_notification", "a signed webhook needs diff.snapshotId", { service: "webhook", details: [{ path: "diff.snapshotId", message: "required" }] });
    }
    const event = buildPendingDiffDetectedEvent(
      {
        id: diff.id,
        monitorId: notification.monitor.id,
        snapshotId: diff.snapshotId,
        classification: diff.classification,
        changes: diff.changes.map((c) => ({ path: c.path, category: c.category ?? (diff.classification === "schema_change" ? "schema" : "value"), op: c.op as "add", severity: c.severity, ...(c.from === undefined ? {} : { from: c.from }) })),
        ...(diff.schemaChanges === undefined ? {} : { schemaChanges: diff.schemaChanges }),
        ...(diff.valueChanges === undefined ? {} : { valueChanges: diff.valueChanges }),
      },
      { occurredAt: notification.occurredAt, eventId: notification.id },
    );
    return { url: options.url, event };
  },
  send(payload, options, context) {
    const delivery = createSignedDelivery({ event: payload.event, secrets: [options.secret], deliveredAt: context.now() });
    // As the webhook worker: 410 disables, 429/503 honour Retry-After, any other failure retries.
    return sendAndClassify(context, { method: "POST", url: payload.url, headers: { ...delivery.headers, "user-agent": "driftwatch-notify" }, body: delivery.body }, {
      retryStatuses: Array.from({ length: 100 }, (_, i) => 400 + i).filter((s) => s !== 410),
    });
  },
});
