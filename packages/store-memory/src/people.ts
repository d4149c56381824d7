import { StoreError, newId, type KeysetPage, type Role, type TimeKeysetPage } from "@driftwatch/core";
import type { AuditRecord, InviteRecord, MemberRecord, MembershipRecord, NewAuditEntry, NewInvite, NewSession, NewUser } from "@driftwatch/core";
import type { SessionPatch, SessionRecord, UserPatch, UserRecord } from "@driftwatch/core";
import type { MemoryDatabase } from "./database.js";
import { copy, listOf } from "./helpers.js";

/** Runs `work`; a throw becomes a rejection, as with the SQL adapters. */
export function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}

function membershipKey(orgId: string, userId: string): string {
  return `${orgId}\u0000${userId}`;
}

/** (time, id) descending: newest first, ties by id. */
function newestFirst(a: { at: string; id: string }, b: { at: string; id: string }): number {
  if (a.at !== b.at) return a.at < b.at ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * Users, memberships, sessions, invites and the audit log of the memory adapter. Every method
 * runs to completion before another starts, so the last-owner rule and single-use invites
 * hold without locks.
 */
export abstract class MemoryPeopleStore {
  protected readonly db: MemoryDatabase;
  constructor(db: MemoryDatabase) {
    this.db = db;
  }

  protected requireOrganization(orgId: string): void {
    if (!this.db.organizations.has(orgId)) throw new StoreError("not_found", `Organization ${orgId} does not exist.`);
  }

  #requireUser(userId: string): UserRecord {
    const user = this.db.users.get(userId);
    if (user === undefined) throw new StoreError("not_found", `User ${userId} does not exist.`);
    return user;
  }

  /** Refuses a change that would leave an organization whose member is its only owner without one. */
  #guardLastOwner(membership: MembershipRecord): void {
    if (membership.role === "owner" && this.#countOwners(membership.orgId) <= 1) {
      throw new StoreError("last_owner", `User ${membership.userId} is the last owner of ${membership.orgId}.`);
    }
  }

  #countOwners(orgId: string): number {
    let n = 0;
    for (const m of this.db.memberships.values()) if (m.orgId === orgId && m.role === "owner") n++;
    return n;
  }

  /** Drops every membership, session, invite and audit entry of an organization (part of deleting it). */
  protected dropPeopleOf(orgId: string): void {
    for (const [key, m] of this.db.memberships) if (m.orgId === orgId) this.db.memberships.delete(key);
    for (const [key, s] of this.db.sessions) if (s.orgId === orgId) this.db.sessions.delete(key);
    for (const [key, i] of this.db.invites) if (i.orgId === orgId) this.db.invites.delete(key);
    for (const [key, a] of this.db.audit) if (a.orgId === orgId) this.db.audit.delete(key);
  }

  // users ------------------------------------------------------------------------------------

  createUser(input: NewUser): Promise<UserRecord> {
    return settle(() => {
      for (const user of this.db.users.values()) {
        if (user.email === input.email) throw new StoreError("conflict", "A user with this email exists.");
      }
      const record: UserRecord = { ...input, id: newId("user"), passwordChangedAt: null };
      this.db.users.set(record.id, record);
      return copy(record);
    });
  }

  getUser(id: string): Promise<UserRecord | null> {
    return settle(() => copy(this.db.users.get(id) ?? null));
  }

  getUserByEmail(email: string): Promise<UserRecord | null> {
    return settle(() => copy([...this.db.users.values()].find((u) => u.email === email) ?? null));
  }

  updateUser(id: string, patch: UserPatch): Promise<UserRecord | null> {
    return settle(() => {
      const user = this.db.users.get(id);
      if (user === undefined) return null;
      if (patch.displayName !== undefined) user.displayName = patch.displayName;
      if (patch.passwordHash !== undefined) {
        user.passwordHash = patch.passwordHash;
        user.passwordChangedAt = patch.passwordChangedAt ?? null;
      }
      return copy(user);
    });
  }

  countUsers(): Promise<number> {
    return settle(() => this.db.users.size);
  }

  // memberships ------------------------------------------------------------------------------

  addMembership(orgId: string, userId: string, role: Role, at: string): Promise<MembershipRecord> {
    return settle(() => {
      this.requireOrganization(orgId);
      this.#requireUser(userId);
      const key = membershipKey(orgId, userId);
      if (this.db.memberships.has(key)) throw new StoreError("conflict", `User ${userId} is already a member of ${orgId}.`);
      const record: MembershipRecord = { orgId, userId, role, createdAt: at };
      this.db.memberships.set(key, record);
      return copy(record);
    });
  }

  getMembership(orgId: string, userId: string): Promise<MembershipRecord | null> {
    return settle(() => copy(this.db.memberships.get(membershipKey(orgId, userId)) ?? null));
  }

  listMembers(orgId: string, page: TimeKeysetPage): Promise<MemberRecord[]> {
    return settle(() => {
      const after = page.after;
      const members: MemberRecord[] = [];
      for (const m of this.db.memberships.values()) {
        if (m.orgId !== orgId) continue;
        if (after !== null && newestFirst({ at: m.createdAt, id: m.userId }, after) <= 0) continue;
        const user = this.db.users.get(m.userId);
        if (user === undefined) continue;
        members.push({ ...m, id: m.userId, email: user.email, displayName: user.displayName });
      }
      members.sort((a, b) => newestFirst({ at: a.createdAt, id: a.id }, { at: b.createdAt, id: b.id }));
      return members.slice(0, page.take);
    });
  }

  listMembershipsOfUser(userId: string): Promise<MembershipRecord[]> {
    return settle(() =>
      [...this.db.memberships.values()]
        .filter((m) => m.userId === userId)
        .sort((a, b) => -newestFirst({ at: a.createdAt, id: a.orgId }, { at: b.createdAt, id: b.orgId }))
        .map(copy)
    );
  }

  setMemberRole(orgId: string, userId: string, role: Role): Promise<MembershipRecord | null> {
    return settle(() => {
      const membership = this.db.memberships.get(membershipKey(orgId, userId));
      if (membership === undefined) return null;
      if (role !== "owner") this.#guardLastOwner(membership);
      membership.role = role;
      return copy(membership);
    });
  }

  removeMembership(orgId: string, userId: string): Promise<boolean> {
    return settle(() => {
      const key = membershipKey(orgId, userId);
      const membership = this.db.memberships.get(key);
      if (membership === undefined) return false;
      this.#guardLastOwner(membership);
      this.db.memberships.delete(key);
      return true;
    });
  }

  countOwners(orgId: string): Promise<number> {
    return settle(() => this.#countOwners(orgId));
  }

  // sessions ---------------------------------------------------------------------------------

  createSession(input: NewSession): Promise<SessionRecord> {
    return settle(() => {
      this.#requireUser(input.userId);
      this.requireOrganization(input.orgId);
      for (const s of this.db.sessions.values()) {
        if (s.sessionHash === input.sessionHash) throw new StoreError("conflict", "A session with the same hash exists.");
      }
      const record: SessionRecord = { ...input, id: newId("session"), lastSeenAt: input.createdAt, revokedAt: null };
      this.db.sessions.set(record.id, record);
      return copy(record);
    });
  }

  findSessionByHash(sessionHash: string): Promise<SessionRecord | null> {
    return settle(() => copy([...this.db.sessions.values()].find((s) => s.sessionHash === sessionHash) ?? null));
  }

  touchSession(id: string, patch: SessionPatch): Promise<void> {
    return settle(() => {
      const session = this.db.sessions.get(id);
      if (session === undefined) return;
      if (patch.orgId !== undefined) {
        this.requireOrganization(patch.orgId);
        session.orgId = patch.orgId;
      }
      if (patch.lastSeenAt !== undefined) session.lastSeenAt = patch.lastSeenAt;
    });
  }

  revokeSession(id: string, at: string): Promise<boolean> {
    return settle(() => {
      const session = this.db.sessions.get(id);
      if (session === undefined) return false;
      session.revokedAt ??= at;
      return true;
    });
  }

  revokeUserSessions(userId: string, at: string, exceptId?: string): Promise<number> {
    return settle(() => {
      let n = 0;
      for (const s of this.db.sessions.values()) {
        if (s.userId !== userId || s.revokedAt !== null || s.id === exceptId) continue;
        s.revokedAt = at;
        n++;
      }
      return n;
    });
  }

  trimUserSessions(userId: string, keep: number, at: string): Promise<number> {
    return settle(() => {
      const live = [...this.db.sessions.values()]
        .filter((s) => s.userId === userId && s.revokedAt === null)
        .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));
      for (const s of live.slice(keep)) s.revokedAt = at;
      return Math.max(0, live.length - keep);
    });
  }

  // invites ----------------------------------------------------------------------------------

  createInvite(orgId: string, input: NewInvite): Promise<InviteRecord> {
    return settle(() => {
      this.requireOrganization(orgId);
      for (const i of this.db.invites.values()) {
        if (i.tokenHash === input.tokenHash) throw new StoreError("conflict", "An invite with the same hash exists.");
      }
      const record: InviteRecord = { ...input, id: newId("invite"), orgId, acceptedAt: null, acceptedBy: null, revokedAt: null };
      this.db.invites.set(record.id, record);
      return copy(record);
    });
  }

  getInvite(orgId: string, id: string): Promise<InviteRecord | null> {
    return settle(() => {
      const invite = this.db.invites.get(id);
      return invite !== undefined && invite.orgId === orgId ? copy(invite) : null;
    });
  }

  findInviteByHash(tokenHash: string): Promise<InviteRecord | null> {
    return settle(() => copy([...this.db.invites.values()].find((i) => i.tokenHash === tokenHash) ?? null));
  }

  listInvites(orgId: string, page: KeysetPage): Promise<InviteRecord[]> {
    return settle(() => listOf(this.db.invites.values(), (i) => i.orgId === orgId, page, copy));
  }

  revokeInvite(orgId: string, id: string, at: string): Promise<InviteRecord | null> {
    return settle(() => {
      const invite = this.db.invites.get(id);
      if (invite === undefined || invite.orgId !== orgId) return null;
      if (invite.acceptedAt === null && invite.revokedAt === null) invite.revokedAt = at;
      return copy(invite);
    });
  }

  consumeInvite(id: string, userId: string, at: string): Promise<InviteRecord | null> {
    return settle(() => {
      const invite = this.db.invites.get(id);
      if (invite === undefined || invite.acceptedAt !== null || invite.revokedAt !== null || !(invite.expiresAt > at)) return null;
      invite.acceptedAt = at;
      invite.acceptedBy = userId;
      return copy(invite);
    });
  }

  // audit ------------------------------------------------------------------------------------

  appendAudit(orgId: string | null, entry: NewAuditEntry): Promise<AuditRecord> {
    return settle(() => {
      if (orgId !== null) this.requireOrganization(orgId);
      const record: AuditRecord = { ...copy(entry), id: newId("audit"), orgId };
      this.db.audit.set(record.id, record);
      return copy(record);
    });
  }

  listAudit(orgId: string, page: KeysetPage): Promise<AuditRecord[]> {
    return settle(() => listOf(this.db.audit.values(), (a) => a.orgId === orgId, page, copy));
  }
}
