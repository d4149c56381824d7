import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { DriftwatchError } from "../errors.js";

// Secrets users give driftwatch (notification channels' tokens and webhook URLs, browser steps'
// passwords) are stored sealed: AES-256-GCM with a server key, a fresh 96-bit nonce per value,
// and the value's context (what it belongs to: `channel:<id>`, `secret:<orgId>:<name>`) as
// additional authenticated data, so a sealed value copied onto another row does not open.
//
// Sealed text: `dw1.<keyId>.<nonce>.<tag>.<ciphertext>` (base64url parts). `keyId` is the first
// 8 hex digits of SHA-256 over the key, so a box with several keys (during a rotation) knows
// which one opens a value without trying each.

const VERSION = "dw1";
const KEY_BYTES = 32;
const NONCE_BYTES = 12;

/** The server key's length in bytes (AES-256). */
export const SECRET_KEY_BYTES = KEY_BYTES;

export interface SecretBox {
  /** The id of the key new values are sealed with (the first key of the list). */
  readonly keyId: string;
  /** Seals `plaintext` for `context` (what the value belongs to; the same context opens it). */
  seal(plaintext: string, context: string): string;
  /** Opens a sealed value; throws `secret_unreadable` when no key opens it or it was tampered with. */
  open(sealed: string, context: string): string;
  /** Whether `sealed` was sealed with a key other than the current one (a rotation re-seals those). */
  needsReseal(sealed: string): boolean;
  /** Whether `value` has the shape of a sealed value (not whether it opens). */
  isSealed(value: string): boolean;
  /**
   * Whether `sealed` was sealed under a key this box does not hold (during a rolling rotation, a
   * value another process sealed under a key this one is not yet given): opening it fails until
   * the key is configured, not because the value is damaged.
   */
  lacksKeyFor(sealed: string): boolean;
}

const SEALED = /^dw1\.([0-9a-f]{8})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]*)$/;

/** The id of the key `sealed` was sealed with, or null when it is not a sealed value. */
export function sealedKeyId(sealed: string): string | null {
  return SEALED.exec(sealed)?.[1] ?? null;
}

/** The id of a key: the first 8 hex digits of its SHA-256. */
export function secretKeyId(key: Uint8Array): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 8);
}

/** A new random server key, as the text `DRIFTWATCH_SECRET_KEY` takes (base64, 32 bytes). */
export function generateSecretKey(): string {
  return randomBytes(KEY_BYTES).toString("base64");
}

/**
 * Reads one key: 32 bytes as base64 (standard or url-safe, padding optional) or as 64 hex digits.
 * Anything else is a `secret_key_invalid` error that never repeats the text.
 */
export function parseSecretKey(text: string): Buffer {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, "hex");
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    const bytes = Buffer.from(value.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (bytes.length === KEY_BYTES) return bytes;
  }
  throw new DriftwatchError(
    "secret_key_invalid",
    `a secret key must be ${KEY_BYTES} bytes, written as base64 or as 64 hex digits (generate one with \`openssl rand -base64 32\`)`
  );
}

/**
 * Reads a key list: the current key first, then older keys that still open values sealed before a
 * rotation, separated by commas or whitespace (`DRIFTWATCH_SECRET_KEY="<new>,<old>"`).
 */
export function parseSecretKeys(text: string): Buffer[] {
  const parts = text.split(/[\s,]+/).filter((part) => part !== "");
  if (parts.length === 0) throw new DriftwatchError("secret_key_invalid", "the secret key list is empty");
  return parts.map(parseSecretKey);
}

function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

function unreadable(detail: string): DriftwatchError {
  return new DriftwatchError("secret_unreadable", `a stored secret cannot be opened: ${detail}`);
}

/** A box sealing with `keys[0]` and opening with any of `keys` (the current key first). */
export function createSecretBox(keys: readonly Uint8Array[]): SecretBox {
  if (keys.length === 0) throw new DriftwatchError("secret_key_invalid", "a secret box needs at least one key");
  const byId = new Map<string, Buffer>();
  for (const key of keys) {
    if (key.length !== KEY_BYTES) throw new DriftwatchError("secret_key_invalid", `a secret key must be ${KEY_BYTES} bytes`);
    const id = secretKeyId(key);
    if (!byId.has(id)) byId.set(id, Buffer.from(key));
  }
  const current = Buffer.from(keys[0]!);
  const keyId = secretKeyId(current);
  const pattern = SEALED;

  return {
    keyId,
    seal(plaintext, context) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv("aes-256-gcm", current, nonce);
      cipher.setAAD(Buffer.from(context, "utf8"));
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [VERSION, keyId, b64(nonce), b64(cipher.getAuthTag()), b64(body)].join(".");
    },
    open(sealed, context) {
      const match = pattern.exec(sealed);
      if (match === null) throw unreadable("it is not a sealed value");
      const key = byId.get(match[1]!);
      if (key === undefined) {
        throw unreadable(`it was sealed with key ${match[1]}, which is not among the configured keys (${[...byId.keys()].join(", ")})`);
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(match[2]!, "base64url"));
        decipher.setAAD(Buffer.from(context, "utf8"));
        decipher.setAuthTag(Buffer.from(match[3]!, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(match[4]!, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        throw unreadable("it was altered, or it belongs to another record");
      }
    },
    needsReseal(sealed) {
      const match = pattern.exec(sealed);
      return match !== null && match[1] !== keyId;
    },
    isSealed(value) {
      return pattern.test(value);
    },
    lacksKeyFor(sealed) {
      const id = sealedKeyId(sealed);
      return id !== null && !byId.has(id);
    },
  };
}
