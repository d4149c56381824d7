// First run: while no user exists, each start of `driftwatch serve` makes a setup link, a
// single-use invitation to become the first owner of the bootstrap organization (`default`).
import { normalizeEmail, type Store, type UserRecord } from "@driftwatch/core";
import { audit, type Origin, userActor } from "./audit.js";
import { PeopleError } from "./errors.js";
import { hashPassword } from "./password.js";
import type { People } from "./people.js";
import { assertPasswordPolicy } from "./policy.js";
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

/**
 * The claim (an idempotency key of the bootstrap organization, atomic in the store) that makes one
 * setup the first owner when several processes on one database take setup requests at once.
 */
const FIRST_OWNER_KEY = "setup:first-owner";
/** A claim of a setup that died half-way is taken over after this long. */
const FIRST_OWNER_CLAIM_MS = 2 * 60_000;

/** Setups of one `People` run one at a time; across processes, the store's first-owner claim decides. */
const setupQueues = new WeakMap<People, Promise<unknown>>();

/** Whether first-run setup is open (no user exists yet). */
export async function isSetupOpen(people: People): Promise<boolean> {
  return (await people.store.countUsers()) === 0;
}

export interface Setup {
  /** The setup link's secret. */
  token: string;
  email: string;
  displayName: string;
  password: string;
  /** A new name for the bootstrap organization. */
  orgName?: string | undefined;
}

/**
 * First-run setup: while no user exists, the setup link's secret makes its bearer the first owner
 * of the bootstrap organization (renamed to `orgName` when given). One first owner across every
 * process on the database. Returns the user and the organization to sign them in to.
 */
export function completeSetup(people: People, origin: Origin, input: Setup): Promise<{ user: UserRecord; orgId: string }> {
  const run = (setupQueues.get(people) ?? Promise.resolve()).then(() => setUp(people, origin, input));
  setupQueues.set(people, run.catch(() => undefined));
  return run;
}

async function setUp(people: People, origin: Origin, body: Setup): Promise<{ user: UserRecord; orgId: string }> {
  const { store } = people;
  if ((await store.countUsers()) > 0) throw new PeopleError("setup_closed", "Setup is done: an account exists. Sign in instead.");
  const invite = await store.findInviteByHash(hashSecret(body.token));
  const at = people.now();
  if (invite === null || !isSetupInvite(invite) || invite.acceptedAt !== null || invite.revokedAt !== null || Date.parse(invite.expiresAt) <= at.getTime()) {
    throw new PeopleError("invalid_token", "This setup link is not valid (it expired or was used): restart driftwatch serve for a new one.");
  }
  await assertPasswordPolicy(body.password, body.email);
  const passwordHash = await hashPassword(body.password, people.scrypt);
  // One first owner across every process on the database: whoever claims first sets up; the
  // others (another link, or the same link twice) are refused before they create anybody.
  const claim = await store.claimIdempotencyKey(invite.orgId, {
    key: FIRST_OWNER_KEY,
    requestHash: FIRST_OWNER_KEY,
    now: at.toISOString(),
    expiresAt: new Date(at.getTime() + FIRST_OWNER_CLAIM_MS).toISOString(),
  });
  if (claim.state !== "new") throw new PeopleError("setup_closed", "Setup is under way or done in another request. Sign in instead.");
  let user: UserRecord;
  try {
    if ((await store.countUsers()) > 0) throw new PeopleError("setup_closed", "Setup is done: an account exists. Sign in instead.");
    const current = await store.getInvite(invite.orgId, invite.id);
    if (current === null || current.acceptedAt !== null || current.revokedAt !== null) {
      throw new PeopleError("invalid_token", "This setup link was used or replaced meanwhile: use the newest one driftwatch serve printed.");
    }
    user = await store.createUser({ email: normalizeEmail(body.email), displayName: body.displayName, passwordHash, createdAt: at.toISOString() });
  } catch (error) {
    await store.releaseIdempotencyKey(invite.orgId, FIRST_OWNER_KEY).catch(() => undefined);
    throw error;
  }
  // The user is an owner before the link is marked used: nothing can leave them without an organization.
  await store.addMembership(invite.orgId, user.id, "owner", at.toISOString());
  await store.consumeInvite(invite.id, user.id, at.toISOString());
  if (body.orgName !== undefined) await store.updateOrganization(invite.orgId, { name: body.orgName });
  await audit(people, origin, invite.orgId, userActor(user.id), "auth.setup", user.id, { email: user.email });
  return { user, orgId: invite.orgId };
}
