// What the people routes share: the store, the clock, the limits, the sign-in limiter, the
// mailer, and the session, audit and presentation helpers.
import type { AuditActorType, InviteRecord, MemberRecord, OrganizationRecord, Store, UserRecord } from "@driftwatch/core";
import type { Invite, Me, Member, Org, Session, User } from "@driftwatch/schema";
import { ROLE_SCOPES } from "@driftwatch/schema";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type AuthContext, requestOrigin, type SessionAuth } from "../http/auth.js";
import { ApiError } from "../http/problem.js";
import {
  createLoginLimiter,
  createStoreLoginLimiter,
  csrfTokenOf,
  DEFAULT_PEOPLE_LIMITS,
  hashSecret,
  type InviteMailer,
  type LoginLimiter,
  MAX_SESSIONS_PER_USER,
  newSecret,
  type PeopleLimits,
  type ScryptParams,
  SESSION_COOKIE,
  SIGNED_IN_COOKIE,
} from "@driftwatch/people";

export interface PeopleContext {
  store: Store;
  now: () => Date;
  limits: PeopleLimits;
  scrypt: ScryptParams;
  limiter: LoginLimiter;
  mailer: InviteMailer | null;
  /** `DRIFTWATCH_PUBLIC_URL` when set: the origin of links and of the same-origin check. */
  publicUrl: string | null;
}

export interface PeopleOptions {
  store: Store;
  now: () => Date;
  limits?: Partial<PeopleLimits>;
  mailer?: InviteMailer | null;
  publicUrl?: string | null;
  /** Sign-in limits counted in the store (shared by every process on the database) when it can. */
  sharedCounters?: boolean;
}

export function createPeopleContext(options: PeopleOptions): PeopleContext {
  const limits = { ...DEFAULT_PEOPLE_LIMITS, ...options.limits };
  const limiterOptions = { accountLimit: limits.loginAccountLimit, addressLimit: limits.loginAddressLimit, windowMs: limits.loginWindowSeconds * 1000 };
  return {
    store: options.store,
    now: options.now,
    limits,
    scrypt: { logN: limits.scryptLogN, r: 8, p: 1 },
    limiter: (options.sharedCounters === true ? createStoreLoginLimiter(options.store, limiterOptions) : null) ?? createLoginLimiter(limiterOptions),
    mailer: options.mailer ?? null,
    publicUrl: options.publicUrl ?? null,
  };
}

/** The server's own origin: the public URL's, else the one the request was addressed to. */
export function publicOrigin(people: PeopleContext, request: FastifyRequest): string {
  return people.publicUrl === null ? requestOrigin(request) : new URL(people.publicUrl).origin;
}

/** Where links to the dashboard start: the public URL (a path prefix included), else the request's origin. */
export function linkBase(people: PeopleContext, request: FastifyRequest): string {
  return people.publicUrl ?? requestOrigin(request);
}

export function presentUser(user: UserRecord): User {
  return { id: user.id, email: user.email, displayName: user.displayName, createdAt: user.createdAt };
}

export function presentOrg(org: OrganizationRecord): Org {
  return { id: org.id, slug: org.slug, name: org.name, learnNoiseByDefault: org.learnNoiseByDefault, createdAt: org.createdAt };
}

export function presentMember(member: MemberRecord): Member {
  return { userId: member.userId, email: member.email, displayName: member.displayName, role: member.role, createdAt: member.createdAt };
}

/** An invite with its status at `at`. */
export function presentInvite(invite: InviteRecord, at: Date): Invite {
  const status =
    invite.acceptedAt !== null ? "accepted" : invite.revokedAt !== null ? "revoked" : Date.parse(invite.expiresAt) <= at.getTime() ? "expired" : "pending";
  return {
    id: invite.id,
    email: invite.email,
    role: invite.role,
    status,
    createdAt: invite.createdAt,
    expiresAt: invite.expiresAt,
    invitedBy: invite.invitedBy,
    acceptedAt: invite.acceptedAt,
    revokedAt: invite.revokedAt,
  };
}

/** The organization of the request (it exists: the caller was just authenticated in it). */
export async function orgOf(store: Store, orgId: string): Promise<OrganizationRecord> {
  const org = await store.getOrganization(orgId);
  if (org === null) throw new ApiError("not_found", "This organization no longer exists.");
  return org;
}

/** `GET /api/auth/me` for any caller. */
export async function presentMe(store: Store, auth: AuthContext): Promise<Me> {
  const org = presentOrg(await orgOf(store, auth.orgId));
  if (auth.via === "token") {
    return { via: "token", user: null, org, role: null, scopes: [...auth.scopes], orgs: [], csrfToken: null };
  }
  const user = await store.getUser(auth.userId);
  if (user === null) throw new ApiError("unauthenticated", "Your session has ended: sign in again.");
  return { via: "session", user: presentUser(user), org, role: auth.role, scopes: [...auth.scopes], orgs: await orgsOf(store, user.id), csrfToken: csrfTokenOf(auth.secret) };
}

async function orgsOf(store: Store, userId: string): Promise<Me["orgs"]> {
  const out: Me["orgs"] = [];
  for (const membership of await store.listMembershipsOfUser(userId)) {
    const org = await store.getOrganization(membership.orgId);
    if (org !== null) out.push({ id: org.id, slug: org.slug, name: org.name, role: membership.role });
  }
  return out;
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
export async function startSession(people: PeopleContext, request: FastifyRequest, reply: FastifyReply, user: UserRecord, orgId: string): Promise<Session> {
  const { store } = people;
  assertNotCrossOrigin(people, request);
  const at = people.now();
  const previous = request.cookies?.[SESSION_COOKIE];
  if (previous !== undefined && previous !== "") {
    const old = await store.findSessionByHash(hashSecret(previous));
    if (old !== null) await store.revokeSession(old.id, at.toISOString());
  }
  const membership = await store.getMembership(orgId, user.id);
  if (membership === null) throw new ApiError("not_found", "You are not a member of this organization.");
  const secret = newSecret();
  const expiresAt = new Date(at.getTime() + people.limits.sessionMaxAgeSeconds * 1000);
  const userAgent = request.headers["user-agent"];
  const session = await store.createSession({
    userId: user.id,
    sessionHash: hashSecret(secret),
    orgId,
    createdAt: at.toISOString(),
    expiresAt: expiresAt.toISOString(),
    userAgent: typeof userAgent === "string" ? userAgent.slice(0, 500) : null,
    ip: request.ip,
  });
  // A cap on the sessions of one account: the oldest beyond it end (a script signing in on a loop
  // cannot pile them up).
  await store.trimUserSessions(user.id, MAX_SESSIONS_PER_USER, at.toISOString());
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
  return { ...(await presentMe(store, auth)), expiresAt: session.expiresAt };
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
 * Appends an audit entry. The audit log records what happened: a failed write is logged and does
 * not undo or fail the request that did it.
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
  try {
    await people.store.appendAudit(orgId, { ...actor, action, targetId, data, ip: request.ip, at: people.now().toISOString() });
  } catch (error) {
    request.log.error({ err: error, action }, "could not write the audit entry");
  }
}
