// /api/orgs/{orgId}: the organization, its members and the transfer of ownership
// (docs/people.md). `{orgId}` other than the caller's organization is 404, as every foreign id.
import { changeMemberRole, deleteOrganization, type OrgCaller, removeMember, transferOwnership, updateOrganization } from "@driftwatch/people";
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
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthContext, authOf, requireOwnerSession } from "../http/auth.js";
import { ApiError } from "../http/problem.js";
import { actorOf, orgOf, originOf, type PeopleContext, presentMember, presentOrg } from "../people/context.js";
import { pageOf, problems, security } from "./common.js";

const OrgParams = z.strictObject({ orgId: idSchema("organization") });
const MemberParams = z.strictObject({ orgId: idSchema("organization"), userId: idSchema("user") });
const tags = ["members"];

/** The caller's organization, or 404 for any other id. */
function ownOrg(auth: AuthContext, orgId: string): string {
  if (orgId !== auth.orgId) throw new ApiError("not_found", "No organization with this id exists.");
  return orgId;
}

/** The caller as the people domain judges it (a token has no user and no role). */
function callerOf(auth: AuthContext): OrgCaller {
  return auth.via === "session"
    ? { actor: actorOf(auth), userId: auth.userId, role: auth.role, admin: auth.scopes.includes("admin") }
    : { actor: actorOf(auth), userId: null, role: null, admin: auth.scopes.includes("admin") };
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
          "from their own snapshots and apply it. learningDefaults ({ warmupSamples: 0..5, learningSamples: 2..10 }, null: the service's " +
          "defaults) is the learning setting new monitors start with (docs/signal.md). Changing either leaves existing monitors as they are.",
        params: OrgParams,
        body: OrgUpdateSchema,
        response: { 200: OrgSchema, ...problems(404, 413, 415, 422) },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const org = await updateOrganization(people, originOf(request), actorOf(auth), ownOrg(auth, request.params.orgId), request.body);
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
      await deleteOrganization(people, orgId);
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
      const member = await changeMemberRole(people, originOf(request), callerOf(auth), orgId, request.params.userId, request.body.role, { onTokensRevoked: onDeleted });
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
      await removeMember(people, originOf(request), callerOf(auth), orgId, request.params.userId, { onTokensRevoked: onDeleted });
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
      return presentMember(await transferOwnership(people, originOf(request), { actor: actorOf(auth), userId: auth.userId }, orgId, request.body.userId, { onTokensRevoked: onDeleted }));
    },
  );
}
