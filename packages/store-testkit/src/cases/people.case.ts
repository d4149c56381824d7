import { describe, expect, it } from "vitest";
import type { NewInvite, NewSession, Role, Store, UserRecord } from "@driftwatch/core";
import { changedCheck, seedOrganization } from "../fixtures.js";
import { rejectionCode, type ContractContext } from "../harness.js";

const T0 = "2026-05-01T10:00:00.000Z";
const UNKNOWN_ORG = "org_00000000000000000000000000";
const UNKNOWN_USER = "usr_00000000000000000000000000";

/** `T0` plus `minutes`. */
function at(minutes: number): string {
  return new Date(Date.parse(T0) + minutes * 60_000).toISOString();
}

let hashes = 0;
/** A distinct 64-hex-digit hash. */
function hash(): string {
  hashes++;
  return hashes.toString(16).padStart(64, "0");
}

function user(store: Store, email: string, displayName = email.split("@")[0]!): Promise<UserRecord> {
  return store.createUser({ email, displayName, passwordHash: "scrypt$1$salt$hash", createdAt: T0 });
}

/** An organization with one user per role given, joined one minute apart in that order. */
async function team(store: Store, slug: string, roles: Role[]): Promise<{ orgId: string; users: UserRecord[] }> {
  const org = await store.ensureOrganization(slug);
  const users: UserRecord[] = [];
  for (const [i, role] of roles.entries()) {
    const member = await user(store, `${role}${i}@${slug}.example.com`);
    await store.addMembership(org.id, member.id, role, at(i));
    users.push(member);
  }
  return { orgId: org.id, users };
}

function session(userId: string, orgId: string, overrides: Partial<NewSession> = {}): NewSession {
  return { userId, orgId, sessionHash: hash(), createdAt: T0, expiresAt: at(60 * 24 * 30), userAgent: "vitest", ip: "203.0.113.7", ...overrides };
}

function invite(overrides: Partial<NewInvite> = {}): NewInvite {
  return { email: "new@example.com", role: "member", tokenHash: hash(), invitedBy: null, createdAt: T0, expiresAt: at(60 * 24 * 7), ...overrides };
}

