import type { SendResult } from "../channel.js";
import { combineResults } from "../answer.js";
import { defineChannel } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { changeValues, type MessageModel } from "../notification.js";
import { codeSpan, escapeSlack, truncate } from "../text.js";
import { parseAppriseUrl, splitList } from "../url.js";
import { fitChanges, jsonRequest, sendAndClassify } from "./shared.js";

// Slack: incoming webhooks (https://api.slack.com/messaging/webhooks) or a bot token and
// chat.postMessage (https://api.slack.com/methods/chat.postMessage), with Block Kit blocks.
// Limits: 50 blocks, section text 3000 characters, header text 150 (https://api.slack.com/reference/block-kit/blocks).

export interface SlackOptions {
  mode: "webhook" | "bot";
  /** Webhook tokens `T.../B.../xxx` (webhook mode). */
  tokens: [string, string, string] | undefined;
  /** `xoxb-` / `xoxp-` token (bot mode). */
  accessToken: string | undefined;
  /** `#channel`, `@user` or a channel id; webhooks post to their own channel when none. */
  targets: string[];
  botname: string | undefined;
  host: "hooks.slack.com" | "hooks.slack-gov.com";
}

const WEBHOOK_HOSTS = new Set(["hooks.slack.com", "hooks.slack-gov.com"]);
const TOKEN_A = /^[A-Z0-9]+$/i;
const TOKEN_C = /^[A-Za-z0-9]+$/;
const ACCESS = /^xox[abpr]-[A-Za-z0-9-]+$/;
const GONE = new Set(["no_service", "no_team", "team_disabled", "channel_not_found", "channel_is_archived", "invalid_token", "not_in_channel", "account_inactive", "token_revoked", "user_not_found", "is_archived", "not_authed", "invalid_auth"]);

export const SLACK_LIMITS = { blocks: 50, sectionText: 3000, headerText: 150, fallbackText: 3000 } as const;

export interface SlackPayload {
  requests: { url: string; body: Record<string, unknown>; headers: Record<string, string> }[];
}

function target(value: string): string {
  // Apprise: #channel, @user, +encoded_id or a bare channel name.
  if (value.startsWith("+")) return value.slice(1);
  return value;
}

export function slackBlocks(message: MessageModel, body: string | undefined): { text: string; blocks: Record<string, unknown>[] } {
  const fallback = truncate(escapeSlack(message.title), SLACK_LIMITS.fallbackText);
  const render = (listed: number): Record<string, unknown>[] => {
    const blocks: Record<string, unknown>[] = [
      { type: "header", text: { type: "plain_text", text: truncate(message.title, SLACK_LIMITS.headerText), emoji: false } },
    ];
    if (body !== undefined) {
      blocks.push({ type: "section", text: { type: "mrkdwn", text: truncate(body, SLACK_LIMITS.sectionText) || " " } });
    } else {
      blocks.push({
        type: "section",
        text: {
          type: "mrkdwn",
          text: truncate(`*${escapeSlack(message.monitorName)}*: ${escapeSlack(message.classificationLabel)}, ${escapeSlack(message.summary)}`, SLACK_LIMITS.sectionText),
        },
      });
      for (const change of message.changes.slice(0, listed)) {
        blocks.push({
          type: "section",
          text: {
            type: "mrkdwn",
            text: truncate(`*${change.severity}* ${codeSpan(escapeSlack(change.path))} ${escapeSlack(changeValues(change))}`, SLACK_LIMITS.sectionText),
          },
        });
      }
      const more = message.more + (message.changes.length - Math.min(listed, message.changes.length));
      if (more > 0) blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: `and ${more} more` }] });
    }
    if (message.link !== undefined) {
      blocks.push({ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: message.event === "diff.detected" ? "View diff" : "View monitor" }, url: message.link }] });
    }
    return blocks;
  };
  const blocks = fitChanges(message.changes.length, render, (b) => b.length <= SLACK_LIMITS.blocks);
  return { text: fallback, blocks };
}

