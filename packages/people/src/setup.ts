// First run: while no user exists, each start of `driftwatch serve` makes a setup link, a
// single-use invitation to become the first owner of the bootstrap organization (`default`).
import type { Store } from "@driftwatch/core";
import { hashSecret, newSecret } from "./secrets.js";

export interface SetupLink {
  url: string;
  expiresAt: string;
}

/** The bootstrap organization's slug: the organization `driftwatch serve` creates on an empty database. */
export const BOOTSTRAP_ORG = "default";

/**
 * The address the setup invite is made out to: the first owner types their own. It is in the
 * reserved `.invalid` domain (RFC 2606), so it names nobody; only the setup invite has it with no
 * inviter and the owner role (tokens, the other inviter-less invites, cannot invite owners).
 */
export const SETUP_INVITE_EMAIL = "first-owner@setup.invalid";

/** The first-run setup invite: made by `driftwatch serve`, for an owner, with no inviter. */
export function isSetupInvite(invite: { invitedBy: string | null; role: string; email: string }): boolean {
  return invite.invitedBy === null && invite.role === "owner" && invite.email === SETUP_INVITE_EMAIL;
}

/** Invites of an organization read at a time while older setup links are revoked. */
const SWEEP_PAGE = 200;

/**
 * A fresh setup link when the store has no user yet; null otherwise. The links of earlier starts
 * still pending are revoked first: only the newest printed link works.
 */
export async function createSetupLink(store: Store, origin: string, ttlSeconds: number, now: Date = new Date()): Promise<SetupLink | null> {
  if ((await store.countUsers()) > 0) return null;
  const org = await store.ensureOrganization(BOOTSTRAP_ORG);
  let cursor: string | null = null;
  do {
    const page = await store.listInvites(org.id, { limit: SWEEP_PAGE, cursor });
    for (const old of page.data) {
      if (isSetupInvite(old) && old.acceptedAt === null && old.revokedAt === null) await store.revokeInvite(org.id, old.id, now.toISOString());
    }
    cursor = page.nextCursor;
  } while (cursor !== null);
  const secret = newSecret();
  const invite = await store.createInvite(org.id, {
    email: SETUP_INVITE_EMAIL,
    role: "owner",
    tokenHash: hashSecret(secret),
    invitedBy: null,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
  });
  return { url: `${origin}/setup#token=${secret}`, expiresAt: invite.expiresAt };
}
