// /api/orgs/{orgId}: the organization, its members and the transfer of ownership
// (docs/people.md). `{orgId}` other than the caller's organization is 404, as every foreign id.
import type { Role } from "@driftwatch/core";
import {
  idSchema,
  MemberSchema,
  MemberUpdateSchema,
  OrgSchema,
  OrgUpdateSchema,
  PageQuerySchema,
  pageSchema,
  TransferOwnershipRequestSchema,
} from "@driftwatch/schema";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthContext, authOf, requireOwnerSession } from "../http/auth.js";
import { ApiError } from "../http/problem.js";
import { actorOf, audit, orgOf, type PeopleContext, presentMember, presentOrg } from "../people/context.js";
import { revokeBeyondRights } from "@driftwatch/people";
import { pageOf, problems, security } from "./common.js";

const OrgParams = z.strictObject({ orgId: idSchema("organization") });
const MemberParams = z.strictObject({ orgId: idSchema("organization"), userId: idSchema("user") });
const tags = ["members"];

/** The caller's organization, or 404 for any other id. */
function ownOrg(auth: AuthContext, orgId: string): string {
  if (orgId !== auth.orgId) throw new ApiError("not_found", "No organization with this id exists.");
  return orgId;
}

/** Owners are made, changed and removed only by an owner's session. */
function assertMayTouchOwner(auth: AuthContext, currentRole: Role, nextRole: Role | null): void {
  if (currentRole === "owner" || nextRole === "owner") {
    if (auth.via !== "session" || auth.role !== "owner") {
      throw new ApiError("insufficient_scope", "Only an owner's session can make, change or remove an owner.");
    }
  }
}

/**
 * `onDeleted` runs after an organization is deleted here, or tokens of it are revoked (a member
 * removed or demoted), so cached tokens of it are refused at once.
 */
