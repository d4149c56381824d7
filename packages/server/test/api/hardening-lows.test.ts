import { once } from "node:events";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CSRF_HEADER, csrfTokenOf, hashPassword, SESSION_COOKIE, SIGNED_IN_COOKIE } from "@driftwatch/people";
import { MAX_SESSIONS_PER_USER } from "../../src/config/limits.js";
import { createHarness, expectProblem, type Harness } from "./harness.js";

/** Small findings of the second hostile pass (issue 26), each on the real app and SQLite. */
let h: Harness;
const PASSWORD = "tangerine-orbit-47-velvet";

beforeAll(async () => {
  h = await createHarness({ config: { people: { sessionIdleSeconds: 60, scryptLogN: 14 } } });
  await h.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await h?.close();
});

describe("sessions at the shortest idle timeout", () => {
  it("keep a session used every 25 s alive past the idle timeout", async () => {
    const at = h.clock.now.toISOString();
    const user = await h.store.createUser({ email: "idle@example.com", displayName: "Idle", passwordHash: await hashPassword(PASSWORD, { logN: 12, r: 8, p: 1 }), createdAt: at });
    await h.store.addMembership(h.a.orgId, user.id, "viewer", at);
    const signIn = await h.app.inject({ method: "POST", url: "/api/auth/sign-in", payload: { email: "idle@example.com", password: PASSWORD } });
    expect(signIn.statusCode).toBe(200);
    const cookie = signIn.cookies.find((c) => c.name === SESSION_COOKIE)!.value;
    for (let i = 1; i <= 6; i++) {
      h.clock.now = new Date(h.clock.now.getTime() + 25_000);
      const me = await h.app.inject({ method: "GET", url: "/api/auth/me", headers: { cookie: `${SESSION_COOKIE}=${cookie}` } });
      expect(me.statusCode, `after ${String(i * 25)} s`).toBe(200);
    }
  });
});

/** A user of organization a with `role`; answers its id. */
async function userOf(email: string, role: "admin" | "viewer"): Promise<string> {
  const at = h.clock.now.toISOString();
  const user = await h.store.createUser({ email, displayName: email, passwordHash: await hashPassword(PASSWORD, { logN: 12, r: 8, p: 1 }), createdAt: at });
  await h.store.addMembership(h.a.orgId, user.id, role, at);
  return user.id;
}
const signIn = (email: string) => h.app.inject({ method: "POST", url: "/api/auth/sign-in", payload: { email, password: PASSWORD } });
const auditActions = async (userId: string): Promise<string[]> =>
  ((JSON.parse((await h.request(h.a.admin, { method: "GET", url: "/api/audit?limit=100" })).body) as { data: Array<{ action: string; targetId: string }> }).data)
    .filter((e) => e.targetId === userId)
    .map((e) => e.action);

