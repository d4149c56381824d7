// Users made outside the invitation flow: `driftwatch user create` (scripted installs) and
// embedders that provision accounts themselves.
import { normalizeEmail, type MembershipRecord, type OrganizationRecord, type Role, type UserRecord } from "@driftwatch/core";
import { audit, type Origin, SYSTEM_ACTOR } from "./audit.js";
import { PeopleError } from "./errors.js";
import { sweep } from "./members.js";
import { hashPassword } from "./password.js";
import type { People } from "./people.js";
import { passwordProblem } from "./policy.js";

export interface NewMember {
  email: string;
  displayName: string;
  /** For a new user; an existing user's password is kept. Must pass the password policy. */
  password: string;
  /** The organization's slug: created when it does not exist. */
  orgSlug: string;
  role: Role;
  /** Recorded in the audit entry's data (`via`), e.g. `cli`. */
  via?: string;
}

export interface AddedMember {
  user: UserRecord;
  organization: OrganizationRecord;
  /** Whether the user existed before (their password was kept). */
  existed: boolean;
  /** The membership before (null: the user was not a member). */
  previous: MembershipRecord | null;
}

/**
 * Creates a user (or takes the existing one of that email) and makes them a member of the
 * organization `orgSlug` (created when missing) with `role`: a new membership is audited as
 * `member.added`, a changed role as `member.role_changed`, both by the system; a changed role
 * revokes the member's tokens and invitations beyond it, as `changeMemberRole` does. A password that
 * fails the policy is `weak_password`, checked before anything is written.
 */
export async function addMember(people: People, origin: Origin, input: NewMember): Promise<AddedMember> {
  const { store } = people;
  const email = normalizeEmail(input.email);
  const weak = await passwordProblem(input.password, email);
  if (weak !== null) throw new PeopleError("weak_password", `The password ${weak}.`, { errors: [{ path: "password", message: weak }] });
  const organization = await store.ensureOrganization(input.orgSlug);
  const at = people.now().toISOString();
  let user = await store.getUserByEmail(email);
  const existed = user !== null;
  user ??= await store.createUser({ email, displayName: input.displayName, passwordHash: await hashPassword(input.password, people.scrypt), createdAt: at });
  const previous = await store.getMembership(organization.id, user.id);
  if (previous === null) await store.addMembership(organization.id, user.id, input.role, at);
  else if (previous.role !== input.role) await store.setMemberRole(organization.id, user.id, input.role);
  if (previous === null || previous.role !== input.role) {
    const via = input.via === undefined ? {} : { via: input.via };
    await audit(people, origin, organization.id, SYSTEM_ACTOR, previous === null ? "member.added" : "member.role_changed", user.id, {
      ...via,
      role: input.role,
      ...(previous === null ? {} : { from: previous.role }),
    });
  }
  // A role changed here is a role change like any other: what the member made beyond it goes.
  if (previous !== null && previous.role !== input.role) await sweep(people, origin, SYSTEM_ACTOR, organization.id, user.id, input.role, {});
  return { user, organization, existed, previous };
}
