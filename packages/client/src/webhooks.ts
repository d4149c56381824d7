import type { DiffDetectedEvent } from "@driftwatch/schema";
import { DriftwatchClientError } from "./errors.js";

/** A webhook request failed verification; `reason` says why. */
export class WebhookVerificationError extends DriftwatchClientError {
  override readonly name = "WebhookVerificationError";
  readonly reason: "missing_headers" | "invalid_timestamp" | "timestamp_out_of_tolerance" | "invalid_signature" | "invalid_payload";
  constructor(reason: WebhookVerificationError["reason"], message: string) {
    super("webhook_verification_failed", message);
    this.reason = reason;
  }
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Allowed clock skew either way, in seconds. Default 300 (Standard Webhooks). */
  toleranceSeconds?: number;
  /** Current time in ms, for tests. */
  now?: number;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function base64ToBytes(value: string): Uint8Array<ArrayBuffer> {
  const binary = atob(value);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Verifies a `diff.detected` delivery per the Standard Webhooks spec (HMAC-SHA256 over
 * `{webhook-id}.{webhook-timestamp}.{body}`) and returns the envelope. Pass the RAW body, exactly
 * as received. Works in Node >= 20, browsers and edge runtimes (Web Crypto, no Node built-ins).
 * Receivers should dedupe on `eventId`: delivery is at least once.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<DiffDetectedEvent> {
  const body = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError("missing_headers", "webhook-id, webhook-timestamp and webhook-signature are required");
  }
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds)) {
    throw new WebhookVerificationError("invalid_timestamp", "webhook-timestamp is not a unix time in seconds");
  }
  const tolerance = options.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - seconds) > tolerance) {
    throw new WebhookVerificationError("timestamp_out_of_tolerance", `webhook-timestamp is more than ${tolerance} s away from now`);
  }
  const key = base64ToBytes(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new DriftwatchClientError("unsupported_runtime", "Web Crypto (crypto.subtle) is not available");
  const cryptoKey = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await subtle.sign("HMAC", cryptoKey, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  const expected = bytesToBase64(new Uint8Array(mac));
  const matched = signatures
    .split(" ")
    .some((entry) => entry.startsWith("v1,") && timingSafeEqual(entry.slice(3), expected));
  if (!matched) throw new WebhookVerificationError("invalid_signature", "no signature matches the secret");
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    throw new WebhookVerificationError("invalid_payload", "the body is not JSON");
  }
  const e = event as Partial<DiffDetectedEvent> | null;
  if (!e || e.eventType !== "diff.detected" || typeof e.eventId !== "string" || typeof e.data !== "object" || e.data === null) {
    throw new WebhookVerificationError("invalid_payload", "the body is not a diff.detected envelope");
  }
  return event as DiffDetectedEvent;
}
