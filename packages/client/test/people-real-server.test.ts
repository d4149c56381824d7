/**
 * The people resources against the real server (`driftwatch serve` from the built CLI, SQLite):
 * first-run setup from the printed link, cookie sessions with the CSRF token, an invited viewer
 * refused a write, members, audit, sign-out. Node's fetch keeps no cookies, so a small cookie jar
 * wraps it and sends `Origin` as a browser would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthenticationError, ConflictError, createClient, Driftwatch, PermissionDeniedError, type FetchLike } from "../src/index.js";
import { startServer, type RunningServer } from "./support/server.js";

let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

/** A browser-like client: a cookie jar over the global fetch, the Origin header, and the CSRF token of the last session answer. */
function browser(): { client: Driftwatch; csrf: { token: string | null } } {
  const jar = new Map<string, string>();
  const csrf: { token: string | null } = { token: null };
  const fetch: FetchLike = async (input, init) => {
    const headers: Record<string, string> = { ...(init.headers as Record<string, string>), origin: server.baseUrl };
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const response = await globalThis.fetch(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const [name = "", value = ""] = pair.split("=");
      if (value === "" || attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a))) jar.delete(name.trim());
      else jar.set(name.trim(), value);
    }
    return response;
  };
  return { client: createClient({ baseUrl: server.baseUrl, credentials: "include", csrfToken: () => csrf.token, fetch, maxRetries: 0 }), csrf };
}

const OWNER = { email: "owner@example.com", displayName: "Owner", password: "correct horse battery staple" };
const VIEWER = { displayName: "Viewer", password: "another long passphrase 42" };

describe("people against the real server", () => {
  it("setup, sessions with CSRF, invitations, roles, members, audit and sign-out", async () => {
    const link = /Finish setup: (\S+)/.exec(server.output())?.[1];
    expect(link).toMatch(/\/setup#token=/);
    const setupToken = new URL(link!).hash.slice("#token=".length);

    const owner = browser();
    expect(await owner.client.auth.setupStatus()).toEqual({ open: true });
    await expect(owner.client.auth.setup({ token: "wrong", ...OWNER })).rejects.toBeInstanceOf(AuthenticationError);
    const session = await owner.client.auth.setup({ token: setupToken, ...OWNER, orgName: "Acme" });
    expect(session).toMatchObject({ via: "session", role: "owner", org: { name: "Acme" }, user: { email: OWNER.email } });
    owner.csrf.token = session.csrfToken;
    expect(await owner.client.auth.setupStatus()).toEqual({ open: false });
    await expect(owner.client.auth.setup({ token: setupToken, ...OWNER })).rejects.toBeInstanceOf(ConflictError);
    const me = await owner.client.auth.me();
    expect(me.csrfToken).toBe(session.csrfToken);
    const orgId = me.org.id;

    // a write without the CSRF token is refused; with it, it works
    const noCsrf = await owner.client.orgs.update(orgId, { name: "Acme 2" }, { headers: { "x-driftwatch-csrf": "" } }).catch((e: unknown) => e);
    expect(noCsrf).toMatchObject({ status: 403, code: "csrf_failed" });
    expect((await owner.client.orgs.update(orgId, { name: "Acme Corp" })).name).toBe("Acme Corp");

    const { invite, url } = await owner.client.invites.create({ email: "viewer@example.com", role: "viewer" });
    expect(invite.status).toBe("pending");
    const inviteToken = new URL(url).hash.slice("#token=".length);
    const viewer = browser();
    expect(await viewer.client.invites.lookup(inviteToken)).toMatchObject({ email: "viewer@example.com", role: "viewer", userExists: false, org: { name: "Acme Corp" } });
    const joined = await viewer.client.invites.accept({ token: inviteToken, ...VIEWER });
    viewer.csrf.token = joined.csrfToken;
    expect(joined).toMatchObject({ role: "viewer", scopes: ["monitors:read", "webhooks:read"] });
    expect(await viewer.client.invites.lookup(inviteToken).catch((e: unknown) => e)).toMatchObject({ status: 410, code: "invite_invalid" });

    const forced = await viewer.client.monitors.create({ url: "http://127.0.0.1:9/x" }).catch((e: unknown) => e);
    expect(forced).toBeInstanceOf(PermissionDeniedError);
    expect(forced).toMatchObject({ code: "insufficient_scope" });

    const members = [];
    for await (const m of owner.client.orgs.members.list(orgId, { limit: 1 })) members.push(m);
    expect(members.map((m) => [m.email, m.role]).sort()).toEqual([
      [OWNER.email, "owner"],
      ["viewer@example.com", "viewer"],
    ]);
    const viewerId = members.find((m) => m.role === "viewer")!.userId;
    expect((await owner.client.orgs.members.update(orgId, viewerId, { role: "member" })).role).toBe("member");
    expect(await owner.client.orgs.members.remove(orgId, session.user!.id).catch((e: unknown) => e)).toMatchObject({ status: 409, code: "last_owner" });

    const actions = (await owner.client.audit.list({ limit: 100 })).data.map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["auth.setup", "invite.created", "invite.accepted", "member.role_changed", "org.updated"]));

    // the admin token sees who it is
    const token = new Driftwatch({ baseUrl: server.baseUrl, token: server.adminToken, maxRetries: 0 });
    expect(await token.auth.me()).toMatchObject({ via: "token", user: null, csrfToken: null });

    await owner.client.auth.signOut();
    expect(await owner.client.auth.me().catch((e: unknown) => e)).toBeInstanceOf(AuthenticationError);
    const again = await owner.client.auth.signIn({ email: OWNER.email, password: OWNER.password });
    expect(again.csrfToken).not.toBe(session.csrfToken);
    await expect(owner.client.auth.signIn({ email: OWNER.email, password: "wrong password" })).rejects.toMatchObject({ status: 401, code: "invalid_credentials" });
  });
});
