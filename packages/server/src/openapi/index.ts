import fastifySwagger from "@fastify/swagger";
import { API_VERSION } from "@driftwatch/schema";
import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";

/**
 * Registers @fastify/swagger so that `/api/openapi.json` is an OpenAPI 3.1 document generated
 * from the routes' zod schemas (the same schemas that validate requests).
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "driftwatch API",
        version: API_VERSION,
        description:
          "Monitors JSON APIs and web pages, records structured diffs and delivers signed diff.detected webhooks. " +
          "Errors are RFC 9457 problems (application/problem+json) with a machine-readable code and the requestId.",
        license: { name: "MIT", identifier: "MIT" },
      },
      servers: [{ url: "/" }],
      components: {
        securitySchemes: {
          bearerAuth: { type: "http", scheme: "bearer", description: "An API token: dw_ followed by 43 base64url characters." },
        },
      },
      tags: [
        { name: "monitors", description: "Monitors, their diffs, snapshots and settings" },
        { name: "webhooks", description: "Webhook endpoints, deliveries and the delivery worker" },
        { name: "tokens", description: "API tokens (admin scope)" },
        { name: "system", description: "Health, readiness, metrics and this document" },
      ],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
}
