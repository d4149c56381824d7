import type { SendResult } from "../channel.js";
import { combineResults } from "../answer.js";
import { defineChannel } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { changeValues, type MessageModel } from "../notification.js";
import { cutHtml, escapeHtml } from "../text.js";
import { parseAppriseUrl, queryBool, splitList } from "../url.js";
import { fitChanges, jsonRequest, sendAndClassify } from "./shared.js";

// Telegram Bot API sendMessage (https://core.telegram.org/bots/api#sendmessage) in HTML parse
// mode (https://core.telegram.org/bots/api#html-style): only &lt; &gt; &amp; &quot; entities and
// a few tags; text at most 4096 characters after entities are parsed.

export interface TelegramOptions {
  botToken: string;
  /** Chat ids (`123`, `-100123`) or `@channelname`, each with an optional forum topic. */
  chats: { chatId: string; topic: number | undefined }[];
  silent: boolean;
  preview: boolean;
}

export const TELEGRAM_LIMITS = { text: 4096 } as const;

export interface TelegramPayload {
  url: string;
  bodies: Record<string, unknown>[];
}

const BOT_TOKEN = /^(?:bot)?(\d{3,15}:[A-Za-z0-9_-]{20,100})$/;
const CHAT = /^(?:(-?\d{1,32})|@?([a-z_][a-z0-9_]{3,}))(?::(\d+))?$/i;

export function telegramText(message: MessageModel, body: string | undefined): string {
  const render = (listed: number): string => {
    const lines = [`<b>${escapeHtml(message.title)}</b>`];
    if (body !== undefined) lines.push(body);
    else {
      lines.push(`${escapeHtml(message.classificationLabel)}: ${escapeHtml(message.summary)}`);
      for (const change of message.changes.slice(0, listed)) {
        lines.push(`• <b>${escapeHtml(change.severity)}</b> <code>${escapeHtml(change.path)}</code> ${escapeHtml(changeValues(change).trim())}`);
      }
      const more = message.more + (message.changes.length - listed);
      if (more > 0) lines.push(`<i>and ${more} more</i>`);
    }
    if (message.link !== undefined) lines.push(`<a href="${escapeHtml(message.link)}">${message.event === "diff.detected" ? "View diff" : "View monitor"}</a>`);
    return lines.join("\n");
  };
  const text = fitChanges(message.changes.length, render, (t) => t.length <= TELEGRAM_LIMITS.text);
  // A template's output may still be too long; cut it where no entity or tag is split.
  return cutHtml(text, TELEGRAM_LIMITS.text);
}

export const telegramChannel = defineChannel<TelegramOptions, TelegramPayload>({
  service: "telegram",
  title: "Telegram",
  schemes: ["tgram"],
  parse(raw) {
    const service = "telegram";
    // The bot token holds a colon (`123456:ABC`), so it is taken before the host:port split.
    const match = /^tgram:\/\/([^/?]+)(\/[^?]*)?(\?.*)?$/i.exec(raw);
    if (match === null) throw invalidUrl(service, "url", "a Telegram URL looks like tgram://BOT_TOKEN/CHAT_ID");
    const token = BOT_TOKEN.exec(decodeURIComponent(match[1] ?? ""))?.[1];
    if (token === undefined) throw invalidUrl(service, "botToken", "the bot token must look like 123456789:AA... (from @BotFather)");
    const parts = parseAppriseUrl(`tgram://bot${match[2] ?? ""}${match[3] ?? ""}`, service);
    const targets = [...parts.path, ...splitList(parts.query["to"])];
    if (targets.length === 0) throw invalidUrl(service, "chats", "at least one chat id is required: tgram://BOT_TOKEN/CHAT_ID");
    const topicQuery = parts.query["topic"] ?? parts.query["thread"];
    if (topicQuery !== undefined && !/^\d+$/.test(topicQuery)) throw invalidUrl(service, "query.topic", "topic must be a number");
    const chats = targets.map((target, index) => {
      const chat = CHAT.exec(target);
      if (chat === null) throw invalidUrl(service, `chats[${index}]`, "a chat is a numeric id (-100...) or @channelname, optionally :topic");
      const chatId = chat[1] ?? `@${chat[2]}`;
      const topic = chat[3] ?? topicQuery;
      return { chatId, topic: topic === undefined ? undefined : Number(topic) };
    });
    return {
      options: { botToken: token, chats, silent: queryBool(parts.query["silent"], false), preview: queryBool(parts.query["preview"], false) },
      secrets: ["botToken"],
    };
  },
  format(message, options, context) {
    const text = telegramText(message, context.renderTemplate(escapeHtml));
    return {
      url: `https://api.telegram.org/bot${options.botToken}/sendMessage`,
      bodies: options.chats.map(({ chatId, topic }) => ({
        chat_id: chatId,
        text,
        parse_mode: "HTML",
        link_preview_options: { is_disabled: !options.preview },
        disable_notification: options.silent,
        ...(topic === undefined ? {} : { message_thread_id: topic }),
      })),
    };
  },
  async send(payload, _options, context) {
    const results: SendResult[] = [];
    for (const body of payload.bodies) {
      results.push(
        await sendAndClassify(context, jsonRequest(payload.url, body), {
          gone: (answer, json) => {
            const description = typeof json?.["description"] === "string" ? (json["description"] as string) : "";
            // 401: the token was revoked; 403: blocked, kicked or deactivated; 400 chat not found.
            return answer.status === 401 || answer.status === 403 || answer.status === 404 || /chat not found|bot was kicked|bot was blocked|user is deactivated|group chat was deleted|group chat was upgraded/i.test(description);
          },
        }),
      );
    }
    return combineResults(results);
  },
});
