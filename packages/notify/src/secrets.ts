import type { ChannelConfig } from "./channel.js";

export const MASK = "***";

function getPath(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split(".")) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function setPath(value: Record<string, unknown>, path: string): void {
  const parts = path.split(".");
  let current: Record<string, unknown> = value;
  for (const part of parts.slice(0, -1)) {
    const next = current[part];
    if (typeof next !== "object" || next === null) return;
    const copy = Array.isArray(next) ? [...(next as unknown[])] : { ...(next as Record<string, unknown>) };
    current[part] = copy;
    current = copy as Record<string, unknown>;
  }
  const last = parts[parts.length - 1] as string;
  if (!Object.hasOwn(current, last) || current[last] === undefined) return;
  const secret = current[last];
  current[last] = Array.isArray(secret) ? secret.map(() => MASK) : MASK;
}

/** A copy of the config with every secret option replaced by `***`. */
export function redactConfig<C extends ChannelConfig>(config: C): C {
  const options = { ...(config.options as Record<string, unknown>) };
  for (const path of config.secrets) setPath(options, path);
  return { ...config, options } as C;
}

/** The secret values of a config (for masking them wherever they appear). */
export function secretValues(config: ChannelConfig): string[] {
  const values: string[] = [];
  for (const path of config.secrets) {
    const value = getPath(config.options, path);
    if (typeof value === "string" && value !== "") values.push(value);
    else if (Array.isArray(value)) for (const v of value) if (typeof v === "string" && v !== "") values.push(v);
  }
  return values;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Masks a channel URL. With its parsed config, each secret value is replaced wherever it
 * appears (raw or percent-encoded). Without one (an unparseable URL), everything that could be a
 * secret is masked: the user info, every path segment and every query value.
 */
export function maskSecretsInUrl(url: string, config: ChannelConfig | undefined): string {
  if (typeof url !== "string") return MASK;
  if (config === undefined) return maskEverything(url);
  let masked = url;
  const values = secretValues(config).sort((a, b) => b.length - a.length);
  for (const value of values) {
    for (const form of new Set([value, encodeURIComponent(value), encodeURI(value)])) {
      masked = masked.replace(new RegExp(escapeRegExp(form), "g"), MASK);
    }
  }
  return masked;
}

function maskEverything(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?]*)([^?]*)(\?.*)?$/is.exec(url.trim());
  if (match === null) return MASK;
  const [, scheme = "", authority = "", path = "", query = ""] = match;
  const at = authority.lastIndexOf("@");
  const hostPart = at >= 0 ? authority.slice(at + 1) : authority;
  // A host without a dot is more likely a token (slack://TOKEN/...) than a name.
  const host = `${at >= 0 ? `${MASK}@` : ""}${/\./.test(hostPart) || /^localhost(:\d+)?$/i.test(hostPart) ? hostPart : MASK}`;
  const maskedPath = path.replace(/[^/]+/g, MASK);
  const maskedQuery = query.replace(/=([^&]*)/g, `=${MASK}`);
  return `${scheme}${host}${maskedPath}${maskedQuery}`;
}
