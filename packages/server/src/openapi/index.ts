import fastifySwagger, { type SwaggerTransform } from "@fastify/swagger";
import {
  API_VERSION,
  ApiDiffSchema,
  AuditEntrySchema,
  InviteSchema,
  MemberSchema,
  MeSchema,
  OrgSchema,
  SessionSchema,
  BrowserOptionsSchema,
  ChangeSchema,
  ChannelDeliverySchema,
  ChannelSchema,
  DeliverySchema,
  MonitorSchema,
  NoiseProfileSchema,
  PolicyEvidenceSchema,
  PolicyRulesSchema,
  ProblemSchema,
  SettingsSchema,
  SnapshotSchema,
  TokenSchema,
  WebhookSchema,
  WebsiteDiffSchema,
} from "@driftwatch/schema";
import type { FastifyInstance } from "fastify";
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from "fastify-type-provider-zod";
import { z } from "zod";

/**
 * Named schemas: they become `components.schemas` and are referenced, not repeated. A registry
 * of our own (never zod's global one, which embedders may use too).
 */
const registry = z.registry<{ id: string }>();
for (const [id, schema] of Object.entries({
  Monitor: MonitorSchema,
  BrowserOptions: BrowserOptionsSchema,
  Snapshot: SnapshotSchema,
  Change: ChangeSchema,
  ApiDiff: ApiDiffSchema,
  WebsiteDiff: WebsiteDiffSchema,
  PolicyRules: PolicyRulesSchema,
  Settings: SettingsSchema,
  NoiseProfile: NoiseProfileSchema,
  PolicyEvidence: PolicyEvidenceSchema,
  Webhook: WebhookSchema,
  Delivery: DeliverySchema,
  Channel: ChannelSchema,
  ChannelDelivery: ChannelDeliverySchema,
  Token: TokenSchema,
  Me: MeSchema,
  Session: SessionSchema,
  Org: OrgSchema,
  Member: MemberSchema,
  Invite: InviteSchema,
  AuditEntry: AuditEntrySchema,
  Problem: ProblemSchema,
})) {
  registry.add(schema, { id });
}
const jsonSchemaTransform = createJsonSchemaTransform({ schemaRegistry: registry });
const jsonSchemaTransformObject = createJsonSchemaTransformObject({ schemaRegistry: registry });

const PROBLEM_DESCRIPTIONS: Record<string, string> = {
  "400": "Bad request: invalid_json or invalid_request",
  "401": "unauthenticated (no token or session), invalid_token or invalid_credentials",
  "403": "insufficient_scope, or csrf_failed (a signed-in write without the CSRF header or from another origin)",
  "404": "not_found (also another organization's resource)",
  "409": "conflict, idempotency_key_reused, last_owner or setup_closed",
  "410": "invite_invalid: the invitation was used, revoked or expired",
  "413": "payload_too_large",
  "415": "unsupported_media_type",
  "422": "validation_failed, invalid_browser_options, invalid_policy_rules, invalid_track, invalid_conditions, unsafe_url, weak_password, unknown_secret, invalid_channel_url or invalid_template",
  "429": "rate_limited (see Retry-After)",
  "500": "internal_error",
  "502": "unavailable: the checked or rendered target failed (see reason; browser_step_failed also gives step)",
  "503": "unavailable, or secret_key_missing (no server key to seal a secret)",
};

/** Routes whose 201 carries `Location` (the new resource's path). */
const CREATED_WITH_LOCATION = new Set(["/api/monitors", "/api/webhooks", "/api/channels", "/api/tokens"]);

/**
 * The zod transform, with error responses documented as RFC 9457 problems
 * (`application/problem+json`) instead of the default `application/json`.
 */
const transform: SwaggerTransform = (input) => {
  const out = jsonSchemaTransform(input as Parameters<typeof jsonSchemaTransform>[0]) as { schema: Record<string, unknown>; url: string };
  const response = out.schema?.response as Record<string, unknown> | undefined;
  if (response !== undefined) {
    // Image routes (a snapshot's screenshot, a failed step's page) answer the image's bytes.
    if (/\/(screenshot|failure-screenshot)$/.test(out.url) && response["200"] !== undefined) {
      const binary = { schema: { type: "string", format: "binary" } };
      response["200"] = { description: "The image", content: { "image/png": binary, "image/webp": binary } };
    }
    // A collection's POST names what it created in Location (see createdLocation).
    if (response["201"] !== undefined && CREATED_WITH_LOCATION.has(out.url)) {
      response["201"] = {
        description: "Created",
        headers: { Location: { type: "string", description: `The new resource's path (${out.url}/{id})` } },
        content: { "application/json": { schema: response["201"] } },
      };
    }
    for (const [status, schema] of Object.entries(response)) {
      if (Number(status) < 400) continue;
      response[status] = {
        description: PROBLEM_DESCRIPTIONS[status] ?? "Problem",
        content: { "application/problem+json": { schema } },
      };
    }
  }
  return out as ReturnType<SwaggerTransform>;
};

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
          cookieAuth: {
            type: "apiKey",
            in: "cookie",
            name: "dw_session",
            description:
              "A browser session (POST /api/auth/sign-in). Writes also need the x-driftwatch-csrf header (the csrfToken of the session) and a same-origin Origin header.",
          },
        },
      },
      tags: [
        { name: "monitors", description: "Monitors, their diffs, snapshots and settings" },
        { name: "webhooks", description: "Webhook endpoints, deliveries and the delivery worker" },
        { name: "channels", description: "Notification channels (Slack, Discord, e-mail, ... by Apprise URL), their messages and test sends" },
        { name: "tokens", description: "API tokens (admin scope)" },
        { name: "auth", description: "First-run setup, sign-in and sign-out, the caller, password changes" },
        { name: "members", description: "Your organization and its members (roles: viewer, member, admin, owner)" },
        { name: "invites", description: "Invitations by email: single-use links with an expiry" },
        { name: "audit", description: "The audit log (admin)" },
        { name: "secrets", description: "Secrets browser steps use by name (values are write-only, sealed with the server key)" },
        { name: "system", description: "Health, readiness, metrics and this document" },
      ],
    },
    transform,
    transformObject: jsonSchemaTransformObject,
  });
}
