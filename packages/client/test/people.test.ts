/**
 * The people resources (auth, orgs, members, invites, audit) and cookie mode, against a local
 * HTTP server that records each request and answers in the shapes of the people routes.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  createClient,
  CSRF_HEADER,
  Driftwatch,
  DriftwatchApiError,
  DriftwatchClientError,
  PermissionDeniedError,
  type FetchLike,
  type Member,
} from "../src/index.js";

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

const seen: Seen[] = [];
let answers: Map<string, (req: Seen) => Answer>;
let server: http.Server;
let baseUrl: string;

const at = "2026-11-25T12:00:00.000Z";
const org = { id: "org_0000000000000001", slug: "default", name: "Acme", createdAt: at };
const user = { id: "usr_0000000000000001", email: "ada@example.com", displayName: "Ada", createdAt: at };
const me = {
  via: "session",
  user,
  org,
  role: "owner",
  scopes: ["admin"],
  orgs: [{ id: org.id, slug: org.slug, name: org.name, role: "owner" }],
  csrfToken: "csrf-secret-1",
};
const session = { ...me, expiresAt: "2026-12-25T12:00:00.000Z" };
const member = (n: number, role = "viewer"): Member =>
  ({ userId: `usr_${String(n).padStart(16, "0")}`, email: `m${n}@example.com`, displayName: `M ${n}`, role, createdAt: at }) as Member;
const invite = { id: "inv_0000000000000001", email: "bob@example.com", role: "viewer", status: "pending", createdAt: at, expiresAt: at, invitedBy: user.id, acceptedAt: null, revokedAt: null };

const problem = (status: number, code: string): Answer => ({
  status,
  body: { type: `https://driftwatch.dev/problems/${code}`, title: code, status, detail: `detail of ${code}`, code, requestId: "req_people0001" },
  headers: { "content-type": "application/problem+json" },
});

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const url = new URL(req.url ?? "/", "http://local");
      const call: Seen = { method: req.method ?? "GET", path: url.pathname + url.search, headers: req.headers, body: text === "" ? undefined : JSON.parse(text) };
      seen.push(call);
      const answer = answers.get(`${call.method} ${url.pathname}`)?.(call) ?? problem(404, "not_found");
      const body = answer.body === undefined ? "" : JSON.stringify(answer.body);
      res.writeHead(answer.status, { "content-type": "application/json", "x-request-id": "req_people0001", ...answer.headers });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(() => {
  seen.length = 0;
  answers = new Map();
});

/** Records what the client hands to fetch (the real global fetch does the request). */
function recordingFetch(): { fetch: FetchLike; inits: RequestInit[] } {
  const inits: RequestInit[] = [];
  return { inits, fetch: (input, init) => (inits.push(init), globalThis.fetch(input, init)) };
}

