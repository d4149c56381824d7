// /api/auth/*: first-run setup, sign-in and sign-out, who am I, switching organization and
// changing one's password (docs/people.md).
import { normalizeEmail, type UserRecord } from "@driftwatch/core";
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
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { authOf, requireSession } from "../http/auth.js";
import { addressKey } from "../http/client-address.js";
import { ApiError } from "../http/problem.js";
import { actorOf, assertNotCrossOrigin, audit, clearSessionCookie, type PeopleContext, presentMe, startSession } from "../people/context.js";
import { assertPasswordPolicy, hashPassword, hashSecret, isSetupInvite, needsRehash, SESSION_COOKIE, verifyPassword } from "@driftwatch/people";
import { problems, security } from "./common.js";

const tags = ["auth"];
const invalidCredentials = (): ApiError => new ApiError("invalid_credentials", "The email or the password is wrong.");

/**
 * Checks a password under the sign-in limits (per account and per address): a refusal before any
 * hashing when over a limit, the same answer and the same work for an unknown email as for a
 * wrong password.
 */
export async function checkPassword(people: PeopleContext, request: FastifyRequest, email: string, password: string): Promise<UserRecord | null> {
  const at = people.now().getTime();
  const account = normalizeEmail(email);
  const address = addressKey(request.ip);
  // Counted as a failure from here on (an error on the way leaves it counted) until it succeeds.
  await people.limiter.attempt(account, address, at);
  const user = await people.store.getUserByEmail(account);
  const ok = await verifyPassword(password, user?.passwordHash ?? null, people.scrypt);
  if (!ok || user === null) return null;
  await people.limiter.succeeded(account, address, at);
  if (user.passwordHash !== null && needsRehash(user.passwordHash, people.scrypt)) {
    // Parameters changed since this hash was made: store one with the current parameters.
    await people.store.updateUser(user.id, { passwordHash: await hashPassword(password, people.scrypt), passwordChangedAt: user.passwordChangedAt ?? user.createdAt });
  }
  return user;
}

/** `auth.sign_in_failed` in each organization of the account, when the email is one. */
async function auditFailedSignIn(people: PeopleContext, request: FastifyRequest, email: string): Promise<void> {
  try {
    const known = await people.store.getUserByEmail(normalizeEmail(email));
    if (known === null) return;
    for (const membership of await people.store.listMembershipsOfUser(known.id)) {
      await audit(people, request, membership.orgId, { actorType: "user", actorId: known.id }, "auth.sign_in_failed", known.id, {});
    }
  } catch (error) {
    request.log.error({ err: error }, "could not record the failed sign-in");
  }
}

/**
 * The claim (an idempotency key of the bootstrap organization, atomic in the store) that makes one
 * setup the first owner when several processes on one database take setup requests at once.
 */
const FIRST_OWNER_KEY = "setup:first-owner";
/** A claim of a setup that died half-way is taken over after this long. */
const FIRST_OWNER_CLAIM_MS = 2 * 60_000;