export function registerOrgRoutes(app: FastifyInstance, people: PeopleContext, onDeleted: (orgId: string) => void): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = people;

  r.get(
    "/api/orgs/:orgId",
    { config: { scope: "any", rateLimit: "read" }, schema: { tags, security, summary: "Get your organization", params: OrgParams, response: { 200: OrgSchema, ...problems(404) } } },
    async (request) => presentOrg(await orgOf(store, ownOrg(authOf(request), request.params.orgId))),
  );

  r.patch(
    "/api/orgs/:orgId",
    {
      config: { scope: "admin" },
      schema: {
        tags,
        security,
        summary: "Rename your organization or change its defaults (admin)",
        description:
          "learnNoiseByDefault (default true) is the autoApplySuggestions setting new monitors start with: they learn their target's noise " +
          "from their own snapshots and apply it. Changing it leaves existing monitors as they are.",
        params: OrgParams,
        body: OrgUpdateSchema,
        response: { 200: OrgSchema, ...problems(404, 413, 415, 422) },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const before = await orgOf(store, ownOrg(auth, request.params.orgId));
      const { name, learnNoiseByDefault } = request.body;
      const org = await store.updateOrganization(before.id, {
        ...(name !== undefined ? { name } : {}),
        ...(learnNoiseByDefault !== undefined ? { learnNoiseByDefault } : {}),
      });
      if (org === null) throw new ApiError("not_found", "No organization with this id exists.");
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      if (before.name !== org.name) changes.name = { from: before.name, to: org.name };
      if (before.learnNoiseByDefault !== org.learnNoiseByDefault) changes.learnNoiseByDefault = { from: before.learnNoiseByDefault, to: org.learnNoiseByDefault };
      await audit(people, request, org.id, actorOf(auth), "org.updated", org.id, changes);
      return presentOrg(org);
    },
  );

  r.delete(
    "/api/orgs/:orgId",
    {
      config: { scope: "admin", caller: "owner" },
      schema: {
        tags,
        security,
        summary: "Delete your organization and everything in it (an owner's session)",
        params: OrgParams,
        response: { 204: z.null(), ...problems(404) },
      },
    },
    async (request, reply) => {
      const auth = requireOwnerSession(authOf(request));
      const orgId = ownOrg(auth, request.params.orgId);
      if (!(await store.deleteOrganization(orgId))) throw new ApiError("not_found", "No organization with this id exists.");
      onDeleted(orgId);
      request.log.info({ orgId, userId: auth.userId }, "organization deleted");
      return reply.code(204).send(null);
    },
  );

  r.get(
    "/api/orgs/:orgId/members",
    {
      config: { scope: "admin" },
      schema: { tags, security, summary: "List the members (admin)", params: OrgParams, querystring: PageQuerySchema, response: { 200: pageSchema(MemberSchema), ...problems(404) } },
    },
    async (request) => {
      const orgId = ownOrg(authOf(request), request.params.orgId);
      const page = await store.listMembers(orgId, pageOf(request.query));
      return { data: page.data.map(presentMember), nextCursor: page.nextCursor };
    },
  );

  r.patch(
    "/api/orgs/:orgId/members/:userId",
    {
      config: { scope: "admin" },
      schema: {
        tags,
        security,
        summary: "Change a member's role (admin; owners only by an owner's session)",
        params: MemberParams,
        body: MemberUpdateSchema,
        response: { 200: MemberSchema, ...problems(404, 409, 413, 415, 422) },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const orgId = ownOrg(auth, request.params.orgId);
      const current = await store.getMembership(orgId, request.params.userId);
      if (current === null) throw new ApiError("not_found", "No member with this id exists.");
      assertMayTouchOwner(auth, current.role, request.body.role);
      await store.setMemberRole(orgId, current.userId, request.body.role);
      const member = await memberOf(orgId, current.userId);
      if (current.role !== member.role) {
        await audit(people, request, orgId, actorOf(auth), "member.role_changed", member.userId, { from: current.role, to: member.role });
        await sweep(request, auth, orgId, member.userId, member.role);
      }
      return presentMember(member);
    },
  );

  r.delete(
    "/api/orgs/:orgId/members/:userId",
    {
      config: { scope: "any" },
      schema: {
        tags,
        security,
        summary: "Remove a member (admin), or leave the organization (yourself)",
        params: MemberParams,
        response: { 204: z.null(), ...problems(404, 409) },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const orgId = ownOrg(auth, request.params.orgId);
      const self = auth.via === "session" && auth.userId === request.params.userId;
      if (!self && !auth.scopes.includes("admin")) throw new ApiError("insufficient_scope", "Removing another member needs the admin role.");
      const current = await store.getMembership(orgId, request.params.userId);
      if (current === null) throw new ApiError("not_found", "No member with this id exists.");
      if (!self) assertMayTouchOwner(auth, current.role, null);
      if (!(await store.removeMembership(orgId, current.userId))) throw new ApiError("not_found", "No member with this id exists.");
      await audit(people, request, orgId, actorOf(auth), "member.removed", current.userId, { role: current.role, self });
      await sweep(request, auth, orgId, current.userId, null);
      return reply.code(204).send(null);
    },
  );

  r.post(
    "/api/orgs/:orgId/transfer-ownership",
    {
      config: { scope: "admin", caller: "owner" },
      schema: {
        tags,
        security,
        summary: "Make another member owner; you become admin (an owner's session)",
        params: OrgParams,
        body: TransferOwnershipRequestSchema,
        response: { 200: MemberSchema, ...problems(404, 409, 413, 415, 422) },
      },
    },
    async (request) => {
      const auth = requireOwnerSession(authOf(request));
      const orgId = ownOrg(auth, request.params.orgId);
      const target = await store.getMembership(orgId, request.body.userId);
      if (target === null) throw new ApiError("not_found", "No member with this id exists.");
      if (target.userId !== auth.userId) {
        // The new owner first: the organization is never without one.
        await store.setMemberRole(orgId, target.userId, "owner");
        await store.setMemberRole(orgId, auth.userId, "admin");
        await audit(people, request, orgId, actorOf(auth), "org.ownership_transferred", target.userId, { from: auth.userId, previousRole: target.role });
        await sweep(request, auth, orgId, auth.userId, "admin");
      }
      return presentMember(await memberOf(orgId, target.userId));
    },
  );

  /**
   * Revokes what the member created beyond their new rights (`role` null: removed) and audits it;
   * the authenticator forgets the organization's cached tokens so that the revoked ones are
   * refused at once.
   */
  async function sweep(request: FastifyRequest, auth: AuthContext, orgId: string, userId: string, role: Role | null): Promise<void> {
    const swept = await revokeBeyondRights(store, orgId, userId, role, people.now());
    if (swept.tokens.length > 0) onDeleted(orgId);
    if (swept.tokens.length > 0 || swept.invites.length > 0) {
      await audit(people, request, orgId, actorOf(auth), "member.rights_revoked", userId, { role, tokens: swept.tokens, invites: swept.invites });
    }
  }

  /** One member with email and name (looked up through the member list's record shape). */
  async function memberOf(orgId: string, userId: string) {
    const [membership, user] = await Promise.all([store.getMembership(orgId, userId), store.getUser(userId)]);
    if (membership === null || user === null) throw new ApiError("not_found", "No member with this id exists.");
    return { ...membership, id: user.id, email: user.email, displayName: user.displayName };
  }
}
