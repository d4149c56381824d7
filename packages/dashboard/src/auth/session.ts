import { Driftwatch, type Me } from "@driftwatch/client";

/**
 * How the dashboard authenticates, in one place. Two ways:
 * - an account (email and password): the server keeps an HttpOnly session cookie; the CSRF token
 *   the server derives from it is kept in memory only (never in storage) and re-read with
 *   `GET /api/auth/me` when the page loads;
 * - an API token pasted at sign-in, kept in sessionStorage (gone when the tab closes, never in
 *   localStorage or a cookie) and sent as a bearer token.
 * The rest of the dashboard uses `readSession`, `restoreSession`, `signIn*`, `signOut`, `clientFor`.
 */
const STORAGE_KEY = "driftwatch.token";
const TOKEN_PATTERN = /^dw_[A-Za-z0-9_-]{20,200}$/;

export type Session = { kind: "token"; token: string } | { kind: "account"; me: Me };

/** The CSRF token of the cookie session, in memory only. */
let csrfToken: string | null = null;

export function currentCsrfToken(): string | null {
  return csrfToken;
}

/** A token session kept in this tab, if any (an account session is found with `restoreSession`). */
export function readSession(storage: Storage = sessionStorage): Session | null {
  const token = storage.getItem(STORAGE_KEY);
  return token !== null && TOKEN_PATTERN.test(token) ? { kind: "token", token } : null;
}

/** A client without a bearer token: sends the session cookie, and the CSRF token on writes. */
export function cookieClient(origin: string = window.location.origin): Driftwatch {
  return new Driftwatch({ baseUrl: origin, credentials: "same-origin", csrfToken: currentCsrfToken, maxRetries: 1 });
}

/** The API client of a session, on the origin that served the dashboard. */
export function clientFor(session: Session, origin: string = window.location.origin): Driftwatch {
  if (session.kind === "account") return cookieClient(origin);
  return new Driftwatch({ baseUrl: origin, token: session.token, maxRetries: 1 });
}

/** An account session from a sign-in, setup, invite or `me` answer (keeps its CSRF token in memory). */
export function accountSession(me: Me): Session {
  csrfToken = me.csrfToken;
  return { kind: "account", me };
}

/** The server's secret-free `dw_signed_in` cookie, set and cleared with the session cookie. */
function maySignedIn(): boolean {
  return typeof document !== "undefined" && document.cookie.split(/;\s*/).some((pair) => pair.startsWith("dw_signed_in="));
}

/**
 * On load: the tab's token session, else the cookie session the browser may still hold
 * (`GET /api/auth/me`, asked only when the `dw_signed_in` cookie says there may be one, so a
 * signed-out load makes no request that fails), else null (signed out). Errors other than 401 are thrown.
 */
export async function restoreSession(storage: Storage = sessionStorage, origin: string = window.location.origin): Promise<Session | null> {
  const kept = readSession(storage);
  if (kept !== null) return kept;
  if (!maySignedIn()) return null;
  try {
    const me = await cookieClient(origin).auth.me();
    return me.via === "session" ? accountSession(me) : null;
  } catch (error) {
    const status = (error as { status?: number }).status;
    // 401: no session; 404: a server without accounts
    if (status === 401 || status === 404) return null;
    throw error;
  }
}

export type SignInFailure = { ok: false; message: string; requestId?: string | null };
export type SignInResult = { ok: true; session: Session } | SignInFailure;

/** What to tell a person about a refused sign-in, setup or invite. */
export function explain(error: unknown, fallback: string): SignInFailure {
  const e = error as { status?: number; code?: string; detail?: string; requestId?: string | null; message?: string; retryAfter?: number | null };
  const requestId = e.requestId ?? null;
  const messages: Record<string, string> = {
    invalid_credentials: "Wrong email or password.",
    rate_limited: "Too many attempts. Wait a few minutes, then try again.",
    setup_closed: "Setup is already done: sign in with your account instead.",
    invite_invalid: e.detail ? `This invitation cannot be used: ${e.detail}` : "This invitation cannot be used (expired, used or revoked).",
    weak_password: e.detail ? `Choose a stronger password: ${e.detail}` : "Choose a stronger password.",
    invalid_token: "This link is not valid (or was already used). Ask for a new one.",
  };
  const known = e.code !== undefined ? messages[e.code] : undefined;
  return { ok: false, message: known ?? `${fallback}: ${e.detail || e.message || String(error)}`, requestId };
}

/** Email and password: a cookie session. */
export async function signInWithPassword(email: string, password: string, origin: string = window.location.origin): Promise<SignInResult> {
  try {
    return { ok: true, session: accountSession(await cookieClient(origin).auth.signIn({ email: email.trim(), password })) };
  } catch (error) {
    return explain(error, "Could not sign in");
  }
}

/** Checks the token against the API (one cheap read) and keeps it for this tab when it works. */
export async function signIn(input: string, storage: Storage = sessionStorage, origin: string = window.location.origin): Promise<SignInResult> {
  const token = input.trim();
  if (!TOKEN_PATTERN.test(token)) return { ok: false, message: "That is not a driftwatch token: tokens start with dw_." };
  const session: Session = { kind: "token", token };
  try {
    await clientFor(session, origin).monitors.list({ limit: 1 });
  } catch (error) {
    const e = error as { status?: number; code?: string; requestId?: string | null; message?: string };
    if (e.status === 401) return { ok: false, message: "The server does not know this token (or it was revoked).", requestId: e.requestId ?? null };
    if (e.status === 403) return { ok: false, message: "This token cannot read monitors (it needs the monitors:read scope).", requestId: e.requestId ?? null };
    return { ok: false, message: `Could not sign in: ${e.message ?? String(error)}`, requestId: e.requestId ?? null };
  }
  storage.setItem(STORAGE_KEY, token);
  return { ok: true, session };
}

/** Forgets the session here; an account session is also ended on the server (best effort). */
export async function signOut(session: Session | null, storage: Storage = sessionStorage, origin: string = window.location.origin): Promise<void> {
  storage.removeItem(STORAGE_KEY);
  if (session?.kind === "account") {
    try {
      await cookieClient(origin).auth.signOut();
    } catch {
      // already ended (expired, or revoked by a password change): nothing left to end
    }
  }
  csrfToken = null;
}