export function peopleCases(ctx: ContractContext): void {
  describe("users", () => {
    it("creates, reads by id and by email in any case, counts, and refuses a second user with the same email in another case", async () => {
      const store = await ctx.store();
      expect(await store.countUsers()).toBe(0);
      const ada = await store.createUser({ email: "  Ada@Example.COM ", displayName: "Ada", passwordHash: "h1", createdAt: "2026-05-01T12:00:00+02:00" });
      expect(ada).toEqual({ id: ada.id, email: "ada@example.com", displayName: "Ada", passwordHash: "h1", createdAt: T0, passwordChangedAt: null });
      expect(ada.id).toMatch(/^usr_/);
      expect(await store.getUser(ada.id)).toEqual(ada);
      expect(await store.getUserByEmail("ADA@example.com")).toEqual(ada);
      expect(await store.getUserByEmail("ada@example.org")).toBeNull();
      expect(await store.getUser(UNKNOWN_USER)).toBeNull();
      expect(await rejectionCode(store.createUser({ email: "ada@EXAMPLE.com", displayName: "Other", passwordHash: null, createdAt: T0 }))).toBe("conflict");
      const bob = await store.createUser({ email: "bob@example.com", displayName: "Bob", passwordHash: null, createdAt: T0 });
      expect(bob.passwordHash).toBeNull();
      expect(await store.countUsers()).toBe(2);
    });

    it("updates the display name and the password hash with passwordChangedAt; unknown users are null", async () => {
      const store = await ctx.store();
      const ada = await user(store, "ada@example.com", "Ada");
      expect(await store.updateUser(ada.id, { displayName: "Ada L." })).toEqual({ ...ada, displayName: "Ada L." });
      const changed = await store.updateUser(ada.id, { passwordHash: "h2", passwordChangedAt: "2026-05-02T12:00:00+02:00" });
      expect(changed).toEqual({ ...ada, displayName: "Ada L.", passwordHash: "h2", passwordChangedAt: "2026-05-02T10:00:00.000Z" });
      expect(await store.getUserByEmail("ada@example.com")).toEqual(changed);
      expect(await rejectionCode(store.updateUser(ada.id, { passwordHash: "h3" }))).toBe("invariant_violation");
      expect((await store.getUser(ada.id))?.passwordHash).toBe("h2");
      expect(await store.updateUser(UNKNOWN_USER, { displayName: "x" })).toBeNull();
    });
  });

  describe("memberships", () => {
    it("adds, gets and refuses a second membership, an unknown user or organization, and a role that is none", async () => {
      const store = await ctx.store();
      const org = await store.ensureOrganization("acme");
      const ada = await user(store, "ada@example.com");
      const added = await store.addMembership(org.id, ada.id, "admin", "2026-05-01T12:00:00+02:00");
      expect(added).toEqual({ orgId: org.id, userId: ada.id, role: "admin", createdAt: T0 });
      expect(await store.getMembership(org.id, ada.id)).toEqual(added);
      expect(await rejectionCode(store.addMembership(org.id, ada.id, "viewer", T0))).toBe("conflict");
      expect(await rejectionCode(store.addMembership(org.id, UNKNOWN_USER, "viewer", T0))).toBe("not_found");
      expect(await rejectionCode(store.addMembership(UNKNOWN_ORG, ada.id, "viewer", T0))).toBe("not_found");
      expect(await rejectionCode(store.addMembership(org.id, ada.id, "root" as Role, T0))).toBe("invariant_violation");
      expect(await store.getMembership(org.id, ada.id)).toEqual(added);
      expect(await store.getMembership(UNKNOWN_ORG, ada.id)).toBeNull();
      expect(await store.countOwners(org.id)).toBe(0);
    });

    it("lists members newest first with their email and name, in pages, ties by user id", async () => {
      const store = await ctx.store();
      const { orgId, users } = await team(store, "acme", ["owner", "admin", "member", "viewer", "member"]);
      // two more who joined at the same time as the newest
      const late = [await user(store, "late1@example.com"), await user(store, "late2@example.com")];
      for (const u of late) await store.addMembership(orgId, u.id, "viewer", at(4));
      const sameTime = [users[4]!.id, late[0]!.id, late[1]!.id].sort().reverse();
      const expected = [...sameTime, users[3]!.id, users[2]!.id, users[1]!.id, users[0]!.id];

      const first = await store.listMembers(orgId, { limit: 3 });
      expect(first.data.map((m) => m.userId)).toEqual(expected.slice(0, 3));
      const second = await store.listMembers(orgId, { limit: 3, cursor: first.nextCursor });
      expect(second.data.map((m) => m.userId)).toEqual(expected.slice(3, 6));
      const third = await store.listMembers(orgId, { limit: 3, cursor: second.nextCursor });
      expect(third.data.map((m) => m.userId)).toEqual(expected.slice(6));
      expect(third.nextCursor).toBeNull();
      expect(first.data[2]).toEqual({
        orgId,
        userId: expected[2],
        id: expected[2],
        role: expected[2] === users[4]!.id ? "member" : "viewer",
        createdAt: at(4),
        email: (await store.getUser(expected[2]!))!.email,
        displayName: (await store.getUser(expected[2]!))!.displayName,
      });
      expect(second.data[0]).toMatchObject({ userId: users[3]!.id, id: users[3]!.id, email: "viewer3@acme.example.com", displayName: "viewer3", role: "viewer", createdAt: at(3) });
      expect(await rejectionCode(store.listMembers(orgId, { limit: 3, cursor: "nonsense" }))).toBe("invalid_cursor");
      expect((await store.listMembers(UNKNOWN_ORG, { limit: 10 })).data).toEqual([]);
    });

    it("lists a user's memberships oldest first", async () => {
      const store = await ctx.store();
      const ada = await user(store, "ada@example.com");
      const orgs = [await store.ensureOrganization("one"), await store.ensureOrganization("two"), await store.ensureOrganization("three")];
      await store.addMembership(orgs[1]!.id, ada.id, "viewer", at(1));
      await store.addMembership(orgs[2]!.id, ada.id, "owner", at(2));
      await store.addMembership(orgs[0]!.id, ada.id, "admin", at(3));
      expect(await store.listMembershipsOfUser(ada.id)).toEqual([
        { orgId: orgs[1]!.id, userId: ada.id, role: "viewer", createdAt: at(1) },
        { orgId: orgs[2]!.id, userId: ada.id, role: "owner", createdAt: at(2) },
        { orgId: orgs[0]!.id, userId: ada.id, role: "admin", createdAt: at(3) },
      ]);
      expect(await store.listMembershipsOfUser(UNKNOWN_USER)).toEqual([]);
    });

    it("changes roles and removes members; the last owner can be neither demoted nor removed, and nothing changes", async () => {
      const store = await ctx.store();
      const { orgId, users } = await team(store, "acme", ["owner", "admin", "member"]);
      const [owner, admin, member] = users as [UserRecord, UserRecord, UserRecord];
      expect(await store.countOwners(orgId)).toBe(1);
      expect(await rejectionCode(store.setMemberRole(orgId, owner.id, "admin"))).toBe("last_owner");
      expect(await rejectionCode(store.removeMembership(orgId, owner.id))).toBe("last_owner");
      expect(await store.getMembership(orgId, owner.id)).toMatchObject({ role: "owner" });
      // an owner may stay an owner
      expect(await store.setMemberRole(orgId, owner.id, "owner")).toMatchObject({ role: "owner" });

      expect(await store.setMemberRole(orgId, admin.id, "owner")).toEqual({ orgId, userId: admin.id, role: "owner", createdAt: at(1) });
      expect(await store.countOwners(orgId)).toBe(2);
      expect(await store.setMemberRole(orgId, owner.id, "viewer")).toMatchObject({ role: "viewer" });
      expect(await rejectionCode(store.removeMembership(orgId, admin.id))).toBe("last_owner");
      expect(await store.removeMembership(orgId, owner.id)).toBe(true);
      expect(await store.getMembership(orgId, owner.id)).toBeNull();
      expect(await store.removeMembership(orgId, owner.id)).toBe(false);
      expect(await store.removeMembership(orgId, member.id)).toBe(true);
      expect(await store.setMemberRole(orgId, member.id, "admin")).toBeNull();
      expect(await rejectionCode(store.setMemberRole(orgId, admin.id, "boss" as Role))).toBe("invariant_violation");
      expect((await store.listMembers(orgId, { limit: 10 })).data.map((m) => [m.userId, m.role])).toEqual([[admin.id, "owner"]]);
      expect(await store.countOwners(orgId)).toBe(1);
      // the user stays when the membership goes
      expect(await store.getUser(owner.id)).toEqual(owner);
    });
  });

  describe("sessions", () => {
    it("creates, finds by hash, touches, revokes (keeping the first time) and refuses unknown users and organizations", async () => {
      const store = await ctx.store();
      const { orgId, users } = await team(store, "acme", ["owner"]);
      const other = await store.ensureOrganization("other");
      const ada = users[0]!;
      const input = session(ada.id, orgId, { createdAt: "2026-05-01T12:00:00+02:00" });
      const created = await store.createSession(input);
      expect(created).toEqual({ ...input, id: created.id, createdAt: T0, expiresAt: input.expiresAt, lastSeenAt: T0, revokedAt: null });
      expect(created.id).toMatch(/^ses_/);
      expect(await store.findSessionByHash(input.sessionHash)).toEqual(created);
      expect(await store.findSessionByHash(hash())).toBeNull();

      await store.touchSession(created.id, { lastSeenAt: at(5) });
      expect(await store.findSessionByHash(input.sessionHash)).toEqual({ ...created, lastSeenAt: at(5) });
      await store.touchSession(created.id, { orgId: other.id });
      expect(await store.findSessionByHash(input.sessionHash)).toEqual({ ...created, lastSeenAt: at(5), orgId: other.id });
      await expect(store.touchSession("ses_00000000000000000000000000", { lastSeenAt: at(6) })).resolves.toBeUndefined();
      expect(await rejectionCode(store.touchSession(created.id, { orgId: UNKNOWN_ORG }))).toBe("not_found");
      expect((await store.findSessionByHash(input.sessionHash))?.orgId).toBe(other.id);

      expect(await store.revokeSession(created.id, at(10))).toBe(true);
      expect(await store.revokeSession(created.id, at(20))).toBe(true);
      expect((await store.findSessionByHash(input.sessionHash))?.revokedAt).toBe(at(10));
      expect(await store.revokeSession("ses_00000000000000000000000000", at(10))).toBe(false);

      expect(await rejectionCode(store.createSession(session(UNKNOWN_USER, orgId)))).toBe("not_found");
      expect(await rejectionCode(store.createSession(session(ada.id, UNKNOWN_ORG)))).toBe("not_found");
      expect(await rejectionCode(store.createSession(session(ada.id, orgId, { sessionHash: input.sessionHash })))).toBe("conflict");
    });

    it("revokes every live session of a user but one, leaving other users' sessions alone", async () => {
      const store = await ctx.store();
      const { orgId, users } = await team(store, "acme", ["owner", "member"]);
      const [ada, bob] = users as [UserRecord, UserRecord];
      const keep = await store.createSession(session(ada.id, orgId));
      const others = [await store.createSession(session(ada.id, orgId)), await store.createSession(session(ada.id, orgId))];
      const old = await store.createSession(session(ada.id, orgId));
      await store.revokeSession(old.id, at(1));
      const bobs = await store.createSession(session(bob.id, orgId));

      expect(await store.revokeUserSessions(ada.id, at(2), keep.id)).toBe(2);
      expect((await store.findSessionByHash(keep.sessionHash))?.revokedAt).toBeNull();
      for (const s of others) expect((await store.findSessionByHash(s.sessionHash))?.revokedAt).toBe(at(2));
      expect((await store.findSessionByHash(old.sessionHash))?.revokedAt).toBe(at(1));
      expect((await store.findSessionByHash(bobs.sessionHash))?.revokedAt).toBeNull();

      expect(await store.revokeUserSessions(ada.id, at(3))).toBe(1);
      expect((await store.findSessionByHash(keep.sessionHash))?.revokedAt).toBe(at(3));
      expect(await store.revokeUserSessions(ada.id, at(4))).toBe(0);
    });

    it("trims a user's live sessions to the newest ones", async () => {
      const store = await ctx.store();
      const { orgId, users } = await team(store, "acme", ["owner", "admin"]);
      const [ada, bob] = users as [UserRecord, UserRecord];
      const made = [];
      for (let i = 0; i < 4; i++) made.push(await store.createSession(session(ada.id, orgId, { createdAt: `2026-05-01T10:0${i}:00.000Z` })));
      const bobs = await store.createSession(session(bob.id, orgId));
      expect(await store.trimUserSessions(ada.id, 2, at(5))).toBe(2);
      const state = async (s: { sessionHash: string }) => (await store.findSessionByHash(s.sessionHash))?.revokedAt ?? null;
      expect(await Promise.all(made.map(state))).toEqual([at(5), at(5), null, null]);
      expect(await state(bobs)).toBeNull();
      expect(await store.trimUserSessions(ada.id, 2, at(6))).toBe(0);
      expect(await store.trimUserSessions(ada.id, 0, at(7))).toBe(2);
      expect(await Promise.all(made.map(state))).toEqual([at(5), at(5), at(7), at(7)]);
    });
  });

  describe("invites", () => {
    it("creates, gets, finds by hash, lists newest first in pages, and refuses a duplicate hash or an unknown organization", async () => {
      const store = await ctx.store();
      const { orgId, users } = await team(store, "acme", ["owner"]);
      const input = invite({ email: " New@Example.com", role: "admin", invitedBy: users[0]!.id, createdAt: "2026-05-01T12:00:00+02:00" });
      const created = await store.createInvite(orgId, input);
      expect(created).toEqual({ ...input, id: created.id, orgId, email: "new@example.com", createdAt: T0, acceptedAt: null, acceptedBy: null, revokedAt: null });
      expect(created.id).toMatch(/^inv_/);
      expect(await store.getInvite(orgId, created.id)).toEqual(created);
      expect(await store.findInviteByHash(input.tokenHash)).toEqual(created);
      expect(await store.findInviteByHash(hash())).toBeNull();
      expect(await store.getInvite(orgId, "inv_00000000000000000000000000")).toBeNull();
      expect(await rejectionCode(store.createInvite(orgId, invite({ tokenHash: input.tokenHash })))).toBe("conflict");
      expect(await rejectionCode(store.createInvite(UNKNOWN_ORG, invite()))).toBe("not_found");
      expect(await rejectionCode(store.createInvite(orgId, invite({ role: "god" as Role })))).toBe("invariant_violation");

      const ids = [created.id];
      for (let i = 0; i < 4; i++) ids.push((await store.createInvite(orgId, invite({ email: `n${i}@example.com` }))).id);
      const first = await store.listInvites(orgId, { limit: 3 });
      expect(first.data.map((i) => i.id)).toEqual([ids[4], ids[3], ids[2]]);
      const second = await store.listInvites(orgId, { limit: 3, cursor: first.nextCursor });
      expect(second.data.map((i) => i.id)).toEqual([ids[1], ids[0]]);
      expect(second.nextCursor).toBeNull();
      expect(second.data[1]).toEqual(created);
    });

    it("is consumed once; revoked, used and expired invites are not consumed; revoking keeps the first time and never undoes an acceptance", async () => {
      const store = await ctx.store();
      const { orgId, users } = await team(store, "acme", ["owner", "member"]);
      const [ada, bob] = users as [UserRecord, UserRecord];
      const open = await store.createInvite(orgId, invite());
      const used = await store.consumeInvite(open.id, bob.id, at(1));
      expect(used).toEqual({ ...open, acceptedAt: at(1), acceptedBy: bob.id });
      expect(await store.consumeInvite(open.id, ada.id, at(2))).toBeNull();
      expect(await store.revokeInvite(orgId, open.id, at(3))).toEqual(used);
      expect(await store.getInvite(orgId, open.id)).toEqual(used);

      const revoked = await store.createInvite(orgId, invite());
      expect(await store.revokeInvite(orgId, revoked.id, at(1))).toEqual({ ...revoked, revokedAt: at(1) });
      expect(await store.revokeInvite(orgId, revoked.id, at(2))).toEqual({ ...revoked, revokedAt: at(1) });
      expect(await store.consumeInvite(revoked.id, bob.id, at(2))).toBeNull();
      expect(await store.findInviteByHash(revoked.tokenHash)).toEqual({ ...revoked, revokedAt: at(1) });

      const expiring = await store.createInvite(orgId, invite({ expiresAt: at(10) }));
      expect(await store.consumeInvite(expiring.id, bob.id, at(10))).toBeNull();
      expect(await store.consumeInvite(expiring.id, bob.id, at(11))).toBeNull();
      expect(await store.getInvite(orgId, expiring.id)).toEqual(expiring);
      expect(await store.consumeInvite(expiring.id, bob.id, at(9))).toMatchObject({ acceptedAt: at(9), acceptedBy: bob.id });

      expect(await store.consumeInvite("inv_00000000000000000000000000", bob.id, at(1))).toBeNull();
      expect(await store.revokeInvite(orgId, "inv_00000000000000000000000000", at(1))).toBeNull();
    });
  });

  describe("audit log", () => {
    it("appends entries and lists an organization's newest first in pages, without the entries of other organizations or of none", async () => {
      const store = await ctx.store();
      const { orgId, users } = await team(store, "acme", ["owner"]);
      const other = await store.ensureOrganization("other");
      const entry = {
        actorType: "user" as const,
        actorId: users[0]!.id,
        action: "member.role_changed",
        targetId: users[0]!.id,
        data: { from: "admin", to: "owner", nested: { list: [1, "two", null] } },
        ip: "2001:db8::1",
        at: "2026-05-01T12:00:00+02:00",
      };
      const first = await store.appendAudit(orgId, entry);
      expect(first).toEqual({ ...entry, id: first.id, orgId, at: T0 });
      expect(first.id).toMatch(/^aud_/);
      const ids = [first.id];
      for (let i = 0; i < 4; i++) {
        ids.push((await store.appendAudit(orgId, { actorType: "token", actorId: "tok_00000000000000000000000000", action: "token.created", targetId: null, data: {}, ip: null, at: at(i) })).id);
      }
      await store.appendAudit(null, { actorType: "system", actorId: null, action: "auth.sign_in_failed", targetId: null, data: { email: "x@example.com" }, ip: null, at: T0 });
      await store.appendAudit(other.id, { actorType: "system", actorId: null, action: "auth.setup", targetId: null, data: {}, ip: null, at: T0 });

      const page1 = await store.listAudit(orgId, { limit: 3 });
      expect(page1.data.map((a) => a.id)).toEqual([ids[4], ids[3], ids[2]]);
      expect(page1.data[0]).toMatchObject({ actorType: "token", action: "token.created", targetId: null, data: {}, ip: null, orgId, at: at(3) });
      const page2 = await store.listAudit(orgId, { limit: 3, cursor: page1.nextCursor });
      expect(page2.data.map((a) => a.id)).toEqual([ids[1], ids[0]]);
      expect(page2.data[1]).toEqual(first);
      expect(page2.nextCursor).toBeNull();
      expect((await store.listAudit(other.id, { limit: 10 })).data.map((a) => a.action)).toEqual(["auth.setup"]);
      expect(await rejectionCode(store.appendAudit(UNKNOWN_ORG, { ...entry, at: T0 }))).toBe("not_found");
      expect(await rejectionCode(store.appendAudit(orgId, { ...entry, at: "later" }))).toBe("invariant_violation");
      expect((await store.listAudit(orgId, { limit: 10 })).data).toHaveLength(5);
    });
  });

  describe("people across organizations", () => {
    it("another organization's members, invites and audit entries behave like unknown ones", async () => {
      const store = await ctx.store();
      const a = await team(store, "alpha", ["owner", "member"]);
      const b = await team(store, "beta", ["owner"]);
      const [aOwner, aMember] = a.users as [UserRecord, UserRecord];
      const inv = await store.createInvite(a.orgId, invite());
      await store.appendAudit(a.orgId, { actorType: "user", actorId: aOwner.id, action: "invite.created", targetId: inv.id, data: {}, ip: null, at: T0 });
      const before = {
        members: await store.listMembers(a.orgId, { limit: 10 }),
        invites: await store.listInvites(a.orgId, { limit: 10 }),
        audit: await store.listAudit(a.orgId, { limit: 10 }),
      };

      expect(await store.getMembership(b.orgId, aMember.id)).toBeNull();
      expect(await store.setMemberRole(b.orgId, aMember.id, "admin")).toBeNull();
      expect(await store.removeMembership(b.orgId, aMember.id)).toBe(false);
      expect(await store.removeMembership(b.orgId, aOwner.id)).toBe(false);
      expect(await store.getInvite(b.orgId, inv.id)).toBeNull();
      expect(await store.revokeInvite(b.orgId, inv.id, at(1))).toBeNull();
      expect((await store.listMembers(b.orgId, { limit: 10 })).data.map((m) => m.userId)).toEqual([b.users[0]!.id]);
      expect((await store.listInvites(b.orgId, { limit: 10 })).data).toEqual([]);
      expect((await store.listAudit(b.orgId, { limit: 10 })).data).toEqual([]);
      expect(await store.countOwners(b.orgId)).toBe(1);

      expect({
        members: await store.listMembers(a.orgId, { limit: 10 }),
        invites: await store.listInvites(a.orgId, { limit: 10 }),
        audit: await store.listAudit(a.orgId, { limit: 10 }),
      }).toEqual(before);
    });
  });

  describe("renaming and deleting organizations", () => {
    it("renames an organization (slug unchanged); unknown is null", async () => {
      const store = await ctx.store();
      const org = await store.createOrganization({ slug: "acme", name: "Acme" });
      expect(await store.updateOrganization(org.id, { name: "Acme Corp" })).toEqual({ ...org, name: "Acme Corp" });
      expect(await store.getOrganizationBySlug("acme")).toEqual({ ...org, name: "Acme Corp" });
      expect(await store.updateOrganization(UNKNOWN_ORG, { name: "x" })).toBeNull();
      expect(await rejectionCode(store.updateOrganization(org.id, { name: "" }))).toBe("invariant_violation");
    });

    it("deletes every row of the organization, leaves other organizations untouched and keeps the users", async () => {
      const store = await ctx.store();
      const seeded = { a: await seedOrganization(store, "alpha"), b: await seedOrganization(store, "beta") };
      const people = { a: await team(store, "alpha", ["owner", "member"]), b: await team(store, "beta", ["owner"]) };
      // a user in both organizations
      const shared = people.a.users[1]!;
      await store.addMembership(seeded.b.orgId, shared.id, "viewer", at(9));
      const rows = {} as Record<"a" | "b", { token: string; session: string; invite: string; key: string }>;
      for (const side of ["a", "b"] as const) {
        const { orgId, monitorId } = seeded[side];
        await store.updateSettings(orgId, monitorId, { snapshotRetention: 9, updatedAt: T0 });
        await store.recordCheck(orgId, changedCheck(monitorId, { at: T0 }));
        const token = { name: side, scopes: ["admin" as const], tokenHash: hash() };
        await store.createToken(orgId, token);
        const s = await store.createSession(session(shared.id, orgId));
        const inv = await store.createInvite(orgId, invite());
        await store.appendAudit(orgId, { actorType: "system", actorId: null, action: "auth.setup", targetId: null, data: {}, ip: null, at: T0 });
        await store.claimIdempotencyKey(orgId, { key: "k", requestHash: side, now: T0, expiresAt: at(60) });
        rows[side] = { token: token.tokenHash, session: s.sessionHash, invite: inv.tokenHash, key: side };
      }
      const everything = async (side: "a" | "b") => {
        const { orgId, monitorId, webhookIds } = seeded[side];
        return {
          org: await store.getOrganization(orgId),
          monitors: await store.listMonitors(orgId, { limit: 10 }),
          settings: await store.getSettings(orgId, monitorId),
          snapshots: await store.listSnapshots(orgId, monitorId, { limit: 10 }),
          diffs: await store.listDiffs(orgId, monitorId, { limit: 10 }),
          webhooks: await store.listWebhooks(orgId, { limit: 10 }),
          deliveries: await Promise.all(webhookIds.map((w) => store.listDeliveries(orgId, w, { limit: 10 }))),
          pending: await store.countPendingDeliveries(orgId),
          tokens: await store.listTokens(orgId, { limit: 10 }),
          token: await store.findTokenByHash(rows[side].token),
          members: await store.listMembers(orgId, { limit: 10 }),
          owners: await store.countOwners(orgId),
          session: await store.findSessionByHash(rows[side].session),
          invites: await store.listInvites(orgId, { limit: 10 }),
          invite: await store.findInviteByHash(rows[side].invite),
          audit: await store.listAudit(orgId, { limit: 10 }),
        };
      };
      const b = await everything("b");
      expect(b.deliveries.flatMap((page) => page.data)).toHaveLength(2);

      expect(await store.deleteOrganization(seeded.a.orgId)).toBe(true);
      expect(await everything("a")).toEqual({
        org: null,
        monitors: { data: [], nextCursor: null },
        settings: null,
        snapshots: { data: [], nextCursor: null },
        diffs: { data: [], nextCursor: null },
        webhooks: { data: [], nextCursor: null },
        deliveries: [
          { data: [], nextCursor: null },
          { data: [], nextCursor: null },
        ],
        pending: 0,
        tokens: { data: [], nextCursor: null },
        token: null,
        members: { data: [], nextCursor: null },
        owners: 0,
        session: null,
        invites: { data: [], nextCursor: null },
        invite: null,
        audit: { data: [], nextCursor: null },
      });
      // the idempotency key went with it: claiming it again under the old id is new
      expect((await store.claimIdempotencyKey(seeded.a.orgId, { key: "k", requestHash: "a", now: T0, expiresAt: at(60) })).state).toBe("new");
      expect(await store.countPendingDeliveries()).toBe(2);
      expect(await everything("b")).toEqual(b);
      expect((await store.claimIdempotencyKey(seeded.b.orgId, { key: "k", requestHash: "b", now: T0, expiresAt: at(60) })).state).toBe("existing");
      for (const u of [...people.a.users, ...people.b.users]) expect(await store.getUser(u.id)).toEqual(u);
      expect(await store.listMembershipsOfUser(shared.id)).toEqual([{ orgId: seeded.b.orgId, userId: shared.id, role: "viewer", createdAt: at(9) }]);
      expect(await store.countUsers()).toBe(3);
      expect(await store.deleteOrganization(seeded.a.orgId)).toBe(false);
      expect(await store.countOrganizations()).toBe(1);
    });
  });

  const shared = ctx.supports("sharedDatabase");
  describe.skipIf(!shared.supported)(`people: two stores on one database${shared.label}`, () => {
    it("two owners demoting or removing each other at once: exactly one succeeds and one owner is left", async () => {
      const first = await ctx.store();
      const second = await ctx.peer();
      for (let round = 0; round < 6; round++) {
        const { orgId, users } = await team(first, `race${round}`, ["owner", "owner"]);
        const [x, y] = users as [UserRecord, UserRecord];
        const demote = (store: Store, id: string) => (round % 2 === 0 ? store.setMemberRole(orgId, id, "admin") : store.removeMembership(orgId, id));
        const outcomes = await Promise.all([demote(first, x.id), demote(second, y.id)].map((p) => p.then(() => "ok", (error: unknown) => (error as { code?: string }).code)));
        expect(outcomes.sort()).toEqual(["last_owner", "ok"]);
        expect(await second.countOwners(orgId)).toBe(1);
        const owners = (await first.listMembers(orgId, { limit: 10 })).data.filter((m) => m.role === "owner");
        expect(owners).toHaveLength(1);
      }
    });

    it("two consumes of one invite at once: exactly one wins", async () => {
      const first = await ctx.store();
      const second = await ctx.peer();
      const { orgId, users } = await team(first, "acme", ["owner", "member", "viewer"]);
      for (let round = 0; round < 5; round++) {
        const inv = await first.createInvite(orgId, invite());
        const results = await Promise.all([first, second, first, second].map((store, i) => store.consumeInvite(inv.id, users[i % 3]!.id, at(round))));
        const winners = results.filter((r) => r !== null);
        expect(winners).toHaveLength(1);
        expect(await second.getInvite(orgId, inv.id)).toEqual(winners[0]);
      }
    });
  });
}
