import { PageQuerySchema, pageSchema, TokenCreateSchema, TokenSchema } from "@driftwatch/schema";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { authOf } from "../http/auth.js";
import { notFound } from "../http/problem.js";
import { generateTokenSecret, hashTokenSecret } from "@driftwatch/engine";
import type { AppDependencies } from "../types.js";
import { pageOf, problems, security, TokenParams } from "./common.js";
import { presentToken } from "./present.js";

const TokenWithSecretSchema = TokenSchema.extend({ token: z.string() });

/**
 * Token management: every route needs the `admin` scope. `onRevoked` runs after a token is
 * revoked here, so the authenticator's cache refuses it at once.
 */
export function registerTokenRoutes(app: FastifyInstance, deps: AppDependencies, now: () => Date, onRevoked: (tokenId: string) => void): void {
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
      const { orgId } = authOf(request);
      const secret = generateTokenSecret();
      const token = await store.createToken(orgId, {
        name: request.body.name,
        scopes: [...new Set(request.body.scopes)],
        tokenHash: hashTokenSecret(secret),
      });
      return reply.code(201).send({ ...presentToken(token), token: secret });
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
      const token = await store.revokeToken(authOf(request).orgId, request.params.id, now().toISOString());
      if (token === null) throw notFound("token");
      onRevoked(token.id);
      return reply.code(204).send(null);
    },
  );
}
