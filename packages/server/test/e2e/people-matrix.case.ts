/**
 * Role x route matrix (people-sqlite.test.ts, people-postgres.test.ts): every route of the
 * OpenAPI document, called by a session of each role, a token of each scope and nobody, against
 * a real server on the database. Each route needs an entry in ACCESS (a new route without one
 * fails), which is the table of docs/people.md: allowed callers get past authorization (anything
 * but 401/403), the others 403 insufficient_scope, and nobody 401.
 */
import type { Scope } from "@driftwatch/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSetupLink } from "@driftwatch/people";
import { Browser, type Database, type PeopleServer, startPeopleServer, STRONG, tokenOfLink } from "./people-support.js";

/** Who may call a route: nobody needs to sign in (public), any caller, a session, an owner's session, a scope, or every scope of a list. */
type Access = "public" | "any" | "session" | "owner" | Scope | readonly Scope[];

const ACCESS: Record<string, Access> = {
  "GET /healthz": "public",
  "GET /readyz": "public",
  "GET /metrics": "public",
  "GET /api/auth/setup": "public",
  "POST /api/auth/setup": "public",
  "POST /api/auth/sign-in": "public",
  "GET /api/invites/lookup": "public",
  "POST /api/invites/accept": "public",
  "GET /api/auth/me": "any",
  "POST /api/auth/sign-out": "any",
  "POST /api/auth/org": "session",
  "POST /api/auth/password": "session",
  "GET /api/orgs/{orgId}": "any",
  "PATCH /api/orgs/{orgId}": "admin",
  "DELETE /api/orgs/{orgId}": "owner",
  "GET /api/orgs/{orgId}/members": "admin",
  "PATCH /api/orgs/{orgId}/members/{userId}": "admin",
  // Anyone may remove themselves (leave); removing another member (as here) needs admin.
  "DELETE /api/orgs/{orgId}/members/{userId}": "admin",
  "POST /api/orgs/{orgId}/transfer-ownership": "owner",
  "POST /api/invites": "admin",
  "GET /api/invites": "admin",
  "DELETE /api/invites/{id}": "admin",
  "GET /api/audit": "admin",
  "POST /api/tokens": "admin",
  "GET /api/tokens": "admin",
  "GET /api/tokens/{id}": "admin",
  "DELETE /api/tokens/{id}": "admin",
  "POST /api/monitors": "monitors:write",
  "GET /api/monitors": "monitors:read",
  "GET /api/monitors/{id}": "monitors:read",
  "PATCH /api/monitors/{id}": "monitors:write",
  "DELETE /api/monitors/{id}": "monitors:write",
  "POST /api/monitors/{id}/check": "monitors:write",
  "GET /api/monitors/{id}/diffs": "monitors:read",
  "GET /api/monitors/{id}/diffs/{diffId}": "monitors:read",
  "GET /api/monitors/{id}/snapshots": "monitors:read",
  "GET /api/monitors/{id}/snapshots/{snapshotId}": "monitors:read",
  "GET /api/monitors/{id}/values": "monitors:read",
  "GET /api/monitors/{id}/settings": "monitors:read",
  "PATCH /api/monitors/{id}/settings": "monitors:write",
  "POST /api/monitors/{id}/settings/preview": "monitors:read",
  "POST /api/monitors/{id}/alert/preview": "monitors:read",
  "GET /api/monitors/{id}/noise": "monitors:read",
  "GET /api/monitors/{id}/channels": ["webhooks:read", "monitors:read"],
  "GET /api/monitors/{id}/compare": "monitors:read",
  "GET /api/monitors/{id}/snapshots/{snapshotId}/screenshot": "monitors:read",
  "GET /api/monitors/{id}/failure-screenshot": "monitors:read",
  "POST /api/monitors/steps/run": "monitors:write",
  "POST /api/monitors/inspect": "monitors:write",
  "POST /api/secrets": "monitors:write",
  "GET /api/secrets": "monitors:read",
  "DELETE /api/secrets/{id}": "monitors:write",
  "GET /api/monitors/{id}/schema": "monitors:read",
  "POST /api/webhooks": "webhooks:write",
  "GET /api/webhooks": "webhooks:read",
  "GET /api/webhooks/{id}": "webhooks:read",
  "PATCH /api/webhooks/{id}": "webhooks:write",
  "DELETE /api/webhooks/{id}": "webhooks:write",
  "POST /api/webhooks/{id}/rotate-secret": "webhooks:write",
  "GET /api/webhooks/{id}/deliveries": "webhooks:read",
  "GET /api/webhooks/{id}/deliveries/{deliveryId}": "webhooks:read",
  "POST /api/webhooks/{id}/deliveries/{deliveryId}/retry": "webhooks:write",
  "POST /api/webhooks/worker/run": "webhooks:write",
  "POST /api/channels": "webhooks:write",
  "GET /api/channels": "webhooks:read",
  "GET /api/channels/{id}": "webhooks:read",
  "PATCH /api/channels/{id}": "webhooks:write",
  "DELETE /api/channels/{id}": "webhooks:write",
  "POST /api/channels/{id}/test": "webhooks:write",
  "GET /api/channels/{id}/deliveries": "webhooks:read",
  "GET /api/channels/{id}/deliveries/{deliveryId}": "webhooks:read",
  "POST /api/channels/{id}/deliveries/{deliveryId}/retry": "webhooks:write",
  "GET /api/events/stream": "monitors:read",
};