export const slackChannel = defineChannel<SlackOptions, SlackPayload>({
  service: "slack",
  title: "Slack",
  schemes: ["slack"],
  matchesUrl: (url) => WEBHOOK_HOSTS.has(url.hostname) && url.pathname.startsWith("/services/"),
  parse(raw) {
    const service = "slack";
    let host: SlackOptions["host"] = "hooks.slack.com";
    let url = raw;
    const native = /^https:\/\/(hooks\.slack(?:-gov)?\.com)\/services\/([^/?]+)\/([^/?]+)\/([^/?]+)\/?(\?.*)?$/i.exec(raw);
    if (native) {
      host = (native[1] ?? "").toLowerCase() as SlackOptions["host"];
      url = `slack://${native[2]}/${native[3]}/${native[4]}${native[5] ?? ""}`;
    } else if (/^https?:/i.test(raw)) {
      throw invalidUrl(service, "url", "a Slack webhook URL looks like https://hooks.slack.com/services/T.../B.../...");
    }
    const parts = parseAppriseUrl(url, service);
    const segments = [parts.host, ...parts.path];
    const botname = parts.query["botname"] ?? parts.query["user"] ?? parts.user;
    const extra = [...splitList(parts.query["to"]), ...splitList(parts.query["channel"])];
    if (ACCESS.test(segments[0] ?? "")) {
      const targets = [...segments.slice(1), ...extra].map(target);
      if (targets.length === 0) throw invalidUrl(service, "targets", "a bot token needs at least one channel (slack://xoxb-.../#channel)");
      return { options: { mode: "bot", tokens: undefined, accessToken: segments[0], targets, botname, host }, secrets: ["accessToken"] };
    }
    const [a, b, c, ...rest] = segments;
    if (a === undefined || b === undefined || c === undefined) throw invalidUrl(service, "tokens", "the webhook needs three tokens: slack://TokenA/TokenB/TokenC");
    if (!TOKEN_A.test(a)) throw invalidUrl(service, "tokens[0]", "the first webhook token must be letters and digits");
    if (!TOKEN_A.test(b)) throw invalidUrl(service, "tokens[1]", "the second webhook token must be letters and digits");
    if (!TOKEN_C.test(c)) throw invalidUrl(service, "tokens[2]", "the third webhook token must be letters and digits");
    return {
      options: { mode: "webhook", tokens: [a, b, c], accessToken: undefined, targets: [...rest, ...extra].map(target), botname, host },
      secrets: ["tokens", "accessToken"],
    };
  },
  format(message, options, context) {
    const body = context.renderTemplate(escapeSlack);
    const { text, blocks } = slackBlocks(message, body);
    const common: Record<string, unknown> = { text, blocks, unfurl_links: false, unfurl_media: false };
    if (options.botname !== undefined) common["username"] = options.botname;
    if (options.mode === "bot") {
      return {
        requests: options.targets.map((channel) => ({
          url: "https://slack.com/api/chat.postMessage",
          headers: { authorization: `Bearer ${options.accessToken}` },
          body: { ...common, channel },
        })),
      };
    }
    const [a, b, c] = options.tokens ?? ["", "", ""];
    const url = `https://${options.host}/services/${a}/${b}/${c}`;
    const targets = options.targets.length === 0 ? [undefined] : options.targets;
    return { requests: targets.map((channel) => ({ url, headers: {}, body: channel === undefined ? common : { ...common, channel } })) };
  },
  async send(payload, _options, context) {
    const results: SendResult[] = [];
    for (const request of payload.requests) {
      results.push(
        await sendAndClassify(context, jsonRequest(request.url, request.body, request.headers), {
          // Webhooks answer a plain-text error code; the Web API answers 200 {ok:false,error}.
          gone: (answer) => GONE.has(answer.body.trim()) || answer.status === 404,
          okButFailed: (answer, json) => {
            if (json === undefined || json["ok"] !== false) return undefined;
            const error = typeof json["error"] === "string" ? json["error"] : "unknown_error";
            if (error === "ratelimited") return { outcome: "retry", afterSeconds: undefined, status: answer.status, reason: error };
            return GONE.has(error) ? { outcome: "gone", status: answer.status, reason: error } : { outcome: "failed", status: answer.status, reason: error };
          },
        }),
      );
    }
    return combineResults(results);
  },
});
