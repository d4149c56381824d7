// An organization and its members: renaming it, changing a member's role, removing a member (or
// leaving), transferring ownership (docs/people.md). Owners are made, changed and removed only by
// an owner; what a member created beyond their new rights is revoked (rights.ts).
import type { MemberRecord, OrganizationRecord, Role } from "@driftwatch/core";
import type { LearningSettings } from "@driftwatch/schema";
import { audit, type Actor, type Origin } from "./audit.js";
import { PeopleError } from "./errors.js";
import type { People } from "./people.js";
import { revokeBeyondRights } from "./rights.js";
import { organizationOf } from "./sessions.js";

/** Who changes an organization: a member's session (user and role) or a token (neither). */
export interface OrgCaller {
  actor: Actor;
  /** The calling user; null for a token. */
  userId: string | null;
  /** The calling user's role; null for a token. */
  role: Role | null;
  /** Whether the caller holds the `admin` scope. */
  admin: boolean;
}

export interface MemberChangeOptions {
  /** Called when tokens of the organization were revoked (a member lost rights), e.g. to drop cached ones. */
  onTokensRevoked?: (orgId: string) => void;
}

const noMember = (): PeopleError => new PeopleError("not_found", "No member with this id exists.");

/** Owners are made, changed and removed only by an owner's session. */
function assertMayTouchOwner(caller: OrgCaller, currentRole: Role, nextRole: Role | null): void {
  if (currentRole === "owner" || nextRole === "owner") {
    if (caller.role !== "owner") {
      throw new PeopleError("insufficient_scope", "Only an owner's session can make, change or remove an owner.");
    }
  }
}

/** One member with email and name (the member list's record shape). */
export async function getMember(people: People, orgId: string, userId: string): Promise<MemberRecord> {
  const [membership, user] = await Promise.all([people.store.getMembership(orgId, userId), people.store.getUser(userId)]);
  if (membership === null || user === null) throw noMember();
  return { ...membership, id: user.id, email: user.email, displayName: user.displayName };
}

/** Renames an organization or changes its defaults; audits what changed as `org.updated`. */
export async function updateOrganization(
  people: People,
  origin: Origin,
  actor: Actor,
  orgId: string,
  patch: { name?: string | undefined; learnNoiseByDefault?: boolean | undefined; learningDefaults?: LearningSettings | null | undefined },
): Promise<OrganizationRecord> {
  const before = await organizationOf(people.store, orgId);
  const { name, learnNoiseByDefault, learningDefaults } = patch;
  const org = await people.store.updateOrganization(before.id, {
    ...(name !== undefined ? { name } : {}),
    ...(learnNoiseByDefault !== undefined ? { learnNoiseByDefault } : {}),
    ...(learningDefaults !== undefined ? { learningDefaults: learningDefaults === null || Object.keys(learningDefaults).length === 0 ? null : learningDefaults } : {}),
  });
  if (org === null) throw new PeopleError("not_found", "No organization with this id exists.");
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  if (before.name !== org.name) changes.name = { from: before.name, to: org.name };
  if (before.learnNoiseByDefault !== org.learnNoiseByDefault) changes.learnNoiseByDefault = { from: before.learnNoiseByDefault, to: org.learnNoiseByDefault };
  if (JSON.stringify(before.learningDefaults ?? null) !== JSON.stringify(org.learningDefaults ?? null)) changes.learningDefaults = { from: before.learningDefaults ?? null, to: org.learningDefaults ?? null };
  await audit(people, origin, org.id, actor, "org.updated", org.id, changes);
  return org;
}

/** Deletes an organization and everything in it; 404 when it does not exist. */
export async function deleteOrganization(people: People, orgId: string): Promise<void> {
  if (!(await people.store.deleteOrganization(orgId))) throw new PeopleError("not_found", "No organization with this id exists.");
}

/** Changes a member's role (the last owner cannot be demoted: `last_owner`), audited, with what they may no longer hold revoked. */
export async function changeMemberRole(
  people: People,
  origin: Origin,
  caller: OrgCaller,
  orgId: string,
  userId: string,
  role: Role,
  options: MemberChangeOptions = {},
): Promise<MemberRecord> {
  const current = await people.store.getMembership(orgId, userId);
  if (current === null) throw noMember();
  assertMayTouchOwner(caller, current.role, role);
  await people.store.setMemberRole(orgId, current.userId, role);
  const member = await getMember(people, orgId, current.userId);
  if (current.role !== member.role) {
    await audit(people, origin, orgId, caller.actor, "member.role_changed", member.userId, { from: current.role, to: member.role });
    await sweep(people, origin, caller.actor, orgId, member.userId, member.role, options);
  }
  return member;
}

/** Removes a member (an admin), or the caller leaves (themselves); the last owner cannot go (`last_owner`). */
export async function removeMember(people: People, origin: Origin, caller: OrgCaller, orgId: string, userId: string, options: MemberChangeOptions = {}): Promise<void> {
  const self = caller.userId !== null && caller.userId === userId;
  if (!self && !caller.admin) throw new PeopleError("insufficient_scope", "Removing another member needs the admin role.");
  const current = await people.store.getMembership(orgId, userId);
  if (current === null) throw noMember();
  if (!self) assertMayTouchOwner(caller, current.role, null);
  if (!(await people.store.removeMembership(orgId, current.userId))) throw noMember();
  await audit(people, origin, orgId, caller.actor, "member.removed", current.userId, { role: current.role, self });
  await sweep(people, origin, caller.actor, orgId, current.userId, null, options);
}

/** Makes another member owner and the calling owner admin (the new owner first: never none). */
export async function transferOwnership(
  people: People,
  origin: Origin,
  owner: { actor: Actor; userId: string },
  orgId: string,
  userId: string,
  options: MemberChangeOptions = {},
): Promise<MemberRecord> {
  const target = await people.store.getMembership(orgId, userId);
  if (target === null) throw noMember();
  if (target.userId !== owner.userId) {
    // The new owner first: the organization is never without one.
    await people.store.setMemberRole(orgId, target.userId, "owner");
    await people.store.setMemberRole(orgId, owner.userId, "admin");
    await audit(people, origin, orgId, owner.actor, "org.ownership_transferred", target.userId, { from: owner.userId, previousRole: target.role });
    await sweep(people, origin, owner.actor, orgId, owner.userId, "admin", options);
  }
  return getMember(people, orgId, target.userId);
}

/**
 * Revokes what the member created beyond their new rights (`role` null: removed) and audits it as
 * `member.rights_revoked`: every role change and removal goes through here, `addMember` included.
 */
export async function sweep(people: People, origin: Origin, actor: Actor, orgId: string, userId: string, role: Role | null, options: MemberChangeOptions): Promise<void> {
  const swept = await revokeBeyondRights(people.store, orgId, userId, role, people.now());
  if (swept.tokens.length > 0) options.onTokensRevoked?.(orgId);
  if (swept.tokens.length > 0 || swept.invites.length > 0) {
    await audit(people, origin, orgId, actor, "member.rights_revoked", userId, { role, tokens: swept.tokens, invites: swept.invites });
  }
}
