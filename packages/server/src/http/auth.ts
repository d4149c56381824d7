import type { Scope, Store, TokenRecord } from "@driftwatch/core";
import type { FastifyRequest } from "fastify";
import { hashTokenSecret, isWellFormedToken } from "@driftwatch/engine";
import { AUTH_FAILURE_LIMIT, AUTH_FAILURE_MAX_ENTRIES, AUTH_FAILURE_WINDOW_MS, TOKEN_CACHE_MAX_ENTRIES, TOKEN_CACHE_TTL_MS, TOUCH_INTERVAL_MS } from "../config/limits.js";
import { ApiError } from "./problem.js";

/** Who is calling: resolved from the bearer token by `authenticate`. */
export interface AuthContext {
  orgId: string;
  tokenId: string;
  scopes: readonly Scope[];
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** Scope the route needs (`admin` satisfies every scope). Absent: no auth (public route). */
    scope?: Scope;
    /** Whether the route counts against the read or the write rate limit. */
    rateLimit?: "read" | "write";
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
}

export interface AuthenticatorOptions {
  /** Token cache lifetime (default `TOKEN_CACHE_TTL_MS`); 0 asks the store on every request. */
  tokenCacheTtlMs?: number;
  /** Failed authentications per client address per minute before it gets `429` (default `AUTH_FAILURE_LIMIT`). */
  authFailureLimit?: number;
}


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
  /** Failed authentications per client address in the current window. */
  const failures = new Map<string, { count: number; resetAt: number }>();

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

  /** Counts a failed authentication of `client`; over the limit the answer becomes `429`. */
  function failed(client: string, at: number, error: ApiError): ApiError {
    let window = failureWindow(client, at);
    if (window === null) {
      window = { count: 0, resetAt: at + AUTH_FAILURE_WINDOW_MS };
      failures.set(client, window);
      if (failures.size > AUTH_FAILURE_MAX_ENTRIES) failures.delete(failures.keys().next().value as string);
    }
    window.count++;
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
      const client = request.ip;
      const window = failureWindow(client, at);
      if (window !== null && window.count >= failureLimit) {
        window.count++;
        throw tooMany(window.resetAt, at);
      }
      const header = request.headers.authorization;
      if (header === undefined || header === "") {
        throw failed(
          client,
          at,
          new ApiError("unauthenticated", "Send an API token: Authorization: Bearer <token>.", {
            headers: { "www-authenticate": 'Bearer realm="driftwatch"' },
          }),
        );
      }
      const match = BEARER.exec(header);
      const secret = match?.[1];
      if (secret === undefined || !isWellFormedToken(secret)) {
        throw failed(client, at, invalidToken("The Authorization header must be Bearer followed by a driftwatch token (dw_...)."));
      }
      const record = await lookup(hashTokenSecret(secret), at);
      if (record === null) throw failed(client, at, invalidToken("This token is not known."));
      if (record.revokedAt !== null) throw failed(client, at, invalidToken("This token has been revoked."));
      await touch(record, at).catch((error: unknown) => {
        // lastUsedAt is bookkeeping: a failed write must not fail the caller's request
        request.log.warn({ err: error, tokenId: record.id }, "could not record lastUsedAt");
      });
      return { orgId: record.orgId, tokenId: record.id, scopes: record.scopes };
    },

    forget(tokenId) {
      generation++;
      for (const [hash, entry] of cache) if (entry.record.id === tokenId) cache.delete(hash);
    },
  };

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

/** Throws `insufficient_scope` unless the token holds `scope` (or `admin`). */
export function requireScope(auth: AuthContext, scope: Scope): void {
  if (auth.scopes.includes(scope) || auth.scopes.includes("admin")) return;
  throw new ApiError("insufficient_scope", `This endpoint needs a token with the ${scope} scope.`, {
    headers: { "www-authenticate": `Bearer realm="driftwatch", error="insufficient_scope", scope="${scope}"` },
  });
}

/** The caller of an authenticated route (set by the auth hook). */
export function authOf(request: FastifyRequest): AuthContext {
  if (request.auth === null) throw new ApiError("unauthenticated", "Send an API token: Authorization: Bearer <token>.");
  return request.auth;
}
