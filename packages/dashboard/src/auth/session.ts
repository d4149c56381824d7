import { Driftwatch } from "@driftwatch/client";

/**
 * How the dashboard authenticates, in one place. Today: an API token pasted at sign-in, kept in
 * sessionStorage (gone when the tab closes, never in localStorage or a cookie) and sent as a bearer
 * token by @driftwatch/client. Cookie sessions (users, roles, invites) will replace this module;
 * the rest of the dashboard only uses `readSession`, `signIn`, `signOut` and `clientFor`.
 */
const STORAGE_KEY = "driftwatch.token";
const TOKEN_PATTERN = /^dw_[A-Za-z0-9_-]{20,200}$/;

export interface Session {
  token: string;
}

export function readSession(storage: Storage = sessionStorage): Session | null {
  const token = storage.getItem(STORAGE_KEY);
  return token !== null && TOKEN_PATTERN.test(token) ? { token } : null;
}

/** The API client of a session, on the origin that served the dashboard. */
export function clientFor(session: Session, origin: string = window.location.origin): Driftwatch {
  return new Driftwatch({ baseUrl: origin, token: session.token, maxRetries: 1 });
}

export type SignInResult = { ok: true; session: Session } | { ok: false; message: string; requestId?: string | null };

/** Checks the token against the API (one cheap read) and keeps it for this tab when it works. */
export async function signIn(input: string, storage: Storage = sessionStorage, origin: string = window.location.origin): Promise<SignInResult> {
  const token = input.trim();
  if (!TOKEN_PATTERN.test(token)) return { ok: false, message: "That is not a driftwatch token: tokens start with dw_." };
  const session = { token };
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

export function signOut(storage: Storage = sessionStorage): void {
  storage.removeItem(STORAGE_KEY);
}
