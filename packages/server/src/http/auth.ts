import type { Role, Scope, SessionRecord, Store, TokenRecord } from "@driftwatch/core";
import { timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { hashTokenSecret, isWellFormedToken } from "@driftwatch/engine";
import { ROLE_SCOPES } from "@driftwatch/schema";
import {
  AUTH_FAILURE_LIMIT,
  AUTH_FAILURE_MAX_ENTRIES,
  AUTH_FAILURE_WINDOW_MS,
  DEFAULT_PEOPLE_LIMITS,
  SESSION_TOUCH_INTERVAL_MS,
  TOKEN_CACHE_MAX_ENTRIES,
  TOKEN_CACHE_TTL_MS,
  TOUCH_INTERVAL_MS,
} from "../config/limits.js";
import { CSRF_HEADER, csrfTokenOf, hashSecret, resumeSession, SESSION_COOKIE, sessionEnded } from "@driftwatch/people";
import { addressKey } from "./client-address.js";
import { ApiError } from "./problem.js";

/** Who is calling: resolved from the bearer token, or from the session cookie, by `authenticate`. */
export type AuthContext = TokenAuth | SessionAuth;

interface AuthBase {
  /** The organization the request acts in. */
  orgId: string;
  /** What the caller may do: the token's scopes, or the scopes of the user's role. */
  scopes: readonly Scope[];
}

export interface TokenAuth extends AuthBase {
  via: "token";
  tokenId: string;
  userId: null;
  role: null;
}

export interface SessionAuth extends AuthBase {
  via: "session";
  tokenId: null;
  userId: string;
  role: Role;
  session: SessionRecord;
  /** The cookie's secret (the CSRF token is derived from it). */
  secret: string;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * Scope the route needs (`admin` satisfies every scope); `any`: any authenticated caller.
     * Absent: no auth (public route).
     */
    scope?: Scope | "any";
    /** Beyond the scope: only a signed-in session (`session`), or only an owner's session (`owner`); checked before the body is read. */
    caller?: "session" | "owner";
    /**
     * Whether the route counts against the read or the write rate limit; `expensive`: against
     * the much lower limits of costly calls (the rules preview), per caller and per organization.
     */
    rateLimit?: "read" | "write" | "expensive";
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export interface Authenticator {
  /** `at`: the request's time in ms (default `now()`). */
  authenticate(request: FastifyRequest, at?: number): Promise<AuthContext>;
  /** Forgets a cached token at once: call it when the token is revoked through this process. */
  forget(tokenId: string): void;
  /** Forgets every cached token of an organization (deleted through this process). */
  forgetOrganization(orgId: string): void;
  /**
   * Whether a caller authenticated earlier may still act in its organization: the token is not
   * revoked, or the session has not ended and its user is still a member. For long-lived
   * responses (the event stream), which are authenticated once.
   */
  stillValid(auth: AuthContext, at: number): Promise<boolean>;
}

export interface AuthenticatorOptions {
  /** Token cache lifetime (default `TOKEN_CACHE_TTL_MS`); 0 asks the store on every request. */
  tokenCacheTtlMs?: number;
  /** Failed authentications per client address per minute before it gets `429` (default `AUTH_FAILURE_LIMIT`). */
  authFailureLimit?: number;
  /** Idle expiry of sessions, in seconds (default 7 days). */
  sessionIdleSeconds?: number;
  /** Count failed authentications in the store (shared by every process on the database) as well as in this process. */
  sharedCounters?: boolean;
  /**
   * The server's own origin (`https://driftwatch.example.com`) cookie-authenticated writes must
   * come from; default: the origin the request was addressed to (scheme and Host).
   */
  publicOrigin?: string | null;
}

/** The origin a request was addressed to: its scheme and Host (forwarded ones when proxies are trusted). */
export function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);


interface CachedToken {
  record: TokenRecord;
  /** `now()` when the record was read; an entry is trusted from there for the TTL. */
  readAt: number;
}

export function createAuthenticator(store: Store, now: () => Date, options: AuthenticatorOptions = {}): Authenticator {
  const ttlMs = Math.max(0, options.tokenCacheTtlMs ?? TOKEN_CACHE_TTL_MS);
  const lastTouched = new Map<string, number>();
  /** Live (unrevoked) tokens by hash. */
  const cache = new Map<string, CachedToken>();
  /** Bumped by `forget`: a lookup that started before a revocation does not cache its (stale) answer. */
  let generation = 0;
  const failureLimit = Math.max(1, options.authFailureLimit ?? AUTH_FAILURE_LIMIT);
  const shared = options.sharedCounters === true && store.capabilities.rateLimits && store.hitRateLimit !== undefined ? store.hitRateLimit.bind(store) : null;
  /** Failed authentications per client address in the current window. */
  const failures = new Map<string, { count: number; resetAt: number }>();
  const idleMs = (options.sessionIdleSeconds ?? DEFAULT_PEOPLE_LIMITS.sessionIdleSeconds) * 1000;
  // Often enough that a session in use never reaches its idle timeout between two writes.
  const touchEveryMs = Math.min(SESSION_TOUCH_INTERVAL_MS, Math.floor(idleMs / 2));
  const publicOrigin = options.publicOrigin ?? null;
  /** When this process last wrote each session's `lastSeenAt`. */
  const sessionsTouched = new Map<string, number>();

  function failureWindow(client: string, at: number): { count: number; resetAt: number } | null {
    const window = failures.get(client);
    if (window === undefined) return null;
    if (window.resetAt <= at || window.resetAt - at > AUTH_FAILURE_WINDOW_MS) {
      failures.delete(client);
      return null;
    }
    return window;
  }

  function tooMany(resetAt: number, at: number): ApiError {
    const seconds = Math.max(1, Math.ceil((resetAt - at) / 1000));
    return new ApiError("rate_limited", `Too many failed authentications from this address: retry in ${String(seconds)} s.`, {
      headers: { "retry-after": String(seconds) },
    });
  }

  /**
   * Counts a failed authentication of `client`; over the limit the answer becomes `429`. With
   * shared counters (the store's), the count of every process on the database decides: once it is
   * over the limit, this process refuses the address without asking the store until the window ends.
   */
  async function failed(client: string, at: number, error: ApiError): Promise<ApiError> {
    let window = failureWindow(client, at);
    if (window === null) {
      window = { count: 0, resetAt: at + AUTH_FAILURE_WINDOW_MS };
      failures.set(client, window);
      if (failures.size > AUTH_FAILURE_MAX_ENTRIES) failures.delete(failures.keys().next().value as string);
    }
    window.count++;
    if (shared !== null) {
      const hit = await shared(`authfail:${client}`, AUTH_FAILURE_WINDOW_MS, at).catch(() => null);
      if (hit !== null && hit.count > window.count) {
        window.count = hit.count;
        window.resetAt = Math.min(Math.max(hit.resetAt, at + 1), at + AUTH_FAILURE_WINDOW_MS);
      }
    }
    return window.count > failureLimit ? tooMany(window.resetAt, at) : error;
  }

  async function lookup(tokenHash: string, at: number): Promise<TokenRecord | null> {
    const cached = cache.get(tokenHash);
    // An entry is used only within [readAt, readAt + ttl): a clock that went back also expires it.
    if (cached !== undefined && at >= cached.readAt && at - cached.readAt < ttlMs) return cached.record;
    if (cached !== undefined) cache.delete(tokenHash);
    const startedIn = generation;
    const record = await store.findTokenByHash(tokenHash);
    if (record !== null && record.revokedAt === null && ttlMs > 0 && startedIn === generation) {
      cache.set(tokenHash, { record, readAt: at });
      if (cache.size > TOKEN_CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
    }
    return record;
  }

  return {
    async authenticate(request, at = now().getTime()) {
      const client = addressKey(request.ip);
      // Only a credential that could be right is a guess: a missing one, or a header that is no
      // driftwatch token at all, is answered 401 and not counted (a client probing the API without
      // a token, or a misconfigured one, is no brute force and must not lock its address out).
      // While an address is over the limit, its guesses are refused before any lookup, valid or not.
      const limited = (): void => {
        const window = failureWindow(client, at);
        if (window !== null && window.count >= failureLimit) {
          window.count++;
          throw tooMany(window.resetAt, at);
        }
      };
      const header = request.headers.authorization;
      if (header === undefined || header === "") {
        // No bearer token: a browser session, when the request carries its cookie.
        const cookie = request.cookies?.[SESSION_COOKIE];
        if (cookie !== undefined && cookie !== "") {
          limited();
          return authenticateSession(request, cookie, client, at);
        }
        throw new ApiError("unauthenticated", "Send an API token (Authorization: Bearer <token>) or sign in.", {
          headers: { "www-authenticate": 'Bearer realm="driftwatch"' },
        });
      }
      const match = BEARER.exec(header);
      const secret = match?.[1];
      if (secret === undefined || !isWellFormedToken(secret)) {
        throw invalidToken("The Authorization header must be Bearer followed by a driftwatch token (dw_...).");
      }
      limited();
      const record = await lookup(hashTokenSecret(secret), at);
      if (record === null) throw await failed(client, at, invalidToken("This token is not known."));
      if (record.revokedAt !== null) throw await failed(client, at, invalidToken("This token has been revoked."));
      await touch(record, at).catch((error: unknown) => {
        // lastUsedAt is bookkeeping: a failed write must not fail the caller's request
        request.log.warn({ err: error, tokenId: record.id }, "could not record lastUsedAt");
      });
      return { via: "token", orgId: record.orgId, tokenId: record.id, scopes: record.scopes, userId: null, role: null };
    },

    forget(tokenId) {
      generation++;
      for (const [hash, entry] of cache) if (entry.record.id === tokenId) cache.delete(hash);
    },

    forgetOrganization(orgId) {
      generation++;
      for (const [hash, entry] of cache) if (entry.record.orgId === orgId) cache.delete(hash);
    },

    async stillValid(auth, at) {
      if (auth.via === "token") {
        const record = await store.getToken(auth.orgId, auth.tokenId);
        return record !== null && record.revokedAt === null;
      }
      const session = await store.findSessionByHash(hashSecret(auth.secret));
      if (session === null || sessionEnded(session, at, idleMs)) return false;
      return (await store.getMembership(auth.orgId, auth.userId)) !== null;
    },
  };

  /**
   * A session cookie: a live session of a user who is still a member of the session's
   * organization (or else of another one, which the session moves to). Writes also need the
   * CSRF header and a same-origin Origin.
   */
  async function authenticateSession(request: FastifyRequest, secret: string, client: string, at: number): Promise<SessionAuth> {
    const ended = (): Promise<ApiError> => failed(client, at, new ApiError("unauthenticated", "Your session has ended: sign in again."));
    const resumed = await resumeSession(store, secret, at, idleMs);
    if (resumed === null) throw await ended();
    const { session, membership } = resumed;
    const orgId = membership.orgId;
    if (!SAFE_METHODS.has(request.method)) assertSameOrigin(request, secret);
    const last = Math.max(sessionsTouched.get(session.id) ?? 0, Date.parse(session.lastSeenAt));
    if (orgId !== session.orgId || at - last >= touchEveryMs) {
      sessionsTouched.set(session.id, at);
      if (sessionsTouched.size > 10_000) sessionsTouched.delete(sessionsTouched.keys().next().value as string);
      await store.touchSession(session.id, { lastSeenAt: new Date(at).toISOString(), ...(orgId === session.orgId ? {} : { orgId }) }).catch((error: unknown) => {
        request.log.warn({ err: error, sessionId: session.id }, "could not record the session's activity");
      });
    }
    return {
      via: "session",
      orgId,
      tokenId: null,
      userId: session.userId,
      role: membership.role,
      scopes: ROLE_SCOPES[membership.role],
      session: { ...session, orgId },
      secret,
    };
  }

  /** CSRF defence of cookie-authenticated writes: the session's CSRF header and a same-origin Origin. */
  function assertSameOrigin(request: FastifyRequest, secret: string): void {
    const csrf = request.headers[CSRF_HEADER];
    if (typeof csrf !== "string" || csrf === "") {
      throw new ApiError("csrf_failed", `A signed-in write needs the ${CSRF_HEADER} header (the csrfToken of GET /api/auth/me).`);
    }
    if (!timingSafeStringEqual(csrf, csrfTokenOf(secret))) throw new ApiError("csrf_failed", `The ${CSRF_HEADER} header does not match this session.`);
    const origin = request.headers.origin;
    const expected = publicOrigin ?? requestOrigin(request);
    if (typeof origin !== "string" || origin === "") throw new ApiError("csrf_failed", "A signed-in write needs an Origin header.");
    if (origin !== expected) throw new ApiError("csrf_failed", `Writes are accepted only from ${expected}, not from ${origin}.`);
  }

  async function touch(record: TokenRecord, at: number): Promise<void> {
    const last = lastTouched.get(record.id) ?? (record.lastUsedAt === null ? 0 : Date.parse(record.lastUsedAt));
    if (at - last < TOUCH_INTERVAL_MS) return;
    lastTouched.set(record.id, at);
    if (lastTouched.size > 10_000) lastTouched.delete(lastTouched.keys().next().value as string);
    await store.touchToken(record.id, new Date(at).toISOString());
  }
}

function invalidToken(detail: string): ApiError {
  return new ApiError("invalid_token", detail, { headers: { "www-authenticate": 'Bearer realm="driftwatch", error="invalid_token"' } });
}

function timingSafeStringEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Throws `insufficient_scope` unless the caller holds `scope` (or `admin`); `any` passes every caller. */
export function requireScope(auth: AuthContext, scope: Scope | "any"): void {
  if (scope === "any" || auth.scopes.includes(scope) || auth.scopes.includes("admin")) return;
  if (auth.via === "session") {
    throw new ApiError("insufficient_scope", `Your role (${auth.role}) does not allow this: it needs the ${scope} permission.`);
  }
  throw new ApiError("insufficient_scope", `This endpoint needs a token with the ${scope} scope.`, {
    headers: { "www-authenticate": `Bearer realm="driftwatch", error="insufficient_scope", scope="${scope}"` },
  });
}

/** Throws `insufficient_scope` unless the caller is an owner of the organization, signed in (tokens never are). */
export function requireOwnerSession(auth: AuthContext): SessionAuth {
  if (auth.via === "session" && auth.role === "owner") return auth;
  throw new ApiError("insufficient_scope", "Only an owner's session can do this (API tokens cannot).");
}

/** Throws `insufficient_scope` unless the caller is signed in (a session, not a token). */
export function requireSession(auth: AuthContext): SessionAuth {
  if (auth.via === "session") return auth;
  throw new ApiError("insufficient_scope", "This needs a signed-in session; an API token has no user.");
}

/** The caller of an authenticated route (set by the auth hook). */
export function authOf(request: FastifyRequest): AuthContext {
  if (request.auth === null) throw new ApiError("unauthenticated", "Send an API token: Authorization: Bearer <token>.");
  return request.auth;
}
