import { hash, randomBytes, timingSafeEqual } from "node:crypto";

/** API token secrets: `dw_` + 32 random bytes (base64url). Shown once; stored only as a hash. */
export const TOKEN_PREFIX = "dw_";
const TOKEN_PATTERN = /^dw_[A-Za-z0-9_-]{43}$/;

export function generateTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

/** True when `value` has the shape of a token secret (checked before any store lookup). */
export function isWellFormedToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

/** The stored form of a token secret: `sha256:<hex>`. Deterministic, so lookups are by hash. */
export function hashTokenSecret(secret: string): string {
  // one-shot crypto.hash (UTF-8 input): a quarter of createHash().update().digest() per request
  return "sha256:" + hash("sha256", secret, "hex");
}

/** Constant-time comparison of two token hashes. */
export function tokenHashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
