// Invitations by email (docs/people.md). The link carries a random secret (its sha256 is stored),
// works once and expires; accepting creates the user or adds the membership.
import { type InviteRecord, isDriftwatchError, normalizeEmail, type Role, type UserRecord } from "@driftwatch/core";
import type { Page } from "@driftwatch/schema";
import { audit, type Actor, type Origin, userActor } from "./audit.js";
import { checkPassword } from "./credentials.js";
import { PeopleError } from "./errors.js";
import { hashPassword } from "./password.js";
import type { People } from "./people.js";
import { assertPasswordPolicy } from "./policy.js";
import { hashSecret, isWellFormedSecret, newSecret } from "./secrets.js";
import { isSetupInvite } from "./setup.js";
import { organizationOf } from "./sessions.js";

/** Who sends an invitation: a member's session (their user id and role) or a token (no user). */
export interface Inviter {
  actor: Actor;
  /** The inviting user; null for a token. */
  userId: string | null;
  /** The inviting user's role; null for a token. */
  role: Role | null;
}

export interface NewInvitation {
  orgId: string;
  email: string;
  role: Role;
  /** Where the dashboard is (the link is `<linkBase>/invite#token=<secret>`). */
  linkBase: string;
}

export interface CreatedInvitation {
  invite: InviteRecord;
  /** The link with the secret: shown only here. */
  url: string;
  /** Whether the mailer accepted the mail (false without a mailer). */
  mailed: boolean;
}

/**
 * Invites `email` to an organization as `role` (only an owner invites an owner; a member's email
 * is a conflict), mails the link when there is a mailer (a failure is logged, not thrown) and
 * audits `invite.created`.
 */
export async function createInvitation(people: People, origin: Origin, by: Inviter, input: NewInvitation): Promise<CreatedInvitation> {
  const { store } = people;
  if (input.role === "owner" && by.role !== "owner") {
    throw new PeopleError("insufficient_scope", "Only an owner's session can invite an owner.");
  }
  const at = people.now();
  const secret = newSecret();
  const email = normalizeEmail(input.email);
  const existing = await store.getUserByEmail(email);
  if (existing !== null && (await store.getMembership(input.orgId, existing.id)) !== null) {
    throw new PeopleError("conflict", "This email belongs to a member of the organization already.");
  }
  const invite = await store.createInvite(input.orgId, {
    email,
    role: input.role,
    tokenHash: hashSecret(secret),
    invitedBy: by.userId,
    createdAt: at.toISOString(),
    expiresAt: new Date(at.getTime() + people.limits.inviteTtlSeconds * 1000).toISOString(),
  });
  const url = `${input.linkBase}/invite#token=${secret}`;
  let mailed = false;
  if (people.mailer !== null) {
    const org = await organizationOf(store, input.orgId);
    const inviter = by.userId !== null ? await store.getUser(by.userId) : null;
    try {
      await people.mailer.sendInvite({ to: email, orgName: org.name, role: invite.role, url, expiresAt: invite.expiresAt, invitedBy: inviter?.displayName ?? null });
      mailed = true;
    } catch (error) {
      origin.log?.warn({ err: error, inviteId: invite.id }, "could not mail the invitation");
    }
  }
  await audit(people, origin, input.orgId, by.actor, "invite.created", invite.id, { email, role: invite.role, mailed });
  return { invite, url, mailed };
}

/** An organization's invitations (the first-run setup link left out). */
export async function listInvitations(people: People, orgId: string, page: { limit: number; cursor: string | null }): Promise<Page<InviteRecord>> {
  const found = await people.store.listInvites(orgId, page);
  return { data: found.data.filter((i) => !isSetupInvite(i)), nextCursor: found.nextCursor };
}

/** Revokes an invitation (audited the first time); 404 when unknown. Returns it as it now is. */
export async function revokeInvitation(people: People, origin: Origin, actor: Actor, orgId: string, id: string): Promise<InviteRecord> {
  const { store } = people;
  const before = await store.getInvite(orgId, id);
  if (before === null || isSetupInvite(before)) throw new PeopleError("not_found", "No invitation with this id exists.");
  const invite = await store.revokeInvite(orgId, before.id, people.now().toISOString());
  if (invite === null) throw new PeopleError("not_found", "No invitation with this id exists.");
  if (before.revokedAt === null && invite.revokedAt !== null) {
    await audit(people, origin, orgId, actor, "invite.revoked", invite.id, { email: invite.email });
  }
  return invite;
}

