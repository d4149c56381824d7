// The secrets of browser sessions and invitation links: 32 random bytes (base64url) handed out
// once; the store keeps only their sha256.
import { createHash, randomBytes } from "node:crypto";

/** The session cookie's name. */
export const SESSION_COOKIE = "dw_session";
/**
 * Set and cleared with the session cookie, readable by scripts and secret-free: it only tells the
 * dashboard that a session may exist, so a signed-out page load asks nothing that would fail.
 */
export const SIGNED_IN_COOKIE = "dw_signed_in";
/** The header cookie-authenticated writes carry (its value: the session's `csrfToken`). */
export const CSRF_HEADER = "x-driftwatch-csrf";

const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** A new secret: 32 random bytes, base64url (43 characters). */
export function newSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** Whether `value` has the shape of a secret this server hands out (anything else is not looked up). */
export function isWellFormedSecret(value: unknown): value is string {
  return typeof value === "string" && SECRET.test(value);
}

/** sha256 hex of a secret: what the store keeps. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** The CSRF token of a session: derived from its secret, never stored. */
export function csrfTokenOf(sessionSecret: string): string {
  return createHash("sha256").update(`csrf:${sessionSecret}`).digest("base64url");
}
