/**
 * Apprise URLs in the browser: which service a URL names (for the list), and the URL of the
 * small per-service forms. The server parses and validates every URL; this only builds them.
 */

const SCHEMES: Record<string, string> = {
  slack: "Slack",
  discord: "Discord",
  msteams: "Microsoft Teams",
  workflows: "Microsoft Teams",
  tgram: "Telegram",
  mailto: "E-mail",
  mailtos: "E-mail",
  ntfy: "ntfy",
  ntfys: "ntfy",
  gotify: "Gotify",
  gotifys: "Gotify",
  pover: "Pushover",
  matrix: "Matrix",
  matrixs: "Matrix",
  gchat: "Google Chat",
  mmost: "Mattermost",
  mmosts: "Mattermost",
  rocket: "Rocket.Chat",
  rockets: "Rocket.Chat",
  pagerduty: "PagerDuty",
  opsgenie: "Opsgenie",
  json: "JSON",
  jsons: "JSON",
};

/** The service a channel URL names, from its scheme (or the provider's own https URL). */
export function serviceOf(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url.trim());
  if (match === null) return "unknown";
  const scheme = match[1]!.toLowerCase();
  if (scheme === "https" || scheme === "http") {
    let host = "";
    let pathname = "";
    try {
      ({ host, pathname } = new URL(url.trim()));
    } catch {
      return "unknown";
    }
    if (host === "hooks.slack.com") return "Slack";
    if (/(^|\.)discord(app)?\.com$/.test(host) && pathname.startsWith("/api/webhooks/")) return "Discord";
    if (host.endsWith(".logic.azure.com") || host.endsWith(".webhook.office.com") || host.endsWith(".powerplatform.com")) return "Microsoft Teams";
    if (host === "chat.googleapis.com") return "Google Chat";
    return "Signed webhook";
  }
  return SCHEMES[scheme] ?? scheme;
}

/** The server's service ids (`Channel.service`) as people name them. */
const SERVICE_NAMES: Record<string, string> = {
  slack: "Slack",
  discord: "Discord",
  msteams: "Microsoft Teams",
  telegram: "Telegram",
  email: "E-mail",
  ntfy: "ntfy",
  gotify: "Gotify",
  pushover: "Pushover",
  matrix: "Matrix",
  gchat: "Google Chat",
  mattermost: "Mattermost",
  rocketchat: "Rocket.Chat",
  pagerduty: "PagerDuty",
  opsgenie: "Opsgenie",
  json: "JSON",
  webhook: "Signed webhook",
};

/** A channel's service for people: the server's id named, else read from its URL. */
export function serviceLabel(channel: { service?: string; url: string }): string {
  if (channel.service) return SERVICE_NAMES[channel.service] ?? channel.service;
  return serviceOf(channel.url);
}

export type ServiceForm = "slack" | "discord" | "teams" | "telegram" | "email" | "ntfy" | "json";

export const SERVICE_FORMS: Array<{ id: ServiceForm; label: string }> = [
  { id: "slack", label: "Slack" },
  { id: "discord", label: "Discord" },
  { id: "teams", label: "Microsoft Teams" },
  { id: "telegram", label: "Telegram" },
  { id: "email", label: "E-mail" },
  { id: "ntfy", label: "ntfy" },
  { id: "json", label: "Generic JSON" },
];