describe("cookie mode", () => {
  it("sends no bearer token, passes credentials to fetch, and adds the CSRF header on writes only", async () => {
    let csrf: string | null = null;
    const { fetch, inits } = recordingFetch();
    const dw = createClient({ baseUrl, credentials: "include", csrfToken: () => csrf, fetch, maxRetries: 0 });
    answers.set("POST /api/auth/sign-in", () => ({ status: 200, body: session }));
    answers.set("GET /api/auth/me", () => ({ status: 200, body: me }));
    answers.set("PATCH /api/orgs/org_0000000000000001", (req) => ({ status: 200, body: { ...org, ...(req.body as object) } }));
    answers.set("DELETE /api/orgs/org_0000000000000001/members/usr_0000000000000002", () => ({ status: 204 }));

    const signedIn = await dw.auth.signIn({ email: "ada@example.com", password: "correct horse" });
    expect(signedIn.csrfToken).toBe("csrf-secret-1");
    // before sign-in there is no CSRF token: the write goes without the header
    expect(seen[0]!.headers[CSRF_HEADER]).toBeUndefined();
    csrf = signedIn.csrfToken;

    expect((await dw.auth.me()).user?.displayName).toBe("Ada");
    expect((await dw.orgs.update(org.id, { name: "Acme 2" })).name).toBe("Acme 2");
    await dw.orgs.members.remove(org.id, "usr_0000000000000002");

    expect(seen.map((s) => [s.method, s.headers[CSRF_HEADER] ?? null])).toEqual([
      ["POST", null],
      ["GET", null],
      ["PATCH", "csrf-secret-1"],
      ["DELETE", "csrf-secret-1"],
    ]);
    for (const s of seen) expect(s.headers.authorization).toBeUndefined();
    expect(inits.map((i) => i.credentials)).toEqual(["include", "include", "include", "include"]);
  });

  it("a bearer token wins: the CSRF header is never sent with one, and credentials stay unset unless asked for", async () => {
    const { fetch, inits } = recordingFetch();
    const dw = new Driftwatch({ baseUrl, token: "dw_token_for_test", csrfToken: () => "unused", fetch, maxRetries: 0 });
    answers.set("POST /api/invites", () => ({ status: 201, body: { invite, url: "http://x/invite#token=abc" } }));
    await dw.invites.create({ email: "bob@example.com", role: "viewer" });
    expect(seen[0]!.headers.authorization).toBe("Bearer dw_token_for_test");
    expect(seen[0]!.headers[CSRF_HEADER]).toBeUndefined();
    expect("credentials" in inits[0]!).toBe(false);
  });

  it("refuses an empty token and a csrfToken that is not a function", () => {
    expect(() => new Driftwatch({ baseUrl, token: "" })).toThrow(DriftwatchClientError);
    expect(() => new Driftwatch({ baseUrl, csrfToken: "x" as unknown as () => string })).toThrow(/csrfToken must be a function/);
  });
});

