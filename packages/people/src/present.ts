// The API's shapes (@driftwatch/schema) of the people domain's records.
import type { InviteRecord, MemberRecord, OrganizationRecord, Store, UserRecord } from "@driftwatch/core";
import type { Invite, Me, Member, Org, User } from "@driftwatch/schema";

export function presentUser(user: UserRecord): User {
  return { id: user.id, email: user.email, displayName: user.displayName, createdAt: user.createdAt };
}

export function presentOrg(org: OrganizationRecord): Org {
  return { id: org.id, slug: org.slug, name: org.name, learnNoiseByDefault: org.learnNoiseByDefault, learningDefaults: org.learningDefaults ?? null, createdAt: org.createdAt };
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

/** The organizations a user belongs to, with their role in each (oldest membership first). */
export async function organizationsOf(store: Store, userId: string): Promise<Me["orgs"]> {
  const out: Me["orgs"] = [];
  for (const membership of await store.listMembershipsOfUser(userId)) {
    const org = await store.getOrganization(membership.orgId);
    if (org !== null) out.push({ id: org.id, slug: org.slug, name: org.name, role: membership.role });
  }
  return out;
}
