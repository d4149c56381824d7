import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { DiffDetectedEventSchema, type DiffDetectedEvent } from "@driftwatch/schema";
import { DriftwatchError } from "../errors.js";

// Standard Webhooks (https://www.standardwebhooks.com/): the signed content is
// `{webhook-id}.{webhook-timestamp}.{body}`, the signature `v1,<base64 HMAC-SHA256>`, and a
// secret is `whsec_` + base64 of the key bytes.

const SECRET_PREFIX = "whsec_";
const SIGNATURE_VERSION = "v1";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Default allowed clock skew, either way, in seconds (the Standard Webhooks default). */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** The three headers of a signed delivery (a type alias, so it passes as a plain header record). */
export type WebhookHeaderValues = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/** Headers as a receiver gets them: a fetch `Headers`, or a plain object in any case (Node's `req.headers`). */
export type WebhookHeadersInput = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface SignWebhookOptions {
  /** The message id; driftwatch uses the event's `eventId`, so retries keep the same id. */
  id: string;
  /** When the message is sent: unix seconds, or a Date. */
  timestamp: number | Date;
  /** One secret, or two during a rotation (each adds a signature). */
  secrets: readonly string[];
}

export interface VerifyWebhookOptions {
  /** Allowed clock skew either way, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The current time (ms since the epoch or a Date), for tests. Default `Date.now()`. */
  now?: number | Date;
}

/** Why a delivery was refused. */
export type WebhookVerificationReason =
  | "missing_headers"
  | "invalid_timestamp"
  | "timestamp_out_of_tolerance"
  | "invalid_signature"
  | "invalid_payload";

/** A webhook request failed verification; `reason` says why. Never retry such a request as is. */
export class WebhookVerificationError extends DriftwatchError<"webhook_verification_failed"> {
  override readonly name = "WebhookVerificationError";
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string, options: { cause?: unknown } = {}) {
    super("webhook_verification_failed", message, options);
    this.reason = reason;
  }
}

/** A new webhook secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** The key bytes of a `whsec_...` secret (a bare base64 key is accepted too, as the spec's libraries do). */
export function decodeWebhookSecret(secret: string): Buffer {
  if (typeof secret !== "string") throw new DriftwatchError("invalid_input", "a webhook secret must be a string");
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!BASE64.test(encoded) || encoded.length % 4 === 1) {
    throw new DriftwatchError("invalid_input", "a webhook secret must be `whsec_` followed by base64");
  }
  const key = Buffer.from(encoded, "base64");
  if (key.length === 0) throw new DriftwatchError("invalid_input", "a webhook secret must not be empty");
  return key;
}

function toUnixSeconds(timestamp: number | Date): number {
  const seconds = timestamp instanceof Date ? Math.floor(timestamp.getTime() / 1000) : timestamp;
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new DriftwatchError("invalid_input", "a webhook timestamp must be a non-negative integer of unix seconds or a valid Date");
  }
  return seconds;
}

function bodyBytes(body: string | Uint8Array): Buffer {
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new DriftwatchError("invalid_input", "a webhook body must be a string or bytes");
}

function hmac(key: Buffer, id: string, timestamp: string, body: Buffer): Buffer {
  return createHmac("sha256", key).update(`${id}.${timestamp}.`, "utf8").update(body).digest();
}

/**
 * The Standard Webhooks headers for `body`: `webhook-id`, `webhook-timestamp` (unix seconds) and
 * `webhook-signature` with one `v1,<base64>` entry per secret, space-separated. Sign the exact
 * bytes you send.
 */
export function signWebhook(body: string | Uint8Array, options: SignWebhookOptions): WebhookHeaderValues {
  if (typeof options !== "object" || options === null) {
    throw new DriftwatchError("invalid_input", "signWebhook needs options { id, timestamp, secrets }");
  }
  const { id, secrets } = options;
  if (typeof id !== "string" || id.length === 0 || /[\u0000-\u001f\u007f]/.test(id)) {
    throw new DriftwatchError("invalid_input", "a webhook id must be a non-empty string without control characters");
  }
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new DriftwatchError("invalid_input", "signWebhook needs at least one secret");
  }
  const timestamp = String(toUnixSeconds(options.timestamp));
  const bytes = bodyBytes(body);
  const signature = secrets
    .map((secret) => `${SIGNATURE_VERSION},${hmac(decodeWebhookSecret(secret), id, timestamp, bytes).toString("base64")}`)
    .join(" ");
  return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature };
}

