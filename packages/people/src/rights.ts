import type { Store } from "@driftwatch/core";
import { type Role, ROLE_ORDER, ROLE_SCOPES, type Scope } from "@driftwatch/schema";

/** Pages read at a time while an organization's tokens and invitations are swept. */
const SWEEP_PAGE = 200;

/** Whether a member of `role` (null: no longer a member) holds every scope of `scopes`. */
function holds(role: Role | null, scopes: readonly Scope[]): boolean {
  if (role === null) return false;
  const allowed = ROLE_SCOPES[role];
  return allowed.includes("admin") || scopes.every((scope) => allowed.includes(scope));
}

/** Whether a member of `role` (null: none) may send an invitation to `invited` (admins, owners alone for owners). */
function mayInvite(role: Role | null, invited: Role): boolean {
  if (role === null || !ROLE_SCOPES[role].includes("admin")) return false;
  return ROLE_ORDER.indexOf(invited) <= ROLE_ORDER.indexOf(role);
}

export interface RightsSwept {
  /** Ids of the tokens revoked. */
  tokens: string[];
  /** Ids of the pending invitations revoked. */
  invites: string[];
}

/**
 * The rule of docs/people.md ("A member's tokens and invitations"): when a member is removed, or
 * their role changes to `role`, the tokens they created that need more than `role` allows, and the
 * pending invitations they sent that `role` could not send, are revoked. `role` null: removed.
 */
export async function revokeBeyondRights(store: Store, orgId: string, userId: string, role: Role | null, at: Date): Promise<RightsSwept> {
  const swept: RightsSwept = { tokens: [], invites: [] };
  const when = at.toISOString();
  let cursor: string | null = null;
  do {
    const page = await store.listTokens(orgId, { limit: SWEEP_PAGE, cursor });
    for (const token of page.data) {
      if (token.createdBy !== userId || token.revokedAt !== null || holds(role, token.scopes)) continue;
      if ((await store.revokeToken(orgId, token.id, when)) !== null) swept.tokens.push(token.id);
    }
    cursor = page.nextCursor;
  } while (cursor !== null);
  do {
    const page = await store.listInvites(orgId, { limit: SWEEP_PAGE, cursor });
    for (const invite of page.data) {
      if (invite.invitedBy !== userId || invite.acceptedAt !== null || invite.revokedAt !== null) continue;
      if (Date.parse(invite.expiresAt) <= at.getTime() || mayInvite(role, invite.role)) continue;
      if ((await store.revokeInvite(orgId, invite.id, when)) !== null) swept.invites.push(invite.id);
    }
    cursor = page.nextCursor;
  } while (cursor !== null);
  return swept;
}
