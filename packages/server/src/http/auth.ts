import type { Scope, Store, TokenRecord } from "@driftwatch/core";
import type { FastifyRequest } from "fastify";
import { hashTokenSecret, isWellFormedToken } from "../tokens.js";
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
/** `lastUsedAt` is written at most this often per token (it is a write on every request otherwise). */
const TOUCH_INTERVAL_MS = 60_000;

export interface Authenticator {
  authenticate(request: FastifyRequest): Promise<AuthContext>;
}

export function createAuthenticator(store: Store, now: () => Date): Authenticator {
  const lastTouched = new Map<string, number>();
  return {
    async authenticate(request) {
      const header = request.headers.authorization;
      if (header === undefined || header === "") {
        throw new ApiError("unauthenticated", "Send an API token: Authorization: Bearer <token>.", {
          headers: { "www-authenticate": 'Bearer realm="driftwatch"' },
        });
      }
      const match = BEARER.exec(header);
      const secret = match?.[1];
      if (secret === undefined || !isWellFormedToken(secret)) {
        throw invalidToken("The Authorization header must be Bearer followed by a driftwatch token (dw_...).");
      }
      const record = await store.findTokenByHash(hashTokenSecret(secret));
      if (record === null) throw invalidToken("This token is not known.");
      if (record.revokedAt !== null) throw invalidToken("This token has been revoked.");
      await touch(record).catch((error: unknown) => {
        // lastUsedAt is bookkeeping: a failed write must not fail the caller's request
        request.log.warn({ err: error, tokenId: record.id }, "could not record lastUsedAt");
      });
      return { orgId: record.orgId, tokenId: record.id, scopes: record.scopes };
    },
  };

  async function touch(record: TokenRecord): Promise<void> {
    const at = now();
    const last = lastTouched.get(record.id) ?? (record.lastUsedAt === null ? 0 : Date.parse(record.lastUsedAt));
    if (at.getTime() - last < TOUCH_INTERVAL_MS) return;
    lastTouched.set(record.id, at.getTime());
    if (lastTouched.size > 10_000) lastTouched.delete(lastTouched.keys().next().value as string);
    await store.touchToken(record.id, at.toISOString());
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