export function registerAuthRoutes(app: FastifyInstance, people: PeopleContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = people;
  /** Setups of this app run one at a time; across processes, the store's first-owner claim decides. */
  let setupQueue: Promise<unknown> = Promise.resolve();

  r.get(
    "/api/auth/setup",
    { schema: { tags, summary: "Whether first-run setup is open (no user exists yet)", response: { 200: SetupStatusSchema, ...problems() } } },
    async () => ({ open: (await store.countUsers()) === 0 }),
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
      const run = setupQueue.then(async () => {
        const body = request.body;
        if ((await store.countUsers()) > 0) throw new ApiError("setup_closed", "Setup is done: an account exists. Sign in instead.");
        const invite = await store.findInviteByHash(hashSecret(body.token));
        const at = people.now();
        if (invite === null || !isSetupInvite(invite) || invite.acceptedAt !== null || invite.revokedAt !== null || Date.parse(invite.expiresAt) <= at.getTime()) {
          throw new ApiError("invalid_token", "This setup link is not valid (it expired or was used): restart driftwatch serve for a new one.");
        }
        await assertPasswordPolicy(body.password, body.email);
        const passwordHash = await hashPassword(body.password, people.scrypt);
        // One first owner across every process on the database: whoever claims first sets up; the
        // others (another link, or the same link twice) are refused before they create anybody.
        const claim = await store.claimIdempotencyKey(invite.orgId, {
          key: FIRST_OWNER_KEY,
          requestHash: FIRST_OWNER_KEY,
          now: at.toISOString(),
          expiresAt: new Date(at.getTime() + FIRST_OWNER_CLAIM_MS).toISOString(),
        });
        if (claim.state !== "new") throw new ApiError("setup_closed", "Setup is under way or done in another request. Sign in instead.");
        let user: UserRecord;
        try {
          if ((await store.countUsers()) > 0) throw new ApiError("setup_closed", "Setup is done: an account exists. Sign in instead.");
          const current = await store.getInvite(invite.orgId, invite.id);
          if (current === null || current.acceptedAt !== null || current.revokedAt !== null) {
            throw new ApiError("invalid_token", "This setup link was used or replaced meanwhile: use the newest one driftwatch serve printed.");
          }
          user = await store.createUser({ email: normalizeEmail(body.email), displayName: body.displayName, passwordHash, createdAt: at.toISOString() });
        } catch (error) {
          await store.releaseIdempotencyKey(invite.orgId, FIRST_OWNER_KEY).catch(() => undefined);
          throw error;
        }
        // The user is an owner before the link is marked used: nothing can leave them without an organization.
        await store.addMembership(invite.orgId, user.id, "owner", at.toISOString());
        await store.consumeInvite(invite.id, user.id, at.toISOString());
        if (body.orgName !== undefined) await store.updateOrganization(invite.orgId, { name: body.orgName });
        await audit(people, request, invite.orgId, { actorType: "user", actorId: user.id }, "auth.setup", user.id, { email: user.email });
        return startSession(people, request, reply, user, invite.orgId);
      });
      setupQueue = run.catch(() => undefined);
      return reply.code(201).send(await run);
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
      const user = await checkPassword(people, request, email, password);
      if (user === null) {
        // Recorded after the answer is decided and not awaited: a known email must not answer slower than an unknown one.
        void auditFailedSignIn(people, request, email);
        throw invalidCredentials();
      }
      const memberships = await store.listMembershipsOfUser(user.id);
      const target = orgId === undefined ? memberships[0] : memberships.find((m) => m.orgId === orgId);
      if (target === undefined) {
        throw orgId === undefined
          ? new ApiError("insufficient_scope", "Your account belongs to no organization: ask an admin for an invitation.")
          : new ApiError("not_found", "You are not a member of this organization.");
      }
      const session = await startSession(people, request, reply, user, target.orgId);
      await audit(people, request, target.orgId, { actorType: "user", actorId: user.id }, "auth.sign_in", user.id, {});
      return session;
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
        await store.revokeSession(auth.session.id, people.now().toISOString());
        clearSessionCookie(request, reply);
        await audit(people, request, auth.orgId, actorOf(auth), "auth.sign_out", auth.userId, {});
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
      const membership = await store.getMembership(request.body.orgId, auth.userId);
      if (membership === null) throw new ApiError("not_found", "No organization with this id exists among yours.");
      await store.touchSession(auth.session.id, { orgId: membership.orgId, lastSeenAt: people.now().toISOString() });
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
      const user = await store.getUser(auth.userId);
      if (user === null) throw new ApiError("unauthenticated", "Your session has ended: sign in again.");
      if ((await checkPassword(people, request, user.email, request.body.currentPassword)) === null) {
        await audit(people, request, auth.orgId, actorOf(auth), "auth.password_change_failed", user.id, {});
        throw new ApiError("invalid_credentials", "The current password is wrong.");
      }
      await assertPasswordPolicy(request.body.newPassword, user.email, "newPassword");
      const at = people.now().toISOString();
      await store.updateUser(user.id, { passwordHash: await hashPassword(request.body.newPassword, people.scrypt), passwordChangedAt: at });
      await store.revokeUserSessions(user.id, at, auth.session.id);
      await audit(people, request, auth.orgId, actorOf(auth), "auth.password_changed", user.id, {});
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