describe("failed proofs and sessions per user", () => {
  it("audits a wrong current password on a password change", async () => {
    const id = await userOf("change@example.com", "viewer");
    const cookie = (await signIn("change@example.com")).cookies.find((c) => c.name === SESSION_COOKIE)!.value;
    const res = await h.app.inject({
      method: "POST",
      url: "/api/auth/password",
      payload: { currentPassword: "not-the-password-at-all", newPassword: "another-long-passphrase-9" },
      headers: { cookie: `${SESSION_COOKIE}=${cookie}`, [CSRF_HEADER]: csrfTokenOf(cookie), origin: "http://localhost:80" },
    });
    expectProblem(res, 401, "invalid_credentials");
    expect(await auditActions(id)).toContain("auth.password_change_failed");
  });

  it("audits a wrong password on an invitation's acceptance", async () => {
    const id = await userOf("invited@example.com", "viewer");
    // an invitation of organization b for the existing account of a
    const invite = JSON.parse((await h.request(h.b.admin, { method: "POST", url: "/api/invites", payload: { email: "invited@example.com", role: "viewer" } })).body) as { url: string };
    const token = new URL(invite.url).hash.replace(/^#token=/, "");
    const res = await h.app.inject({ method: "POST", url: "/api/invites/accept", payload: { token, password: "not-the-password-at-all" } });
    expectProblem(res, 401, "invalid_credentials");
    expect(await auditActions(id)).toContain("invite.accept_failed");
    const theirs = (JSON.parse((await h.request(h.b.admin, { method: "GET", url: "/api/audit?limit=100" })).body) as { data: Array<{ action: string }> }).data;
    expect(theirs.map((e) => e.action)).toContain("invite.accept_failed");
  });

  it(`keeps at most ${MAX_SESSIONS_PER_USER} sessions per user, revoking the oldest`, async () => {
    await userOf("many@example.com", "viewer");
    const cookies: string[] = [];
    for (let i = 0; i < MAX_SESSIONS_PER_USER + 3; i++) {
      h.clock.now = new Date(h.clock.now.getTime() + 1000);
      cookies.push((await signIn("many@example.com")).cookies.find((c) => c.name === SESSION_COOKIE)!.value);
    }
    const status = async (cookie: string) => (await h.app.inject({ method: "GET", url: "/api/auth/me", headers: { cookie: `${SESSION_COOKIE}=${cookie}` } })).statusCode;
    const statuses = [];
    for (const cookie of cookies) statuses.push(await status(cookie));
    expect(statuses).toEqual([...Array<number>(3).fill(401), ...Array<number>(MAX_SESSIONS_PER_USER).fill(200)]);
  });
});

describe("the dashboard's signed-in marker", () => {
  it("is set with the session cookie (readable, secret-free) and cleared with it", async () => {
    await userOf("marker@example.com", "viewer");
    const res = await signIn("marker@example.com");
    const marker = res.cookies.find((c) => c.name === SIGNED_IN_COOKIE);
    const session = res.cookies.find((c) => c.name === SESSION_COOKIE)!;
    expect(marker).toMatchObject({ value: "1", path: "/", sameSite: "Lax" });
    expect(marker?.httpOnly).toBeFalsy();
    expect(String(marker?.expires)).toBe(String(session.expires));
    const out = await h.app.inject({
      method: "POST",
      url: "/api/auth/sign-out",
      headers: { cookie: `${SESSION_COOKIE}=${session.value}`, [CSRF_HEADER]: csrfTokenOf(session.value), origin: "http://localhost:80" },
    });
    expect(out.statusCode).toBe(204);
    const cleared = out.cookies.find((c) => c.name === SIGNED_IN_COOKIE);
    expect(cleared?.value).toBe("");
  });
});

describe("failed authentications across processes", () => {
  it("count against one limit per address for every API process on the database", async () => {
    const other = await h.buildAnother();
    const bad = (app: typeof other) => app.inject({ method: "GET", url: "/api/monitors", headers: { authorization: "Bearer dw_notarealtokennotarealtokennotarealtoken00ab" }, remoteAddress: "203.0.113.77" });
    // 30 failures in each process: each at half the limit of 60 alone, at the limit together
    for (let i = 0; i < 30; i++) {
      expect((await bad(h.app)).statusCode).toBe(401);
      expect((await bad(other)).statusCode).toBe(401);
    }
    expect((await bad(h.app)).statusCode).toBe(429);
    expect((await bad(other)).statusCode).toBe(429);
  });
});

describe("trusted proxy hops", () => {
  it("takes the client address that many entries from the end of X-Forwarded-For (a CDN in front of nginx)", async () => {
    const behind = await createHarness({ config: { trustProxy: true, trustProxyHops: 2 } });
    try {
      // the client wrote a fake first entry; the CDN appended the client, nginx the CDN's edge
      const res = await behind.app.inject({
        method: "GET",
        url: "/healthz",
        remoteAddress: "10.0.0.2",
        headers: { "x-forwarded-for": "6.6.6.6, 198.51.100.7, 203.0.113.9" },
      });
      const id = res.headers["x-request-id"];
      const line = behind.logLines.find((l) => l.requestId === id && l.msg === "request completed") as { req: { remoteAddress: string } } | undefined;
      expect(line?.req.remoteAddress).toBe("198.51.100.7");
    } finally {
      await behind.close();
    }
  });
});

describe("/metrics with a metrics token", () => {
  it("answers only the token (its counters name organization ids); without one it stays open", async () => {
    const token = "metrics-secret-0123456789abcdef";
    const guarded = await createHarness({ config: { metricsToken: token } });
    try {
      expectProblem(await guarded.app.inject({ method: "GET", url: "/metrics" }), 401, "unauthenticated");
      expectProblem(await guarded.app.inject({ method: "GET", url: "/metrics", headers: { authorization: "Bearer wrong-wrong-wrong-wrong" } }), 401, "unauthenticated");
      // an API token is not the metrics token
      expectProblem(await guarded.app.inject({ method: "GET", url: "/metrics", headers: { authorization: `Bearer ${guarded.a.admin}` } }), 401, "unauthenticated");
      expect((await guarded.app.inject({ method: "GET", url: "/metrics", headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
    } finally {
      await guarded.close();
    }
    expect((await h.app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(200);
  });
});

describe("organization names", () => {
  it("refuse a lone surrogate", async () => {
    for (const name of ["Acme \ud800", "\udc00 Acme", "A\ud83dB"]) {
      expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/orgs/${h.a.orgId}`, payload: { name } }), 422, "validation_failed");
    }
    // a whole pair (an emoji) is a character like any other
    expect((await h.request(h.a.admin, { method: "PATCH", url: `/api/orgs/${h.a.orgId}`, payload: { name: "Acme \ud83d\ude00" } })).statusCode).toBe(200);
  });
});

describe("a request Node cannot parse", () => {
  it("answers 431 for an over-long URL as problem+json with a request id", async () => {
    const port = (h.app.server.address() as AddressInfo).port;
    const socket = connect({ port, host: "127.0.0.1" });
    await once(socket, "connect");
    socket.write(`GET /api/monitors?x=${"a".repeat(20_000)} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (answer += chunk));
    await once(socket, "close");
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    const id = /x-request-id: (\S+)/i.exec(head)?.[1];
    expect(id).toMatch(/^req_/);
    expect(head).toMatch(/content-type: application\/problem\+json/i);
    expect(JSON.parse(body)).toMatchObject({ status: 431, code: "invalid_request", requestId: id });
  });
});
