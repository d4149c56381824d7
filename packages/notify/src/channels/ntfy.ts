import { combineResults } from "../answer.js";
import { defineChannel, type SendResult } from "../channel.js";
import { invalidUrl } from "../errors.js";
import { changeLine, type MessageModel } from "../notification.js";
import { oneLine, truncate } from "../text.js";
import { httpUrl, origin, parseAppriseUrl, requireHost, splitList } from "../url.js";
import { fitChanges, jsonRequest, sendAndClassify } from "./shared.js";

// ntfy (https://docs.ntfy.sh/publish/#publish-as-json): POST a JSON message to the server's root
// URL. Plain text (no markdown: only the web app renders it), so nothing in it is markup; the
// title is one line (it is also a header in other publish forms). Messages are at most 4096 bytes.

export interface NtfyOptions {
  baseUrl: string;
  topics: string[];
  auth: { type: "basic"; user: string; password: string } | { type: "token"; token: string } | undefined;
  priority: number | undefined;
  tags: string[];
  click: string | undefined;
}

export const NTFY_LIMITS = { messageBytes: 4096, titleChars: 250 } as const;

const PRIORITIES: Record<string, number> = { min: 1, low: 2, default: 3, normal: 3, high: 4, max: 5, urgent: 5, emergency: 5 };
const BY_SEVERITY: Record<string, number> = { critical: 5, high: 4, medium: 3, low: 2, info: 2 };
const TOPIC = /^[-_A-Za-z0-9]{1,64}$/;

export interface NtfyPayload {
  url: string;
  bodies: Record<string, unknown>[];
}

export function ntfyMessage(message: MessageModel, body: string | undefined): string {
  const render = (listed: number): string => {
    if (body !== undefined) return body;
    const lines = [`${message.classificationLabel}: ${message.summary}`, ...message.changes.slice(0, listed).map((c) => `- ${changeLine(c)}`)];
    const more = message.more + (message.changes.length - listed);
    if (more > 0) lines.push(`and ${more} more`);
    return lines.join("\n");
  };
  const text = fitChanges(message.changes.length, render, (t) => Buffer.byteLength(t) <= NTFY_LIMITS.messageBytes);
  return Buffer.byteLength(text) <= NTFY_LIMITS.messageBytes ? text : truncate(text, NTFY_LIMITS.messageBytes / 4);
}

export const ntfyChannel = defineChannel<NtfyOptions, NtfyPayload>({
  service: "ntfy",
  title: "ntfy",
  schemes: ["ntfy", "ntfys"],
  parse(raw) {
    const service = "ntfy";
    const parts = parseAppriseUrl(raw, service);
    let baseUrl: string;
    let topics: string[];
    const mode = parts.query["mode"]?.toLowerCase();
    if ((parts.path.length === 0 && mode !== "private") || mode === "cloud") {
      // ntfy://topic[/topic2]: the public ntfy.sh server (Apprise's cloud mode).
      baseUrl = "https://ntfy.sh";
      topics = parts.path.length === 0 ? [parts.host] : [parts.host, ...parts.path].filter((t) => t !== "ntfy.sh");
    } else {
      requireHost(service, parts.host);
      baseUrl = origin(parts.scheme === "ntfys", parts.host, parts.port);
      topics = parts.path;
    }
    topics = [...topics, ...splitList(parts.query["to"])];
    if (topics.length === 0) throw invalidUrl(service, "topics", "a topic is required: ntfy://TOPIC or ntfys://HOST/TOPIC");
    for (const [index, topic] of topics.entries()) {
      if (!TOPIC.test(topic)) throw invalidUrl(service, `topics[${index}]`, "a topic is 1 to 64 letters, digits, - or _");
    }
    let auth: NtfyOptions["auth"];
    const token = parts.query["token"] ?? (parts.user !== undefined && parts.password === undefined && parts.user.startsWith("tk_") ? parts.user : undefined);
    if (token !== undefined) auth = { type: "token", token };
    else if (parts.user !== undefined) auth = { type: "basic", user: parts.user, password: parts.password ?? "" };
    const priorityText = parts.query["priority"]?.toLowerCase();
    let priority: number | undefined;
    if (priorityText !== undefined && priorityText !== "") {
      priority = /^[1-5]$/.test(priorityText) ? Number(priorityText) : PRIORITIES[priorityText];
      if (priority === undefined) throw invalidUrl(service, "query.priority", "priority is 1-5 or min, low, default, high, max");
    }
    return {
      options: { baseUrl, topics, auth, priority, tags: splitList(parts.query["tags"]).map((t) => oneLine(t)), click: httpUrl(service, "query.click", parts.query["click"]) },
      // A topic is all it takes to read and publish on ntfy.sh: it is a secret.
      secrets: ["auth.password", "auth.token", "topics"],
    };
  },
  format(message, options, context) {
    const text = ntfyMessage(message, context.renderTemplate((t) => t));
    const click = message.link ?? options.click;
    return {
      url: `${options.baseUrl}/`,
      bodies: options.topics.map((topic) => ({
        topic,
        title: truncate(oneLine(message.title), NTFY_LIMITS.titleChars),
        message: text,
        priority: options.priority ?? BY_SEVERITY[message.severity ?? "info"] ?? 3,
        tags: [...options.tags, message.event === "monitor.recovered" ? "white_check_mark" : message.severity === "critical" || message.severity === "high" ? "rotating_light" : "mag"],
        ...(click === undefined ? {} : { click, actions: [{ action: "view", label: message.event === "diff.detected" ? "View diff" : "View monitor", url: click }] }),
      })),
    };
  },
  async send(payload, options, context) {
    const headers: Record<string, string> = {};
    if (options.auth?.type === "token") headers["authorization"] = `Bearer ${options.auth.token}`;
    else if (options.auth?.type === "basic") headers["authorization"] = `Basic ${Buffer.from(`${options.auth.user}:${options.auth.password}`).toString("base64")}`;
    const results: SendResult[] = [];
    for (const body of payload.bodies) {
      // 507 is ntfy's "insufficient storage" for a full visitor quota: retry later.
      results.push(await sendAndClassify(context, jsonRequest(payload.url, body, headers), { retryStatuses: [507] }));
    }
    return combineResults(results);
  },
});
