import { defineChannel } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { oneLine, truncate, escapeMarkdown } from "../text.js";
import { origin, parseAppriseUrl, requireHost } from "../url.js";
import { markdownText } from "./mattermost.js";
import { jsonRequest, sendAndClassify } from "./shared.js";

// Gotify (https://gotify.net/api-docs#/message/createMessage): POST {server}/message with the
// application token in X-Gotify-Key, markdown display (`client::display`) and a click URL
// (`client::notification`, https://gotify.net/docs/msgextras).

export interface GotifyOptions {
  baseUrl: string;
  token: string;
  priority: number | undefined;
}

const PRIORITIES: Record<string, number> = { low: 1, moderate: 3, normal: 5, high: 8, emergency: 10 };
const BY_SEVERITY: Record<string, number> = { critical: 10, high: 8, medium: 5, low: 3, info: 1 };

export interface GotifyPayload {
  url: string;
  body: Record<string, unknown>;
}

export const gotifyChannel = defineChannel<GotifyOptions, GotifyPayload>({
  service: "gotify",
  title: "Gotify",
  schemes: ["gotify", "gotifys"],
  parse(raw) {
    const service = "gotify";
    const parts = parseAppriseUrl(raw, service);
    requireHost(service, parts.host);
    const token = parts.path[parts.path.length - 1];
    if (token === undefined || !/^[A-Za-z0-9._-]{8,64}$/.test(token)) throw invalidUrl(service, "token", "the application token is missing: gotify://HOST/TOKEN");
    const fullpath = parts.path.slice(0, -1).map(encodeURIComponent).join("/");
    const priorityText = parts.query["priority"]?.toLowerCase();
    let priority: number | undefined;
    if (priorityText !== undefined && priorityText !== "") {
      priority = /^\d+$/.test(priorityText) && Number(priorityText) <= 10 ? Number(priorityText) : PRIORITIES[priorityText];
      if (priority === undefined) throw invalidUrl(service, "query.priority", "priority is 0-10 or low, moderate, normal, high, emergency");
    }
    return { options: { baseUrl: `${origin(parts.scheme === "gotifys", parts.host, parts.port)}${fullpath === "" ? "" : `/${fullpath}`}`, token, priority }, secrets: ["token"] };
  },
  format(message, options, context) {
    const text = markdownText(message, context.renderTemplate(escapeMarkdown), 10_000);
    const extras: Record<string, unknown> = { "client::display": { contentType: "text/markdown" } };
    if (message.link !== undefined) extras["client::notification"] = { click: { url: message.link } };
    return {
      url: `${options.baseUrl}/message`,
      body: { title: truncate(oneLine(message.title), 250), message: text, priority: options.priority ?? BY_SEVERITY[message.severity ?? "info"] ?? 5, extras },
    };
  },
  send(payload, options, context) {
    // 401/403: the application (its token) was deleted.
    return sendAndClassify(context, jsonRequest(payload.url, payload.body, { "x-gotify-key": options.token }), { gone: (a) => a.status === 401 || a.status === 403 });
  },
});
