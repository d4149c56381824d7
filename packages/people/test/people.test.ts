// The people domain used as an embedder would, without the server: on the memory store, with a
// fixed clock, a cheap scrypt cost and a mailer that records what it sends.
import type { Store } from "@driftwatch/core";
import { createMemoryStore } from "@driftwatch/store-memory";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  acceptInvitation,
  addMember,
  changeMemberRole,
  changePassword,
  completeSetup,
  createInvitation,
  createPeople,
  createSetupLink,
  deleteOrganization,
  endSession,
  hashSecret,
  type InviteMail,
  isPeopleError,
  isSetupOpen,
  listInvitations,
  type Origin,
  type People,
  PeopleError,
  presentInvite,
  removeMember,
  resumeSession,
  revokeInvitation,
  signIn,
  startSession,
  switchOrganization,
  transferOwnership,
  usableInvitation,
  userActor,
} from "../src/index.js";

const T0 = Date.parse("2030-01-01T00:00:00.000Z");
const OWNER_PASSWORD = "a long owner passphrase";
const origin: Origin = { ip: "192.0.2.7" };

let store: Store;
let people: People;
let clock: number;
let sent: InviteMail[];

beforeEach(async () => {
  store = await createMemoryStore();
  clock = T0;
  sent = [];
  people = createPeople({
    store,
    now: () => new Date(clock),
    limits: { scryptLogN: 12, loginAccountLimit: 3 },
    mailer: { sendInvite: async (mail) => void sent.push(mail), close: () => undefined },
  });
});

afterEach(async () => {
  await store.close();
});

/** The secret of a link (`...#token=<secret>`). */
function tokenOf(url: string): string {
  return new URL(url).hash.slice("#token=".length);
}

/** First-run setup through a setup link: the owner and the bootstrap organization. */
async function setUpOwner(): Promise<{ userId: string; orgId: string }> {
  const link = await createSetupLink(store, "https://dw.example", 3600, new Date(clock));
  expect(link).not.toBeNull();
  const { user, orgId } = await completeSetup(people, origin, { token: tokenOf(link!.url), email: "Owner@Example.com", displayName: "Owner", password: OWNER_PASSWORD });
  return { userId: user.id, orgId };
}

async function actions(orgId: string): Promise<string[]> {
  return (await store.listAudit(orgId, { limit: 100, cursor: null })).data.map((entry) => entry.action).reverse();
}

async function refusal(promise: Promise<unknown>): Promise<PeopleError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isPeopleError(error)).toBe(true);
  return error as PeopleError;
}

describe("first-run setup", () => {
  it("makes the setup link's bearer the first owner, once", async () => {
    expect(await isSetupOpen(people)).toBe(true);
    const { userId, orgId } = await setUpOwner();
    expect(await isSetupOpen(people)).toBe(false);
    const user = await store.getUser(userId);
    expect(user?.email).toBe("owner@example.com");
    expect((await store.getMembership(orgId, userId))?.role).toBe("owner");
    expect(await actions(orgId)).toEqual(["auth.setup"]);
    const entry = (await store.listAudit(orgId, { limit: 1, cursor: null })).data[0]!;
    expect(entry).toMatchObject({ actorType: "user", actorId: userId, targetId: userId, ip: "192.0.2.7", at: new Date(T0).toISOString() });
    // no second setup link while a user exists, and a made-up one is closed too
    expect(await createSetupLink(store, "https://dw.example", 3600)).toBeNull();
    const again = await refusal(completeSetup(people, origin, { token: "x".repeat(43), email: "b@example.com", displayName: "B", password: OWNER_PASSWORD }));
    expect(again.code).toBe("setup_closed");
  });

  it("refuses a weak password and an expired link", async () => {
    const link = await createSetupLink(store, "https://dw.example", 60, new Date(clock));
    const weak = await refusal(completeSetup(people, origin, { token: tokenOf(link!.url), email: "o@example.com", displayName: "O", password: "password123" }));
    expect(weak.code).toBe("weak_password");
    expect(weak.errors).toEqual([{ path: "password", message: expect.stringContaining("common") as string }]);
    clock += 61_000;
    const expired = await refusal(completeSetup(people, origin, { token: tokenOf(link!.url), email: "o@example.com", displayName: "O", password: OWNER_PASSWORD }));
    expect(expired.code).toBe("invalid_token");
    expect(await isSetupOpen(people)).toBe(true);
  });
});

