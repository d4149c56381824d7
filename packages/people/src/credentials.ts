// Passwords of people: checking one under the sign-in limits, signing in, changing one's own.
import { normalizeEmail, type MembershipRecord, type UserRecord } from "@driftwatch/core";
import { audit, type Actor, type Origin, userActor } from "./audit.js";
import { PeopleError } from "./errors.js";
import { hashPassword, needsRehash, verifyPassword } from "./password.js";
import type { People } from "./people.js";
import { assertPasswordPolicy } from "./policy.js";

/**
 * Checks a password under the sign-in limits (per account and per `address`, the client's address
 * key): a refusal before any hashing when over a limit, the same answer and the same work for an
 * unknown email as for a wrong password. Null when the email or the password is wrong.
 */
export async function checkPassword(people: People, email: string, password: string, address: string): Promise<UserRecord | null> {
  const at = people.now().getTime();
  const account = normalizeEmail(email);
  // Counted as a failure from here on (an error on the way leaves it counted) until it succeeds.
  await people.limiter.attempt(account, address, at);
  const user = await people.store.getUserByEmail(account);
  const ok = await verifyPassword(password, user?.passwordHash ?? null, people.scrypt);
  if (!ok || user === null) return null;
  await people.limiter.succeeded(account, address, at);
  if (user.passwordHash !== null && needsRehash(user.passwordHash, people.scrypt)) {
    // Parameters changed since this hash was made: store one with the current parameters.
    await people.store.updateUser(user.id, { passwordHash: await hashPassword(password, people.scrypt), passwordChangedAt: user.passwordChangedAt ?? user.createdAt });
  }
  return user;
}

/** `auth.sign_in_failed` in each organization of the account, when the email is one. */
export async function auditFailedSignIn(people: People, origin: Origin, email: string): Promise<void> {
  try {
    const known = await people.store.getUserByEmail(normalizeEmail(email));
    if (known === null) return;
    for (const membership of await people.store.listMembershipsOfUser(known.id)) {
      await audit(people, origin, membership.orgId, userActor(known.id), "auth.sign_in_failed", known.id, {});
    }
  } catch (error) {
    origin.log?.error({ err: error }, "could not record the failed sign-in");
  }
}

export interface SignIn {
  email: string;
  password: string;
  /** The organization to sign in to; default the user's oldest membership. */
  orgId?: string | undefined;
  /** The client's address key (for the per-address limit). */
  address: string;
}

/**
 * Checks a sign-in: the user and the membership to start a session in (`startSession`), audited
 * as `auth.sign_in`. A wrong email or password is `invalid_credentials` (the failure audited
 * without delaying the answer).
 */
export async function signIn(people: People, origin: Origin, input: SignIn): Promise<{ user: UserRecord; membership: MembershipRecord }> {
  const user = await checkPassword(people, input.email, input.password, input.address);
  if (user === null) {
    // Recorded after the answer is decided and not awaited: a known email must not answer slower than an unknown one.
    void auditFailedSignIn(people, origin, input.email);
    throw new PeopleError("invalid_credentials", "The email or the password is wrong.");
  }
  const memberships = await people.store.listMembershipsOfUser(user.id);
  const target = input.orgId === undefined ? memberships[0] : memberships.find((m) => m.orgId === input.orgId);
  if (target === undefined) {
    throw input.orgId === undefined
      ? new PeopleError("insufficient_scope", "Your account belongs to no organization: ask an admin for an invitation.")
      : new PeopleError("not_found", "You are not a member of this organization.");
  }
  await audit(people, origin, target.orgId, userActor(user.id), "auth.sign_in", user.id, {});
  return { user, membership: target };
}

export interface PasswordChange {
  userId: string;
  currentPassword: string;
  newPassword: string;
  /** The session that stays signed in (the others end). */
  keepSessionId: string;
  /** Where the change is audited. */
  orgId: string;
  actor: Actor;
  address: string;
}

/** Changes a user's own password (the current one proves it) and ends their other sessions; each failed proof is audited. */
export async function changePassword(people: People, origin: Origin, input: PasswordChange): Promise<void> {
  const { store } = people;
  const user = await store.getUser(input.userId);
  if (user === null) throw new PeopleError("unauthenticated", "Your session has ended: sign in again.");
  if ((await checkPassword(people, user.email, input.currentPassword, input.address)) === null) {
    await audit(people, origin, input.orgId, input.actor, "auth.password_change_failed", user.id, {});
    throw new PeopleError("invalid_credentials", "The current password is wrong.");
  }
  await assertPasswordPolicy(input.newPassword, user.email, "newPassword");
  const at = people.now().toISOString();
  await store.updateUser(user.id, { passwordHash: await hashPassword(input.newPassword, people.scrypt), passwordChangedAt: at });
  await store.revokeUserSessions(user.id, at, input.keepSessionId);
  await audit(people, origin, input.orgId, input.actor, "auth.password_changed", user.id, {});
}