/** The invite a link's token names, usable now; 404 unknown, 410 `invite_invalid` used, revoked or expired. */
export async function usableInvitation(people: People, token: string): Promise<InviteRecord> {
  const invite = isWellFormedSecret(token) ? await people.store.findInviteByHash(hashSecret(token)) : null;
  if (invite === null || isSetupInvite(invite)) throw new PeopleError("not_found", "No invitation with this link exists.");
  if (invite.acceptedAt !== null) throw new PeopleError("invite_invalid", "This invitation was already used.");
  if (invite.revokedAt !== null) throw new PeopleError("invite_invalid", "This invitation was revoked.");
  if (Date.parse(invite.expiresAt) <= people.now().getTime()) throw new PeopleError("invite_invalid", "This invitation has expired: ask for a new one.");
  return invite;
}

export interface InvitationAcceptance {
  token: string;
  password: string;
  /** Needed when the email has no account yet. */
  displayName?: string | undefined;
  /** The client's address key (an existing user's password is checked under the sign-in limits). */
  address: string;
}

/**
 * Accepts an invitation: a new email becomes a user (with a password that passes the policy), an
 * existing user proves it with their password (each failure audited). Adds the membership and
 * audits it; returns the user and the organization to sign them in to.
 */
export async function acceptInvitation(people: People, origin: Origin, body: InvitationAcceptance): Promise<{ user: UserRecord; orgId: string; created: boolean }> {
  const { store } = people;
  const invite = await usableInvitation(people, body.token);
  const at = people.now();
  let user: UserRecord | null = await store.getUserByEmail(invite.email);
  let created = false;
  if (user !== null) {
    if ((await checkPassword(people, invite.email, body.password, body.address)) === null) {
      // every failed proof is audited: in the inviting organization and in the user's own
      for (const orgId of new Set([invite.orgId, ...(await store.listMembershipsOfUser(user.id)).map((m) => m.orgId)])) {
        await audit(people, origin, orgId, userActor(user.id), "invite.accept_failed", user.id, { inviteId: invite.id });
      }
      throw new PeopleError("invalid_credentials", "The password is wrong for the account of this email.");
    }
    if ((await store.getMembership(invite.orgId, user.id)) !== null) {
      throw new PeopleError("conflict", "You are already a member of this organization: sign in instead.");
    }
  } else {
    if (body.displayName === undefined) {
      throw new PeopleError("validation_failed", "A new account needs a displayName.", { errors: [{ path: "displayName", message: "is required" }] });
    }
    await assertPasswordPolicy(body.password, invite.email);
    try {
      user = await store.createUser({ email: invite.email, displayName: body.displayName, passwordHash: await hashPassword(body.password, people.scrypt), createdAt: at.toISOString() });
      created = true;
    } catch (error) {
      if (isDriftwatchError(error) && error.code === "conflict") throw new PeopleError("conflict", "An account with this email was created meanwhile: accept again with its password.");
      throw error;
    }
  }
  if ((await store.consumeInvite(invite.id, user.id, at.toISOString())) === null) {
    throw new PeopleError("invite_invalid", "This invitation was used, revoked or expired meanwhile.");
  }
  try {
    await store.addMembership(invite.orgId, user.id, invite.role, at.toISOString());
  } catch (error) {
    if (isDriftwatchError(error) && error.code === "conflict") throw new PeopleError("conflict", "You are already a member of this organization.");
    throw error;
  }
  const actor = userActor(user.id);
  await audit(people, origin, invite.orgId, actor, "invite.accepted", invite.id, { email: invite.email, newUser: created });
  await audit(people, origin, invite.orgId, actor, "member.added", user.id, { role: invite.role, inviteId: invite.id });
  return { user, orgId: invite.orgId, created };
}
