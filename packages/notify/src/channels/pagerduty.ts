import { defineChannel } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { changeLine } from "../notification.js";
import { oneLine, truncate } from "../text.js";
import { parseAppriseUrl } from "../url.js";
import { jsonRequest, sendAndClassify } from "./shared.js";

// PagerDuty Events API v2 (https://developer.pagerduty.com/docs/events-api-v2/trigger-events/):
// POST /v2/enqueue; a change or a failing monitor triggers, a recovered monitor resolves. Two
// dedup keys per monitor: its changes (`driftwatch:<monitorId>`) land on one open incident until
// someone resolves it, and its health (`driftwatch:<monitorId>:health`) on another, which a
// recovery resolves; a recovery never closes the incident of a change nobody looked at yet.
// summary is at most 1024 characters; the whole event at most 512 KB.

export interface PagerDutyOptions {
  integrationKey: string;
  apiKey: string | undefined;
  region: "us" | "eu";
  source: string | undefined;
  component: string | undefined;
  group: string | undefined;
  class: string | undefined;
}

const ENDPOINTS = { us: "https://events.pagerduty.com/v2/enqueue", eu: "https://events.eu.pagerduty.com/v2/enqueue" } as const;
const SEVERITY: Record<string, string> = { critical: "critical", high: "error", medium: "warning", low: "info", info: "info" };
export const PAGERDUTY_LIMITS = { summary: 1024 } as const;

export interface PagerDutyPayload {
  url: string;
  body: Record<string, unknown>;
}

export const pagerDutyChannel = defineChannel<PagerDutyOptions, PagerDutyPayload>({
  service: "pagerduty",
  title: "PagerDuty",
  schemes: ["pagerduty"],
  parse(raw) {
    const service = "pagerduty";
    const parts = parseAppriseUrl(raw, service);
    // Apprise: pagerduty://INTEGRATION_KEY@API_KEY[/SOURCE[/COMPONENT]]; the Events API needs only the integration (routing) key.
    const integrationKey = parts.user ?? parts.query["integrationkey"] ?? parts.host;
    const apiKey = parts.user !== undefined ? parts.host : parts.query["apikey"];
    if (!/^[A-Za-z0-9]{20,64}$/.test(integrationKey ?? "")) throw invalidUrl(service, "integrationKey", "the integration key (32 characters) is missing: pagerduty://INTEGRATION_KEY@API_KEY");
    const region = (parts.query["region"] ?? "us").toLowerCase();
    if (region !== "us" && region !== "eu") throw invalidUrl(service, "query.region", "region is us or eu");
    const [source, component] = parts.path;
    return {
      options: {
        integrationKey: integrationKey as string,
        apiKey: apiKey === "" ? undefined : apiKey,
        region,
        source: source ?? parts.query["source"],
        component: component ?? parts.query["component"],
        group: parts.query["group"],
        class: parts.query["class"],
      },
      secrets: ["integrationKey", "apiKey"],
    };
  },
  format(message, options, context, notification) {
    const health = message.event === "monitor.failing" || message.event === "monitor.recovered";
    const dedupKey = `driftwatch:${message.monitorId}${health ? ":health" : ""}`;
    const url = ENDPOINTS[options.region];
    if (message.event === "monitor.recovered") {
      return { url, body: { routing_key: options.integrationKey, event_action: "resolve", dedup_key: dedupKey } };
    }
    const body = context.renderTemplate((t) => t);
    const details: Record<string, unknown> = {
      monitor: message.monitorName,
      monitor_id: message.monitorId,
      what: message.classificationLabel,
      summary: message.summary,
    };
    if (body !== undefined) details["message"] = truncate(body, 10_000);
    else if (message.changes.length > 0) details["changes"] = [...message.changes.map(changeLine), ...(message.more > 0 ? [`and ${message.more} more`] : [])];
    if (notification.event === "diff.detected") details["diff_id"] = notification.diff.id;
    const payload: Record<string, unknown> = {
      summary: truncate(oneLine(`${message.title} (${message.summary})`), PAGERDUTY_LIMITS.summary),
      source: truncate(oneLine(options.source ?? message.monitorUrl ?? message.monitorName), 255),
      severity: SEVERITY[message.severity ?? "info"] ?? "info",
      timestamp: message.occurredAt,
      custom_details: details,
    };
    if (options.component !== undefined) payload["component"] = options.component;
    if (options.group !== undefined) payload["group"] = options.group;
    payload["class"] = options.class ?? message.classificationLabel;
    return {
      url,
      body: {
        routing_key: options.integrationKey,
        event_action: "trigger",
        dedup_key: dedupKey,
        client: "driftwatch",
        ...(message.link === undefined ? {} : { client_url: message.link, links: [{ href: message.link, text: message.event === "diff.detected" ? "View diff" : "View monitor" }] }),
        payload,
      },
    };
  },
  send(payload, _options, context) {
    // 400 "invalid event" names the problem in errors[]; 429 is the per-key rate limit.
    return sendAndClassify(context, jsonRequest(payload.url, payload.body));
  },
});
