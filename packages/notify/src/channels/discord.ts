import { defineChannel } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { changeValues, type MessageModel } from "../notification.js";
import { escapeMarkdown, oneLine, truncate } from "../text.js";
import { httpUrl, parseAppriseUrl, queryBool } from "../url.js";
import { fitChanges, jsonRequest, sendAndClassify, severityColor } from "./shared.js";

// Discord webhooks (https://discord.com/developers/docs/resources/webhook#execute-webhook) with
// one embed. Limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits):
// title 256, description 4096, 25 fields, field name 256 and value 1024, footer 2048, all embed
// text together 6000; content 2000. allowed_mentions {parse: []} so no text can ping anyone.

export interface DiscordOptions {
  webhookId: string;
  webhookToken: string;
  botname: string | undefined;
  avatarUrl: string | undefined;
  threadId: string | undefined;
  host: string;
}

export const DISCORD_LIMITS = { title: 256, description: 4096, fields: 25, fieldName: 256, fieldValue: 1024, footer: 2048, embedTotal: 6000, username: 80 } as const;

export interface DiscordPayload {
  url: string;
  body: { username?: string; avatar_url?: string; embeds: Record<string, unknown>[]; allowed_mentions: { parse: string[] } };
}

function embedTextSize(embed: Record<string, unknown>): number {
  let size = 0;
  for (const key of ["title", "description"] as const) size += typeof embed[key] === "string" ? (embed[key] as string).length : 0;
  const footer = embed["footer"] as { text?: string } | undefined;
  size += footer?.text?.length ?? 0;
  for (const field of (embed["fields"] as { name: string; value: string }[] | undefined) ?? []) size += field.name.length + field.value.length;
  return size;
}

export function discordEmbed(message: MessageModel, body: string | undefined): Record<string, unknown> {
  const render = (listed: number): Record<string, unknown> => {
    const more = message.more + (message.changes.length - listed);
    const embed: Record<string, unknown> = {
      title: truncate(escapeMarkdown(message.title), DISCORD_LIMITS.title),
      description: truncate(body ?? `**${escapeMarkdown(message.classificationLabel)}**: ${escapeMarkdown(message.summary)}`, DISCORD_LIMITS.description),
      color: severityColor(message.severity),
      timestamp: message.occurredAt,
      fields: message.changes.slice(0, body === undefined ? Math.min(listed, DISCORD_LIMITS.fields) : 0).map((change) => ({
        name: truncate(`${change.severity}: ${escapeMarkdown(change.path)}`, DISCORD_LIMITS.fieldName),
        value: truncate(escapeMarkdown(changeValues(change).trim()) || "\u200b", DISCORD_LIMITS.fieldValue),
        inline: false,
      })),
      footer: { text: truncate(more > 0 && body === undefined ? `and ${more} more · driftwatch` : "driftwatch", DISCORD_LIMITS.footer) },
    };
    if (message.link !== undefined) embed["url"] = message.link;
    return embed;
  };
  return fitChanges(message.changes.length, render, (embed) => embedTextSize(embed) <= DISCORD_LIMITS.embedTotal);
}

export const discordChannel = defineChannel<DiscordOptions, DiscordPayload>({
  service: "discord",
  title: "Discord",
  schemes: ["discord"],
  matchesUrl: (url) => /^(?:(?:ptb|canary)\.)?discord(?:app)?\.com$/i.test(url.hostname) && url.pathname.startsWith("/api/webhooks/"),
  parse(raw) {
    const service = "discord";
    let url = raw;
    let host = "discord.com";
    const native = /^https:\/\/((?:(?:ptb|canary)\.)?discord(?:app)?\.com)\/api\/webhooks\/([^/?]+)\/([^/?]+)\/?(\?.*)?$/i.exec(raw);
    if (native) {
      host = (native[1] ?? "").toLowerCase().replace("discordapp.com", "discord.com");
      url = `discord://${native[2]}/${native[3]}${native[4] ?? ""}`;
    } else if (/^https?:/i.test(raw)) {
      throw invalidUrl(service, "url", "a Discord webhook URL looks like https://discord.com/api/webhooks/ID/TOKEN");
    }
    const parts = parseAppriseUrl(url, service);
    const id = parts.host;
    const token = parts.path[0];
    if (!/^\d{5,25}$/.test(id)) throw invalidUrl(service, "webhookId", "the webhook id must be digits (discord://WEBHOOK_ID/WEBHOOK_TOKEN)");
    if (token === undefined || !/^[A-Za-z0-9_-]{10,200}$/.test(token)) throw invalidUrl(service, "webhookToken", "the webhook token is missing or malformed");
    const thread = parts.query["thread"];
    if (thread !== undefined && !/^\d{5,25}$/.test(thread)) throw invalidUrl(service, "query.thread", "thread must be a thread id (digits)");
    const botname = parts.query["botname"] ?? parts.user;
    return {
      options: {
        webhookId: id,
        webhookToken: token,
        botname: botname === undefined ? undefined : truncate(oneLine(botname), DISCORD_LIMITS.username),
        avatarUrl: queryBool(parts.query["avatar"], true) ? httpUrl(service, "query.avatar_url", parts.query["avatar_url"]) : undefined,
        threadId: thread,
        host,
      },
      secrets: ["webhookToken"],
    };
  },
  format(message, options, context) {
    const body = context.renderTemplate(escapeMarkdown);
    const payload: DiscordPayload["body"] = { embeds: [discordEmbed(message, body)], allowed_mentions: { parse: [] } };
    if (options.botname !== undefined) payload.username = options.botname;
    if (options.avatarUrl !== undefined) payload.avatar_url = options.avatarUrl;
    const query = new URLSearchParams({ wait: "true" });
    if (options.threadId !== undefined) query.set("thread_id", options.threadId);
    return { url: `https://${options.host}/api/webhooks/${options.webhookId}/${options.webhookToken}?${query.toString()}`, body: payload };
  },
  send(payload, _options, context) {
    return sendAndClassify(context, jsonRequest(payload.url, payload.body), {
      // 404 Unknown Webhook (10015), 401 Invalid Webhook Token (50027): the webhook was deleted.
      gone: (answer, json) => answer.status === 404 || answer.status === 401 || json?.["code"] === 10015 || json?.["code"] === 50027,
    });
  },
});
