import { answerJson, answerReason, classifyAnswer, combineResults } from "../answer.js";
import { defineChannel, type SendResult } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { escapeMarkdown, oneLine, truncate } from "../text.js";
import { origin, parseAppriseUrl, requireHost, splitList } from "../url.js";
import { markdownText } from "./mattermost.js";
import { jsonRequest, severityColor } from "./shared.js";

// Rocket.Chat: an incoming webhook integration (POST {server}/hooks/{id}/{token},
// https://docs.rocket.chat/docs/integrations) or a user's login and chat.postMessage
// (https://developer.rocket.chat/apidocs/post-message). Markdown text, mentions neutralised.

export interface RocketChatOptions {
  baseUrl: string;
  mode: "webhook" | "basic";
  webhook: string | undefined;
  user: string | undefined;
  password: string | undefined;
  /** `#room` or `@user`; a webhook posts to its own channel when none. */
  targets: string[];
  avatarUrl: string | undefined;
}

export const ROCKETCHAT_LIMITS = { text: 5000 } as const;

export interface RocketChatPayload {
  bodies: Record<string, unknown>[];
}

export const rocketChatChannel = defineChannel<RocketChatOptions, RocketChatPayload>({
  service: "rocketchat",
  title: "Rocket.Chat",
  schemes: ["rocket", "rockets"],
  parse(raw) {
    const service = "rocketchat";
    // Apprise: the webhook token holds a slash, rocket://TOKEN_A/TOKEN_B@host or TOKEN_A%2FTOKEN_B.
    let url = raw;
    let webhook: string | undefined;
    const hook = /^\s*(rockets?:\/\/)(?:([^:/@]+):)?([a-z0-9]+(?:\/|%2F)[a-z0-9]+)@(.+)$/i.exec(raw);
    if (hook) {
      webhook = (hook[3] ?? "").replace(/%2F/i, "/");
      url = `${hook[1]}${hook[2] === undefined ? "" : `${hook[2]}@`}${hook[4]}`;
    }
    const parts = parseAppriseUrl(url, service);
    requireHost(service, parts.host);
    const targets = [...parts.path, ...splitList(parts.query["to"])];
    for (const [index, target] of targets.entries()) {
      if (!/^[#@]?[A-Za-z0-9_.-]+$/.test(target)) throw invalidUrl(service, `targets[${index}]`, "a target is #room, @user or a room name");
    }
    const normalised = targets.map((t) => (t.startsWith("#") || t.startsWith("@") ? t : `#${t}`));
    const mode = (parts.query["mode"] ?? (webhook !== undefined ? "webhook" : "basic")).toLowerCase();
    if (mode === "webhook") {
      const token = webhook ?? parts.query["webhook"];
      if (token === undefined || !/^[A-Za-z0-9]+\/[A-Za-z0-9]+$/.test(token)) throw invalidUrl(service, "webhook", "the webhook token is missing: rocket://TOKEN_A/TOKEN_B@HOST");
      return {
        options: { baseUrl: origin(parts.scheme === "rockets", parts.host, parts.port), mode: "webhook", webhook: token, user: undefined, password: undefined, targets: normalised, avatarUrl: undefined },
        secrets: ["webhook"],
      };
    }
    if (mode !== "basic") throw invalidUrl(service, "query.mode", "mode must be webhook or basic");
    if (parts.user === undefined || parts.password === undefined) throw invalidUrl(service, "user", "a user and password are required: rocket://USER:PASSWORD@HOST/#room");
    if (normalised.length === 0) throw invalidUrl(service, "targets", "at least one #room or @user is required");
    return {
      options: { baseUrl: origin(parts.scheme === "rockets", parts.host, parts.port), mode: "basic", webhook: undefined, user: parts.user, password: parts.password, targets: normalised, avatarUrl: undefined },
      secrets: ["password", "webhook"],
    };
  },
  format(message, options, context) {
    const text = markdownText(message, context.renderTemplate(escapeMarkdown), ROCKETCHAT_LIMITS.text);
    const base = {
      text,
      attachments: [{ title: truncate(oneLine(message.title), 300), color: `#${severityColor(message.severity).toString(16).padStart(6, "0")}`, ...(message.link ? { title_link: message.link } : {}) }],
    };
    const targets = options.targets.length === 0 ? [undefined] : options.targets;
    return { bodies: targets.map((channel) => (channel === undefined ? base : { ...base, channel })) };
  },
  async send(payload, options, context) {
    const classify = (answer: Parameters<typeof classifyAnswer>[0]): SendResult =>
      classifyAnswer(answer, {
        gone: (a) => a.status === 404 || a.status === 401 || a.status === 403,
        okButFailed: (a, json) => (json !== undefined && json["success"] === false ? { outcome: "failed", status: a.status, reason: answerReason(a, json) } : undefined),
      });
    if (options.mode === "webhook") {
      const results: SendResult[] = [];
      for (const body of payload.bodies) {
        const answer = await context.http({ ...jsonRequest(`${options.baseUrl}/hooks/${options.webhook}`, body), url: context.endpoint(`${options.baseUrl}/hooks/${options.webhook}`) });
        results.push(classify(answer));
      }
      return combineResults(results);
    }
    const login = await context.http(jsonRequest(context.endpoint(`${options.baseUrl}/api/v1/login`), { user: options.user, password: options.password }));
    const session = answerJson(login);
    const data = session?.["data"] as { authToken?: unknown; userId?: unknown } | undefined;
    if (login.status < 200 || login.status >= 300 || typeof data?.authToken !== "string" || typeof data.userId !== "string") {
      const result = classify(login);
      // A refused login is the credentials' fault: the channel is gone until they are fixed.
      return result.outcome === "delivered" || login.status === 401 ? { outcome: "gone", status: login.status, reason: `login failed: ${answerReason(login, session)}` } : result;
    }
    const headers = { "x-auth-token": data.authToken, "x-user-id": data.userId };
    const results: SendResult[] = [];
    for (const body of payload.bodies) {
      const answer = await context.http(jsonRequest(context.endpoint(`${options.baseUrl}/api/v1/chat.postMessage`), body, headers));
      results.push(classify(answer));
    }
    await context.http(jsonRequest(context.endpoint(`${options.baseUrl}/api/v1/logout`), {}, headers)).catch(() => undefined);
    return combineResults(results);
  },
});
