import { defineChannel } from "../channel.js";
import { NotifyError, invalidUrl } from "../errors.js";
import { changeLine } from "../notification.js";
import { origin, parseAppriseUrl, requireHost } from "../url.js";
import { sendAndClassify } from "./shared.js";

// A JSON POST to an endpoint of your own, in Apprise's json:// syntax
// (https://github.com/caronc/apprise/wiki/Notify_Custom_JSON): `+Name=value` adds a header,
// `-name=value` a query parameter of the request, `:key=value` sets a key of the body (`:key=`
// removes it). The body is Apprise's {version, title, message, type} plus driftwatch's fields, or
// a template: its values are JSON-escaped and the result must be JSON.

export interface JsonOptions {
  url: string;
  /** The endpoint's path: often a token of its own (`/hooks/abc123`), so masked as a secret. */
  path: string;
  method: "POST" | "PUT";
  headers: Record<string, string>;
  user: string | undefined;
  password: string | undefined;
  /** `:key=value` overrides of the default body; null removes the key. */
  fields: Record<string, string | null>;
}

const FORBIDDEN_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection"]);

export interface JsonPayload {
  url: string;
  method: "POST" | "PUT";
  body: string;
}

/** Escapes a value for the inside of a JSON string. */
function jsonEscape(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

export const jsonChannel = defineChannel<JsonOptions, JsonPayload>({
  service: "json",
  title: "JSON",
  schemes: ["json", "jsons"],
  parse(raw) {
    const service = "json";
    const parts = parseAppriseUrl(raw, service);
    requireHost(service, parts.host);
    const headers: Record<string, string> = {};
    const fields: Record<string, string | null> = {};
    const query = new URLSearchParams();
    let method: JsonOptions["method"] = "POST";
    const secretHeaders: string[] = [];
    for (const [key, value] of parts.rawQuery) {
      if (key.startsWith("+")) {
        const name = key.slice(1).toLowerCase();
        if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name) || FORBIDDEN_HEADERS.has(name)) throw invalidUrl(service, `query.${key}`, "not a header name that can be set");
        if (/[\r\n]/.test(value)) throw invalidUrl(service, `query.${key}`, "a header value cannot contain a line break");
        headers[name] = value;
        if (/authorization|token|key|secret|cookie|signature/i.test(name)) secretHeaders.push(`headers.${name}`);
      } else if (key.startsWith("-")) query.append(key.slice(1), value);
      else if (key.startsWith(":")) fields[key.slice(1)] = value === "" ? null : value;
      else if (key.toLowerCase() === "method") {
        const m = value.toUpperCase();
        if (m !== "POST" && m !== "PUT") throw invalidUrl(service, "query.method", "method is POST or PUT");
        method = m;
      }
    }
    const path = parts.path.map(encodeURIComponent).join("/");
    const search = query.toString();
    const url = `${origin(parts.scheme === "jsons", parts.host, parts.port)}/${path}${search === "" ? "" : `?${search}`}`;
    return { options: { url, path: parts.path.join("/"), method, headers, user: parts.user, password: parts.password, fields }, secrets: ["password", "path", ...secretHeaders] };
  },
  format(message, options, context, notification) {
    const rendered = context.renderTemplate(jsonEscape);
    if (rendered !== undefined) {
      try {
        JSON.parse(rendered);
      } catch (cause) {
        throw new NotifyError("invalid_template", "the json:// template does not render to JSON", { cause, service: "json", details: [{ path: "template", message: "the output is not JSON" }] });
      }
      return { url: options.url, method: options.method, body: rendered };
    }
    const type = message.event === "monitor.recovered" ? "success" : message.severity === "critical" || message.severity === "high" || message.event === "monitor.failing" ? "failure" : message.severity === "medium" ? "warning" : "info";
    const body: Record<string, unknown> = {
      version: "1.0",
      title: message.title,
      message: [message.summary, ...message.changes.map(changeLine), ...(message.more > 0 ? [`and ${message.more} more`] : []), ...(message.link ? [message.link] : [])].join("\n"),
      type,
      event: message.event,
      link: message.link ?? null,
      monitor: { id: message.monitorId, name: message.monitorName, url: message.monitorUrl ?? null },
      // a grouped message of several monitors: `monitor` is the group, `monitors` each of them
      ...(notification.event === "diff.detected" && notification.monitors !== undefined
        ? { monitors: notification.monitors.map((m) => ({ id: m.id, name: m.name, url: m.url ?? null })) }
        : {}),
      ...(notification.event === "diff.detected"
        ? { diff: { id: notification.diff.id, classification: notification.diff.classification, topSeverity: notification.diff.topSeverity, totalChanges: message.totalChanges } }
        : {}),
      severity: message.severity ?? null,
      // Cut previews, as every channel shows them: the full diff is one API call away.
      changes: message.changes,
      more: message.more,
      occurredAt: message.occurredAt,
    };
    for (const [key, value] of Object.entries(options.fields)) {
      if (value === null) delete body[key];
      else body[key] = value;
    }
    return { url: options.url, method: options.method, body: JSON.stringify(body) };
  },
  send(payload, options, context) {
    const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8", "user-agent": "driftwatch-notify", ...options.headers };
    if (options.user !== undefined) headers["authorization"] ??= `Basic ${Buffer.from(`${options.user}:${options.password ?? ""}`).toString("base64")}`;
    return sendAndClassify(context, { method: payload.method, url: payload.url, headers, body: payload.body });
  },
});