interface Caller {
  name: string;
  browser: Browser;
  via: "session" | "token" | "nobody";
  role?: "viewer" | "member" | "admin" | "owner";
  scopes: Scope[];
}

const ROLE_SCOPES: Record<string, Scope[]> = {
  viewer: ["monitors:read", "webhooks:read"],
  member: ["monitors:read", "monitors:write", "webhooks:read", "webhooks:write"],
  admin: ["admin"],
  owner: ["admin"],
};

function allowed(access: Access, caller: Caller): boolean {
  if (access === "public") return true;
  if (caller.via === "nobody") return false;
  if (access === "any") return true;
  if (access === "session") return caller.via === "session";
  if (access === "owner") return caller.via === "session" && caller.role === "owner";
  if (caller.scopes.includes("admin")) return true;
  return typeof access === "string" ? caller.scopes.includes(access) : access.every((scope) => caller.scopes.includes(scope));
}

const unknownId = (prefix: string): string => `${prefix}_${"0".repeat(26)}`;
const ID_PREFIX: Record<string, string> = { monitors: "mon", webhooks: "whk", tokens: "tok", invites: "inv", channels: "ch", secrets: "sec" };

export function defineMatrixSuite(name: string, createDatabase: () => Promise<Database>): void {
  describe(`role x route matrix on ${name}`, () => {
    let database: Database;
    let running: PeopleServer;
    const callers: Caller[] = [];
    let orgId = "";
    let foreignOrgId = "";

    beforeAll(async () => {
      database = await createDatabase();
      running = await startPeopleServer(database.url);
      const base = running.baseUrl;
      const link = await createSetupLink(running.server.store, base, 3600);
      const owner = new Browser(base);
      const setup = await owner.send("POST", "/api/auth/setup", { token: tokenOfLink(link!.url), email: "owner@example.com", displayName: "Owner", password: STRONG });
      expect(setup.status).toBe(201);
      orgId = setup.body.org.id;
      foreignOrgId = (await running.server.store.ensureOrganization("elsewhere")).id;
      callers.push({ name: "owner session", browser: owner, via: "session", role: "owner", scopes: ROLE_SCOPES.owner! });
      for (const role of ["admin", "member", "viewer"] as const) {
        const created = await owner.send("POST", "/api/invites", { email: `${role}@example.com`, role });
        const browser = new Browser(base);
        const accepted = await browser.send("POST", "/api/invites/accept", { token: tokenOfLink(created.body.url), displayName: role, password: STRONG });
        expect(accepted.status).toBe(200);
        callers.push({ name: `${role} session`, browser, via: "session", role, scopes: ROLE_SCOPES[role]! });
      }
      for (const scope of ["monitors:read", "monitors:write", "webhooks:read", "webhooks:write", "admin"] as const) {
        const token = await owner.send("POST", "/api/tokens", { name: scope, scopes: [scope] });
        expect(token.status).toBe(201);
        callers.push({ name: `${scope} token`, browser: new Browser(base, token.body.token as string), via: "token", scopes: [scope] });
      }
      callers.push({ name: "nobody", browser: new Browser(base), via: "nobody", scopes: [] });
    });

    afterAll(async () => {
      await running?.close();
      await database?.drop();
    });

    it("every route of the OpenAPI document answers each caller as the access table says", async () => {
      const doc = (await callers[0]!.browser.send("GET", "/api/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
      const routes: Array<{ method: string; path: string }> = [];
      for (const [path, operations] of Object.entries(doc.paths)) {
        for (const method of Object.keys(operations)) routes.push({ method: method.toUpperCase(), path });
      }
      const missing = routes.map((r) => `${r.method} ${r.path}`).filter((key) => !(key in ACCESS));
      expect(missing, "routes without an entry in ACCESS").toEqual([]);
      expect(routes.length).toBeGreaterThanOrEqual(Object.keys(ACCESS).length);
      // Signing out ends the caller's session: last.
      routes.sort((a, b) => Number(a.path === "/api/auth/sign-out") - Number(b.path === "/api/auth/sign-out"));

      const failures: string[] = [];
      for (const [index, route] of routes.entries()) {
        const key = `${route.method} ${route.path}`;
        const access = ACCESS[key]!;
        // Each route's requests come from an address of their own (the server trusts one proxy hop):
        // the refused callers' answers would otherwise add up, over ~70 routes, past the per-address
        // limit of failed authentications (tested on its own in people.case.ts) and turn into 429s.
        const from = { headers: { "x-forwarded-for": `198.51.${String(100 + Math.floor(index / 250))}.${String((index % 250) + 1)}` } };
        for (const caller of callers) {
          const { path, body } = requestFor(route.method, route.path);
          const answer = await caller.browser.send(route.method, path, body, from);
          const expectAllowed = allowed(access, caller);
          const ok = expectAllowed
            ? answer.status !== 401 && answer.status !== 403 && answer.status < 500
            : caller.via === "nobody"
              ? answer.status === 401 && answer.body?.code === "unauthenticated"
              : answer.status === 403 && answer.body?.code === "insufficient_scope";
          if (!ok) failures.push(`${key} as ${caller.name}: expected ${expectAllowed ? "allowed" : "refused"}, got ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 200)}`);
        }
      }
      expect(failures).toEqual([]);
    });

    function requestFor(method: string, template: string): { path: string; body: unknown } {
      const collection = template.split("/")[2] ?? "";
      // The owner-only organization routes get another organization's id: an owner is let
      // through (and answered 404), nothing is deleted.
      const org = template === "/api/orgs/{orgId}" && method === "DELETE" ? foreignOrgId : template.endsWith("/transfer-ownership") ? foreignOrgId : orgId;
      const path = template
        .replace("{orgId}", org)
        .replace("{userId}", unknownId("usr"))
        .replace("{id}", unknownId(ID_PREFIX[collection] ?? "mon"))
        .replace("{diffId}", unknownId("dif"))
        .replace("{snapshotId}", unknownId("snp"))
        .replace("{deliveryId}", unknownId(collection === "channels" ? "cdl" : "dlv"));
      if (method === "GET" || method === "DELETE" || method === "HEAD") return { path, body: undefined };
      if (template === "/api/auth/org") return { path, body: { orgId } };
      // The right current password and a weak new one: past authorization, refused by the policy (422), nothing changed.
      if (template === "/api/auth/password") return { path, body: { currentPassword: STRONG, newPassword: "short" } };
      if (template === "/api/auth/sign-out" || template.endsWith("/check") || template.endsWith("/retry") || template.endsWith("/rotate-secret")) {
        return { path, body: undefined };
      }
      return { path, body: {} };
    }
  });
}
