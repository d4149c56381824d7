import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CSRF_HEADER, csrfTokenOf, hashPassword, SESSION_COOKIE } from "@driftwatch/people";
import { createHarness, json, type Harness } from "./harness.js";

/** A removed or demoted member's tokens and pending invitations (docs/people.md). */
let h: Harness;
const PASSWORD = "tangerine-orbit-47-velvet";
const fast = { logN: 12, r: 8, p: 1 };

beforeAll(async () => {
  h = await createHarness({ config: { tokenCacheTtlMs: 60_000 } });
});
afterAll(async () => {
  await h?.close();
});

interface Signed {
  userId: string;
  call(options: { method: "GET" | "POST" | "PATCH" | "DELETE"; url: string; payload?: Record<string, unknown> }): Promise<LightMyRequestResponse>;
}

/** A user of organization a with `role`, signed in. */
async function member(email: string, role: "owner" | "admin" | "member" | "viewer"): Promise<Signed> {
  const at = h.clock.now.toISOString();
  const user = await h.store.createUser({ email, displayName: email, passwordHash: await hashPassword(PASSWORD, fast), createdAt: at });
  await h.store.addMembership(h.a.orgId, user.id, role, at);
  const res = await h.app.inject({ method: "POST", url: "/api/auth/sign-in", payload: { email, password: PASSWORD } });
  expect(res.statusCode).toBe(200);
  const cookie = res.cookies.find((c) => c.name === SESSION_COOKIE)!.value;
  return {
    userId: user.id,
    call: (options) =>
      h.app.inject({
        ...options,
        headers: { cookie: `${SESSION_COOKIE}=${cookie}`, [CSRF_HEADER]: csrfTokenOf(cookie), origin: "http://localhost:80" },
      }),
  };
}

const bearer = (secret: string, url: string) => h.request(secret, { method: "GET", url });

describe("a member's tokens and invitations follow the member's rights", () => {
  it("records who created a token, also through that member's token, and shows it", async () => {
    const ada = await member("ada@example.com", "admin");
    const created = await ada.call({ method: "POST", url: "/api/tokens", payload: { name: "ada-admin", scopes: ["admin"] } });
    expect(created.statusCode, created.body).toBe(201);
    expect(json(created).createdBy).toBe(ada.userId);
    // a token made with ada's token is ada's too
    const child = json(await h.request(json(created).token, { method: "POST", url: "/api/tokens", payload: { name: "child", scopes: ["monitors:read"] } }));
    expect(child.createdBy).toBe(ada.userId);
    const listed = json(await h.request(h.a.admin, { method: "GET", url: "/api/tokens" })).data as Array<{ name: string; createdBy: string | null }>;
    expect(listed.find((t) => t.name === "ada-admin")?.createdBy).toBe(ada.userId);
    expect(listed.find((t) => t.name === "admin")?.createdBy).toBeNull();
  });

  it("revokes a removed member's tokens and pending invitations", async () => {
    const bob = await member("bob@example.com", "admin");
    const token = json(await bob.call({ method: "POST", url: "/api/tokens", payload: { name: "bob-admin", scopes: ["admin"] } }));
    const invite = json(await bob.call({ method: "POST", url: "/api/invites", payload: { email: "eve@example.com", role: "admin" } })).invite;
    expect(invite.id).toBeDefined();
    expect((await bearer(token.token, `/api/orgs/${h.a.orgId}/members`)).statusCode).toBe(200);

    const removed = await h.request(h.a.admin, { method: "DELETE", url: `/api/orgs/${h.a.orgId}/members/${bob.userId}` });
    expect(removed.statusCode).toBe(204);
    // the token is refused at once, though the cache would have kept it for a minute
    expect((await bearer(token.token, `/api/orgs/${h.a.orgId}/members`)).statusCode).toBe(401);
    expect((await h.store.getToken(h.a.orgId, token.id))?.revokedAt).not.toBeNull();
    expect((await h.store.getInvite(h.a.orgId, invite.id))?.revokedAt).not.toBeNull();
    const entries = json(await h.request(h.a.admin, { method: "GET", url: "/api/audit" })).data as Array<{ action: string; targetId: string }>;
    expect(entries.some((e) => e.action === "member.rights_revoked" && e.targetId === bob.userId)).toBe(true);
  });

  it("revokes a demoted member's tokens above the new role and keeps those within it", async () => {
    const cy = await member("cy@example.com", "admin");
    const admin = json(await cy.call({ method: "POST", url: "/api/tokens", payload: { name: "cy-admin", scopes: ["admin"] } }));
    const reader = json(await cy.call({ method: "POST", url: "/api/tokens", payload: { name: "cy-read", scopes: ["monitors:read"] } }));
    const invite = json(await cy.call({ method: "POST", url: "/api/invites", payload: { email: "dan@example.com", role: "viewer" } })).invite;
    const demoted = await h.request(h.a.admin, { method: "PATCH", url: `/api/orgs/${h.a.orgId}/members/${cy.userId}`, payload: { role: "member" } });
    expect(demoted.statusCode).toBe(200);
    expect((await bearer(admin.token, "/api/monitors")).statusCode).toBe(401);
    expect((await bearer(reader.token, "/api/monitors")).statusCode).toBe(200);
    // a member may not invite anyone: the pending invitation goes too
    expect((await h.store.getInvite(h.a.orgId, invite.id))?.revokedAt).not.toBeNull();
  });
});
