import { invalidUrl } from "./errors.js";

/**
 * A channel URL in Apprise's syntax, split the way Apprise reads it:
 * `scheme://[user[:password]@]host[:port][/path/...][?key=value&...]`. Unlike WHATWG URL parsing,
 * `#` is kept (Apprise targets are `#channel`), `+` in the query stays a plus (JSON headers are
 * `+Name=value`), and a host may hold characters a hostname cannot (a Telegram bot token).
 */
export interface AppriseUrl {
  /** Lower-case scheme without `://`. */
  scheme: string;
  user: string | undefined;
  password: string | undefined;
  /** Decoded host part (no brackets around an IPv6 literal). */
  host: string;
  port: number | undefined;
  /** Decoded, non-empty path segments. */
  path: string[];
  /** Query parameters, keys lower-cased (last one wins). */
  query: Record<string, string>;
  /** Query parameters in order, keys as written (for `+Header`, `:key`, `-param`). */
  rawQuery: [string, string][];
}

const CONTROL = /[\u0000-\u001f\u007f]/;

function decode(service: string, part: string, value: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    throw invalidUrl(service, part, `the ${part} has an invalid percent-encoding`);
  }
  if (CONTROL.test(decoded)) throw invalidUrl(service, part, `the ${part} contains control characters`);
  return decoded;
}

/** Splits a URL; `service` names the channel in errors. */
export function parseAppriseUrl(raw: string, service: string): AppriseUrl {
  if (typeof raw !== "string") throw invalidUrl(service, "url", "the URL must be a string");
  const url = raw.trim();
  if (url.length > 8192) throw invalidUrl(service, "url", "the URL is longer than 8192 characters");
  if (CONTROL.test(url)) throw invalidUrl(service, "url", "the URL contains control characters");
  const match = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/is.exec(url);
  if (match === null) throw invalidUrl(service, "url", "not a URL of the form scheme://...");
  const scheme = (match[1] ?? "").toLowerCase();
  let rest = match[2] ?? "";
  let queryText = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    queryText = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  const slash = rest.indexOf("/");
  const authority = slash >= 0 ? rest.slice(0, slash) : rest;
  const pathText = slash >= 0 ? rest.slice(slash + 1) : "";
  const at = authority.lastIndexOf("@");
  const userinfo = at >= 0 ? authority.slice(0, at) : undefined;
  const hostport = at >= 0 ? authority.slice(at + 1) : authority;
  let user: string | undefined;
  let password: string | undefined;
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(":");
    user = decode(service, "user", colon >= 0 ? userinfo.slice(0, colon) : userinfo);
    password = colon >= 0 ? decode(service, "password", userinfo.slice(colon + 1)) : undefined;
    if (user === "") user = undefined;
  }
  let host = hostport;
  let port: number | undefined;
  if (hostport.startsWith("[")) {
    const end = hostport.indexOf("]");
    if (end < 0) throw invalidUrl(service, "host", "an IPv6 host is missing its closing bracket");
    host = hostport.slice(1, end);
    const after = hostport.slice(end + 1);
    if (after.startsWith(":") && /^\d+$/.test(after.slice(1))) port = Number(after.slice(1));
    else if (after !== "") throw invalidUrl(service, "host", "unexpected characters after the IPv6 host");
  } else {
    const colon = hostport.lastIndexOf(":");
    if (colon >= 0 && /^\d+$/.test(hostport.slice(colon + 1))) {
      host = hostport.slice(0, colon);
      port = Number(hostport.slice(colon + 1));
    }
  }
  if (port !== undefined && (port < 1 || port > 65535)) throw invalidUrl(service, "port", "the port must be 1 to 65535");
  host = decode(service, "host", host);
  const path = pathText
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => decode(service, "path", segment));
  const rawQuery: [string, string][] = [];
  const query: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const pair of queryText.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const key = decode(service, "query", eq >= 0 ? pair.slice(0, eq) : pair);
    const value = decode(service, `query.${key}`, eq >= 0 ? pair.slice(eq + 1) : "");
    rawQuery.push([key, value]);
    query[key.toLowerCase()] = value;
  }
  return { scheme, user, password, host, port, path, query, rawQuery };
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;
const IPV6 = /^[0-9a-f:.]+$/i;

/** Throws unless `host` is a hostname, an IPv4 or an IPv6 literal. */
export function requireHost(service: string, host: string): string {
  if (host === "") throw invalidUrl(service, "host", "a host is required");
  if (!HOSTNAME.test(host) && !(host.includes(":") && IPV6.test(host))) {
    throw invalidUrl(service, "host", "the host is not a valid hostname or IP address");
  }
  return host;
}

/** `https://host[:port]` (IPv6 in brackets), for building endpoints. */
export function origin(secure: boolean, host: string, port: number | undefined): string {
  const h = host.includes(":") ? `[${host}]` : host;
  return `${secure ? "https" : "http"}://${h}${port === undefined ? "" : `:${port}`}`;
}

/** Parses a boolean query value the way Apprise does (yes/no, true/false, 1/0, on/off). */
export function queryBool(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === "") return fallback;
  return /^(1|y|yes|true|on|enable)/i.test(value);
}

/** Splits a comma/space separated list (`?to=a,b c`). */
export function splitList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** The raw URL's query value of `key` (case-insensitive) if it is a valid http(s) URL. */
export function httpUrl(service: string, part: string, value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  try {
    const parsed = new URL(value);
    if (parsed.protocol === "http:" || parsed.protocol === "https:") return parsed.toString();
  } catch {
    // fall through
  }
  throw invalidUrl(service, part, `${part} must be an http(s) URL`);
}
