/**
 * The people suite every database runs (people-sqlite.test.ts, people-postgres.test.ts): a real
 * server on the database, spoken to over HTTP with cookies as a browser would. First-run setup,
 * cookie flags, CSRF refusals, session fixation, expiries, sign-out and password change,
 * invitations (expired, reused, revoked), the last-owner rule, brute-force limits and the audit log.
 */
import { PEOPLE_AUDIT_ACTIONS } from "@driftwatch/schema";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSetupLink } from "@driftwatch/people";
import { Browser, type Database, type PeopleServer, startPeopleServer, STRONG, tokenOfLink } from "./people-support.js";

const DAY = 24 * 3600 * 1000;

export function definePeopleSuite(name: string, createDatabase: () => Promise<Database>): void {
  describe(`people on ${name}`, () => {
    let database: Database;
    let running: PeopleServer;
    let base: string;
    const owner = { email: "olive@example.com", password: STRONG };
    let orgId: string;
    let ownerBrowser: Browser;

    beforeAll(async () => {
      database = await createDatabase();
      running = await startPeopleServer(database.url);
      base = running.baseUrl;
    });

    afterAll(async () => {
      await running?.close();
      await database?.drop();
    });

    async function setupLink(): Promise<string> {
      const link = await createSetupLink(running.server.store, base, 3600);
      if (link === null) throw new Error("setup is closed");
      return tokenOfLink(link.url);
    }

    async function invite(by: Browser, email: string, role: string): Promise<string> {
      const created = await by.send("POST", "/api/invites", { email, role });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return tokenOfLink(created.body.url as string);
    }

    async function join(email: string, role: string, displayName = email.split("@")[0]!): Promise<Browser> {
      const token = await invite(ownerBrowser, email, role);
      const browser = new Browser(base);
      const accepted = await browser.send("POST", "/api/invites/accept", { token, displayName, password: STRONG });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      return browser;
    }

    /** Runs `body` against a second server on the same store (its own limits, clock and logger), then closes it. */
    async function withSecondServer(options: Parameters<typeof startPeopleServer>[1], body: (second: PeopleServer) => Promise<void>): Promise<void> {
      const second = await startPeopleServer(database.url, { store: running.server.store, ...options });
      try {
        await body(second);
      } finally {
        await second.close();
      }
    }

    it("first run: setup is open, refuses a wrong token and a weak password, creates the owner once", async () => {
      const anonymous = new Browser(base);
      expect((await anonymous.send("GET", "/api/auth/setup")).body).toEqual({ open: true });
      const token = await setupLink();

      const wrong = await anonymous.send("POST", "/api/auth/setup", { token: "x".repeat(43), email: owner.email, displayName: "Olive", password: STRONG });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toMatchObject({ code: "invalid_token" });
      const weak = await anonymous.send("POST", "/api/auth/setup", { token, email: owner.email, displayName: "Olive", password: "password123" });
      expect(weak.status).toBe(422);
      expect(weak.body).toMatchObject({ code: "weak_password", errors: [{ path: "password" }] });
      expect(weak.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(weak.body.requestId).toBe(weak.headers.get("x-request-id"));

      ownerBrowser = new Browser(base);
      const done = await ownerBrowser.send("POST", "/api/auth/setup", { token, email: " Olive@Example.com ", displayName: "Olive", password: STRONG, orgName: "Olive's team" });
      expect(done.status, JSON.stringify(done.body)).toBe(201);
      expect(done.body).toMatchObject({ via: "session", role: "owner", user: { email: owner.email, displayName: "Olive" }, org: { slug: "default", name: "Olive's team" } });
      expect(done.body.scopes).toEqual(["admin"]);
      expect(typeof done.body.csrfToken).toBe("string");
      expect(Date.parse(done.body.expiresAt)).toBeGreaterThan(Date.now() + 29 * DAY);
      orgId = done.body.org.id;

      // The cookie: HttpOnly, SameSite=Lax, Path=/, not Secure over plain HTTP.
      const cookie = done.cookies.find((c) => c.startsWith("dw_session="))!;
      expect(cookie).toMatch(/; HttpOnly/i);
      expect(cookie).toMatch(/; SameSite=Lax/i);
      expect(cookie).toMatch(/; Path=\//);
      expect(cookie).not.toMatch(/; Secure/i);
      expect(cookie).toMatch(/^dw_session=[A-Za-z0-9_-]{43};/);

      const again = await new Browser(base).send("POST", "/api/auth/setup", { token, email: "eve@example.com", displayName: "Eve", password: STRONG });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ code: "setup_closed" });
      expect((await anonymous.send("GET", "/api/auth/setup")).body).toEqual({ open: false });
      expect(await createSetupLink(running.server.store, base, 3600)).toBeNull();
    });

    it("the cookie is Secure when the request came over TLS (through a trusted proxy)", async () => {
      const browser = new Browser(base);
      // The page the browser signs in from is https too.
      browser.origin = base.replace(/^http:/, "https:");
      const answer = await browser.send("POST", "/api/auth/sign-in", owner, { headers: { "x-forwarded-proto": "https" } });
      expect(answer.status).toBe(200);
      const cookie = answer.cookies.find((c) => c.startsWith("dw_session="))!;
      expect(cookie).toMatch(/; Secure/i);
      expect(cookie).toMatch(/; HttpOnly/i);
      expect(cookie).toMatch(/; SameSite=Lax/i);
    });

    it("me: the session's user, org, role, orgs and CSRF token; a token's scopes", async () => {
      const me = await ownerBrowser.send("GET", "/api/auth/me");
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ via: "session", role: "owner", org: { id: orgId }, orgs: [{ id: orgId, slug: "default", role: "owner" }] });
      expect(me.body.csrfToken).toBe(ownerBrowser.csrf);
      const byToken = await new Browser(base).send("GET", "/api/auth/me", undefined, { bearer: running.adminToken });
      expect(byToken.body).toMatchObject({ via: "token", user: null, role: null, csrfToken: null, orgs: [], org: { id: orgId } });
      expect(byToken.body.scopes).toContain("admin");
      const nobody = await new Browser(base).send("GET", "/api/auth/me");
      expect(nobody.status).toBe(401);
      expect(nobody.body).toMatchObject({ code: "unauthenticated" });
      // Malformed, oversized or unknown cookies: 401 with the cookie cleared, never a crash.
      for (const value of ["%", "x".repeat(5000), "A".repeat(43), "\"quoted\""]) {
        const forged = new Browser(base);
        forged.cookie = value;
        const answer = await forged.send("GET", "/api/monitors");
        expect(answer.status, value.slice(0, 20)).toBe(401);
        expect(answer.body.code).toBe("unauthenticated");
        expect(forged.cookie).toBeNull();
      }
      // A bearer token wins over a cookie: the cookie is not even looked at.
      const both = new Browser(base, running.adminToken);
      both.cookie = "A".repeat(43);
      expect((await both.send("GET", "/api/auth/me")).body.via).toBe("token");
    });

    it("CSRF: a signed-in write needs the header and a same-origin Origin; reads and bearer requests do not", async () => {
      const monitor = { type: "api", name: "csrf", url: "https://api.example.com/x" };
      const missing = await ownerBrowser.send("POST", "/api/monitors", monitor, { csrf: false });
      expect(missing.status).toBe(403);
      expect(missing.body).toMatchObject({ code: "csrf_failed" });
      const wrong = await ownerBrowser.send("POST", "/api/monitors", monitor, { headers: { "x-driftwatch-csrf": "A".repeat(43) } });
      expect(wrong.status).toBe(403);
      expect(wrong.body).toMatchObject({ code: "csrf_failed" });
      const foreign = await ownerBrowser.send("POST", "/api/monitors", monitor, { origin: "https://evil.example" });
      expect(foreign.status).toBe(403);
      expect(foreign.body).toMatchObject({ code: "csrf_failed" });
      const noOrigin = await ownerBrowser.send("POST", "/api/monitors", monitor, { origin: null });
      expect(noOrigin.status).toBe(403);
      expect(noOrigin.body).toMatchObject({ code: "csrf_failed" });
      // Nothing was created by the refused writes.
      const list = await ownerBrowser.send("GET", "/api/monitors");
      expect(list.status).toBe(200);
      expect(list.body.data).toHaveLength(0);

      const ok = await ownerBrowser.send("POST", "/api/monitors", monitor);
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
      // A bearer request is authenticated by its token only: no CSRF header needed, cookie ignored.
      const bearer = await ownerBrowser.send("DELETE", `/api/monitors/${ok.body.id as string}`, undefined, { csrf: false, origin: null, bearer: running.adminToken });
      expect(bearer.status).toBe(204);
    });

    it("session fixation: sign-in always issues a new session id and revokes the one the request carried", async () => {
      const browser = new Browser(base);
      await browser.signIn(owner.email, owner.password);
      const first = browser.cookie!;
      await browser.signIn(owner.email, owner.password);
      const second = browser.cookie!;
      expect(second).not.toBe(first);
      const stale = new Browser(base);
      stale.cookie = first;
      expect((await stale.send("GET", "/api/auth/me")).status).toBe(401);
      // A cookie value planted by an attacker is never adopted as a session.
      const planted = new Browser(base);
      planted.cookie = "P".repeat(43);
      const signedIn = await planted.signIn(owner.email, owner.password);
      expect(planted.cookie).not.toBe("P".repeat(43));
      expect(signedIn.status).toBe(200);
    });

    it("login CSRF: sign-in from another origin is refused; without Origin (a script) it works", async () => {
      const browser = new Browser(base);
      browser.origin = "https://evil.example";
      const refused = await browser.send("POST", "/api/auth/sign-in", owner);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: "csrf_failed" });
      expect(refused.cookies).toEqual([]);
      const script = await new Browser(base).send("POST", "/api/auth/sign-in", owner, { origin: null });
      expect(script.status).toBe(200);
    });

    it("wrong email and wrong password get the same 401 invalid_credentials", async () => {
      const a = await new Browser(base).send("POST", "/api/auth/sign-in", { email: "nobody@example.com", password: STRONG });
      const b = await new Browser(base).send("POST", "/api/auth/sign-in", { email: owner.email, password: "not-the-password-1" });
      expect(a.status).toBe(401);
      expect(b.status).toBe(401);
      expect(a.body.code).toBe("invalid_credentials");
      expect(b.body.detail).toBe(a.body.detail);
    });

    it("sign-out revokes the session and clears the cookie", async () => {
      const browser = new Browser(base);
      await browser.signIn(owner.email, owner.password);
      const secret = browser.cookie!;
      const out = await browser.send("POST", "/api/auth/sign-out");
      expect(out.status).toBe(204);
      expect(out.cookies.some((c) => /^dw_session=;/.test(c))).toBe(true);
      const replay = new Browser(base);
      replay.cookie = secret;
      const refused = await replay.send("GET", "/api/auth/me");
      expect(refused.status).toBe(401);
      expect(refused.cookies.some((c) => /^dw_session=;/.test(c))).toBe(true);
    });

    it("idle and absolute expiry end a session", async () => {
      const idle = new Browser(base);
      await idle.signIn(owner.email, owner.password);
      running.clock.offsetMs += 6 * DAY;
      expect((await idle.send("GET", "/api/auth/me")).status).toBe(200);
      // Activity moved the idle expiry: six more days are fine, then eight idle days are not.
      running.clock.offsetMs += 6 * DAY;
      expect((await idle.send("GET", "/api/auth/me")).status).toBe(200);
      running.clock.offsetMs += 8 * DAY;
      expect((await idle.send("GET", "/api/auth/me")).status).toBe(401);
      running.clock.offsetMs = 0;

      const busy = new Browser(base);
      await busy.signIn(owner.email, owner.password);
      for (let day = 6; day <= 30; day += 6) {
        running.clock.offsetMs = day * DAY;
        const status = (await busy.send("GET", "/api/auth/me")).status;
        expect(status, `day ${day}`).toBe(day < 30 ? 200 : 401);
      }
      running.clock.offsetMs = 0;
      ownerBrowser = new Browser(base);
      await ownerBrowser.signIn(owner.email, owner.password);
    });

    it("changing the password revokes the user's other sessions, not this one", async () => {
      const other = new Browser(base);
      await other.signIn(owner.email, owner.password);
      const weak = await ownerBrowser.send("POST", "/api/auth/password", { currentPassword: owner.password, newPassword: "qwertyuiop" });
      expect(weak.status).toBe(422);
      expect(weak.body).toMatchObject({ code: "weak_password", errors: [{ path: "newPassword" }] });
      const wrong = await ownerBrowser.send("POST", "/api/auth/password", { currentPassword: "not-it-at-all-1", newPassword: "a-new-long-passphrase-9" });
      expect(wrong.status).toBe(401);
      expect((await other.send("GET", "/api/auth/me")).status).toBe(200);
      const changed = await ownerBrowser.send("POST", "/api/auth/password", { currentPassword: owner.password, newPassword: "a-new-long-passphrase-9" });
      expect(changed.status).toBe(204);
      expect((await other.send("GET", "/api/auth/me")).status).toBe(401);
      expect((await ownerBrowser.send("GET", "/api/auth/me")).status).toBe(200);
      expect((await new Browser(base).send("POST", "/api/auth/sign-in", owner)).status).toBe(401);
      owner.password = "a-new-long-passphrase-9";
      await new Browser(base).signIn(owner.email, owner.password);
    });

    it("invitations: link once, lookup, accept as a new user, then refused when reused, revoked or expired", async () => {
      const created = await ownerBrowser.send("POST", "/api/invites", { email: "Vera@Example.com", role: "viewer" });
      expect(created.status).toBe(201);
      expect(created.body.invite).toMatchObject({ email: "vera@example.com", role: "viewer", status: "pending", mailed: false });
      expect(created.body.url).toMatch(new RegExp(`^${base}/invite#token=[A-Za-z0-9_-]{43}$`));
      const token = tokenOfLink(created.body.url);

      const lookup = await new Browser(base).send("GET", `/api/invites/lookup?token=${token}`);
      expect(lookup.status).toBe(200);
      expect(lookup.body).toMatchObject({ email: "vera@example.com", role: "viewer", org: { id: orgId, slug: "default" }, userExists: false });

      const vera = new Browser(base);
      const noName = await vera.send("POST", "/api/invites/accept", { token, password: STRONG });
      expect(noName.status).toBe(422);
      const weak = await vera.send("POST", "/api/invites/accept", { token, displayName: "Vera", password: "short" });
      expect(weak.status).toBe(422);
      expect(weak.body.code).toBe("weak_password");
      const accepted = await vera.send("POST", "/api/invites/accept", { token, displayName: "Vera", password: STRONG });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(accepted.body).toMatchObject({ via: "session", role: "viewer", user: { email: "vera@example.com" }, org: { id: orgId } });
      expect(accepted.body.scopes).toEqual(["monitors:read", "webhooks:read"]);

      const reused = await new Browser(base).send("POST", "/api/invites/accept", { token, displayName: "Mallory", password: STRONG });
      expect(reused.status).toBe(410);
      expect(reused.body).toMatchObject({ code: "invite_invalid" });
      expect(reused.body.detail).toMatch(/used/);
      expect((await new Browser(base).send("GET", `/api/invites/lookup?token=${token}`)).status).toBe(410);

      const revokedToken = await invite(ownerBrowser, "rex@example.com", "member");
      const list = await ownerBrowser.send("GET", "/api/invites?limit=100");
      const rex = (list.body.data as Array<{ id: string; email: string; status: string }>).find((i) => i.email === "rex@example.com")!;
      expect(rex.status).toBe("pending");
      const revoked = await ownerBrowser.send("DELETE", `/api/invites/${rex.id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ id: rex.id, status: "revoked" });
      const late = await new Browser(base).send("POST", "/api/invites/accept", { token: revokedToken, displayName: "Rex", password: STRONG });
      expect(late.status).toBe(410);
      expect(late.body.detail).toMatch(/revoked/);

      const expiringToken = await invite(ownerBrowser, "ed@example.com", "member");
      running.clock.offsetMs = 7 * DAY + 1000;
      try {
        const expired = await new Browser(base).send("POST", "/api/invites/accept", { token: expiringToken, displayName: "Ed", password: STRONG });
        expect(expired.status).toBe(410);
        expect(expired.body.detail).toMatch(/expired/);
      } finally {
        running.clock.offsetMs = 0;
      }
      const statuses = (await ownerBrowser.send("GET", "/api/invites?limit=100")).body.data.map((i: { email: string; status: string }) => `${i.email}:${i.status}`);
      expect(statuses).toEqual(expect.arrayContaining(["vera@example.com:accepted", "rex@example.com:revoked"]));
      expect((await new Browser(base).send("GET", `/api/invites/lookup?token=${"Z".repeat(43)}`)).status).toBe(404);
    });

    it("an existing user accepts with their own password and gains the membership", async () => {
      // Vera is a member already: inviting her again is a conflict.
      const again = await new Browser(base).send("POST", "/api/invites", { email: "vera@example.com", role: "member" }, { bearer: running.adminToken });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe("conflict");

      // A user of another organization joins this one with their password.
      const store = running.server.store;
      const globex = await store.ensureOrganization("globex");
      const { hashPassword } = await import("@driftwatch/people");
      const gus = await store.createUser({ email: "gus@example.com", displayName: "Gus", passwordHash: await hashPassword(STRONG, { logN: 12, r: 8, p: 1 }), createdAt: new Date().toISOString() });
      await store.addMembership(globex.id, gus.id, "owner", new Date().toISOString());
      const gusToken = await invite(ownerBrowser, "gus@example.com", "member");
      const lookup = await new Browser(base).send("GET", `/api/invites/lookup?token=${gusToken}`);
      expect(lookup.body.userExists).toBe(true);
      const wrong = await new Browser(base).send("POST", "/api/invites/accept", { token: gusToken, password: "not-guss-password" });
      expect(wrong.status).toBe(401);
      expect(wrong.body.code).toBe("invalid_credentials");
      const gusBrowser = new Browser(base);
      const joined = await gusBrowser.send("POST", "/api/invites/accept", { token: gusToken, password: STRONG });
      expect(joined.status, JSON.stringify(joined.body)).toBe(200);
      expect(joined.body).toMatchObject({ role: "member", org: { id: orgId } });
      expect((joined.body.orgs as Array<{ slug: string; role: string }>).map((o) => `${o.slug}:${o.role}`).sort()).toEqual(["default:member", "globex:owner"]);
      // Switching organization changes role and scopes; a foreign org is 404.
      const switched = await gusBrowser.send("POST", "/api/auth/org", { orgId: globex.id });
      expect(switched.status).toBe(200);
      expect(switched.body).toMatchObject({ org: { slug: "globex" }, role: "owner" });
      expect((await gusBrowser.send("GET", "/api/auth/me")).body.org.slug).toBe("globex");
      const unknown = await gusBrowser.send("POST", "/api/auth/org", { orgId: "org_" + "0".repeat(26) });
      expect(unknown.status).toBe(404);
    });

    it("members: admins manage members but not owners; the last owner cannot leave or be demoted; ownership transfers", async () => {
      const ada = await join("ada@example.com", "admin");
      const max = await join("max@example.com", "member");
      const members = await ownerBrowser.send("GET", `/api/orgs/${orgId}/members?limit=100`);
      expect(members.status).toBe(200);
      const byEmail = new Map((members.body.data as Array<{ email: string; userId: string; role: string }>).map((m) => [m.email, m]));
      const oliveId = byEmail.get(owner.email)!.userId;
      const maxId = byEmail.get("max@example.com")!.userId;
      const adaId = byEmail.get("ada@example.com")!.userId;

      // The last owner can neither be demoted nor leave.
      const demote = await ownerBrowser.send("PATCH", `/api/orgs/${orgId}/members/${oliveId}`, { role: "admin" });
      expect(demote.status).toBe(409);
      expect(demote.body.code).toBe("last_owner");
      const leave = await ownerBrowser.send("DELETE", `/api/orgs/${orgId}/members/${oliveId}`);
      expect(leave.status).toBe(409);
      expect(leave.body.code).toBe("last_owner");

      // An admin changes members, but not owners, and cannot make one.
      expect((await ada.send("PATCH", `/api/orgs/${orgId}/members/${maxId}`, { role: "viewer" })).body).toMatchObject({ userId: maxId, role: "viewer" });
      expect((await ada.send("PATCH", `/api/orgs/${orgId}/members/${maxId}`, { role: "owner" })).status).toBe(403);
      expect((await ada.send("PATCH", `/api/orgs/${orgId}/members/${oliveId}`, { role: "viewer" })).status).toBe(403);
      expect((await ada.send("DELETE", `/api/orgs/${orgId}/members/${oliveId}`)).status).toBe(403);
      expect((await ada.send("POST", "/api/invites", { email: "own@example.com", role: "owner" })).status).toBe(403);
      // A viewer cannot manage members, but can leave.
      expect((await max.send("GET", `/api/orgs/${orgId}/members`)).status).toBe(403);
      expect((await max.send("DELETE", `/api/orgs/${orgId}/members/${adaId}`)).status).toBe(403);
      // Another organization's id is 404, as every foreign id.
      const globex = await running.server.store.getOrganizationBySlug("globex");
      expect((await ownerBrowser.send("GET", `/api/orgs/${globex!.id}/members`)).status).toBe(404);
      expect((await ownerBrowser.send("PATCH", `/api/orgs/${globex!.id}`, { name: "mine" })).status).toBe(404);

      // Transfer: Ada becomes owner, Olive admin; now Olive may leave.
      const transfer = await ownerBrowser.send("POST", `/api/orgs/${orgId}/transfer-ownership`, { userId: adaId });
      expect(transfer.status, JSON.stringify(transfer.body)).toBe(200);
      expect(transfer.body).toMatchObject({ userId: adaId, role: "owner" });
      expect((await ownerBrowser.send("GET", "/api/auth/me")).body.role).toBe("admin");
      expect((await ada.send("GET", "/api/auth/me")).body.role).toBe("owner");
      expect((await ownerBrowser.send("POST", `/api/orgs/${orgId}/transfer-ownership`, { userId: oliveId })).status).toBe(403);
      // Ada makes Olive owner again (two owners), then Olive steps down herself.
      expect((await ada.send("PATCH", `/api/orgs/${orgId}/members/${oliveId}`, { role: "owner" })).body.role).toBe("owner");
      expect((await ownerBrowser.send("PATCH", `/api/orgs/${orgId}/members/${oliveId}`, { role: "admin" })).body.role).toBe("admin");
      expect((await ada.send("PATCH", `/api/orgs/${orgId}/members/${oliveId}`, { role: "owner" })).status).toBe(200);

      const left = await max.send("DELETE", `/api/orgs/${orgId}/members/${maxId}`);
      expect(left.status).toBe(204);
      expect((await max.send("GET", "/api/auth/me")).status).toBe(401);

      // Renaming needs admin; an admin token may rename.
      const renamed = await ownerBrowser.send("PATCH", `/api/orgs/${orgId}`, { name: "Renamed" });
      expect(renamed.body).toMatchObject({ id: orgId, name: "Renamed" });
    });

    it("the audit log records sign-ins, failures, membership, invitation and token changes, paged", async () => {
      const token = await ownerBrowser.send("POST", "/api/tokens", { name: "ci", scopes: ["monitors:read"] });
      expect(token.status).toBe(201);
      expect((await ownerBrowser.send("DELETE", `/api/tokens/${token.body.id as string}`)).status).toBe(204);
      const actions: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: { status: number; body: { data: Array<{ action: string; actor: { type: string }; ip: string | null; at: string }>; nextCursor: string | null } } =
          await ownerBrowser.send("GET", `/api/audit?limit=7${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`);
        expect(page.status).toBe(200);
        expect(page.body.data.length).toBeLessThanOrEqual(7);
        actions.push(...page.body.data.map((e) => e.action));
        cursor = page.body.nextCursor;
        pages++;
      } while (cursor !== null);
      expect(pages).toBeGreaterThan(1);
      // secrets' and channels' entries are checked by their own tests (api/browser-tools, api/channels)
      for (const action of PEOPLE_AUDIT_ACTIONS) {
        expect(actions, action).toContain(action);
      }
      // Newest first.
      expect(actions[0]).toBe("token.revoked");
      const viewer = new Browser(base);
      await viewer.signIn("vera@example.com", STRONG);
      expect((await viewer.send("GET", "/api/audit")).status).toBe(403);
    });

    it("names: display and organization names with control characters or bidirectional overrides are refused with 422", async () => {
      const token = await invite(ownerBrowser, "crlf@example.com", "viewer");
      const forged = await new Browser(base).send("POST", "/api/invites/accept", {
        token,
        displayName: "Carl\n\nAccept the invitation: https://evil.example/invite",
        password: STRONG,
      });
      expect(forged.status).toBe(422);
      expect(forged.body).toMatchObject({ code: "validation_failed", errors: [{ path: "displayName" }] });
      // The invitation is still usable with a plain name.
      const accepted = await new Browser(base).send("POST", "/api/invites/accept", { token, displayName: "Carl", password: STRONG });
      expect(accepted.status).toBe(200);
      const renamed = await ownerBrowser.send("PATCH", `/api/orgs/${orgId}`, { name: "Acme\u202Egnp.exe" });
      expect(renamed.status).toBe(422);
      expect(renamed.body).toMatchObject({ code: "validation_failed", errors: [{ path: "name" }] });
      const escape = await ownerBrowser.send("PATCH", `/api/orgs/${orgId}`, { name: "Acme\u001b[2J" });
      expect(escape.status).toBe(422);
      expect((await ownerBrowser.send("GET", `/api/orgs/${orgId}`)).body.name).not.toMatch(/[\u001b\u202E]/);
    });

    it("event stream: an open stream ends once its session is signed out, and delivers nothing after", async () => {
      const streamer = await join("streamer@example.com", "viewer");
      const controller = new AbortController();
      const response = await fetch(`${base}/api/events/stream`, { headers: { cookie: `dw_session=${streamer.cookie}` }, signal: controller.signal });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      /** Reads until `pattern` appears or the stream ends; whether it ended. */
      async function readUntil(pattern: RegExp): Promise<boolean> {
        while (!pattern.test(text)) {
          const { done, value } = await reader.read();
          if (done) return true;
          text += decoder.decode(value, { stream: true });
        }
        return false;
      }
      try {
        expect(await readUntil(/event: ready/)).toBe(false);
        const created = await ownerBrowser.send("POST", "/api/monitors", { type: "api", name: "streamed", url: "https://api.example.com/stream" });
        expect(created.status).toBe(201);
        expect((await ownerBrowser.send("PATCH", `/api/monitors/${created.body.id as string}`, { name: "before sign-out" })).status).toBe(200);
        expect(await readUntil(/before sign-out/)).toBe(false);
        expect((await streamer.send("POST", "/api/auth/sign-out")).status).toBe(204);
        // Past the re-check interval, the next event finds the session ended: the stream ends instead.
        running.clock.offsetMs = 60_000;
        text = "";
        expect((await ownerBrowser.send("PATCH", `/api/monitors/${created.body.id as string}`, { name: "after sign-out" })).status).toBe(200);
        expect(await readUntil(/after sign-out/)).toBe(true);
        expect(text).not.toMatch(/after sign-out/);
      } finally {
        running.clock.offsetMs = 0;
        controller.abort();
      }
    });

    it("brute force: failed sign-ins are limited per account and per address with 429 and Retry-After", async () => {
      await withSecondServer({
        limits: { scryptLogN: 12, loginAccountLimit: 3, loginAddressLimit: 5, loginWindowSeconds: 900 },
      }, async (tight) => {
        // The counters are kept in the store, shared with the first server: start past the window
        // of every sign-in the tests before made there.
        tight.clock.offsetMs = 10 * 3600 * 1000;
        const browser = new Browser(tight.baseUrl);
        for (let i = 0; i < 3; i++) expect((await browser.send("POST", "/api/auth/sign-in", { email: owner.email, password: `wrong-password-${i}` })).status).toBe(401);
        // Over the account's limit: refused even with the right password, from any address.
        const limited = await browser.send("POST", "/api/auth/sign-in", owner, { headers: { "x-forwarded-for": "198.51.100.7" } });
        expect(limited.status).toBe(429);
        expect(limited.body).toMatchObject({ code: "rate_limited" });
        expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
        // Another account from the same address still works, until the address's own limit.
        expect((await browser.send("POST", "/api/auth/sign-in", { email: "vera@example.com", password: STRONG })).status).toBe(200);
        // Vera's success gave back its own count only: the address's three failures stay counted,
        // two more fill it (a sign-in to an account of one's own does not start the window again).
        for (let i = 0; i < 2; i++) expect((await browser.send("POST", "/api/auth/sign-in", { email: `who${i}@example.com`, password: "nope-nope-nope" })).status).toBe(401);
        const address = await browser.send("POST", "/api/auth/sign-in", { email: "vera@example.com", password: STRONG });
        expect(address.status).toBe(429);
        expect(address.body.detail).toMatch(/address/);
        // Another address is not limited for Vera.
        expect((await browser.send("POST", "/api/auth/sign-in", { email: "vera@example.com", password: STRONG }, { headers: { "x-forwarded-for": "198.51.100.8" } })).status).toBe(200);
        // After the window, the owner signs in again.
        tight.clock.offsetMs += 901 * 1000;
        expect((await browser.send("POST", "/api/auth/sign-in", owner)).status).toBe(200);
      });
    });

    it("brute force: sign-ins sent at once get no more password checks than the limits allow", async () => {
      await withSecondServer({
        limits: { scryptLogN: 12, loginAccountLimit: 3, loginAddressLimit: 5, loginWindowSeconds: 900 },
      }, async (tight) => {
        // past the windows of the sign-ins before (the counters are in the shared store)
        tight.clock.offsetMs = 20 * 3600 * 1000;
        const browser = new Browser(tight.baseUrl);
        // One account from many addresses: 3 checked (401), the rest refused before any hashing.
        const byAccount = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            browser.send("POST", "/api/auth/sign-in", { email: "racer@example.com", password: `guess-${i}` }, { headers: { "x-forwarded-for": `198.51.100.${20 + i}` } }),
          ),
        );
        expect(byAccount.map((a) => a.status).sort()).toEqual([...Array(3).fill(401), ...Array(9).fill(429)]);
        // Many accounts from one address: 5 checked, the rest refused.
        const byAddress = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            browser.send("POST", "/api/auth/sign-in", { email: `spray${i}@example.com`, password: "guess" }, { headers: { "x-forwarded-for": "198.51.100.99" } }),
          ),
        );
        expect(byAddress.map((a) => a.status).sort()).toEqual([...Array(5).fill(401), ...Array(7).fill(429)]);
        // Successful sign-ins do not use up the address's allowance.
        for (let i = 0; i < 6; i++) {
          expect((await browser.send("POST", "/api/auth/sign-in", owner, { headers: { "x-forwarded-for": "198.51.100.150" } })).status).toBe(200);
        }
      });
    });

    it("behind the proxy, the address limit counts the address the proxy saw, not one the client put in X-Forwarded-For", async () => {
      await withSecondServer({
        limits: { scryptLogN: 12, loginAccountLimit: 1000, loginAddressLimit: 2, loginWindowSeconds: 900 },
      }, async (tight) => {
        const browser = new Browser(tight.baseUrl);
        // The client forges the first entry; the proxy appends the address it saw (198.51.100.77).
        const statuses: number[] = [];
        for (let i = 0; i < 3; i++) {
          const forged = `203.0.113.${i + 1}, 198.51.100.77`;
          statuses.push((await browser.send("POST", "/api/auth/sign-in", { email: `forger${i}@example.com`, password: "guess" }, { headers: { "x-forwarded-for": forged } })).status);
        }
        expect(statuses).toEqual([401, 401, 429]);
        // The audit log names the address the proxy saw, too.
        const signedIn = await browser.send("POST", "/api/auth/sign-in", owner, { headers: { "x-forwarded-for": "203.0.113.50, 198.51.100.78" } });
        expect(signedIn.status).toBe(200);
        const entries = await tight.server.store.listAudit(signedIn.body.org.id as string, { limit: 5 });
        expect(entries.data.find((e) => e.action === "auth.sign_in")?.ip).toBe("198.51.100.78");
      });
    });

    it("the address limit counts an IPv6 client by its /64 network, and an IPv4-mapped address as the IPv4 one", async () => {
      await withSecondServer({ limits: { scryptLogN: 12, loginAccountLimit: 1000, loginAddressLimit: 2, loginWindowSeconds: 900 } }, async (tight) => {
        const browser = new Browser(tight.baseUrl);
        const attempt = async (address: string, i: number) =>
          (await browser.send("POST", "/api/auth/sign-in", { email: `six${i}@example.com`, password: "guess" }, { headers: { "x-forwarded-for": address } })).status;
        // One /64 network, three addresses in it.
        expect([await attempt("2001:db8:1:2::1", 0), await attempt("2001:db8:1:2:ffff::9", 1), await attempt("2001:0db8:0001:0002:a:b:c:d", 2)]).toEqual([401, 401, 429]);
        // Another /64 is counted on its own.
        expect(await attempt("2001:db8:1:3::1", 3)).toBe(401);
        // 192.0.2.44 and its IPv4-mapped form are one address.
        expect([await attempt("192.0.2.44", 4), await attempt("::ffff:192.0.2.44", 5), await attempt("192.0.2.44", 6)]).toEqual([401, 401, 429]);
      });
    });

    it("logs: an invitation's secret sent in the lookup's query is not written to the log", async () => {
      const lines: string[] = [];
      await withSecondServer({
        adminToken: running.adminToken,
        logger: pino({ level: "debug" }, { write: (line: string) => void lines.push(line) }),
      }, async (logged) => {
        const admin = new Browser(logged.baseUrl, running.adminToken);
        const created = await admin.send("POST", "/api/invites", { email: "logged@example.com", role: "viewer" });
        expect(created.status).toBe(201);
        const token = tokenOfLink(created.body.url as string);
        const lookup = await new Browser(logged.baseUrl).send("GET", `/api/invites/lookup?token=${token}`);
        expect(lookup.status).toBe(200);
        const refused = await new Browser(logged.baseUrl).send("GET", `/api/invites/lookup?token=${token}x`);
        expect(refused.status).toBe(404);
        const lookups = lines.filter((line) => line.includes("/api/invites/lookup"));
        expect(lookups.length).toBeGreaterThan(0);
        expect(lookups.some((line) => line.includes("/api/invites/lookup?token=[redacted]"))).toBe(true);
        expect(lines.filter((line) => line.includes(token))).toEqual([]);
      });
    });

    it("an owner deletes the organization with everything in it; admins and tokens cannot", async () => {
      const store = running.server.store;
      const ada = new Browser(base);
      await ada.signIn("ada@example.com", STRONG, orgId);
      const olive = new Browser(base);
      await olive.signIn(owner.email, owner.password, orgId);
      // Olive is owner again; make Ada admin so the refusal is by role.
      const adaId = (await ada.send("GET", "/api/auth/me")).body.user.id as string;
      expect((await olive.send("PATCH", `/api/orgs/${orgId}/members/${adaId}`, { role: "admin" })).status).toBe(200);
      expect((await ada.send("DELETE", `/api/orgs/${orgId}`)).status).toBe(403);
      expect((await new Browser(base).send("DELETE", `/api/orgs/${orgId}`, undefined, { bearer: running.adminToken })).status).toBe(403);
      const deleted = await olive.send("DELETE", `/api/orgs/${orgId}`);
      expect(deleted.status).toBe(204);
      expect(await store.getOrganization(orgId)).toBeNull();
      expect((await new Browser(base).send("GET", "/api/monitors", undefined, { bearer: running.adminToken })).status).toBe(401);
    });
  });
}
