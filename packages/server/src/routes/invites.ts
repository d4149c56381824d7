// /api/invites: invitations by email (docs/people.md). The link carries a random secret (its
// sha256 is stored), works once and expires; accepting creates the user or adds the membership.
import { acceptInvitation, createInvitation, listInvitations, revokeInvitation, usableInvitation } from "@driftwatch/people";
import {
  idSchema,
  InviteAcceptRequestSchema,
  InviteCreatedSchema,
  InviteCreateSchema,
  InviteLookupQuerySchema,
  InviteLookupSchema,
  InviteSchema,
  PageQuerySchema,
  pageSchema,
  SessionSchema,
} from "@driftwatch/schema";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { authOf } from "../http/auth.js";
import { addressKey } from "../http/client-address.js";
import { actorOf, assertNotCrossOrigin, linkBase, orgOf, originOf, type PeopleContext, presentInvite, startSession } from "../people/context.js";
import { pageOf, problems, security } from "./common.js";

const InviteParams = z.strictObject({ id: idSchema("invite") });
const tags = ["invites"];

export function registerInviteRoutes(app: FastifyInstance, people: PeopleContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = people;

  r.post(
    "/api/invites",
    {
      config: { scope: "admin" },
      schema: {
        tags,
        security,
        summary: "Invite someone by email (admin; only owners invite owners)",
        description:
          "The answer carries the invitation link (shown only here). When SMTP is configured the link is mailed too; a mail failure does not fail " +
          "the request (invite.mailed is false).",
        body: InviteCreateSchema,
        response: { 201: InviteCreatedSchema, ...problems(413, 415, 422) },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const by = auth.via === "session" ? { actor: actorOf(auth), userId: auth.userId, role: auth.role } : { actor: actorOf(auth), userId: null, role: null };
      const { invite, url, mailed } = await createInvitation(people, originOf(request), by, {
        orgId: auth.orgId,
        email: request.body.email,
        role: request.body.role,
        linkBase: linkBase(people, request),
      });
      return reply.code(201).send({ invite: { ...presentInvite(invite, people.now()), mailed }, url });
    },
  );

  r.get(
    "/api/invites",
    {
      config: { scope: "admin" },
      schema: { tags, security, summary: "List invitations (admin)", querystring: PageQuerySchema, response: { 200: pageSchema(InviteSchema), ...problems() } },
    },
    async (request) => {
      const page = await listInvitations(people, authOf(request).orgId, pageOf(request.query));
      const at = people.now();
      return { data: page.data.map((i) => presentInvite(i, at)), nextCursor: page.nextCursor };
    },
  );

  r.delete(
    "/api/invites/:id",
    {
      config: { scope: "admin" },
      schema: { tags, security, summary: "Revoke an invitation (admin)", params: InviteParams, response: { 200: InviteSchema, ...problems(404) } },
    },
    async (request) => {
      const auth = authOf(request);
      const invite = await revokeInvitation(people, originOf(request), actorOf(auth), auth.orgId, request.params.id);
      return presentInvite(invite, people.now());
    },
  );

  r.get(
    "/api/invites/lookup",
    {
      schema: {
        tags,
        summary: "What an invitation link offers (no auth)",
        querystring: InviteLookupQuerySchema,
        response: { 200: InviteLookupSchema, ...problems(404, 410) },
      },
    },
    async (request) => {
      const invite = await usableInvitation(people, request.query.token);
      const org = await orgOf(store, invite.orgId);
      return {
        email: invite.email,
        role: invite.role,
        org: { id: org.id, slug: org.slug, name: org.name },
        expiresAt: invite.expiresAt,
        userExists: (await store.getUserByEmail(invite.email)) !== null,
      };
    },
  );

  r.post(
    "/api/invites/accept",
    {
      schema: {
        tags,
        summary: "Accept an invitation (no auth): creates the user or adds the membership, and signs in",
        description: "A new email needs displayName and a password that passes the policy; an existing user confirms with their password.",
        body: InviteAcceptRequestSchema,
        response: { 200: SessionSchema, ...problems(404, 409, 410, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      assertNotCrossOrigin(people, request);
      const { user, orgId } = await acceptInvitation(people, originOf(request), { ...request.body, address: addressKey(request.ip) });
      return startSession(people, request, reply, user, orgId);
    },
  );
}
