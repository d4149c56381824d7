import { z } from "zod";
import type { Answer, FakeService, RecordedRequest } from "./helpers.js";

// Each service's documented request schema and limits, as a local fake checks them. A request
// that does not match is answered 400 the way the service would, so a wrong shape fails the send.

export interface ServiceSpec {
  name: string;
  /** The channel URL for a fake listening at `fake.url`. */
  url(fake: FakeService): string;
  /** Env overrides (`DRIFTWATCH_<SERVICE>_API_URL`) for hosted services. */
  env?(fake: FakeService): Record<string, string>;
  /** Which requests are the message itself (a login or join is not). */
  isSend?(request: RecordedRequest): boolean;
  /** Answers like the service, checking the request. */
  route(request: RecordedRequest): Answer;
  /** Extra checks on the message requests after a delivered send. */
  check?(sends: RecordedRequest[]): void;
  /** A rate-limit answer and the seconds it asks for. */
  retry: [Answer, number];
  /** The service's "this destination is gone" answer. */
  gone: Answer;
  /** A bad request, and the reason text the result must carry. */
  bad: [Answer, string];
  /** Checks that hostile target content arrived as data (escaped for the service's markup). */
  hostile?(sends: RecordedRequest[]): void;
}

const HOSTILE_LINK = "[link](https://evil.example)";