describe("sign-in and sessions", () => {
  it("signs in with the right password only, audits failures, and limits them per account", async () => {
    const { userId, orgId } = await setUpOwner();
    const wrong = await refusal(signIn(people, origin, { email: "owner@example.com", password: "not the password", address: "a" }));
    expect(wrong.code).toBe("invalid_credentials");
    const { user, membership } = await signIn(people, origin, { email: " OWNER@example.com", password: OWNER_PASSWORD, address: "a" });
    expect(user.id).toBe(userId);
    expect(membership).toMatchObject({ orgId, role: "owner" });
    // the sign-in was audited, and the failed one (not awaited by signIn: wait for it)
    expect(await actions(orgId)).toContain("auth.sign_in");
    await expect.poll(() => actions(orgId)).toContain("auth.sign_in_failed");
    for (let i = 0; i < 3; i++) await refusal(signIn(people, origin, { email: "owner@example.com", password: "wrong", address: `b${i}` }));
    const limited = await refusal(signIn(people, origin, { email: "owner@example.com", password: OWNER_PASSWORD, address: "c" }));
    expect(limited.code).toBe("rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
  });

  for (const shared of [true, false]) {
    it(`keeps an address's failures counted through sign-ins to an account of its own (${shared ? "counted in the store" : "counted in this process"})`, async () => {
      // An attacker with an account: 29 guesses at other accounts, then a sign-in to their own,
      // three times over. A success must not start the address's count again.
      await setUpOwner();
      const limited = createPeople({ store, now: () => new Date(clock), limits: { scryptLogN: 12, loginAddressLimit: 30 }, sharedCounters: shared });
      let guesses = 0;
      const answers: string[] = [];
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 29; i++) {
          clock += 1000;
          const wrong = await refusal(signIn(limited, origin, { email: `victim-${String(round)}-${String(i)}@example.com`, password: "guess guess guess", address: "attacker" }));
          if (wrong.code === "invalid_credentials") guesses++;
          answers.push(wrong.code);
        }
        clock += 1000;
        await signIn(limited, origin, { email: "owner@example.com", password: OWNER_PASSWORD, address: "attacker" }).then(
          () => answers.push("signed in"),
          (error: unknown) => answers.push((error as PeopleError).code),
        );
      }
      // within one 15-minute window: 30 guesses checked, then every attempt refused, its own too
      expect(clock - T0).toBeLessThan(15 * 60_000);
      expect(guesses).toBe(30);
      expect(answers.slice(0, 30)).toEqual([...Array<string>(29).fill("invalid_credentials"), "signed in"]);
      expect(answers[30]).toBe("invalid_credentials");
      expect(answers.slice(31)).toEqual(Array<string>(59).fill("rate_limited"));
      // a sign-in from another address still works (the owner's account was not locked by the guesses)
      await expect(signIn(limited, origin, { email: "owner@example.com", password: OWNER_PASSWORD, address: "office" })).resolves.toMatchObject({ membership: { role: "owner" } });
    });
  }

  it("starts a session (only its hash stored), replaces the previous one, switches and ends it", async () => {
    const { userId, orgId } = await setUpOwner();
    const user = (await store.getUser(userId))!;
    const first = await startSession(people, { user, orgId, userAgent: "x".repeat(600), ip: "192.0.2.8" });
    expect(first.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.membership.role).toBe("owner");
    expect(first.expiresAt.getTime()).toBe(T0 + people.limits.sessionMaxAgeSeconds * 1000);
    const stored = await store.findSessionByHash(hashSecret(first.secret));
    expect(stored).toMatchObject({ id: first.session.id, userId, orgId, ip: "192.0.2.8", revokedAt: null });
    expect(stored?.userAgent).toHaveLength(500);

    const second = await startSession(people, { user, orgId, previousSecret: first.secret });
    expect(second.secret).not.toBe(first.secret);
    expect((await store.findSessionByHash(hashSecret(first.secret)))?.revokedAt).not.toBeNull();

    const other = await store.ensureOrganization("other");
    expect((await refusal(switchOrganization(people, second.session, other.id))).code).toBe("not_found");
    expect((await refusal(startSession(people, { user, orgId: other.id }))).code).toBe("not_found");

    await endSession(people, origin, second.session);
    expect((await actions(orgId)).at(-1)).toBe("auth.sign_out");
    expect((await store.findSessionByHash(hashSecret(second.secret)))?.revokedAt).not.toBeNull();
  });

  it("changes a password with the current one and ends the other sessions", async () => {
    const { userId, orgId } = await setUpOwner();
    const user = (await store.getUser(userId))!;
    const kept = await startSession(people, { user, orgId });
    const other = await startSession(people, { user, orgId });
    const change = { userId, newPassword: "another long passphrase", keepSessionId: kept.session.id, orgId, actor: userActor(userId), address: "a" };
    expect((await refusal(changePassword(people, origin, { ...change, currentPassword: "wrong" }))).code).toBe("invalid_credentials");
    await changePassword(people, origin, { ...change, currentPassword: OWNER_PASSWORD });
    expect((await store.findSessionByHash(hashSecret(other.secret)))?.revokedAt).not.toBeNull();
    expect((await store.findSessionByHash(hashSecret(kept.secret)))?.revokedAt).toBeNull();
    await signIn(people, origin, { email: user.email, password: "another long passphrase", address: "a" });
    expect(await actions(orgId)).toEqual(["auth.setup", "auth.password_change_failed", "auth.password_changed", "auth.sign_in"]);
  });
});

