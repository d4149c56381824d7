// Values of command-line flags and environment variables, checked: every bad one is a
// ConfigError naming the flag or variable, so the CLI can print it and exit 2 before anything starts.
import { DriftwatchError, type DriftwatchErrorOptions } from "@driftwatch/core";

export type ConfigErrorCode = "unknown_option" | "missing_value" | "invalid_value" | "unexpected_argument";

export class ConfigError extends DriftwatchError<ConfigErrorCode> {
  override readonly name = "ConfigError";
  constructor(code: ConfigErrorCode, message: string, options?: DriftwatchErrorOptions) {
    super(code, message, options);
  }
}

export function parseInteger(value: string, source: string, min: number, max: number): number {
  if (!/^\d+$/.test(value.trim())) {
    throw new ConfigError("invalid_value", `${source} must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)}).`);
  }
  const n = Number(value.trim());
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError("invalid_value", `${source} must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)}).`);
  }
  return n;
}

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);

export function parseBoolean(value: string, source: string): boolean {
  const v = value.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new ConfigError("invalid_value", `${source} must be true or false (got ${JSON.stringify(value)}).`);
}

export function parseHost(value: string, source: string): string {
  const v = value.trim();
  if (v === "" || /[\s/]/.test(v)) throw new ConfigError("invalid_value", `${source} must be a host name or IP address (got ${JSON.stringify(value)}).`);
  return v;
}

/** An http(s) base URL without query or fragment, without a trailing slash. */
export function parsePublicUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError("invalid_value", `${source} must be an absolute http or https URL (got ${JSON.stringify(value)}).`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new ConfigError("invalid_value", `${source} must be an absolute http or https URL without query, fragment or credentials (got ${JSON.stringify(value)}).`);
  }
  return url.href.replace(/\/+$/, "");
}