function assert(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

/** HTML with only the given tags (and their attributes as we write them): no other `<`. */
function onlyTags(html: string, tags: string[], what: string): void {
  const stripped = html.replace(new RegExp(`</?(?:${tags.join("|")})(?: [a-z]+="[^"<>]*")?>`, "g"), "");
  assert(!/[<>]/.test(stripped), `${what} holds markup the target sent: ${stripped.slice(0, 200)}`);
  assert(!/<a [^>]*href="javascript/i.test(html), `${what} holds a javascript: link`);
}

/** Markdown where target text cannot make a link, a mention or formatting. */
function escapedMarkdown(markdown: string, what: string): void {
  // Code spans render nothing inside them (a backtick cannot end them early: it is replaced).
  const text = markdown.replace(/`[^`]*`/g, "");
  assert(!text.includes(HOSTILE_LINK), `${what} holds a live markdown link`);
  assert(!/(?<!\\)\*y\*/.test(text), `${what} holds live emphasis`);
  assert(!/@(everyone|here|channel|all)\b/.test(text), `${what} holds a live mention`);
  assert(!/(?<!\\)<!channel/.test(text), `${what} holds a raw <!channel>`);
}

function mrkdwnTexts(json: any): string[] {
  const out: string[] = [json.text];
  for (const block of json.blocks ?? []) {
    if (block.text?.type === "mrkdwn") out.push(block.text.text);
    for (const element of block.elements ?? []) if (element.type === "mrkdwn") out.push(element.text);
  }
  return out;
}

function validate(schema: z.ZodTypeAny, value: unknown): string | undefined {
  const result = schema.safeParse(value);
  return result.success ? undefined : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
}

const jsonBody = (r: RecordedRequest): boolean => /^application\/json/.test(String(r.headers["content-type"]));

// https://api.slack.com/reference/block-kit/blocks
const slackText = z.object({ type: z.enum(["mrkdwn", "plain_text"]), text: z.string().min(1).max(3000) });
const slackBlock = z.discriminatedUnion("type", [
  z.object({ type: z.literal("header"), text: z.object({ type: z.literal("plain_text"), text: z.string().min(1).max(150) }).passthrough() }),
  z.object({ type: z.literal("section"), text: slackText }),
  z.object({ type: z.literal("context"), elements: z.array(slackText).min(1).max(10) }),
  z.object({ type: z.literal("actions"), elements: z.array(z.object({ type: z.literal("button"), text: z.object({ type: z.literal("plain_text"), text: z.string().max(75) }), url: z.string().url().max(3000) })).max(25) }),
]);
export const SlackMessageSchema = z.object({ text: z.string().max(40_000), blocks: z.array(slackBlock).max(50) }).passthrough();

// https://discord.com/developers/docs/resources/message#embed-object-embed-limits
const discordEmbed = z.object({
  title: z.string().max(256),
  description: z.string().max(4096),
  url: z.string().url().optional(),
  color: z.number().int().min(0).max(0xffffff),
  timestamp: z.string(),
  fields: z.array(z.object({ name: z.string().min(1).max(256), value: z.string().min(1).max(1024), inline: z.boolean() })).max(25),
  footer: z.object({ text: z.string().max(2048) }),
});
export const DiscordMessageSchema = z.strictObject({
  content: z.string().max(2000).optional(),
  avatar_url: z.string().url().optional(),
  username: z.string().max(80).optional(),
  embeds: z.array(discordEmbed).max(10),
  allowed_mentions: z.object({ parse: z.array(z.string()).length(0) }),
});
export function discordTotal(embed: z.infer<typeof discordEmbed>): number {
  return embed.title.length + embed.description.length + embed.footer.text.length + embed.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
}

// https://core.telegram.org/bots/api#sendmessage
export const TelegramMessageSchema = z.object({
  chat_id: z.union([z.string(), z.number()]),
  text: z.string().min(1).max(4096),
  parse_mode: z.literal("HTML"),
  message_thread_id: z.number().int().optional(),
  link_preview_options: z.object({ is_disabled: z.boolean() }).optional(),
  disable_notification: z.boolean().optional(),
});

// Adaptive Card in a Teams message (https://adaptivecards.io/explorer/)
export const TeamsMessageSchema = z.object({
  type: z.literal("message"),
  attachments: z
    .array(
      z.object({
        contentType: z.literal("application/vnd.microsoft.card.adaptive"),
        contentUrl: z.null(),
        content: z.object({ type: z.literal("AdaptiveCard"), version: z.string(), body: z.array(z.object({ type: z.enum(["TextBlock", "RichTextBlock", "FactSet", "Container"]) }).passthrough()).min(1) }).passthrough(),
      }),
    )
    .length(1),
});

// https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces.messages
export const GoogleChatMessageSchema = z.object({
  text: z.string(),
  cardsV2: z.array(z.object({ cardId: z.string(), card: z.object({ header: z.object({ title: z.string() }).passthrough(), sections: z.array(z.object({ widgets: z.array(z.record(z.string(), z.unknown())).min(1) })) }) })).max(1),
});

export const MattermostMessageSchema = z.object({ text: z.string().min(1).max(16_383), channel: z.string().optional(), username: z.string().optional(), attachments: z.array(z.object({}).passthrough()).optional() });
export const RocketMessageSchema = z.object({ text: z.string().min(1), channel: z.string().regex(/^[#@]/).optional(), attachments: z.array(z.object({}).passthrough()).optional() });

// https://spec.matrix.org/v1.11/client-server-api/#mroommessage-msgtypes
export const MatrixContentSchema = z.object({ msgtype: z.enum(["m.notice", "m.text"]), body: z.string().min(1), format: z.literal("org.matrix.custom.html").optional(), formatted_body: z.string().optional() });

// https://docs.ntfy.sh/publish/#publish-as-json
export const NtfyMessageSchema = z.object({
  topic: z.string().regex(/^[-_A-Za-z0-9]{1,64}$/),
  message: z.string().refine((m) => Buffer.byteLength(m) <= 4096, "message over 4096 bytes"),
  title: z.string().regex(/^[^\r\n\u0000-\u001f]*$/),
  priority: z.number().int().min(1).max(5),
  tags: z.array(z.string()),
  click: z.string().url().optional(),
  actions: z.array(z.object({ action: z.literal("view"), label: z.string(), url: z.string().url() })).optional(),
});

// https://gotify.net/api-docs#/message/createMessage
export const GotifyMessageSchema = z.object({ title: z.string(), message: z.string().min(1), priority: z.number().int().min(0).max(10), extras: z.record(z.string(), z.unknown()).optional() });

// https://pushover.net/api
export const PushoverMessageSchema = z.object({
  token: z.string().regex(/^[A-Za-z0-9]{30}$/),
  user: z.string().regex(/^[A-Za-z0-9]{30}$/),
  message: z.string().min(1).max(1024),
  title: z.string().max(250),
  url: z.string().max(512).optional(),
  url_title: z.string().max(100).optional(),
  html: z.literal("1"),
  priority: z.string().regex(/^-?[0-2]$/),
  device: z.string().optional(),
  timestamp: z.string().regex(/^\d+$/).optional(),
});

// https://developer.pagerduty.com/api-reference/368ae3d938c9e-send-an-event-to-pager-duty
export const PagerDutyEventSchema = z.discriminatedUnion("event_action", [
  z.object({
    routing_key: z.string().length(32),
    event_action: z.literal("trigger"),
    dedup_key: z.string().max(255),
    client: z.string().optional(),
    client_url: z.string().optional(),
    links: z.array(z.object({ href: z.string(), text: z.string() })).optional(),
    payload: z.object({ summary: z.string().min(1).max(1024), source: z.string().min(1), severity: z.enum(["critical", "error", "warning", "info"]), timestamp: z.string().optional(), component: z.string().optional(), group: z.string().optional(), class: z.string().optional(), custom_details: z.record(z.string(), z.unknown()).optional() }),
  }),
  z.object({ routing_key: z.string().length(32), event_action: z.literal("resolve"), dedup_key: z.string().max(255) }),
]);

// https://docs.opsgenie.com/docs/alert-api#create-alert
export const OpsgenieAlertSchema = z.object({
  message: z.string().min(1).max(130),
  alias: z.string().max(512),
  description: z.string().max(15_000),
  responders: z.array(z.object({ type: z.enum(["user", "team", "schedule", "escalation"]) }).passthrough()).optional(),
  tags: z.array(z.string().max(50)).max(20),
  details: z.record(z.string(), z.string()),
  entity: z.string().max(512),
  source: z.string().max(100),
  priority: z.enum(["P1", "P2", "P3", "P4", "P5"]),
});

function checked(schema: z.ZodTypeAny, r: RecordedRequest, ok: Answer, bad: (problem: string) => Answer, form = false): Answer {
  if (form ? !/^application\/x-www-form-urlencoded/.test(String(r.headers["content-type"])) : !jsonBody(r)) return bad(`wrong content-type ${String(r.headers["content-type"])}`);
  const problem = validate(schema, r.json);
  return problem === undefined ? ok : bad(problem);
}

export const SLACK_A = "T1JJ3T3L2";
export const SLACK_B = "A1BRTD4JD";
export const SLACK_C = "TIiajkdnlazkcOXrIdevi7";
export const DISCORD_ID = "417429632418316298";
export const DISCORD_TOKEN = "JHZ7lQml277CDHmQKMHI8qBe7bk2ZwO5UKjCiOAF7711o33MyqU344Qpgv7YTpadV_js";
export const BOT = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
export const PO_USER = "uQiRzpo4DXghDmr9QzzfQu27cmVRsG";
export const PO_TOKEN = "azGDORePK8gMaC0QOYAMyEEuzJnyUi";
export const PD_KEY = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6";
export const OG_KEY = "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d";
export const WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

export const SERVICES: ServiceSpec[] = [
  {
    name: "slack",
    url: () => `https://hooks.slack.com/services/${SLACK_A}/${SLACK_B}/${SLACK_C}`,
    env: (f) => ({ DRIFTWATCH_SLACK_API_URL: f.url }),
    route: (r) =>
      r.method === "POST" && r.path === `/services/${SLACK_A}/${SLACK_B}/${SLACK_C}`
        ? checked(SlackMessageSchema, r, { status: 200, body: "ok" }, () => ({ status: 400, body: "invalid_blocks" }))
        : { status: 404, body: "no_service" },
    retry: [{ status: 429, headers: { "retry-after": "30" }, body: "rate_limited" }, 30],
    gone: { status: 404, body: "no_service" },
    bad: [{ status: 400, body: "invalid_blocks" }, "invalid_blocks"],
    hostile: (sends) => {
      for (const s of sends) for (const text of mrkdwnTexts(s.json)) assert(!/[<>]/.test(text), `mrkdwn holds a raw < or >: ${text.slice(0, 120)}`);
    },
  },
  {
    name: "slack-bot",
    url: () => "slack://xoxb-1234-5678-abcdef/#ops/#dev",
    env: (f) => ({ DRIFTWATCH_SLACK_API_URL: f.url }),
    route: (r) => {
      if (r.path !== "/api/chat.postMessage" || r.headers.authorization !== "Bearer xoxb-1234-5678-abcdef") return { status: 200, body: { ok: false, error: "invalid_auth" } };
      return checked(SlackMessageSchema.extend({ channel: z.string() }), r, { status: 200, body: { ok: true, channel: "C1", ts: "1.2" } }, () => ({ status: 200, body: { ok: false, error: "invalid_blocks" } }));
    },
    check: (sends) => expectEqual(sends.map((s) => s.json.channel), ["#ops", "#dev"]),
    retry: [{ status: 429, headers: { "retry-after": "12" }, body: { ok: false, error: "ratelimited" } }, 12],
    gone: { status: 200, body: { ok: false, error: "channel_not_found" } },
    bad: [{ status: 200, body: { ok: false, error: "invalid_blocks" } }, "invalid_blocks"],
    hostile: (sends) => {
      for (const s of sends) for (const text of mrkdwnTexts(s.json)) assert(!/[<>]/.test(text), `mrkdwn holds a raw < or >: ${text.slice(0, 120)}`);
    },
  },
  {
    name: "discord",
    url: () => `discord://${DISCORD_ID}/${DISCORD_TOKEN}`,
    env: (f) => ({ DRIFTWATCH_DISCORD_API_URL: f.url }),
    route: (r) =>
      r.path === `/api/webhooks/${DISCORD_ID}/${DISCORD_TOKEN}` && r.query.get("wait") === "true"
        ? checked(DiscordMessageSchema, r, { status: 200, body: { id: "1", type: 0 } }, (p) => ({ status: 400, body: { code: 50035, message: `Invalid Form Body ${p}` } }))
        : { status: 404, body: { message: "Unknown Webhook", code: 10015 } },
    check: (sends) => {
      for (const s of sends) for (const embed of s.json.embeds) if (discordTotal(embed) > 6000) throw new Error("embed over 6000 characters");
    },
    retry: [{ status: 429, body: { message: "You are being rate limited.", retry_after: 4.2, global: false } }, 5],
    gone: { status: 404, body: { message: "Unknown Webhook", code: 10015 } },
    bad: [{ status: 400, body: { code: 50035, message: "Invalid Form Body" } }, "Invalid Form Body"],
    hostile: (sends) => {
      for (const s of sends) {
        assert(JSON.stringify(s.json.allowed_mentions) === '{"parse":[]}', "allowed_mentions must be empty");
        const embed = s.json.embeds[0];
        for (const text of [embed.title, embed.description, ...embed.fields.flatMap((f: any) => [f.name, f.value])]) escapedMarkdown(text, "embed");
      }
    },
  },
  {
    name: "telegram",
    url: () => `tgram://${BOT}/-1001234567890/@alerts`,
    env: (f) => ({ DRIFTWATCH_TELEGRAM_API_URL: f.url }),
    route: (r) =>
      r.path === `/bot${BOT}/sendMessage`
        ? checked(TelegramMessageSchema, r, { status: 200, body: { ok: true, result: { message_id: 1 } } }, (p) => ({ status: 400, body: { ok: false, error_code: 400, description: `Bad Request: ${p}` } }))
        : { status: 401, body: { ok: false, error_code: 401, description: "Unauthorized" } },
    check: (sends) => expectEqual(sends.map((s) => s.json.chat_id), ["-1001234567890", "@alerts"]),
    retry: [{ status: 429, body: { ok: false, error_code: 429, description: "Too Many Requests: retry after 17", parameters: { retry_after: 17 } } }, 17],
    gone: { status: 403, body: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" } },
    bad: [{ status: 400, body: { ok: false, error_code: 400, description: "Bad Request: can't parse entities" } }, "can't parse entities"],
    hostile: (sends) => {
      for (const s of sends) onlyTags(s.json.text, ["b", "i", "code", "a"], "text");
    },
  },
  {
    name: "msteams",
    url: () => "https://prod-1.westeurope.logic.azure.com:443/workflows/643e69f83c8944438d68119179a10a64/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=KODuebWbDGYFr0z0eu",
    env: (f) => ({ DRIFTWATCH_MSTEAMS_API_URL: f.url }),
    route: (r) => {
      if (r.path !== "/workflows/643e69f83c8944438d68119179a10a64/triggers/manual/paths/invoke" || r.query.get("sig") !== "KODuebWbDGYFr0z0eu") return { status: 401, body: { error: { code: "DirectApiAuthorizationRequired" } } };
      if (Buffer.byteLength(r.body) > 28 * 1024) return { status: 413, body: { error: { code: "MessageTooLarge" } } };
      return checked(TeamsMessageSchema, r, { status: 202, body: "" }, (p) => ({ status: 400, body: { error: { code: "InvalidRequestContent", message: p } } }));
    },
    retry: [{ status: 429, headers: { "retry-after": "60" }, body: { error: { code: "WorkflowTriggerIsThrottled" } } }, 60],
    gone: { status: 404, body: { error: { code: "WorkflowNotFound", message: "The workflow was not found." } } },
    bad: [{ status: 400, body: { error: { code: "InvalidRequestContent", message: "The request content is not valid" } } }, "The request content is not valid"],
    hostile: (sends) => {
      const card = sends[0]?.json.attachments[0].content;
      for (const item of card.body) assert(item.type === "RichTextBlock" && item.inlines.every((i: any) => i.type === "TextRun"), "target text outside a TextRun");
    },
  },
  {
    name: "gchat",
    url: () => "gchat://AAAAk6lGXyM/AIzaSyDdI0hCZtE6vySjMm/O7b1nyri_waOpLMSzbF",
    env: (f) => ({ DRIFTWATCH_GCHAT_API_URL: f.url }),
    route: (r) => {
      if (r.path !== "/v1/spaces/AAAAk6lGXyM/messages" || r.query.get("key") !== "AIzaSyDdI0hCZtE6vySjMm" || r.query.get("token") !== "O7b1nyri_waOpLMSzbF") return { status: 404, body: { error: { code: 404, status: "NOT_FOUND" } } };
      if (Buffer.byteLength(r.body) > 32_000) return { status: 400, body: { error: { code: 400, message: "Message too large", status: "INVALID_ARGUMENT" } } };
      return checked(GoogleChatMessageSchema, r, { status: 200, body: { name: "spaces/AAAAk6lGXyM/messages/1" } }, (p) => ({ status: 400, body: { error: { code: 400, message: p, status: "INVALID_ARGUMENT" } } }));
    },
    retry: [{ status: 429, body: { error: { code: 429, message: "Resource has been exhausted", status: "RESOURCE_EXHAUSTED" } }, headers: { "retry-after": "9" } }, 9],
    gone: { status: 404, body: { error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" } } },
    bad: [{ status: 400, body: { error: { code: 400, message: "Invalid JSON payload received.", status: "INVALID_ARGUMENT" } } }, "Invalid JSON payload received."],
    hostile: (sends) => {
      const message = sends[0]?.json;
      assert(!/[<>]/.test(message.text), "text holds a raw < or >");
      for (const widget of message.cardsV2[0].card.sections[0].widgets) if (widget.textParagraph) onlyTags(widget.textParagraph.text, ["b", "i", "font"], "textParagraph");
    },
  },
  {
    name: "mattermost",
    url: (f) => `mmost://driftbot@127.0.0.1:${f.port}/sub/3ccdd113474722377935511fc85d3dd4?channel=ops`,
    route: (r) =>
      r.path === "/sub/hooks/3ccdd113474722377935511fc85d3dd4"
        ? checked(MattermostMessageSchema, r, { status: 200, body: "ok" }, (p) => ({ status: 400, body: { id: "web.incoming_webhook.parse.app_error", message: p, status_code: 400 } }))
        : { status: 404, body: { id: "api.context.404.app_error", status_code: 404 } },
    check: (sends) => expectEqual([sends[0]?.json.channel, sends[0]?.json.username], ["ops", "driftbot"]),
    retry: [{ status: 503, headers: { "retry-after": "3" }, body: "unavailable" }, 3],
    gone: { status: 400, body: { id: "web.incoming_webhook.invalid.app_error", message: "Invalid webhook.", status_code: 400 } },
    bad: [{ status: 400, body: { id: "web.incoming_webhook.text.app_error", message: "No text specified.", status_code: 400 } }, "No text specified."],
    hostile: (sends) => {
      for (const s of sends) escapedMarkdown(s.json.text, "text");
    },
  },
  {
    name: "rocketchat-webhook",
    url: (f) => `rocket://abcdefghijk/lmnopqrstuvwxyz@127.0.0.1:${f.port}/#ops`,
    route: (r) =>
      r.path === "/hooks/abcdefghijk/lmnopqrstuvwxyz"
        ? checked(RocketMessageSchema, r, { status: 200, body: { success: true } }, (p) => ({ status: 400, body: { success: false, error: p } }))
        : { status: 404, body: { success: false, error: "Invalid integration id or token provided." } },
    check: (sends) => expectEqual(sends.map((s) => s.json.channel), ["#ops"]),
    retry: [{ status: 429, headers: { "retry-after": "2" }, body: { success: false, error: "Too many requests" } }, 2],
    gone: { status: 404, body: { success: false, error: "Invalid integration id or token provided." } },
    bad: [{ status: 400, body: { success: false, error: "error-invalid-channel" } }, "error-invalid-channel"],
    hostile: (sends) => {
      for (const s of sends) escapedMarkdown(s.json.text, "text");
    },
  },
  {
    name: "rocketchat-login",
    url: (f) => `rocket://jane:pw-1@127.0.0.1:${f.port}/#ops/@joe`,
    isSend: (r) => r.path === "/api/v1/chat.postMessage",
    route: (r) => {
      if (r.path === "/api/v1/login") {
        return r.json?.user === "jane" && r.json?.password === "pw-1" ? { status: 200, body: { status: "success", data: { authToken: "tok-1", userId: "uid-1" } } } : { status: 401, body: { status: "error", message: "Unauthorized" } };
      }
      if (r.path === "/api/v1/logout") return { status: 200, body: { status: "success" } };
      if (r.headers["x-auth-token"] !== "tok-1" || r.headers["x-user-id"] !== "uid-1") return { status: 401, body: { status: "error", message: "You must be logged in to do this." } };
      return checked(RocketMessageSchema, r, { status: 200, body: { success: true } }, (p) => ({ status: 400, body: { success: false, error: p } }));
    },
    check: (sends) => expectEqual(sends.map((s) => s.json.channel), ["#ops", "@joe"]),
    retry: [{ status: 429, headers: { "retry-after": "8" }, body: { success: false, error: "Error, too many requests." } }, 8],
    gone: { status: 401, body: { status: "error", message: "You must be logged in to do this." } },
    bad: [{ status: 400, body: { success: false, error: "error-invalid-room" } }, "error-invalid-room"],
    hostile: (sends) => {
      for (const s of sends) escapedMarkdown(s.json.text, "text");
    },
  },
  {
    name: "matrix",
    url: (f) => `matrix://jane:pw-2@127.0.0.1:${f.port}/#ops`,
    isSend: (r) => r.path.includes("/send/m.room.message/"),
    route: (r) => {
      if (r.path === "/_matrix/client/v3/login") {
        const ok = r.json?.type === "m.login.password" && r.json?.identifier?.user === "jane" && r.json?.password === "pw-2";
        return ok ? { status: 200, body: { access_token: "syt_token", user_id: "@jane:127.0.0.1", device_id: "D" } } : { status: 403, body: { errcode: "M_FORBIDDEN", error: "Invalid password" } };
      }
      if (r.headers.authorization !== "Bearer syt_token") return { status: 401, body: { errcode: "M_UNKNOWN_TOKEN", error: "Invalid access token" } };
      if (r.path === "/_matrix/client/v3/logout") return { status: 200, body: {} };
      if (r.method === "POST" && r.path === `/_matrix/client/v3/join/${encodeURIComponent("#ops:127.0.0.1")}`) return { status: 200, body: { room_id: "!abc:127.0.0.1" } };
      const send = /^\/_matrix\/client\/v3\/rooms\/!abc%3A127\.0\.0\.1\/send\/m\.room\.message\/([^/]+)$/.exec(r.path);
      if (r.method !== "PUT" || send === null) return { status: 404, body: { errcode: "M_UNRECOGNIZED", error: "Unrecognized request" } };
      if (Buffer.byteLength(r.body) > 65_536) return { status: 413, body: { errcode: "M_TOO_LARGE", error: "event too large" } };
      return checked(MatrixContentSchema, r, { status: 200, body: { event_id: "$e1" } }, (p) => ({ status: 400, body: { errcode: "M_BAD_JSON", error: p } }));
    },
    check: (sends) => expectEqual(sends.map((s) => s.path.endsWith("/dw-evt_0001")), [true]),
    retry: [{ status: 429, body: { errcode: "M_LIMIT_EXCEEDED", error: "Too many requests", retry_after_ms: 2500 } }, 3],
    gone: { status: 403, body: { errcode: "M_FORBIDDEN", error: "User @jane:127.0.0.1 not in room !abc:127.0.0.1" } },
    bad: [{ status: 400, body: { errcode: "M_BAD_JSON", error: "Content is not valid" } }, "Content is not valid"],
    hostile: (sends) => {
      for (const s of sends) onlyTags(s.json.formatted_body, ["strong", "p", "ul", "li", "code", "em", "a"], "formatted_body");
    },
  },
  {
    name: "ntfy",
    url: (f) => `ntfy://tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2@127.0.0.1:${f.port}/alerts`,
    route: (r) => {
      if (r.headers.authorization !== "Bearer tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2") return { status: 401, body: { code: 40101, http: 401, error: "unauthorized" } };
      return r.path === "/" ? checked(NtfyMessageSchema, r, { status: 200, body: { id: "x", event: "message" } }, (p) => ({ status: 400, body: { code: 40024, http: 400, error: p } })) : { status: 404, body: { code: 40401, http: 404, error: "page not found" } };
    },
    retry: [{ status: 429, body: { code: 42901, http: 429, error: "limit reached: too many requests" } }, NaN],
    gone: { status: 410, body: { code: 41001, http: 410, error: "gone" } },
    bad: [{ status: 400, body: { code: 40007, http: 400, error: "invalid request: message too large" } }, "message too large"],
    hostile: (sends) => {
      for (const s of sends) assert(!/[\r\n]/.test(s.json.title), "title holds a line break");
    },
  },
  {
    name: "gotify",
    url: (f) => `gotify://127.0.0.1:${f.port}/gotify/AbCdEfGhIjKlMn`,
    route: (r) => {
      if (r.headers["x-gotify-key"] !== "AbCdEfGhIjKlMn") return { status: 401, body: { error: "Unauthorized", errorCode: 401, errorDescription: "you need to provide a valid access token or user credentials to access this api" } };
      return r.path === "/gotify/message" ? checked(GotifyMessageSchema, r, { status: 200, body: { id: 1, appid: 1 } }, (p) => ({ status: 400, body: { error: "Bad Request", errorCode: 400, errorDescription: p } })) : { status: 404, body: {} };
    },
    retry: [{ status: 503, body: "" }, NaN],
    gone: { status: 401, body: { error: "Unauthorized", errorCode: 401, errorDescription: "you need to provide a valid access token or user credentials to access this api" } },
    bad: [{ status: 400, body: { error: "Bad Request", errorCode: 400, errorDescription: "Field 'message' is required" } }, "Field 'message' is required"],
    hostile: (sends) => {
      for (const s of sends) {
        escapedMarkdown(s.json.message, "message");
        assert(!/[\r\n]/.test(s.json.title), "title holds a line break");
      }
    },
  },
  {
    name: "pushover",
    url: () => `pover://${PO_USER}@${PO_TOKEN}/phone`,
    env: (f) => ({ DRIFTWATCH_PUSHOVER_API_URL: f.url }),
    route: (r) =>
      r.path === "/1/messages.json"
        ? checked(PushoverMessageSchema, r, { status: 200, body: { status: 1, request: "r1" } }, (p) => ({ status: 400, body: { status: 0, errors: [p], request: "r1" } }), true)
        : { status: 404, body: {} },
    check: (sends) => expectEqual(sends[0]?.json.device, "phone"),
    retry: [{ status: 429, body: { status: 0, errors: ["message limit reached"] } }, NaN],
    gone: { status: 400, body: { user: "invalid", errors: ["user identifier is invalid"], status: 0, request: "r1" } },
    bad: [{ status: 400, body: { message: "cannot be blank", errors: ["message cannot be blank"], status: 0 } }, "message cannot be blank"],
    hostile: (sends) => {
      for (const s of sends) {
        onlyTags(s.json.message, ["b", "i", "u", "font"], "message");
        assert(!/[\r\n]/.test(s.json.title), "title holds a line break");
      }
    },
  },
  {
    name: "pagerduty",
    url: () => `pagerduty://${PD_KEY}@apikey/driftwatch/orders`,
    env: (f) => ({ DRIFTWATCH_PAGERDUTY_API_URL: f.url }),
    route: (r) =>
      r.path === "/v2/enqueue"
        ? checked(PagerDutyEventSchema, r, { status: 202, body: { status: "success", message: "Event processed", dedup_key: r.json?.dedup_key } }, (p) => ({ status: 400, body: { status: "invalid event", message: "Event object is invalid", errors: [p] } }))
        : { status: 404, body: {} },
    check: (sends) => expectEqual([sends[0]?.json.event_action, sends[0]?.json.dedup_key, sends[0]?.json.payload.severity, sends[0]?.json.payload.component], ["trigger", "driftwatch:mon_orders", "critical", "orders"]),
    retry: [{ status: 429, body: { status: "throttle event", message: "Requests for this service are arriving too quickly." } }, NaN],
    gone: { status: 410, body: {} },
    bad: [{ status: 400, body: { status: "invalid event", message: "Event object is invalid", errors: ["'routing_key' is invalid"] } }, "Event object is invalid"],
    hostile: (sends) => {
      for (const s of sends) assert(!/[\r\n]/.test(s.json.payload.summary), "summary holds a line break");
    },
  },
  {
    name: "opsgenie",
    url: () => `opsgenie://${OG_KEY}/#ops`,
    env: (f) => ({ DRIFTWATCH_OPSGENIE_API_URL: f.url }),
    route: (r) => {
      if (r.headers.authorization !== `GenieKey ${OG_KEY}`) return { status: 401, body: { message: "Could not authenticate", took: 0, requestId: "r" } };
      if (r.path === "/v2/alerts/driftwatch-mon_orders-health/close" && r.query.get("identifierType") === "alias") return { status: 202, body: { result: "Request will be processed", took: 0.1, requestId: "r" } };
      return r.path === "/v2/alerts" ? checked(OpsgenieAlertSchema, r, { status: 202, body: { result: "Request will be processed", took: 0.1, requestId: "r" } }, (p) => ({ status: 422, body: { message: p, took: 0, requestId: "r" } })) : { status: 404, body: {} };
    },
    check: (sends) => expectEqual([sends[0]?.json.alias, sends[0]?.json.priority, sends[0]?.json.responders], ["driftwatch-mon_orders", "P1", [{ type: "team", name: "ops" }]]),
    retry: [{ status: 429, headers: { "retry-after": "11" }, body: { message: "Too many requests", took: 0 } }, 11],
    gone: { status: 401, body: { message: "Could not authenticate", took: 0, requestId: "r" } },
    bad: [{ status: 422, body: { message: "Request body is not processable. Please check the errors.", errors: { message: "Message can not be empty." }, took: 0 } }, "Request body is not processable"],
    hostile: (sends) => {
      for (const s of sends) assert(!/[\r\n]/.test(s.json.message), "message holds a line break");
    },
  },
  {
    name: "json",
    url: (f) => `json://127.0.0.1:${f.port}/in/hook?+X-Token=abc&-source=dw`,
    route: (r) => {
      if (r.path !== "/in/hook" || r.query.get("source") !== "dw" || r.headers["x-token"] !== "abc") return { status: 404, body: "not found" };
      return r.json?.version === "1.0" && typeof r.json?.title === "string" && typeof r.json?.message === "string" ? { status: 204 } : { status: 400, body: "bad payload" };
    },
    check: (sends) => expectEqual([sends[0]?.json.type, sends[0]?.json.diff.id], ["failure", "dif_42"]),
    retry: [{ status: 503, headers: { "retry-after": "5" } }, 5],
    gone: { status: 410, body: "gone" },
    bad: [{ status: 422, body: { error: "bad payload" } }, "bad payload"],
  },
  {
    name: "webhook",
    url: (f) => `webhook://127.0.0.1:${f.port}/receiver?secret=${WEBHOOK_SECRET}`,
    route: (r) => (r.path === "/receiver" && typeof r.headers["webhook-signature"] === "string" ? { status: 200, body: "ok" } : { status: 400, body: "unsigned" }),
    retry: [{ status: 503, headers: { "retry-after": "120" } }, 120],
    gone: { status: 410 },
    // A webhook retries every other answer, as the delivery worker does; a 4xx is not final.
    bad: [{ status: 400, body: { error: "nope" } }, "nope"],
  },
];

function expectEqual(actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}
