import { defineChannel } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { changeValues, type MessageModel } from "../notification.js";
import { escapeHtml, oneLine, truncate } from "../text.js";
import { parseAppriseUrl, splitList } from "../url.js";
import { fitChanges, sendAndClassify } from "./shared.js";

// Pushover (https://pushover.net/api): POST https://api.pushover.net/1/messages.json. Limits:
// message 1024, title 250, url 512, url_title 100 characters. html=1 takes <b>, <i>, <u>,
// <font color> and <a href> (https://pushover.net/api#html), so target text is HTML-escaped.

export interface PushoverOptions {
  userKey: string;
  token: string;
  devices: string[];
  priority: number | undefined;
  sound: string | undefined;
}

export const PUSHOVER_LIMITS = { message: 1024, title: 250, url: 512, urlTitle: 100 } as const;
const KEY = /^[A-Za-z0-9]{30}$/;
const PRIORITIES: Record<string, number> = { lowest: -2, low: -1, normal: 0, high: 1, emergency: 2 };
const BY_SEVERITY: Record<string, number> = { critical: 1, high: 1, medium: 0, low: -1, info: -1 };

export interface PushoverPayload {
  body: Record<string, unknown>;
}

export function pushoverText(message: MessageModel, body: string | undefined): string {
  const render = (listed: number): string => {
    if (body !== undefined) return body;
    const lines = [`<b>${escapeHtml(message.classificationLabel)}</b>: ${escapeHtml(message.summary)}`];
    for (const change of message.changes.slice(0, listed)) lines.push(`<b>${change.severity}</b> ${escapeHtml(change.path)} ${escapeHtml(changeValues(change).trim())}`);
    const more = message.more + (message.changes.length - listed);
    if (more > 0) lines.push(`<i>and ${more} more</i>`);
    return lines.join("\n");
  };
  const text = fitChanges(message.changes.length, render, (t) => t.length <= PUSHOVER_LIMITS.message);
  return text.length <= PUSHOVER_LIMITS.message ? text : escapeHtml(truncate(text.replace(/<[^>]*>/g, ""), PUSHOVER_LIMITS.message / 5));
}

export const pushoverChannel = defineChannel<PushoverOptions, PushoverPayload>({
  service: "pushover",
  title: "Pushover",
  schemes: ["pover"],
  parse(raw) {
    const service = "pushover";
    const parts = parseAppriseUrl(raw, service);
    const userKey = parts.user;
    const token = parts.host;
    if (userKey === undefined || !KEY.test(userKey)) throw invalidUrl(service, "userKey", "the user key (30 letters and digits) is missing: pover://USER_KEY@TOKEN");
    if (!KEY.test(token)) throw invalidUrl(service, "token", "the application token (30 letters and digits) is missing: pover://USER_KEY@TOKEN");
    const devices = [...parts.path, ...splitList(parts.query["to"])];
    for (const [index, device] of devices.entries()) {
      if (!/^[A-Za-z0-9_-]{1,25}$/.test(device)) throw invalidUrl(service, `devices[${index}]`, "a device name is up to 25 letters, digits, - or _");
    }
    const priorityText = parts.query["priority"]?.toLowerCase();
    let priority: number | undefined;
    if (priorityText !== undefined && priorityText !== "") {
      priority = /^-?[0-2]$/.test(priorityText) ? Number(priorityText) : PRIORITIES[priorityText];
      if (priority === undefined || priority === 2) throw invalidUrl(service, "query.priority", "priority is -2 to 1 or lowest, low, normal, high (emergency needs retry/expire and is not supported)");
    }
    const sound = parts.query["sound"];
    if (sound !== undefined && !/^[a-z0-9_-]{1,40}$/i.test(sound)) throw invalidUrl(service, "query.sound", "sound is a Pushover sound name");
    return { options: { userKey, token, devices, priority, sound }, secrets: ["userKey", "token"] };
  },
  format(message, options, context) {
    const body: Record<string, unknown> = {
      token: options.token,
      user: options.userKey,
      title: truncate(oneLine(message.title), PUSHOVER_LIMITS.title),
      message: pushoverText(message, context.renderTemplate(escapeHtml)),
      html: 1,
      priority: options.priority ?? BY_SEVERITY[message.severity ?? "info"] ?? 0,
      timestamp: Math.floor(Date.parse(message.occurredAt) / 1000) || undefined,
    };
    if (message.link !== undefined && message.link.length <= PUSHOVER_LIMITS.url) {
      body["url"] = message.link;
      body["url_title"] = message.event === "diff.detected" ? "View diff" : "View monitor";
    }
    if (options.devices.length > 0) body["device"] = options.devices.join(",");
    if (options.sound !== undefined) body["sound"] = options.sound;
    return { body };
  },
  send(payload, _options, context) {
    // Form-encoded, as the API documents its parameters.
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(payload.body)) if (value !== undefined) form.set(key, String(value));
    const request = { method: "POST" as const, url: "https://api.pushover.net/1/messages.json", headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": "driftwatch-notify" }, body: form.toString() };
    return sendAndClassify(context, request, {
      // 4xx with {status: 0, errors: [...]}: an invalid or disabled user key or token will stay so.
      gone: (_answer, json) => /(user|application token|token) (key |identifier )?is invalid|disabled|not found/i.test(JSON.stringify(json?.["errors"] ?? "")),
    });
  },
});
