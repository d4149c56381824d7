import { describe, expect, it } from "vitest";
import { createNotifier, isNotifyError, maskUrl, redact } from "../src/index.js";

// The forms come from Apprise's plugin templates and docstrings (caronc/apprise, apprise/plugins/*.py)
// and its wiki pages (Notify_*): each must parse to the options the channel sends with.

const notifier = createNotifier();
const SLACK_A = "T1JJ3T3L2";
const SLACK_B = "A1BRTD4JD";
const SLACK_C = "TIiajkdnlazkcOXrIdevi7";
const DISCORD_ID = "417429632418316298";
const DISCORD_TOKEN = "JHZ7lQml277CDHmQKMHI8qBe7bk2ZwO5UKjCiOAF7711o33MyqU344Qpgv7YTpadV_js";
const BOT = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
const PO_USER = "uQiRzpo4DXghDmr9QzzfQu27cmVRsG";
const PO_TOKEN = "azGDORePK8gMaC0QOYAMyEEuzJnyUi";
const PD_KEY = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6";
const OG_KEY = "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d";

const valid: [string, string, Record<string, unknown>][] = [
  // Slack: {schema}://{token_a}/{token_b}/{token_c}[/{targets}], {botname}@..., {access_token}/{targets}
  [`slack://${SLACK_A}/${SLACK_B}/${SLACK_C}`, "slack", { mode: "webhook", tokens: [SLACK_A, SLACK_B, SLACK_C], targets: [] }],
  [`slack://${SLACK_A}/${SLACK_B}/${SLACK_C}/#general`, "slack", { targets: ["#general"] }],
  [`slack://driftbot@${SLACK_A}/${SLACK_B}/${SLACK_C}/#general/@jane/+C0123`, "slack", { botname: "driftbot", targets: ["#general", "@jane", "C0123"] }],
  ["slack://xoxb-1234-1234-abc124/#nuxref", "slack", { mode: "bot", accessToken: "xoxb-1234-1234-abc124", targets: ["#nuxref"] }],
  [`https://hooks.slack.com/services/${SLACK_A}/${SLACK_B}/${SLACK_C}`, "slack", { mode: "webhook", tokens: [SLACK_A, SLACK_B, SLACK_C], host: "hooks.slack.com" }],
  // Discord: {schema}://{webhook_id}/{webhook_token}, {botname}@..., native URL, discordapp.com too
  [`discord://${DISCORD_ID}/${DISCORD_TOKEN}`, "discord", { webhookId: DISCORD_ID, webhookToken: DISCORD_TOKEN }],
  [`discord://drift@${DISCORD_ID}/${DISCORD_TOKEN}?thread=12345678`, "discord", { botname: "drift", threadId: "12345678" }],
  [`https://discord.com/api/webhooks/${DISCORD_ID}/${DISCORD_TOKEN}`, "discord", { webhookId: DISCORD_ID }],
  [`https://discordapp.com/api/webhooks/${DISCORD_ID}/${DISCORD_TOKEN}`, "discord", { host: "discord.com" }],
  // Telegram: {schema}://{bot_token}/{targets}; chat ids numeric, negative, @name, :topic
  [`tgram://${BOT}/123456789`, "telegram", { botToken: BOT, chats: [{ chatId: "123456789", topic: undefined }] }],
  [`tgram://${BOT}/-1001234567890/@mychannel/-100999:42`, "telegram", { chats: [{ chatId: "-1001234567890", topic: undefined }, { chatId: "@mychannel", topic: undefined }, { chatId: "-100999", topic: 42 }] }],
  [`tgram://bot${BOT}/123?topic=7`, "telegram", { botToken: BOT, chats: [{ chatId: "123", topic: 7 }] }],
  // E-mail: {schema}://{user}:{password}@{host}[:{port}][/{targets}] and ?smtp= ?from= ?to= ?mode=
  ["mailto://jane:secret@example.com", "email", { smtpHost: "example.com", port: 25, mode: "insecure", user: "jane", from: "jane@example.com", to: ["jane@example.com"] }],
  ["mailtos://jane:app-pass@gmail.com", "email", { smtpHost: "smtp.gmail.com", port: 587, mode: "starttls" }],
  ["mailtos://user:pass@example.com:465?smtp=mail.example.com&from=alerts@example.com&to=a@example.com,b@example.com&mode=ssl&name=Drift", "email", { smtpHost: "mail.example.com", port: 465, mode: "ssl", from: "alerts@example.com", fromName: "Drift", to: ["a@example.com", "b@example.com"] }],
  ["mailto://example.com?user=jane&pass=secret&to=ops@example.com&cc=c@example.com&bcc=d@example.com", "email", { user: "jane", password: "secret", to: ["ops@example.com"], cc: ["c@example.com"], bcc: ["d@example.com"] }],
  ["mailtos://user:pass@example.com/ops@example.com/dev@example.com", "email", { to: ["ops@example.com", "dev@example.com"] }],
  // ntfy: {schema}://{topic}, {host}/{targets}, {user}:{password}@{host}/..., {token}@{host}/...
  ["ntfy://my-alerts", "ntfy", { baseUrl: "https://ntfy.sh", topics: ["my-alerts"], auth: undefined }],
  ["ntfys://ntfy.example.com/alerts/ops", "ntfy", { baseUrl: "https://ntfy.example.com", topics: ["alerts", "ops"] }],
  ["ntfy://ntfy.example.com:8080/alerts?priority=high&tags=warning,skull", "ntfy", { baseUrl: "http://ntfy.example.com:8080", priority: 4, tags: ["warning", "skull"] }],
  ["ntfys://jane:pw@ntfy.example.com/alerts", "ntfy", { auth: { type: "basic", user: "jane", password: "pw" } }],
  ["ntfys://tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2@ntfy.example.com/alerts", "ntfy", { auth: { type: "token", token: "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2" } }],
  // Gotify: {schema}://{host}/{token}, {host}:{port}/{token}, {host}{path}{token}
  ["gotify://gotify.example.com/AbCdEfGhIjKlMn", "gotify", { baseUrl: "http://gotify.example.com", token: "AbCdEfGhIjKlMn" }],
  ["gotifys://gotify.example.com:8443/path/to/AbCdEfGhIjKlMn?priority=high", "gotify", { baseUrl: "https://gotify.example.com:8443/path/to", priority: 8 }],
  // Pushover: {schema}://{user_key}@{token}[/{targets}]
  [`pover://${PO_USER}@${PO_TOKEN}`, "pushover", { userKey: PO_USER, token: PO_TOKEN, devices: [] }],
  [`pover://${PO_USER}@${PO_TOKEN}/phone/tablet?priority=high&sound=siren`, "pushover", { devices: ["phone", "tablet"], priority: 1, sound: "siren" }],
  // Matrix: {user}:{password}@{host}/{targets}, {token}@{host}/{targets}, matrixs, port
  ["matrixs://jane:pw@matrix.example.com/#ops", "matrix", { baseUrl: "https://matrix.example.com", user: "jane", password: "pw", rooms: ["#ops:matrix.example.com"] }],
  ["matrix://syt_abc123@matrix.example.com:8008/!roomid:example.com/#alerts:example.org", "matrix", { baseUrl: "http://matrix.example.com:8008", accessToken: "syt_abc123", rooms: ["!roomid:example.com", "#alerts:example.org"] }],
  // Teams: the Workflows URL (both forms), workflows://, the retired msteams:// forms
  [
    "https://prod-161.westeurope.logic.azure.com:443/workflows/643e69f83c8944438d68119179a10a64/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=KODuebWbDGYFr0z0eu-6Rj8aUKz7108W3wrNJZxFE5A",
    "msteams",
    { url: "https://prod-161.westeurope.logic.azure.com:443/workflows/643e69f83c8944438d68119179a10a64/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=KODuebWbDGYFr0z0eu-6Rj8aUKz7108W3wrNJZxFE5A" },
  ],
  [
    "https://prod-161.westeurope.logic.azure.com:443/powerautomate/automations/direct/workflows/643e69f83c8944438d68119179a10a64/triggers/manual/paths/invoke?api-version=2022-03-01-preview&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=KODuebWbDGYFr0z0eu-6Rj8aUKz7108W3wrNJZxFE5A",
    "msteams",
    {},
  ],
  [
    "workflows://prod-161.westeurope.logic.azure.com:443/643e69f83c8944438d68119179a10a64/KODuebWbDGYFr0z0eu-6Rj8aUKz7108W3wrNJZxFE5A",
    "msteams",
    { url: "https://prod-161.westeurope.logic.azure.com:443/workflows/643e69f83c8944438d68119179a10a64/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=KODuebWbDGYFr0z0eu-6Rj8aUKz7108W3wrNJZxFE5A" },
  ],
  ["msteams://team-name/abcdefgf8-2f4b-4eca-8f61-225c83db1967@abcdefg2-5a99-4849-8efc-c9e78d28e57d/291289f63a8abd3593e834af4d79f9fe/a2329f43-0ffb-46ab-948b-c9abdad9d643/V2-abc", "msteams", { url: expect.stringMatching(/^https:\/\/team-name\.webhook\.office\.com\/webhookb2\//) }],
  // Google Chat: {schema}://{workspace}/{webhook_key}/{webhook_token}[/{thread_key}], native URL
  ["gchat://AAAAk6lGXyM/AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI/O7b1nyri_waOpLMSzbFILAGRzgtQofPW71fEEXKcyFk%3D", "gchat", { workspace: "AAAAk6lGXyM", key: "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI", token: "O7b1nyri_waOpLMSzbFILAGRzgtQofPW71fEEXKcyFk=" }],
  ["gchat://AAAAk6lGXyM/key123/token456/thread-1", "gchat", { threadKey: "thread-1" }],
  ["https://chat.googleapis.com/v1/spaces/AAAAk6lGXyM/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token=O7b1nyri_waOpLMSzbFILAGRzgtQofPW71fEEXKcyFk%3D", "gchat", { workspace: "AAAAk6lGXyM", token: "O7b1nyri_waOpLMSzbFILAGRzgtQofPW71fEEXKcyFk=" }],
  // Mattermost: {host}/{token}, {host}:{port}/{token}, {host}/{fullpath}/{token}, {user}@{host}/{token}
  ["mmost://mattermost.example.com/3ccdd113474722377935511fc85d3dd4", "mattermost", { baseUrl: "http://mattermost.example.com", token: "3ccdd113474722377935511fc85d3dd4", channels: [] }],
  ["mmosts://bot@mattermost.example.com:8443/sub/path/3ccdd113474722377935511fc85d3dd4?channel=ops,dev", "mattermost", { baseUrl: "https://mattermost.example.com:8443/sub/path", botname: "bot", channels: ["ops", "dev"] }],
  // Rocket.Chat: {user}:{password}@{host}/{targets}, {webhook}@{host}[/{targets}]
  ["rocket://jane:pw@chat.example.com/#general/@joe", "rocketchat", { mode: "basic", user: "jane", password: "pw", targets: ["#general", "@joe"] }],
  ["rockets://abcdefghijk/lmnopqrstuvwxyz@chat.example.com:8443/#ops", "rocketchat", { mode: "webhook", webhook: "abcdefghijk/lmnopqrstuvwxyz", baseUrl: "https://chat.example.com:8443", targets: ["#ops"] }],
  ["rocket://abcdefghijk%2Flmnopqrstuvwxyz@chat.example.com", "rocketchat", { mode: "webhook", webhook: "abcdefghijk/lmnopqrstuvwxyz", targets: [] }],
  // PagerDuty: {integrationkey}@{apikey}[/{source}[/{component}]]
  [`pagerduty://${PD_KEY}@myapikey`, "pagerduty", { integrationKey: PD_KEY, apiKey: "myapikey", region: "us" }],
  [`pagerduty://${PD_KEY}@myapikey/driftwatch/orders?region=eu`, "pagerduty", { source: "driftwatch", component: "orders", region: "eu" }],
  // Opsgenie: {apikey}, {user}@{apikey}, {apikey}/{targets} (@user #team *schedule ^escalation)
  [`opsgenie://${OG_KEY}`, "opsgenie", { apiKey: OG_KEY, responders: [], region: "us" }],
  [`opsgenie://${OG_KEY}/@jane/%23ops/*oncall/^escalate?region=eu&priority=2`, "opsgenie", { responders: [{ type: "user", username: "jane" }, { type: "team", name: "ops" }, { type: "schedule", name: "oncall" }, { type: "escalation", name: "escalate" }], region: "eu", priority: "P2" }],
  // JSON: {host}[:{port}], {user}:{password}@{host}, +header, -param, :key
  ["json://hooks.example.com/path/in", "json", { url: "http://hooks.example.com/path/in", method: "POST" }],
  ["jsons://u:p@hooks.example.com:8443/in?+X-Token=abc&-page=2&:type=&:source=driftwatch&method=put", "json", { url: "https://hooks.example.com:8443/in?page=2", headers: { "x-token": "abc" }, fields: { type: null, source: "driftwatch" }, method: "PUT", user: "u", password: "p" }],
  // More query forms Apprise documents
  [`https://hooks.slack-gov.com/services/${SLACK_A}/${SLACK_B}/${SLACK_C}`, "slack", { host: "hooks.slack-gov.com" }],
  [`slack://${SLACK_A}/${SLACK_B}/${SLACK_C}?to=%23ops,%23dev&botname=drift`, "slack", { targets: ["#ops", "#dev"], botname: "drift" }],
  [`tgram://${BOT}/?to=123,@news&silent=yes`, "telegram", { chats: [{ chatId: "123", topic: undefined }, { chatId: "@news", topic: undefined }], silent: true }],
  ["mailtos://user:pass@example.com?from=Drift%20Alerts%20%3Calerts@example.com%3E", "email", { from: "alerts@example.com", fromName: "Drift Alerts" }],
  ["ntfys://ntfy.example.com/alerts?token=tk_abc", "ntfy", { auth: { type: "token", token: "tk_abc" } }],
  ["gotify://gotify.example.com/AbCdEfGhIjKlMn?priority=7", "gotify", { priority: 7 }],
  [`opsgenie://${OG_KEY}?to=%23ops,@jane&tags=api,prod`, "opsgenie", { responders: [{ type: "team", name: "ops" }, { type: "user", username: "jane" }], tags: ["api", "prod"] }],
  [`pagerduty://${PD_KEY}@apikey?source=dw&component=orders&group=shop&class=drift`, "pagerduty", { source: "dw", component: "orders", group: "shop", class: "drift" }],
  ["rocket://chat.example.com/#ops?mode=webhook&webhook=abcdefghijk/lmnopqrstuvwxyz", "rocketchat", { mode: "webhook", webhook: "abcdefghijk/lmnopqrstuvwxyz" }],
  ["jsons://hooks.example.com:8443/", "json", { url: "https://hooks.example.com:8443/" }],
  // Signed webhook (driftwatch's own)
  ["webhooks://hooks.example.com/driftwatch?secret=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "webhook", { url: "https://hooks.example.com/driftwatch", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }],
];

describe("Apprise URL forms", () => {
  it.each(valid)("%s", (url, service, options) => {
    const config = notifier.parse(url);
    expect(config.service).toBe(service);
    expect(config.options).toMatchObject(options);
  });

  it.each(valid)("masks every secret of %s", (url) => {
    const config = notifier.parse(url);
    const masked = notifier.maskUrl(url);
    const redacted = redact(config);
    expect(config.secrets.length).toBeGreaterThan(0);
    for (const path of config.secrets) {
      let value: unknown = config.options;
      for (const part of path.split(".")) value = (value as Record<string, unknown> | undefined)?.[part];
      let hidden: unknown = redacted.options;
      for (const part of path.split(".")) hidden = (hidden as Record<string, unknown> | undefined)?.[part];
      const secrets = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string" && v.length > 0);
      if (secrets.length > 0) expect(hidden).toEqual(Array.isArray(value) ? value.map(() => "***") : "***");
      for (const secret of secrets) {
        expect(masked).not.toContain(secret);
        expect(masked).not.toContain(encodeURIComponent(secret));
      }
    }
    const hasSecret = config.secrets.some((path) => {
      let value: unknown = config.options;
      for (const part of path.split(".")) value = (value as Record<string, unknown> | undefined)?.[part];
      return (typeof value === "string" && value !== "") || (Array.isArray(value) && value.length > 0);
    });
    if (hasSecret) expect(masked).toContain("***");
    else expect(masked).toBe(url);
    expect(maskUrl(url)).toBe(masked);
  });
});

const invalid: [string, string, string][] = [
  ["slack://onlyone/two", "invalid_channel_url", "tokens"],
  ["slack://T1J$/A1BRTD4JD/abc", "invalid_channel_url", "tokens[0]"],
  ["slack://xoxb-1234-abc", "invalid_channel_url", "targets"],
  ["https://hooks.slack.com/other/path", "unsupported_channel", "url"],
  ["discord://notdigits/token", "invalid_channel_url", "webhookId"],
  [`discord://${DISCORD_ID}`, "invalid_channel_url", "webhookToken"],
  ["tgram://nottoken/123", "invalid_channel_url", "botToken"],
  [`tgram://${BOT}`, "invalid_channel_url", "chats"],
  [`tgram://${BOT}/not a chat`, "invalid_channel_url", "chats[0]"],
  ["mailto://user:pass@example.com?mode=tls13", "invalid_channel_url", "query.mode"],
  ["mailto://user:pass@example.com?to=not-an-address", "invalid_channel_url", "to[0]"],
  ["mailto://user:pass@exa mple.com", "invalid_channel_url", "host"],
  ["ntfy://ntfy.example.com/bad$topic?mode=private", "invalid_channel_url", "topics[0]"],
  ["ntfy://alerts?priority=loud", "invalid_channel_url", "query.priority"],
  ["gotify://gotify.example.com", "invalid_channel_url", "token"],
  [`pover://short@${PO_TOKEN}`, "invalid_channel_url", "userKey"],
  [`pover://${PO_USER}@${PO_TOKEN}?priority=emergency`, "invalid_channel_url", "query.priority"],
  ["matrix://t2bottoken", "invalid_channel_url", "url"],
  ["matrixs://jane:pw@matrix.example.com", "invalid_channel_url", "rooms"],
  ["matrixs://jane:pw@matrix.example.com/#ops?mode=slack", "invalid_channel_url", "query.mode"],
  ["workflows://host.example.com/onlyworkflow", "invalid_channel_url", "signature"],
  ["msteams://a/b", "invalid_channel_url", "url"],
  ["gchat://workspace/key", "invalid_channel_url", "token"],
  ["mmost://mattermost.example.com", "invalid_channel_url", "token"],
  ["rocket://chat.example.com/#general", "invalid_channel_url", "user"],
  ["pagerduty://short@apikey", "invalid_channel_url", "integrationKey"],
  [`pagerduty://${PD_KEY}@k?region=asia`, "invalid_channel_url", "query.region"],
  ["opsgenie://x", "invalid_channel_url", "apiKey"],
  ["jsons://hooks.example.com/in?+Host=evil", "invalid_channel_url", "query.+Host"],
  ["webhooks://hooks.example.com/in", "invalid_channel_url", "query.secret"],
  ["webhooks://hooks.example.com/in?secret=not-base64!", "invalid_channel_url", "query.secret"],
  ["foo://bar", "unsupported_channel", "url"],
  ["https://example.com/hook", "unsupported_channel", "url"],
  ["not a url", "invalid_channel_url", "url"],
  ["slack://a%ZZ/b/c", "invalid_channel_url", "host"],
  ["ntfy://alerts\r\nX: y", "invalid_channel_url", "url"],
];

describe("invalid channel URLs", () => {
  it.each(invalid)("%s is a typed %s error naming %s", (url, code, part) => {
    let caught: unknown;
    try {
      notifier.parse(url);
    } catch (error) {
      caught = error;
    }
    expect(isNotifyError(caught)).toBe(true);
    const error = caught as { code: string; details: { path: string }[]; message: string };
    expect(error.code).toBe(code);
    expect(error.details.map((d) => d.path)).toContain(part);
  });

  it("never puts a secret in the error message", () => {
    const secret = "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
    try {
      notifier.parse(`tgram://123456789:${secret}/not a chat!`);
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain(secret);
    }
  });

  it("masks an unparseable URL completely", () => {
    expect(notifier.maskUrl("slack://secretA/secretB")).toBe("slack://***/***");
    expect(notifier.maskUrl("foo://user:pw@host.example.com/token?key=value")).toBe("foo://***@host.example.com/***?key=***");
  });
});
