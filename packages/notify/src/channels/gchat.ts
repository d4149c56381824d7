import { defineChannel } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { changeValues, type MessageModel } from "../notification.js";
import { cutHtml, escapeHtml, shrinkToFit, truncate } from "../text.js";
import { parseAppriseUrl } from "../url.js";
import { fitChanges, jsonRequest, jsonSize, sendAndClassify } from "./shared.js";

// Google Chat incoming webhooks (https://developers.google.com/workspace/chat/quickstart/webhooks)
// with a card (cardsV2, https://developers.google.com/workspace/chat/api/reference/rest/v1/cards).
// textParagraph takes a small HTML subset, so target text is HTML-escaped; the plain `text`
// fallback escapes `<` `>` `&` too (Chat reads `<users/...>` and `<url|text>` there). A message is
// at most 32 000 bytes.

export interface GoogleChatOptions {
  workspace: string;
  key: string;
  token: string;
  threadKey: string | undefined;
}

export const GCHAT_LIMITS = { messageBytes: 32_000 } as const;

export interface GoogleChatPayload {
  url: string;
  body: Record<string, unknown>;
}

function plain(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function googleChatMessage(message: MessageModel, body: string | undefined): Record<string, unknown> {
  const renderWith = (body: string | undefined, listed: number): Record<string, unknown> => {
    const widgets: Record<string, unknown>[] = [];
    if (body !== undefined) widgets.push({ textParagraph: { text: body } });
    else {
      widgets.push({ textParagraph: { text: `<b>${escapeHtml(message.classificationLabel)}</b>: ${escapeHtml(message.summary)}` } });
      for (const change of message.changes.slice(0, listed)) {
        widgets.push({ textParagraph: { text: `<b>${escapeHtml(change.severity)}</b> <font color="#555555">${escapeHtml(change.path)}</font> ${escapeHtml(changeValues(change).trim())}` } });
      }
      const more = message.more + (message.changes.length - listed);
      if (more > 0) widgets.push({ textParagraph: { text: `<i>and ${more} more</i>` } });
    }
    if (message.link !== undefined) {
      widgets.push({ buttonList: { buttons: [{ text: message.event === "diff.detected" ? "View diff" : "View monitor", onClick: { openLink: { url: message.link } } }] } });
    }
    return {
      text: plain(truncate(message.title, 4000)),
      cardsV2: [{ cardId: "driftwatch", card: { header: { title: truncate(message.title, 200), subtitle: truncate(message.monitorName, 200) }, sections: [{ widgets }] } }],
    };
  };
  const fits = (m: Record<string, unknown>): boolean => jsonSize(m) <= GCHAT_LIMITS.messageBytes;
  if (body !== undefined) return shrinkToFit(body, (cut) => renderWith(cut, 0), fits, cutHtml);
  return fitChanges(message.changes.length, (listed) => renderWith(undefined, listed), fits);
}

export const googleChatChannel = defineChannel<GoogleChatOptions, GoogleChatPayload>({
  service: "gchat",
  title: "Google Chat",
  schemes: ["gchat"],
  matchesUrl: (url) => url.hostname === "chat.googleapis.com" && url.pathname.startsWith("/v1/spaces/"),
  parse(raw) {
    const service = "gchat";
    let url = raw;
    if (/^https?:/i.test(raw)) {
      let parsed: URL;
      try {
        parsed = new URL(raw);
      } catch {
        throw invalidUrl(service, "url", "not a valid URL");
      }
      const space = /^\/v1\/spaces\/([^/]+)\/messages\/?$/.exec(parsed.pathname)?.[1];
      const key = parsed.searchParams.get("key");
      const token = parsed.searchParams.get("token");
      if (parsed.hostname !== "chat.googleapis.com" || space === undefined || !key || !token) {
        throw invalidUrl(service, "url", "a Google Chat webhook URL looks like https://chat.googleapis.com/v1/spaces/SPACE/messages?key=KEY&token=TOKEN");
      }
      const thread = parsed.searchParams.get("threadKey");
      url = `gchat://${space}/${encodeURIComponent(key)}/${encodeURIComponent(token)}${thread ? `/${encodeURIComponent(thread)}` : ""}`;
    }
    const parts = parseAppriseUrl(url, service);
    const [key, token, thread] = parts.path;
    const workspace = parts.host;
    const word = /^[A-Za-z0-9_-]+$/;
    if (!word.test(workspace)) throw invalidUrl(service, "workspace", "the workspace (space id) is missing: gchat://WORKSPACE/KEY/TOKEN");
    if (key === undefined || !word.test(key)) throw invalidUrl(service, "key", "the webhook key is missing: gchat://WORKSPACE/KEY/TOKEN");
    if (token === undefined || !/^[A-Za-z0-9_=%-]+$/.test(token)) throw invalidUrl(service, "token", "the webhook token is missing: gchat://WORKSPACE/KEY/TOKEN");
    const threadKey = thread ?? parts.query["thread"] ?? parts.query["threadkey"];
    return { options: { workspace, key, token, threadKey }, secrets: ["key", "token"] };
  },
  format(message, options, context) {
    const query = new URLSearchParams({ key: options.key, token: options.token });
    const body = googleChatMessage(message, context.renderTemplate(escapeHtml));
    if (options.threadKey !== undefined) {
      // https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces.messages/create
      query.set("messageReplyOption", "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD");
      body["thread"] = { threadKey: options.threadKey };
    }
    return { url: `https://chat.googleapis.com/v1/spaces/${encodeURIComponent(options.workspace)}/messages?${query.toString()}`, body };
  },
  send(payload, _options, context) {
    return sendAndClassify(context, jsonRequest(payload.url, payload.body), {
      // The space was deleted or the app removed (404 NOT_FOUND), the key revoked (403 PERMISSION_DENIED / 401).
      gone: (answer) => answer.status === 404 || answer.status === 403 || answer.status === 401,
    });
  },
});
