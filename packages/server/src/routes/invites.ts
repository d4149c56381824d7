// /api/invites: invitations by email (docs/people.md). The link carries a random secret (its
// sha256 is stored), works once and expires; accepting creates the user or adds the membership.
import { type InviteRecord, isDriftwatchError, normalizeEmail, type UserRecord } from "@driftwatch/core";
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
import { ApiError } from "../http/problem.js";
import { actorOf, assertNotCrossOrigin, audit, orgOf, type PeopleContext, presentInvite, linkBase, startSession } from "../people/context.js";
import { assertPasswordPolicy, hashPassword, hashSecret, isSetupInvite, isWellFormedSecret, newSecret } from "@driftwatch/people";
import { checkPassword } from "./auth.js";
import { pageOf, problems, security } from "./common.js";

const InviteParams = z.strictObject({ id: idSchema("invite") });
const tags = ["invites"];

/** The invite a link's token names, usable now; 404 unknown, 410 `invite_invalid` used, revoked or expired. */
async function usableInvite(people: PeopleContext, token: string): Promise<InviteRecord> {
  const invite = isWellFormedSecret(token) ? await people.store.findInviteByHash(hashSecret(token)) : null;
  if (invite === null || isSetupInvite(invite)) throw new ApiError("not_found", "No invitation with this link exists.");
  if (invite.acceptedAt !== null) throw new ApiError("invite_invalid", "This invitation was already used.");
  if (invite.revokedAt !== null) throw new ApiError("invite_invalid", "This invitation was revoked.");
  if (Date.parse(invite.expiresAt) <= people.now().getTime()) throw new ApiError("invite_invalid", "This invitation has expired: ask for a new one.");
  return invite;
}

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
      if (request.body.role === "owner" && (auth.via !== "session" || auth.role !== "owner")) {
        throw new ApiError("insufficient_scope", "Only an owner's session can invite an owner.");
      }
      const at = people.now();
      const secret = newSecret();
      const email = normalizeEmail(request.body.email);
      const existing = await store.getUserByEmail(email);
      if (existing !== null && (await store.getMembership(auth.orgId, existing.id)) !== null) {
        throw new ApiError("conflict", "This email belongs to a member of the organization already.");
      }
      const invite = await store.createInvite(auth.orgId, {
        email,
        role: request.body.role,
        tokenHash: hashSecret(secret),
        invitedBy: auth.via === "session" ? auth.userId : null,
        createdAt: at.toISOString(),
        expiresAt: new Date(at.getTime() + people.limits.inviteTtlSeconds * 1000).toISOString(),
      });
      const url = `${linkBase(people, request)}/invite#token=${secret}`;
      let mailed = false;
      if (people.mailer !== null) {
        const org = await orgOf(store, auth.orgId);
        const inviter = auth.via === "session" ? await store.getUser(auth.userId) : null;
        try {
          await people.mailer.sendInvite({ to: email, orgName: org.name, role: invite.role, url, expiresAt: invite.expiresAt, invitedBy: inviter?.displayName ?? null });
          mailed = true;
        } catch (error) {
          request.log.warn({ err: error, inviteId: invite.id }, "could not mail the invitation");
        }
      }
      await audit(people, request, auth.orgId, actorOf(auth), "invite.created", invite.id, { email, role: invite.role, mailed });
      return reply.code(201).send({ invite: { ...presentInvite(invite, at), mailed }, url });
    },
  );

  r.get(
    "/api/invites",
    {
      config: { scope: "admin" },
      schema: { tags, security, summary: "List invitations (admin)", querystring: PageQuerySchema, response: { 200: pageSchema(InviteSchema), ...problems() } },
    },
    async (request) => {
      const page = await store.listInvites(authOf(request).orgId, pageOf(request.query));
      const at = people.now();
      return { data: page.data.filter((i) => !isSetupInvite(i)).map((i) => presentInvite(i, at)), nextCursor: page.nextCursor };
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
      const before = await store.getInvite(auth.orgId, request.params.id);
      if (before === null || isSetupInvite(before)) throw new ApiError("not_found", "No invitation with this id exists.");
      const at = people.now();
      const invite = await store.revokeInvite(auth.orgId, before.id, at.toISOString());
      if (invite === null) throw new ApiError("not_found", "No invitation with this id exists.");
      if (before.revokedAt === null && invite.revokedAt !== null) {
        await audit(people, request, auth.orgId, actorOf(auth), "invite.revoked", invite.id, { email: invite.email });
      }
      return presentInvite(invite, at);
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
      const invite = await usableInvite(people, request.query.token);
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
      const body = request.body;
      assertNotCrossOrigin(people, request);
      const invite = await usableInvite(people, body.token);
      const at = people.now();
      let user: UserRecord | null = await store.getUserByEmail(invite.email);
      let created = false;
      if (user !== null) {
        if ((await checkPassword(people, request, invite.email, body.password)) === null) {
          // every failed proof is audited: in the inviting organization and in the user's own
          for (const orgId of new Set([invite.orgId, ...(await store.listMembershipsOfUser(user.id)).map((m) => m.orgId)])) {
            await audit(people, request, orgId, { actorType: "user", actorId: user.id }, "invite.accept_failed", user.id, { inviteId: invite.id });
          }
          throw new ApiError("invalid_credentials", "The password is wrong for the account of this email.");
        }
        if ((await store.getMembership(invite.orgId, user.id)) !== null) {
          throw new ApiError("conflict", "You are already a member of this organization: sign in instead.");
        }
      } else {
        if (body.displayName === undefined) {
          throw new ApiError("validation_failed", "A new account needs a displayName.", { errors: [{ path: "displayName", message: "is required" }] });
        }
        await assertPasswordPolicy(body.password, invite.email);
        try {
          user = await store.createUser({ email: invite.email, displayName: body.displayName, passwordHash: await hashPassword(body.password, people.scrypt), createdAt: at.toISOString() });
          created = true;
        } catch (error) {
          if (isDriftwatchError(error) && error.code === "conflict") throw new ApiError("conflict", "An account with this email was created meanwhile: accept again with its password.");
          throw error;
        }
      }
      if ((await store.consumeInvite(invite.id, user.id, at.toISOString())) === null) {
        throw new ApiError("invite_invalid", "This invitation was used, revoked or expired meanwhile.");
      }
      try {
        await store.addMembership(invite.orgId, user.id, invite.role, at.toISOString());
      } catch (error) {
        if (isDriftwatchError(error) && error.code === "conflict") throw new ApiError("conflict", "You are already a member of this organization.");
        throw error;
      }
      const actor = { actorType: "user" as const, actorId: user.id };
      await audit(people, request, invite.orgId, actor, "invite.accepted", invite.id, { email: invite.email, newUser: created });
      await audit(people, request, invite.orgId, actor, "member.added", user.id, { role: invite.role, inviteId: invite.id });
      return startSession(people, request, reply, user, invite.orgId);
    },
  );
}