describe("people resources", () => {
  const dw = (): Driftwatch => new Driftwatch({ baseUrl, credentials: "same-origin", csrfToken: () => "c", maxRetries: 0 });

  it("auth: setup status, setup, sign-out, switch org, change password", async () => {
    answers.set("GET /api/auth/setup", () => ({ status: 200, body: { open: true } }));
    answers.set("POST /api/auth/setup", () => ({ status: 201, body: session }));
    answers.set("POST /api/auth/sign-out", () => ({ status: 204 }));
    answers.set("POST /api/auth/org", () => ({ status: 200, body: me }));
    answers.set("POST /api/auth/password", () => ({ status: 204 }));
    const client = dw();
    expect(await client.auth.setupStatus()).toEqual({ open: true });
    const created = await client.auth.setup({ token: "setup-secret", email: "ada@example.com", displayName: "Ada", password: "pw", orgName: "Acme" });
    expect(created.expiresAt).toBe(session.expiresAt);
    expect(await client.auth.signOut()).toBeUndefined();
    expect((await client.auth.switchOrg(org.id)).org.id).toBe(org.id);
    await client.auth.changePassword({ currentPassword: "a", newPassword: "b" });
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(["GET /api/auth/setup", "POST /api/auth/setup", "POST /api/auth/sign-out", "POST /api/auth/org", "POST /api/auth/password"]);
    expect(seen[1]!.body).toEqual({ token: "setup-secret", email: "ada@example.com", displayName: "Ada", password: "pw", orgName: "Acme" });
    expect(seen[3]!.body).toEqual({ orgId: org.id });
    expect(seen[4]!.body).toEqual({ currentPassword: "a", newPassword: "b" });
  });

  it("orgs: get, delete, transfer ownership, and members paged across pages", async () => {
    answers.set(`GET /api/orgs/${org.id}`, () => ({ status: 200, body: org }));
    answers.set(`DELETE /api/orgs/${org.id}`, () => ({ status: 204 }));
    answers.set(`POST /api/orgs/${org.id}/transfer-ownership`, () => ({ status: 200, body: member(2, "owner") }));
    answers.set(`PATCH /api/orgs/${org.id}/members/${member(3).userId}`, (req) => ({ status: 200, body: { ...member(3), ...(req.body as object) } }));
    answers.set(`GET /api/orgs/${org.id}/members`, (req) => {
      const cursor = new URL(req.path, "http://x").searchParams.get("cursor");
      return cursor === null
        ? { status: 200, body: { data: [member(1, "owner"), member(2)], nextCursor: "page2" } }
        : { status: 200, body: { data: [member(3)], nextCursor: null } };
    });
    const client = dw();
    expect((await client.orgs.get(org.id)).name).toBe("Acme");
    const first = await client.orgs.members.list(org.id, { limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.hasNextPage()).toBe(true);
    const all: string[] = [];
    for await (const m of client.orgs.members.list(org.id, { limit: 2 })) all.push(m.email);
    expect(all).toEqual(["m1@example.com", "m2@example.com", "m3@example.com"]);
    expect(seen.filter((s) => s.path.startsWith(`/api/orgs/${org.id}/members?`)).map((s) => s.path)).toEqual([
      `/api/orgs/${org.id}/members?limit=2`,
      `/api/orgs/${org.id}/members?limit=2`,
      `/api/orgs/${org.id}/members?limit=2&cursor=page2`,
    ]);
    expect((await client.orgs.members.update(org.id, member(3).userId, { role: "admin" })).role).toBe("admin");
    expect((await client.orgs.transferOwnership(org.id, member(2).userId)).role).toBe("owner");
    expect(seen.at(-1)!.body).toEqual({ userId: member(2).userId });
    await client.orgs.delete(org.id);
    expect(seen.at(-1)!.method).toBe("DELETE");
  });

  it("invites: list, revoke, lookup (token in the query, encoded), accept; audit list", async () => {
    answers.set("GET /api/invites", () => ({ status: 200, body: { data: [invite], nextCursor: null } }));
    answers.set(`DELETE /api/invites/${invite.id}`, () => ({ status: 200, body: { ...invite, status: "revoked", revokedAt: at } }));
    answers.set("GET /api/invites/lookup", () => ({ status: 200, body: { email: invite.email, role: "viewer", org: { id: org.id, slug: org.slug, name: org.name }, expiresAt: at, userExists: false } }));
    answers.set("POST /api/invites/accept", () => ({ status: 200, body: { ...session, role: "viewer" } }));
    answers.set("GET /api/audit", () => ({
      status: 200,
      body: { data: [{ id: "aud_0000000000000001", at, actor: { type: "user", id: user.id }, action: "invite.created", targetId: invite.id, data: { role: "viewer" }, ip: "127.0.0.1" }], nextCursor: null },
    }));
    const client = dw();
    expect((await client.invites.list()).data[0]!.status).toBe("pending");
    expect((await client.invites.revoke(invite.id)).status).toBe("revoked");
    const offer = await client.invites.lookup("a+b/c=");
    expect(offer.org.name).toBe("Acme");
    expect(seen.at(-1)!.path).toBe("/api/invites/lookup?token=a%2Bb%2Fc%3D");
    expect((await client.invites.accept({ token: "a+b/c=", displayName: "Bob", password: "pw" })).role).toBe("viewer");
    expect(seen.at(-1)!.body).toEqual({ token: "a+b/c=", displayName: "Bob", password: "pw" });
    const audit = await client.audit.list({ limit: 50 });
    expect(audit.data[0]!.action).toBe("invite.created");
    expect(seen.at(-1)!.path).toBe("/api/audit?limit=50");
  });

  it("maps the people error codes to their classes, with code and request id", async () => {
    answers.set("POST /api/auth/sign-in", () => problem(401, "invalid_credentials"));
    answers.set("POST /api/auth/setup", () => problem(409, "setup_closed"));
    answers.set("GET /api/invites/lookup", () => problem(410, "invite_invalid"));
    answers.set(`DELETE /api/orgs/${org.id}`, () => problem(403, "csrf_failed"));
    const client = dw();
    const signIn = await client.auth.signIn({ email: "x@example.com", password: "nope" }).catch((e: unknown) => e);
    expect(signIn).toBeInstanceOf(AuthenticationError);
    expect(signIn).toMatchObject({ status: 401, code: "invalid_credentials", requestId: "req_people0001" });
    expect(await client.auth.setup({ token: "t", email: "a@b.c", displayName: "A", password: "p" }).catch((e: unknown) => e)).toBeInstanceOf(ConflictError);
    const gone = await client.invites.lookup("t").catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(DriftwatchApiError);
    expect(gone).toMatchObject({ status: 410, code: "invite_invalid" });
    expect(await client.orgs.delete(org.id).catch((e: unknown) => e)).toBeInstanceOf(PermissionDeniedError);
  });
});