/** The fields of each service's form: [field, label, placeholder, secret]. */
export const FORM_FIELDS: Record<ServiceForm, Array<[string, string, string, boolean]>> = {
  slack: [["webhook", "Incoming webhook URL", "https://hooks.slack.com/services/T…/B…/…", true]],
  discord: [["webhook", "Webhook URL", "https://discord.com/api/webhooks/…/…", true]],
  teams: [["webhook", "Workflows webhook URL", "https://….logic.azure.com/workflows/…", true]],
  telegram: [
    ["token", "Bot token", "123456789:AA…", true],
    ["chat", "Chat id", "-1001234567890", false],
  ],
  email: [
    ["host", "SMTP server", "smtp.example.com", false],
    ["port", "Port", "465", false],
    ["user", "User", "alerts@example.com", false],
    ["password", "Password", "", true],
    ["from", "From", "alerts@example.com", false],
    ["to", "To (comma-separated)", "team@example.com", false],
  ],
  ntfy: [
    ["server", "Server", "ntfy.sh", false],
    ["topic", "Topic", "driftwatch-alerts", false],
    ["token", "Access token (optional)", "tk_…", true],
  ],
  json: [["url", "Endpoint URL", "https://example.com/hooks/driftwatch", false]],
};

const enc = (s: string): string => encodeURIComponent(s.trim());

/** A problem with the form's fields, or the Apprise URL they make. */
export function buildServiceUrl(form: ServiceForm, f: Record<string, string>): { url: string } | { error: string } {
  const need = (...names: string[]): string | null => {
    for (const name of names) if ((f[name] ?? "").trim() === "") return `${FORM_FIELDS[form].find(([n]) => n === name)?.[1] ?? name} is required`;
    return null;
  };
  const missing =
    form === "telegram" ? need("token", "chat") : form === "email" ? need("host", "to") : form === "ntfy" ? need("topic") : form === "json" ? need("url") : need("webhook");
  if (missing !== null) return { error: missing };
  switch (form) {
    case "slack": {
      const m = /^https:\/\/hooks\.slack\.com\/services\/([^/]+)\/([^/]+)\/([^/?#]+)/.exec(f.webhook!.trim());
      return m ? { url: `slack://${m[1]!}/${m[2]!}/${m[3]!}` } : { error: "A Slack incoming webhook URL starts with https://hooks.slack.com/services/" };
    }
    case "discord": {
      const m = /^https:\/\/(?:(?:canary|ptb)\.)?discord(?:app)?\.com\/api\/webhooks\/(\d+)\/([^/?#]+)/.exec(f.webhook!.trim());
      return m ? { url: `discord://${m[1]!}/${m[2]!}` } : { error: "A Discord webhook URL looks like https://discord.com/api/webhooks/<id>/<token>" };
    }
    case "teams": {
      const url = f.webhook!.trim();
      return url.startsWith("https://") ? { url } : { error: "The Workflows webhook URL starts with https://" };
    }
    case "telegram": {
      const token = f.token!.trim();
      if (!/^\d+:[\w-]+$/.test(token)) return { error: "A bot token looks like 123456789:AA… (from @BotFather)" };
      return { url: `tgram://${token}/${enc(f.chat!)}` };
    }
    case "email": {
      const user = (f.user ?? "").trim();
      const auth = user === "" ? "" : `${enc(user)}${(f.password ?? "") === "" ? "" : `:${enc(f.password!)}`}@`;
      const port = (f.port ?? "").trim();
      const secure = port === "" || port === "465";
      const query = new URLSearchParams({ to: f.to!.trim() });
      if ((f.from ?? "").trim() !== "") query.set("from", f.from!.trim());
      return { url: `${secure ? "mailtos" : "mailto"}://${auth}${f.host!.trim()}${port === "" ? "" : `:${port}`}?${query.toString()}` };
    }
    case "ntfy": {
      const server = (f.server ?? "").trim().replace(/^https?:\/\//, "").replace(/\/+$/, "");
      const token = (f.token ?? "").trim();
      const auth = token === "" ? "" : `${enc(token)}@`;
      return { url: server === "" || server === "ntfy.sh" ? `ntfys://${auth}ntfy.sh/${enc(f.topic!)}` : `ntfys://${auth}${server}/${enc(f.topic!)}` };
    }
    case "json": {
      const m = /^(https?):\/\/(.+)$/.exec(f.url!.trim());
      return m ? { url: `${m[1] === "https" ? "jsons" : "json"}://${m[2]!}` } : { error: "The endpoint URL starts with http:// or https://" };
    }
  }
}
