// The people domain (@driftwatch/people) as the HTTP API uses it: its context plus the public URL,
// and what is HTTP's own: origins and links, the session cookie, the same-origin check of
// sign-ins, the `Me` answer and audit entries of a request.
import { type AuditActorType } from "@driftwatch/core";
import {
  audit as auditEntry,
  createPeople,
  csrfTokenOf,
  organizationOf,
  organizationsOf,
  type Origin,
  type People,
  type PeopleOptions,
  presentOrg,
  presentUser,
  SESSION_COOKIE,
  SIGNED_IN_COOKIE,
  startSession as openSession,
} from "@driftwatch/people";
import type { Me, Session } from "@driftwatch/schema";
import { ROLE_SCOPES } from "@driftwatch/schema";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type AuthContext, requestOrigin, type SessionAuth } from "../http/auth.js";
import { ApiError } from "../http/problem.js";

export { presentInvite, presentMember, presentOrg, presentUser } from "@driftwatch/people";

export interface PeopleContext extends People {
  /** `DRIFTWATCH_PUBLIC_URL` when set: the origin of links and of the same-origin check. */
  publicUrl: string | null;
}

export interface PeopleContextOptions extends PeopleOptions {
  now: () => Date;
  publicUrl?: string | null;
}

export function createPeopleContext(options: PeopleContextOptions): PeopleContext {
  return { ...createPeople(options), publicUrl: options.publicUrl ?? null };
}

/** The server's own origin: the public URL's, else the one the request was addressed to. */
export function publicOrigin(people: PeopleContext, request: FastifyRequest): string {
  return people.publicUrl === null ? requestOrigin(request) : new URL(people.publicUrl).origin;
}

/** Where links to the dashboard start: the public URL (a path prefix included), else the request's origin. */
export function linkBase(people: PeopleContext, request: FastifyRequest): string {
  return people.publicUrl ?? requestOrigin(request);
}

/** What the people domain records of a request: its client address, and its log. */
export function originOf(request: FastifyRequest): Origin {
  return { ip: request.ip, log: request.log };
}

/** The organization of the request (it exists: the caller was just authenticated in it). */
export const orgOf = organizationOf;

/** `GET /api/auth/me` for any caller. */
export async function presentMe(store: People["store"], auth: AuthContext): Promise<Me> {
  const org = presentOrg(await orgOf(store, auth.orgId));
  if (auth.via === "token") {
    return { via: "token", user: null, org, role: null, scopes: [...auth.scopes], orgs: [], csrfToken: null };
  }
  const user = await store.getUser(auth.userId);
  if (user === null) throw new ApiError("unauthenticated", "Your session has ended: sign in again.");
  return { via: "session", user: presentUser(user), org, role: auth.role, scopes: [...auth.scopes], orgs: await organizationsOf(store, user.id), csrfToken: csrfTokenOf(auth.secret) };
}

/**
 * Login CSRF defence of the routes that sign in (setup, sign-in, invitation acceptance): a
 * browser always sends `Origin` on a cross-site POST, so one naming another origin is refused;
 * clients that send none (curl, scripts) are not browsers carrying someone's cookies.
 */
export function assertNotCrossOrigin(people: PeopleContext, request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (typeof origin !== "string" || origin === "") return;
  const expected = publicOrigin(people, request);
  if (origin !== expected) throw new ApiError("csrf_failed", `Sign-in is accepted only from ${expected}, not from ${origin}.`);
}

/**
 * Signs `user` in to `orgId`: a new session (a new random id: whatever session cookie the request
 * carried is revoked, never reused), its cookie, and the `Session` answer.
 */
export async function startSession(
  people: PeopleContext,
  request: FastifyRequest,
  reply: FastifyReply,
  user: Parameters<typeof openSession>[1]["user"],
  orgId: string,
): Promise<Session> {
  assertNotCrossOrigin(people, request);
  const { secret, session, membership, expiresAt } = await openSession(people, {
    user,
    orgId,
    previousSecret: request.cookies?.[SESSION_COOKIE],
    userAgent: request.headers["user-agent"],
    ip: request.ip,
  });
  reply.setCookie(SESSION_COOKIE, secret, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: request.protocol === "https",
    expires: expiresAt,
  });
  reply.setCookie(SIGNED_IN_COOKIE, "1", { httpOnly: false, sameSite: "lax", path: "/", secure: request.protocol === "https", expires: expiresAt });
  const auth: SessionAuth = {
    via: "session",
    orgId,
    tokenId: null,
    userId: user.id,
    role: membership.role,
    scopes: ROLE_SCOPES[membership.role],
    session,
    secret,
  };
  return { ...(await presentMe(people.store, auth)), expiresAt: session.expiresAt };
}

/** Clears the session cookie (same attributes as when it was set, so the browser drops it). */
export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: "lax", path: "/", secure: request.protocol === "https" });
  reply.clearCookie(SIGNED_IN_COOKIE, { httpOnly: false, sameSite: "lax", path: "/", secure: request.protocol === "https" });
}

/** Who did it, for the audit log. */
export function actorOf(auth: AuthContext | null): { actorType: AuditActorType; actorId: string | null } {
  if (auth === null) return { actorType: "system", actorId: null };
  return auth.via === "session" ? { actorType: "user", actorId: auth.userId } : { actorType: "token", actorId: auth.tokenId };
}

/**
 * Appends an audit entry for a request (its address). The audit log records what happened: a
 * failed write is logged and does not undo or fail the request that did it.
 */
export async function audit(
  people: PeopleContext,
  request: FastifyRequest,
  orgId: string | null,
  actor: { actorType: AuditActorType; actorId: string | null },
  action: string,
  targetId: string | null,
  data: Record<string, unknown> = {},
): Promise<void> {
  await auditEntry(people, originOf(request), orgId, actor, action, targetId, data);
}