describe("invitations", () => {
  it("invites by email (mailed), and accepting creates the user and the membership once", async () => {
    const { userId, orgId } = await setUpOwner();
    const owner = { actor: userActor(userId), userId, role: "owner" as const };
    const created = await createInvitation(people, origin, owner, { orgId, email: "New@Example.com", role: "admin", linkBase: "https://dw.example/app" });
    expect(created.mailed).toBe(true);
    expect(created.url).toMatch(/^https:\/\/dw\.example\/app\/invite#token=[A-Za-z0-9_-]{43}$/);
    expect(sent).toEqual([{ to: "new@example.com", orgName: "default", role: "admin", url: created.url, expiresAt: created.invite.expiresAt, invitedBy: "Owner" }]);
    expect(presentInvite(created.invite, new Date(clock)).status).toBe("pending");
    // the setup link is not among the organization's invitations
    expect((await listInvitations(people, orgId, { limit: 10, cursor: null })).data.map((i) => i.id)).toEqual([created.invite.id]);

    const token = tokenOf(created.url);
    expect((await usableInvitation(people, token)).id).toBe(created.invite.id);
    const noName = await refusal(acceptInvitation(people, origin, { token, password: "a new member passphrase", address: "a" }));
    expect(noName.code).toBe("validation_failed");
    const accepted = await acceptInvitation(people, origin, { token, password: "a new member passphrase", displayName: "New", address: "a" });
    expect(accepted).toMatchObject({ orgId, created: true });
    expect((await store.getMembership(orgId, accepted.user.id))?.role).toBe("admin");
    expect((await refusal(acceptInvitation(people, origin, { token, password: "a new member passphrase", address: "a" }))).code).toBe("invite_invalid");
    expect(await actions(orgId)).toEqual(["auth.setup", "invite.created", "invite.accepted", "member.added"]);
  });

  it("lets only an owner invite an owner, refuses members, and still invites when the mail fails", async () => {
    const { userId, orgId } = await setUpOwner();
    const token = { actor: { actorType: "token" as const, actorId: "tok_1" }, userId: null, role: null };
    const link = { orgId, role: "owner" as const, linkBase: "https://dw.example" };
    expect((await refusal(createInvitation(people, origin, token, { ...link, email: "x@example.com" }))).code).toBe("insufficient_scope");
    const owner = { actor: userActor(userId), userId, role: "owner" as const };
    expect((await refusal(createInvitation(people, origin, owner, { ...link, email: "owner@example.com" }))).code).toBe("conflict");

    const warnings: string[] = [];
    const failing = createPeople({ store, now: () => new Date(clock), limits: { scryptLogN: 12 }, mailer: { sendInvite: () => Promise.reject(new Error("smtp down")), close: () => undefined } });
    const logged: Origin = { ip: null, log: { error: () => undefined, warn: (_details, message) => void warnings.push(message) } };
    const created = await createInvitation(failing, logged, token, { ...link, role: "member", email: "y@example.com" });
    expect(created.mailed).toBe(false);
    expect(warnings).toEqual(["could not mail the invitation"]);
    expect(created.invite.invitedBy).toBeNull();

    const revoked = await revokeInvitation(people, origin, owner.actor, orgId, created.invite.id);
    expect(revoked.revokedAt).not.toBeNull();
    expect((await refusal(usableInvitation(people, tokenOf(created.url)))).code).toBe("invite_invalid");
    clock += people.limits.inviteTtlSeconds * 1000;
    const late = await createInvitation(people, origin, owner, { ...link, role: "viewer", email: "z@example.com" });
    clock += people.limits.inviteTtlSeconds * 1000;
    expect((await refusal(usableInvitation(people, tokenOf(late.url)))).message).toContain("expired");
  });
});

describe("members", () => {
  /** An owner and an admin who signed up through an invitation. */
  async function ownerAndAdmin(): Promise<{ owner: string; admin: string; orgId: string }> {
    const { userId, orgId } = await setUpOwner();
    const invite = await createInvitation(people, origin, { actor: userActor(userId), userId, role: "owner" }, { orgId, email: "admin@example.com", role: "admin", linkBase: "https://dw.example" });
    const { user } = await acceptInvitation(people, origin, { token: tokenOf(invite.url), password: "the admin passphrase", displayName: "Admin", address: "a" });
    return { owner: userId, admin: user.id, orgId };
  }

  it("demotes a member and revokes the invitations they could no longer send", async () => {
    const { owner, admin, orgId } = await ownerAndAdmin();
    const sentByAdmin = await createInvitation(people, origin, { actor: userActor(admin), userId: admin, role: "admin" }, { orgId, email: "m@example.com", role: "member", linkBase: "https://dw.example" });
    const ownerCaller = { actor: userActor(owner), userId: owner, role: "owner" as const, admin: true };
    const revokedFor: string[] = [];
    const member = await changeMemberRole(people, origin, ownerCaller, orgId, admin, "member", { onTokensRevoked: (id) => void revokedFor.push(id) });
    expect(member).toMatchObject({ userId: admin, role: "member", email: "admin@example.com" });
    expect((await store.getInvite(orgId, sentByAdmin.invite.id))?.revokedAt).not.toBeNull();
    expect(revokedFor).toEqual([]); // no token of theirs to revoke
    expect((await actions(orgId)).slice(-2)).toEqual(["member.role_changed", "member.rights_revoked"]);
  });

  it("keeps owners to owners, lets a member leave, and transfers ownership", async () => {
    const { owner, admin, orgId } = await ownerAndAdmin();
    const adminCaller = { actor: userActor(admin), userId: admin, role: "admin" as const, admin: true };
    expect((await refusal(changeMemberRole(people, origin, adminCaller, orgId, owner, "member"))).code).toBe("insufficient_scope");
    expect((await refusal(changeMemberRole(people, origin, adminCaller, orgId, admin, "owner"))).code).toBe("insufficient_scope");
    const transferred = await transferOwnership(people, origin, { actor: userActor(owner), userId: owner }, orgId, admin);
    expect(transferred.role).toBe("owner");
    expect((await store.getMembership(orgId, owner))?.role).toBe("admin");
    const formerOwner = { actor: userActor(owner), userId: owner, role: "admin" as const, admin: true };
    await removeMember(people, origin, formerOwner, orgId, owner);
    expect(await store.getMembership(orgId, owner)).toBeNull();
    expect((await refusal(removeMember(people, origin, formerOwner, orgId, owner))).code).toBe("not_found");
  });
});

describe("users made outside invitations (addMember)", () => {
  it("creates a user in an organization created for them, then changes an existing user's role and keeps their password", async () => {
    const first = await addMember(people, { ip: null }, { email: "Ops@Example.com", displayName: "Ops", password: "an ops passphrase here", orgSlug: "acme", role: "member", via: "cli" });
    expect(first.existed).toBe(false);
    expect(first.previous).toBeNull();
    expect(first.organization.slug).toBe("acme");
    expect(first.user.email).toBe("ops@example.com");
    const { user } = await signIn(people, origin, { email: "ops@example.com", password: "an ops passphrase here", address: "a" });
    expect(user.id).toBe(first.user.id);

    const second = await addMember(people, { ip: null }, { email: "ops@example.com", displayName: "Other", password: "a different passphrase", orgSlug: "acme", role: "admin" });
    expect(second).toMatchObject({ existed: true, previous: { role: "member" } });
    expect(second.user.displayName).toBe("Ops");
    // the password did not change
    expect((await refusal(signIn(people, origin, { email: "ops@example.com", password: "a different passphrase", address: "a" }))).code).toBe("invalid_credentials");
    const systemEntries = async () => (await store.listAudit(first.organization.id, { limit: 10, cursor: null })).data.filter((e) => e.actorType === "system").reverse();
    const entries = await systemEntries();
    expect(entries.map((e) => [e.action, e.actorType, e.data])).toEqual([
      ["member.added", "system", { via: "cli", role: "member" }],
      ["member.role_changed", "system", { role: "admin", from: "member" }],
    ]);
    // the same role again changes nothing and records nothing
    await addMember(people, { ip: null }, { email: "ops@example.com", displayName: "Ops", password: "a different passphrase", orgSlug: "acme", role: "admin" });
    expect(await systemEntries()).toHaveLength(2);
  });

  it("revokes what an existing member made beyond the role it gives them (driftwatch user create --role)", async () => {
    const made = await addMember(people, { ip: null }, { email: "lead@example.com", displayName: "Lead", password: "a lead passphrase here", orgSlug: "acme", role: "admin" });
    const orgId = made.organization.id;
    const admin = await store.createToken(orgId, { name: "lead-admin", tokenHash: hashSecret("lead-admin"), scopes: ["admin"], createdBy: made.user.id });
    const reader = await store.createToken(orgId, { name: "lead-read", tokenHash: hashSecret("lead-read"), scopes: ["monitors:read"], createdBy: made.user.id });
    const { invite } = await createInvitation(people, origin, { actor: userActor(made.user.id), userId: made.user.id, role: "admin" }, { orgId, email: "new@example.com", role: "admin", linkBase: "https://dw.example" });

    await addMember(people, { ip: null }, { email: "lead@example.com", displayName: "Lead", password: "a lead passphrase here", orgSlug: "acme", role: "viewer", via: "cli" });
    expect((await store.getToken(orgId, admin.id))?.revokedAt).not.toBeNull();
    expect((await store.getToken(orgId, reader.id))?.revokedAt).toBeNull();
    expect((await store.getInvite(orgId, invite.id))?.revokedAt).not.toBeNull();
    const swept = (await store.listAudit(orgId, { limit: 20, cursor: null })).data.find((e) => e.action === "member.rights_revoked");
    expect(swept).toMatchObject({ actorType: "system", targetId: made.user.id, data: { role: "viewer", tokens: [admin.id], invites: [invite.id] } });
  });

  it("refuses a weak password before writing anything", async () => {
    const weak = await refusal(addMember(people, { ip: null }, { email: "w@example.com", displayName: "W", password: "short", orgSlug: "acme", role: "member" }));
    expect(weak.code).toBe("weak_password");
    expect(await store.getUserByEmail("w@example.com")).toBeNull();
    expect(await store.getOrganizationBySlug("acme")).toBeNull();
  });
});

describe("resuming a session (what a request with the cookie gets)", () => {
  it("is live until revoked, expired or idle, and follows the user to another organization when removed", async () => {
    const { userId, orgId } = await setUpOwner();
    const user = (await store.getUser(userId))!;
    const idleMs = 60_000;
    const { secret, session } = await startSession(people, { user, orgId });
    expect(await resumeSession(store, "not a secret", clock, idleMs)).toBeNull();
    expect(await resumeSession(store, "x".repeat(43), clock, idleMs)).toBeNull();
    expect(await resumeSession(store, secret, clock + 1000, idleMs)).toMatchObject({ session: { id: session.id }, membership: { orgId, role: "owner" } });
    // idle: unused for longer than idleMs
    expect(await resumeSession(store, secret, clock + idleMs, idleMs)).toBeNull();

    // removed from the session's organization: continues in another one of theirs
    const other = await store.ensureOrganization("other");
    await store.addMembership(other.id, userId, "viewer", new Date(clock).toISOString());
    const newOwner = await addMember(people, origin, { email: "second@example.com", displayName: "Second", password: "a second passphrase", orgSlug: "default", role: "owner" });
    await store.removeMembership(orgId, userId);
    expect(await resumeSession(store, secret, clock + 1000, idleMs)).toMatchObject({ session: { orgId }, membership: { orgId: other.id, role: "viewer" } });
    await store.removeMembership(other.id, userId);
    expect(await resumeSession(store, secret, clock + 1000, idleMs)).toBeNull();
    expect(newOwner.existed).toBe(false);

    const again = await startSession(people, { user: newOwner.user, orgId });
    await endSession(people, origin, again.session);
    expect(await resumeSession(store, again.secret, clock + 1000, idleMs)).toBeNull();
  });
});

describe("deleting an organization", () => {
  it("deletes it with its memberships, once", async () => {
    const { userId, orgId } = await setUpOwner();
    await deleteOrganization(people, orgId);
    expect(await store.getOrganization(orgId)).toBeNull();
    expect(await store.listMembershipsOfUser(userId)).toEqual([]);
    expect((await refusal(deleteOrganization(people, orgId))).code).toBe("not_found");
  });
});
