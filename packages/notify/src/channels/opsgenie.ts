import { defineChannel } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { changeLine } from "../notification.js";
import { oneLine, truncate } from "../text.js";
import { parseAppriseUrl, splitList } from "../url.js";
import { jsonRequest, sendAndClassify } from "./shared.js";

// Opsgenie Alert API (https://docs.opsgenie.com/docs/alert-api): POST /v2/alerts with
// `Authorization: GenieKey KEY`; a recovered monitor closes the alert by its alias
// (POST /v2/alerts/{alias}/close?identifierType=alias). The alias is per monitor, so Opsgenie
// de-duplicates the changes of one monitor into one open alert. Limits: message 130, alias 512,
// description 15 000, 20 tags of 50, entity 512, source 100 characters.

export interface OpsgenieOptions {
  apiKey: string;
  region: "us" | "eu";
  responders: { type: "user" | "team" | "schedule" | "escalation"; name?: string; username?: string }[];
  priority: "P1" | "P2" | "P3" | "P4" | "P5" | undefined;
  tags: string[];
  entity: string | undefined;
}

const ENDPOINTS = { us: "https://api.opsgenie.com/v2/alerts", eu: "https://api.eu.opsgenie.com/v2/alerts" } as const;
const BY_SEVERITY: Record<string, OpsgenieOptions["priority"]> = { critical: "P1", high: "P2", medium: "P3", low: "P4", info: "P5" };
const PRIORITIES: Record<string, OpsgenieOptions["priority"]> = { "1": "P1", "2": "P2", "3": "P3", "4": "P4", "5": "P5", critical: "P1", high: "P2", moderate: "P3", normal: "P3", low: "P4", lowest: "P5", emergency: "P1" };
export const OPSGENIE_LIMITS = { message: 130, alias: 512, description: 15_000, tags: 20, tag: 50 } as const;

export interface OpsgeniePayload {
  url: string;
  body: Record<string, unknown>;
}

export const opsgenieChannel = defineChannel<OpsgenieOptions, OpsgeniePayload>({
  service: "opsgenie",
  title: "Opsgenie",
  schemes: ["opsgenie"],
  parse(raw) {
    const service = "opsgenie";
    const parts = parseAppriseUrl(raw, service);
    const apiKey = parts.host;
    if (!/^[A-Za-z0-9-]{20,64}$/.test(apiKey)) throw invalidUrl(service, "apiKey", "the API key is missing: opsgenie://API_KEY");
    const responders = [...parts.path, ...splitList(parts.query["to"])].map((target, index): OpsgenieOptions["responders"][number] => {
      const name = target.slice(1);
      if (target.startsWith("#")) return { type: "team", name };
      if (target.startsWith("*")) return { type: "schedule", name };
      if (target.startsWith("^")) return { type: "escalation", name };
      const user = target.startsWith("@") ? name : target;
      if (user === "") throw invalidUrl(service, `targets[${index}]`, "a target is @user, #team, *schedule or ^escalation");
      return { type: "user", username: user };
    });
    const region = (parts.query["region"] ?? "us").toLowerCase();
    if (region !== "us" && region !== "eu") throw invalidUrl(service, "query.region", "region is us or eu");
    const priorityText = parts.query["priority"]?.toLowerCase().replace(/^p/, "");
    const priority = priorityText === undefined || priorityText === "" ? undefined : PRIORITIES[priorityText];
    if (priorityText !== undefined && priorityText !== "" && priority === undefined) throw invalidUrl(service, "query.priority", "priority is 1-5 (P1-P5)");
    return {
      options: { apiKey, region, responders, priority, tags: splitList(parts.query["tags"]).slice(0, OPSGENIE_LIMITS.tags).map((t) => truncate(oneLine(t), OPSGENIE_LIMITS.tag)), entity: parts.query["entity"] },
      secrets: ["apiKey"],
    };
  },
  format(message, options, context) {
    // (its changes and its health are two alerts: a recovery closes the health alert only)
    const health = message.event === "monitor.failing" || message.event === "monitor.recovered";
    const alias = truncate(`driftwatch-${message.monitorId}${health ? "-health" : ""}`, OPSGENIE_LIMITS.alias);
    if (message.event === "monitor.recovered") {
      return { url: `${ENDPOINTS[options.region]}/${encodeURIComponent(alias)}/close?identifierType=alias`, body: { source: "driftwatch", note: truncate(oneLine(message.summary), 25_000) } };
    }
    const body = context.renderTemplate((t) => t);
    const description = [message.summary, ...(body !== undefined ? [body] : message.changes.map(changeLine)), ...(message.more > 0 ? [`and ${message.more} more`] : []), ...(message.link ? [message.link] : [])].join("\n");
    const details: Record<string, string> = { monitor: truncate(message.monitorName, 200), what: message.classificationLabel };
    if (message.link !== undefined) details["link"] = message.link;
    return {
      url: ENDPOINTS[options.region],
      body: {
        message: truncate(oneLine(message.title), OPSGENIE_LIMITS.message),
        alias,
        description: truncate(description, OPSGENIE_LIMITS.description),
        ...(options.responders.length > 0 ? { responders: options.responders } : {}),
        tags: ["driftwatch", ...options.tags].slice(0, OPSGENIE_LIMITS.tags),
        details,
        entity: truncate(oneLine(options.entity ?? message.monitorName), 512),
        source: "driftwatch",
        priority: options.priority ?? BY_SEVERITY[message.severity ?? "info"] ?? "P3",
      },
    };
  },
  send(payload, options, context) {
    return sendAndClassify(context, jsonRequest(payload.url, payload.body, { authorization: `GenieKey ${options.apiKey}` }), {
      // 401/403: the integration's key was deleted or disabled.
      gone: (a) => a.status === 401 || a.status === 403,
    });
  },
});
