// Browser sessions: a random secret handed out once (the store keeps its sha256), an absolute
// expiry, and a cap on the sessions one account holds.
import type { MembershipRecord, OrganizationRecord, SessionRecord, Store, UserRecord } from "@driftwatch/core";
import { audit, type Origin, userActor } from "./audit.js";
import { PeopleError } from "./errors.js";
import { MAX_SESSIONS_PER_USER } from "./limits.js";
import type { People } from "./people.js";
import { hashSecret, isWellFormedSecret, newSecret } from "./secrets.js";

export interface SessionStart {
  user: UserRecord;
  orgId: string;
  /** The secret of a session the client carried: revoked, never reused. */
  previousSecret?: string | undefined;
  userAgent?: string | null | undefined;
  ip?: string | null | undefined;
}

export interface StartedSession {
  /** The session's secret (the cookie's value): shown only here. */
  secret: string;
  session: SessionRecord;
  membership: MembershipRecord;
  expiresAt: Date;
}

/**
 * Signs `user` in to `orgId`: a new session with a new random secret (a previous one is revoked),
 * and the oldest sessions of the account beyond `MAX_SESSIONS_PER_USER` ended.
 */
export async function startSession(people: People, start: SessionStart): Promise<StartedSession> {
  const { store } = people;
  const at = people.now();
  const previous = start.previousSecret;
  if (previous !== undefined && previous !== "") {
    const old = await store.findSessionByHash(hashSecret(previous));
    if (old !== null) await store.revokeSession(old.id, at.toISOString());
  }
  const membership = await store.getMembership(start.orgId, start.user.id);
  if (membership === null) throw new PeopleError("not_found", "You are not a member of this organization.");
  const secret = newSecret();
  const expiresAt = new Date(at.getTime() + people.limits.sessionMaxAgeSeconds * 1000);
  const userAgent = start.userAgent;
  const session = await store.createSession({
    userId: start.user.id,
    sessionHash: hashSecret(secret),
    orgId: start.orgId,
    createdAt: at.toISOString(),
    expiresAt: expiresAt.toISOString(),
    userAgent: typeof userAgent === "string" ? userAgent.slice(0, 500) : null,
    ip: start.ip ?? null,
  });
  // A cap on the sessions of one account: the oldest beyond it end (a script signing in on a loop
  // cannot pile them up).
  await store.trimUserSessions(start.user.id, MAX_SESSIONS_PER_USER, at.toISOString());
  return { secret, session, membership, expiresAt };
}

/** Ends a session (sign-out), audited as `auth.sign_out` in its organization. */
export async function endSession(people: People, origin: Origin, session: { id: string; userId: string; orgId: string }): Promise<void> {
  await people.store.revokeSession(session.id, people.now().toISOString());
  await audit(people, origin, session.orgId, userActor(session.userId), "auth.sign_out", session.userId, {});
}

/** Moves a session to another organization of its user; 404 when they are not a member of it. */
export async function switchOrganization(people: People, session: { id: string; userId: string }, orgId: string): Promise<MembershipRecord> {
  const membership = await people.store.getMembership(orgId, session.userId);
  if (membership === null) throw new PeopleError("not_found", "No organization with this id exists among yours.");
  await people.store.touchSession(session.id, { orgId: membership.orgId, lastSeenAt: people.now().toISOString() });
  return membership;
}

/** An organization that must exist (the caller was just authenticated in it). */
export async function organizationOf(store: Store, orgId: string): Promise<OrganizationRecord> {
  const org = await store.getOrganization(orgId);
  if (org === null) throw new PeopleError("not_found", "This organization no longer exists.");
  return org;
}

/** Whether a session is over: revoked, past its absolute expiry, or unused for longer than `idleMs`. */
export function sessionEnded(session: SessionRecord, at: number, idleMs: number): boolean {
  return session.revokedAt !== null || Date.parse(session.expiresAt) <= at || Date.parse(session.lastSeenAt) + idleMs <= at;
}

export interface ResumedSession {
  session: SessionRecord;
  /** The membership it acts in: the session's organization's, else (removed from it) the user's oldest. */
  membership: MembershipRecord;
}

/**
 * The live session of a secret at `at` (ms): null when the secret is malformed or unknown, the
 * session ended (`sessionEnded` with `idleMs`), or its user belongs to no organization any more.
 * A user removed from the session's organization continues in another one (`membership.orgId`
 * differs from `session.orgId`: move the session there). Writes nothing.
 */
export async function resumeSession(store: Store, secret: string, at: number, idleMs: number): Promise<ResumedSession | null> {
  if (!isWellFormedSecret(secret)) return null;
  const session = await store.findSessionByHash(hashSecret(secret));
  if (session === null || sessionEnded(session, at, idleMs)) return null;
  let membership = await store.getMembership(session.orgId, session.userId);
  if (membership === null) {
    // Removed from the organization the session acted in: continue in another one, if any.
    membership = (await store.listMembershipsOfUser(session.userId))[0] ?? null;
    if (membership === null) return null;
  }
  return { session, membership };
}
