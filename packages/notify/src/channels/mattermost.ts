import { combineResults } from "../answer.js";
import { defineChannel, type SendResult } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { changeValues, type MessageModel } from "../notification.js";
import { codeSpan, escapeMarkdown, neutraliseMentions, oneLine, truncate } from "../text.js";
import { httpUrl, origin, parseAppriseUrl, requireHost, splitList } from "../url.js";
import { fitChanges, jsonRequest, sendAndClassify } from "./shared.js";

// Mattermost incoming webhooks (https://developers.mattermost.com/integrate/webhooks/incoming/):
// POST {server}/hooks/{key} with markdown `text`. A post is at
// most 16 383 characters. Target text is escaped and @channel/@all/@here neutralised.

export interface MattermostOptions {
  baseUrl: string;
  token: string;
  channels: string[];
  botname: string | undefined;
  iconUrl: string | undefined;
}

export const MATTERMOST_LIMITS = { text: 16_383 } as const;

export interface MattermostPayload {
  url: string;
  bodies: Record<string, unknown>[];
}

export function markdownLines(message: MessageModel, body: string | undefined, listed: number, escape: (text: string) => string = escapeMarkdown): string[] {
  const lines = [`**${escape(message.title)}**`];
  if (body !== undefined) lines.push(body);
  else {
    lines.push(`${escape(message.classificationLabel)}: ${escape(message.summary)}`);
    for (const change of message.changes.slice(0, listed)) {
      lines.push(`- **${change.severity}** ${codeSpan(neutraliseMentions(change.path))} ${escape(changeValues(change).trim())}`);
    }
    const more = message.more + (message.changes.length - listed);
    if (more > 0) lines.push(`_and ${more} more_`);
  }
  if (message.link !== undefined) lines.push(`[${message.event === "diff.detected" ? "View diff" : "View monitor"}](${message.link.replace(/[()]/g, encodeURIComponent)})`);
  return lines;
}

export function markdownText(message: MessageModel, body: string | undefined, limit: number): string {
  const text = fitChanges(message.changes.length, (n) => markdownLines(message, body, n).join("\n"), (t) => t.length <= limit);
  return truncate(text, limit);
}

export const mattermostChannel = defineChannel<MattermostOptions, MattermostPayload>({
  service: "mattermost",
  title: "Mattermost",
  schemes: ["mmost", "mmosts"],
  parse(raw) {
    const service = "mattermost";
    const parts = parseAppriseUrl(raw, service);
    requireHost(service, parts.host);
    const token = parts.path[parts.path.length - 1];
    if (token === undefined || !/^[A-Za-z0-9]{8,64}$/.test(token)) throw invalidUrl(service, "token", "the webhook key is missing: mmost://HOST/WEBHOOK_KEY");
    const fullpath = parts.path.slice(0, -1).map(encodeURIComponent).join("/");
    const baseUrl = `${origin(parts.scheme === "mmosts", parts.host, parts.port)}${fullpath === "" ? "" : `/${fullpath}`}`;
    const channels = [...splitList(parts.query["channel"]), ...splitList(parts.query["channels"]), ...splitList(parts.query["to"])].map((c) => c.replace(/^#/, ""));
    const botname = parts.query["botname"] ?? parts.user;
    return {
      options: {
        baseUrl,
        token,
        channels,
        botname: botname === undefined ? undefined : truncate(oneLine(botname), 64),
        iconUrl: httpUrl(service, "query.icon_url", parts.query["icon_url"] ?? parts.query["image"]),
      },
      secrets: ["token"],
    };
  },
  format(message, options, context) {
    const text = markdownText(message, context.renderTemplate(escapeMarkdown), MATTERMOST_LIMITS.text);
    const base: Record<string, unknown> = { text };
    if (options.botname !== undefined) base["username"] = options.botname;
    if (options.iconUrl !== undefined) base["icon_url"] = options.iconUrl;
    const bodies = options.channels.length === 0 ? [base] : options.channels.map((channel) => ({ ...base, channel }));
    return { url: `${options.baseUrl}/hooks/${options.token}`, bodies };
  },
  async send(payload, _options, context) {
    const results: SendResult[] = [];
    for (const body of payload.bodies) {
      results.push(
        await sendAndClassify(context, jsonRequest(payload.url, body), {
          // An unknown or deleted hook id is a 400 "Invalid webhook" (web.incoming_webhook.invalid.app_error) or 404.
          gone: (answer, json) => answer.status === 404 || /incoming_webhook\.invalid|invalid webhook/i.test(String(json?.["id"] ?? answer.body)),
        }),
      );
    }
    return combineResults(results);
  },
});
