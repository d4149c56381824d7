// /api/auth/*: first-run setup, sign-in and sign-out, who am I, switching organization and
// changing one's password (docs/people.md).
import {
  changePassword,
  completeSetup,
  endSession,
  isSetupOpen,
  SESSION_COOKIE,
  signIn,
  switchOrganization,
} from "@driftwatch/people";
import {
  MeSchema,
  PasswordChangeRequestSchema,
  ROLE_SCOPES,
  SessionSchema,
  SetupRequestSchema,
  SetupStatusSchema,
  SignInRequestSchema,
  SwitchOrgRequestSchema,
} from "@driftwatch/schema";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { authOf, requireSession } from "../http/auth.js";
import { addressKey } from "../http/client-address.js";
import { actorOf, assertNotCrossOrigin, clearSessionCookie, originOf, type PeopleContext, presentMe, startSession } from "../people/context.js";
import { problems, security } from "./common.js";

const tags = ["auth"];

export function registerAuthRoutes(app: FastifyInstance, people: PeopleContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = people;

  r.get(
    "/api/auth/setup",
    { schema: { tags, summary: "Whether first-run setup is open (no user exists yet)", response: { 200: SetupStatusSchema, ...problems() } } },
    async () => ({ open: await isSetupOpen(people) }),
  );

  r.post(
    "/api/auth/setup",
    {
      schema: {
        tags,
        summary: "Create the first owner with the setup link's token",
        description:
          "Open while no user exists. `token` is the secret of the setup link `driftwatch serve` prints. Creates the user as owner of the " +
          "bootstrap organization (renamed to orgName when given) and signs them in (Set-Cookie).",
        body: SetupRequestSchema,
        response: { 201: SessionSchema, ...problems(409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      assertNotCrossOrigin(people, request);
      const { user, orgId } = await completeSetup(people, originOf(request), request.body);
      return reply.code(201).send(await startSession(people, request, reply, user, orgId));
    },
  );

  r.post(
    "/api/auth/sign-in",
    {
      schema: {
        tags,
        summary: "Sign in with email and password",
        description:
          "Sets the session cookie (dw_session: HttpOnly, SameSite=Lax, Secure over TLS) with a new session id. Wrong email or password: 401 " +
          "invalid_credentials. Failed attempts are limited per account and per client address (429 with Retry-After).",
        body: SignInRequestSchema,
        response: { 200: SessionSchema, ...problems(404, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { email, password, orgId } = request.body;
      assertNotCrossOrigin(people, request);
      const { user, membership: target } = await signIn(people, originOf(request), { email, password, orgId, address: addressKey(request.ip) });
      return startSession(people, request, reply, user, target.orgId);
    },
  );

  r.post(
    "/api/auth/sign-out",
    {
      config: { scope: "any" },
      schema: {
        tags,
        security,
        summary: "Sign out: revoke the session and clear its cookie",
        description: "For a token-authenticated request there is no session: nothing changes.",
        response: { 204: z.null(), ...problems() },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      if (auth.via === "session") {
        clearSessionCookie(request, reply);
        await endSession(people, originOf(request), { id: auth.session.id, userId: auth.userId, orgId: auth.orgId });
      }
      return reply.code(204).send(null);
    },
  );

  r.get(
    "/api/auth/me",
    {
      config: { scope: "any", rateLimit: "read" },
      schema: { tags, security, summary: "Who is calling: the user and organization, role, scopes and the CSRF token", response: { 200: MeSchema, ...problems() } },
    },
    async (request) => presentMe(store, authOf(request)),
  );

  r.post(
    "/api/auth/org",
    {
      config: { scope: "any", caller: "session" },
      schema: {
        tags,
        security,
        summary: "Switch the session's active organization",
        body: SwitchOrgRequestSchema,
        response: { 200: MeSchema, ...problems(404, 413, 415, 422) },
      },
    },
    async (request) => {
      const auth = requireSession(authOf(request));
      const membership = await switchOrganization(people, auth.session, request.body.orgId);
      return presentMe(store, { ...auth, orgId: membership.orgId, role: membership.role, scopes: ROLE_SCOPES[membership.role] });
    },
  );

  r.post(
    "/api/auth/password",
    {
      config: { scope: "any", caller: "session" },
      schema: {
        tags,
        security,
        summary: "Change your password (ends your other sessions)",
        body: PasswordChangeRequestSchema,
        response: { 204: z.null(), ...problems(413, 415, 422) },
      },
    },
    async (request, reply) => {
      const auth = requireSession(authOf(request));
      await changePassword(people, originOf(request), {
        userId: auth.userId,
        currentPassword: request.body.currentPassword,
        newPassword: request.body.newPassword,
        keepSessionId: auth.session.id,
        orgId: auth.orgId,
        actor: actorOf(auth),
        address: addressKey(request.ip),
      });
      return reply.code(204).send(null);
    },
  );

  // An ended or unknown session cookie is cleared when it failed to authenticate a request.
  app.addHook("onSend", async (request, reply, payload) => {
    const authFailed = reply.statusCode === 401 && request.auth === null && request.routeOptions.config.scope !== undefined;
    if (authFailed && request.cookies?.[SESSION_COOKIE] !== undefined && request.headers.authorization === undefined) {
      clearSessionCookie(request, reply);
    }
    return payload;
  });
}
