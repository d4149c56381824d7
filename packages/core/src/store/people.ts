import type { Page, Role } from "@driftwatch/schema";
import type { PageRequest } from "./paging.js";

/**
 * People: users, their memberships in organizations, browser sessions, invitations and the
 * audit log. Tokens stay the way programs authenticate; these are the way people do.
 *
 * Conventions (as for the rest of the port):
 * - Emails are compared case-insensitively: adapters store `email` trimmed and lower-cased
 *   (`normalizeEmail`) and a second user with the same email is a `StoreError` `conflict`.
 * - Secrets (passwords, session ids, invite tokens) are never stored: only their hashes.
 * - Times are ISO 8601 UTC strings; ids come from `newId` (prefixes `usr`, `ses`, `inv`, `aud`;
 *   memberships are keyed by (orgId, userId)).
 */
export interface UserStore {
  /** `StoreError` `conflict` when the email is taken. */
  createUser(input: NewUser): Promise<UserRecord>;
  getUser(id: string): Promise<UserRecord | null>;
  /** Looked up case-insensitively. */
  getUserByEmail(email: string): Promise<UserRecord | null>;
  /** Changes the display name and/or the password hash (`passwordChangedAt` is set with it); null when unknown. */
  updateUser(id: string, patch: UserPatch): Promise<UserRecord | null>;
  /** Number of users (first-run setup is open while it is 0). */
  countUsers(): Promise<number>;
}

export interface MembershipStore {
  /** `StoreError` `conflict` when the user is already a member; `not_found` when the user is unknown. */
  addMembership(orgId: string, userId: string, role: Role, at: string): Promise<MembershipRecord>;
  getMembership(orgId: string, userId: string): Promise<MembershipRecord | null>;
  /** Members of an organization with their email and name, newest membership first (ties: user id descending). */
  listMembers(orgId: string, page: PageRequest): Promise<Page<MemberRecord>>;
  /** Every organization the user belongs to, oldest membership first. */
  listMembershipsOfUser(userId: string): Promise<MembershipRecord[]>;
  /**
   * Sets a member's role; null when not a member. Atomic with the last-owner rule: demoting
   * the only owner is a `StoreError` `last_owner` and changes nothing.
   */
  setMemberRole(orgId: string, userId: string, role: Role): Promise<MembershipRecord | null>;
  /** Removes a membership; false when not a member; removing the only owner is `last_owner`. */
  removeMembership(orgId: string, userId: string): Promise<boolean>;
  /** Number of owners of an organization. */
  countOwners(orgId: string): Promise<number>;
}

export interface SessionStore {
  createSession(input: NewSession): Promise<SessionRecord>;
  /** By the hash of the cookie's secret; revoked and expired sessions are returned too (caller decides). */
  findSessionByHash(sessionHash: string): Promise<SessionRecord | null>;
  /** Records activity (`lastSeenAt`, which moves the idle expiry) and optionally the active org (`not_found` when unknown); nothing for an unknown session. */
  touchSession(id: string, patch: SessionPatch): Promise<void>;
  /** Sets `revokedAt` (the first time is kept); false when unknown. */
  revokeSession(id: string, at: string): Promise<boolean>;
  /** Revokes every live session of a user except `exceptId`; returns how many. */
  revokeUserSessions(userId: string, at: string, exceptId?: string): Promise<number>;
  /**
   * Revokes the user's live (not revoked) sessions beyond the newest `keep` (by creation, newest
   * first); returns how many. A cap on the sessions one account holds.
   */
  trimUserSessions(userId: string, keep: number, at: string): Promise<number>;
}

export interface InviteStore {
  createInvite(orgId: string, input: NewInvite): Promise<InviteRecord>;
  getInvite(orgId: string, id: string): Promise<InviteRecord | null>;
  /** By the hash of the link's secret, any organization; used and revoked invites are returned too. */
  findInviteByHash(tokenHash: string): Promise<InviteRecord | null>;
  listInvites(orgId: string, page: PageRequest): Promise<Page<InviteRecord>>;
  /** Sets `revokedAt` unless already accepted or revoked; returns the invite as it now is, null when unknown. */
  revokeInvite(orgId: string, id: string, at: string): Promise<InviteRecord | null>;
  /**
   * Marks an invite used, once: returns the invite when this call used it, null when it was
   * already accepted, revoked, expired at `at`, or unknown. Two racing calls: one wins.
   */
  consumeInvite(id: string, userId: string, at: string): Promise<InviteRecord | null>;
}

export interface AuditStore {
  appendAudit(orgId: string | null, entry: NewAuditEntry): Promise<AuditRecord>;
  /** An organization's entries, newest first. */
  listAudit(orgId: string, page: PageRequest): Promise<Page<AuditRecord>>;
}

/** Everything people-related a store keeps (part of `Store`). */
export interface PeopleStore extends UserStore, MembershipStore, SessionStore, InviteStore, AuditStore {}

/** Trimmed and lower-cased: the form emails are stored and compared in. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface NewUser {
  email: string;
  displayName: string;
  /** An encoded password hash (scheme and parameters included), or null for a user who has not set one. */
  passwordHash: string | null;
  createdAt: string;
}
export interface UserRecord {
  id: string;
  email: string;
  displayName: string;
  passwordHash: string | null;
  createdAt: string;
  passwordChangedAt: string | null;
}
export interface UserPatch {
  displayName?: string;
  passwordHash?: string | null;
  /** Required with `passwordHash`. */
  passwordChangedAt?: string;
}

export interface MembershipRecord {
  orgId: string;
  userId: string;
  role: Role;
  createdAt: string;
}
export interface MemberRecord extends MembershipRecord {
  /** The user id (with `createdAt`, the paging key). */
  id: string;
  email: string;
  displayName: string;
}

export interface NewSession {
  userId: string;
  /** sha256 hex of the cookie's secret. */
  sessionHash: string;
  /** The organization the session acts in. */
  orgId: string;
  createdAt: string;
  /** Absolute expiry; idle expiry is computed by the caller from `lastSeenAt`. */
  expiresAt: string;
  userAgent: string | null;
  ip: string | null;
}
export interface SessionRecord extends Omit<NewSession, "createdAt"> {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  revokedAt: string | null;
}
export interface SessionPatch {
  lastSeenAt?: string;
  orgId?: string;
}

export interface NewInvite {
  email: string;
  role: Role;
  /** sha256 hex of the link's secret. */
  tokenHash: string;
  /** User id of the inviter; null for the first-run setup invite. */
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
}
export interface InviteRecord extends NewInvite {
  id: string;
  orgId: string;
  acceptedAt: string | null;
  acceptedBy: string | null;
  revokedAt: string | null;
}

export type AuditActorType = "user" | "token" | "system";
export interface NewAuditEntry {
  actorType: AuditActorType;
  /** User or token id; null for the system. */
  actorId: string | null;
  /** Dotted verb, e.g. `auth.sign_in`, `member.role_changed`, `token.created`. */
  action: string;
  /** What it acted on (`usr_...`, `tok_...`, `inv_...`), when anything. */
  targetId: string | null;
  /** Small JSON object of details (no secrets). */
  data: Record<string, unknown>;
  ip: string | null;
  at: string;
}
export interface AuditRecord extends NewAuditEntry {
  id: string;
  orgId: string | null;
}