function readHeader(headers: WebhookHeadersInput, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === "string" ? value : value?.[0];
  }
  return undefined;
}

/**
 * Verifies a delivery per the Standard Webhooks spec and returns its `diff.detected` envelope,
 * parsed and validated. Pass the RAW body exactly as received. Any of the space-separated
 * signatures may match (secret rotation); comparison is constant-time. Throws
 * {@link WebhookVerificationError} for missing headers, a timestamp outside the tolerance
 * (either way), no matching signature, or a body that is not a valid envelope.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeadersInput,
  secret: string,
  options: VerifyWebhookOptions = {},
): DiffDetectedEvent {
  const key = decodeWebhookSecret(secret);
  const bytes = bodyBytes(body);
  if (headers === null || typeof headers !== "object") {
    throw new WebhookVerificationError("missing_headers", "webhook headers are required");
  }
  const id = readHeader(headers, "webhook-id");
  const timestamp = readHeader(headers, "webhook-timestamp");
  const signatures = readHeader(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError("missing_headers", "webhook-id, webhook-timestamp and webhook-signature are required");
  }
  const seconds = Number(timestamp);
  if (!/^\d{1,15}$/.test(timestamp) || !Number.isSafeInteger(seconds)) {
    throw new WebhookVerificationError("invalid_timestamp", "webhook-timestamp is not a unix time in seconds");
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new DriftwatchError("invalid_input", "toleranceSeconds must be a non-negative number");
  }
  const nowMs = options.now instanceof Date ? options.now.getTime() : (options.now ?? Date.now());
  const nowSeconds = Math.floor(nowMs / 1000);
  if (Math.abs(nowSeconds - seconds) > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `webhook-timestamp is ${nowSeconds - seconds} s from now, more than the ${tolerance} s allowed`,
    );
  }
  const expected = Buffer.from(hmac(key, id, timestamp, bytes).toString("base64"), "utf8");
  let matched = false;
  for (const entry of signatures.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== SIGNATURE_VERSION) continue;
    // The base64 text is compared exactly (as the reference libraries do), in constant time, and
    // every candidate is compared (no early exit).
    const given = Buffer.from(entry.slice(comma + 1), "utf8");
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError("invalid_signature", "no webhook-signature entry matches the secret");
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch (cause) {
    throw new WebhookVerificationError("invalid_payload", "the body is not JSON", { cause });
  }
  const result = DiffDetectedEventSchema.safeParse(parsed);
  if (!result.success) {
    const first = result.error.issues[0];
    const where = first ? ` (${first.path.join(".") || "body"}: ${first.message})` : "";
    throw new WebhookVerificationError("invalid_payload", `the body is not a diff.detected envelope${where}`, { cause: result.error });
  }
  return result.data;
}

/** The secret fields of a stored webhook (a store's `WebhookRecord` fits). */
export interface WebhookSecretState {
  secret: string;
  previousSecret?: string | null;
  /** ISO 8601; the previous secret signs until then. */
  previousSecretExpiresAt?: string | null;
}

/**
 * The secrets that sign a delivery at `now`: the current one, plus the previous one while a
 * rotation's grace period runs (so receivers holding either secret verify).
 */
export function activeWebhookSecrets(webhook: WebhookSecretState, now: number | Date = Date.now()): string[] {
  const secrets = [webhook.secret];
  const nowMs = now instanceof Date ? now.getTime() : now;
  if (webhook.previousSecret && webhook.previousSecretExpiresAt && Date.parse(webhook.previousSecretExpiresAt) > nowMs) {
    secrets.push(webhook.previousSecret);
  }
  return secrets;
}
