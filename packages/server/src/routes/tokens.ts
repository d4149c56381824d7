import { PageQuerySchema, pageSchema, TokenCreateSchema, TokenSchema } from "@driftwatch/schema";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { authOf } from "../http/auth.js";
import { notFound } from "../http/problem.js";
import { generateTokenSecret, hashTokenSecret } from "@driftwatch/engine";
import { actorOf, audit, type PeopleContext } from "../people/context.js";
import type { AppDependencies } from "../types.js";
import { pageOf, problems, security, TokenParams } from "./common.js";
import { presentToken } from "./present.js";

const TokenWithSecretSchema = TokenSchema.extend({ token: z.string() });

/**
 * Token management: every route needs the `admin` scope. `onRevoked` runs after a token is
 * revoked here, so the authenticator's cache refuses it at once.
 */
export function registerTokenRoutes(app: FastifyInstance, deps: AppDependencies, people: PeopleContext, onRevoked: (tokenId: string) => void): void {
  const { now } = people;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = deps;
  const tags = ["tokens"];

  r.post(
    "/api/tokens",
    {
      config: { scope: "admin" },
      schema: {
        tags,
        security,
        summary: "Create an API token",
        description: "The response carries the secret (token), shown only once; the server stores only its hash.",
        body: TokenCreateSchema,
        response: { 201: TokenWithSecretSchema, ...problems(413, 415, 422) },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const secret = generateTokenSecret();
      // The member responsible: the signed-in user, or the one whose token this call came with.
      const createdBy = auth.via === "session" ? auth.userId : ((await store.getToken(auth.orgId, auth.tokenId))?.createdBy ?? null);
      const token = await store.createToken(auth.orgId, {
        name: request.body.name,
        scopes: [...new Set(request.body.scopes)],
        tokenHash: hashTokenSecret(secret),
        createdBy,
      });
      await audit(people, request, auth.orgId, actorOf(auth), "token.created", token.id, { name: token.name, scopes: token.scopes });
      return reply
        .code(201)
        .header("location", `/api/tokens/${encodeURIComponent(token.id)}`)
        .send({ ...presentToken(token), token: secret });
    },
  );

  r.get(
    "/api/tokens",
    {
      config: { scope: "admin" },
      schema: { tags, security, summary: "List API tokens (revoked ones included)", querystring: PageQuerySchema, response: { 200: pageSchema(TokenSchema), ...problems() } },
    },
    async (request) => {
      const page = await store.listTokens(authOf(request).orgId, pageOf(request.query));
      return { data: page.data.map((t) => presentToken(t)), nextCursor: page.nextCursor };
    },
  );

  r.get(
    "/api/tokens/:id",
    {
      config: { scope: "admin" },
      schema: { tags, security, summary: "Get an API token", params: TokenParams, response: { 200: TokenSchema, ...problems(404) } },
    },
    async (request) => {
      const token = await store.getToken(authOf(request).orgId, request.params.id);
      if (token === null) throw notFound("token");
      return presentToken(token);
    },
  );

  r.delete(
    "/api/tokens/:id",
    {
      config: { scope: "admin" },
      schema: { tags, security, summary: "Revoke an API token", params: TokenParams, response: { 204: z.null(), ...problems(404) } },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const before = await store.getToken(auth.orgId, request.params.id);
      const token = await store.revokeToken(auth.orgId, request.params.id, now().toISOString());
      if (token === null) throw notFound("token");
      onRevoked(token.id);
      if (before !== null && before.revokedAt === null) await audit(people, request, auth.orgId, actorOf(auth), "token.revoked", token.id, { name: token.name });
      return reply.code(204).send(null);
    },
  );
}
