import { generateWebhookSecret, type Store, type WebhookPatch } from "@driftwatch/core";
import { rotateWebhookSecret } from "@driftwatch/engine";
import {
  DeliverySchema,
  idSchema,
  isId,
  PageQuerySchema,
  pageSchema,
  WebhookCreateSchema,
  WebhookSchema,
  WebhookUpdateSchema,
  WorkerRunRequestSchema,
  WorkerRunResultSchema,
  type ProblemFieldError,
} from "@driftwatch/schema";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { authOf } from "../http/auth.js";
import { withIdempotency } from "../http/idempotency.js";
import { ApiError, notFound } from "../http/problem.js";
import { optionalBody } from "../http/validation.js";
import { actorOf, audit, type PeopleContext } from "../people/context.js";
import type { AppDependencies } from "../types.js";
import { assertSafeUrl, pageOf, problems, security, WebhookParams } from "./common.js";
import { presentDelivery, presentWebhook } from "./present.js";

const DeliveryParams = z.strictObject({ id: idSchema("webhook"), deliveryId: idSchema("delivery") });
const WebhookWithSecretSchema = WebhookSchema.extend({ secret: z.string() });

/** `monitorIds` must name monitors of the caller's organization. */
async function checkMonitorIds(store: Store, orgId: string, monitorIds: readonly string[] | null | undefined): Promise<void> {
  if (monitorIds == null) return;
  const errors: ProblemFieldError[] = [];
  for (const [index, id] of monitorIds.entries()) {
    if (!isId("monitor", id)) errors.push({ path: `monitorIds[${index}]`, message: "must be a mon_ identifier" });
    else if ((await store.getMonitor(orgId, id)) === null) errors.push({ path: `monitorIds[${index}]`, message: "no monitor with this id exists" });
  }
  if (errors.length > 0) throw new ApiError("validation_failed", "monitorIds names monitors that do not exist.", { errors });
}

export function registerWebhookRoutes(app: FastifyInstance, deps: AppDependencies, people: PeopleContext, now: () => Date): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = deps;
  const tags = ["webhooks"];

  r.post(
    "/api/webhooks",
    {
      config: { scope: "webhooks:write" },
      schema: {
        tags,
        security,
        summary: "Create a webhook endpoint",
        description:
          "The response carries the signing secret (whsec_...), shown only here and on rotate-secret. A replay of the same Idempotency-Key answers the webhook without `secret` (it is shown once): rotate the secret if the first response was lost.",
        body: WebhookCreateSchema,
        response: { 201: WebhookWithSecretSchema, ...problems(409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { orgId } = authOf(request);
      const body = request.body;
      return withIdempotency(store, request, reply, orgId, now(), async () => {
        await checkMonitorIds(store, orgId, body.monitorIds);
        await assertSafeUrl(deps.urlGuard, body.url);
        const secret = generateWebhookSecret();
        const webhook = await store.createWebhook(orgId, {
          url: body.url,
          description: body.description,
          events: [...new Set(body.events)],
          monitorIds: body.monitorIds === null ? null : [...new Set(body.monitorIds)],
          minSeverity: body.minSeverity,
          enabled: body.enabled,
          secret,
        });
        // A replay (same Idempotency-Key) answers without the secret: it is shown once only.
        return { status: 201, body: { ...presentWebhook(webhook), secret }, replayBody: presentWebhook(webhook) };
      });
    },
  );

  r.get(
    "/api/webhooks",
    {
      config: { scope: "webhooks:read" },
      schema: { tags, security, summary: "List webhook endpoints", querystring: PageQuerySchema, response: { 200: pageSchema(WebhookSchema), ...problems() } },
    },
    async (request) => {
      const page = await store.listWebhooks(authOf(request).orgId, pageOf(request.query));
      return { data: page.data.map((w) => presentWebhook(w)), nextCursor: page.nextCursor };
    },
  );

  r.get(
    "/api/webhooks/:id",
    {
      config: { scope: "webhooks:read" },
      schema: { tags, security, summary: "Get a webhook endpoint", params: WebhookParams, response: { 200: WebhookSchema, ...problems(404) } },
    },
    async (request) => {
      const webhook = await store.getWebhook(authOf(request).orgId, request.params.id);
      if (webhook === null) throw notFound("webhook");
      return presentWebhook(webhook);
    },
  );

  r.patch(
    "/api/webhooks/:id",
    {
      config: { scope: "webhooks:write" },
      schema: {
        tags,
        security,
        summary: "Update a webhook endpoint",
        params: WebhookParams,
        body: WebhookUpdateSchema,
        response: { 200: WebhookSchema, ...problems(404, 413, 415, 422) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      const current = await store.getWebhook(orgId, request.params.id);
      if (current === null) throw notFound("webhook");
      const body = request.body;
      await checkMonitorIds(store, orgId, body.monitorIds);
      if (body.url !== undefined && body.url !== current.url) await assertSafeUrl(deps.urlGuard, body.url);
      const patch: WebhookPatch = { updatedAt: now().toISOString() };
      if (body.url !== undefined) patch.url = body.url;
      if (body.description !== undefined) patch.description = body.description;
      if (body.events !== undefined) patch.events = [...new Set(body.events)];
      if (body.monitorIds !== undefined) patch.monitorIds = body.monitorIds === null ? null : [...new Set(body.monitorIds)];
      if (body.minSeverity !== undefined) patch.minSeverity = body.minSeverity;
      if (body.enabled !== undefined) patch.enabled = body.enabled;
      const updated = await store.updateWebhook(orgId, current.id, patch);
      if (updated === null) throw notFound("webhook");
      return presentWebhook(updated);
    },
  );

  r.delete(
    "/api/webhooks/:id",
    {
      config: { scope: "webhooks:write" },
      schema: { tags, security, summary: "Delete a webhook endpoint and its deliveries", params: WebhookParams, response: { 204: z.null(), ...problems(404) } },
    },
    async (request, reply) => {
      if (!(await store.deleteWebhook(authOf(request).orgId, request.params.id))) throw notFound("webhook");
      return reply.code(204).send(null);
    },
  );

  r.post(
    "/api/webhooks/:id/rotate-secret",
    {
      config: { scope: "webhooks:write" },
      schema: {
        tags,
        security,
        summary: "Rotate the signing secret",
        description: "Returns the new secret. For 24 hours deliveries carry signatures by both the new and the previous secret.",
        params: WebhookParams,
        body: optionalBody(z.strictObject({})),
        response: { 200: WebhookWithSecretSchema, ...problems(404) },
      },
    },
    async (request) => {
      const rotated = await rotateWebhookSecret(store, authOf(request).orgId, request.params.id, { now: now() });
      if (rotated === null) throw notFound("webhook");
      return { ...presentWebhook(rotated.webhook), secret: rotated.secret };
    },
  );

  r.get(
    "/api/webhooks/:id/deliveries",
    {
      config: { scope: "webhooks:read" },
      schema: {
        tags,
        security,
        summary: "Delivery log of a webhook endpoint, newest first",
        params: WebhookParams,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(DeliverySchema), ...problems(404) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      if ((await store.getWebhook(orgId, request.params.id)) === null) throw notFound("webhook");
      const page = await store.listDeliveries(orgId, request.params.id, pageOf(request.query));
      return { data: page.data.map(presentDelivery), nextCursor: page.nextCursor };
    },
  );

  r.post(
    "/api/webhooks/:id/deliveries/:deliveryId/retry",
    {
      config: { scope: "webhooks:write" },
      schema: {
        tags,
        security,
        summary: "Redeliver one delivery (also a failed one)",
        description: "Makes the delivery pending and due now (202); the delivery worker sends it on its next run (or run it with POST /api/webhooks/worker/run).",
        params: DeliveryParams,
        body: optionalBody(z.strictObject({})),
        response: { 202: DeliverySchema, ...problems(404) },
      },
    },
    async (request, reply) => {
      const { orgId } = authOf(request);
      const delivery = await store.requeueDelivery(orgId, request.params.id, request.params.deliveryId, now().toISOString());
      if (delivery === null) throw notFound("delivery");
      await audit(people, request, orgId, actorOf(authOf(request)), "webhook.delivery_replayed", request.params.id, {
        deliveryId: delivery.id,
        eventType: delivery.eventType,
      });
      return reply.code(202).send(presentDelivery(delivery));
    },
  );

  r.post(
    "/api/webhooks/worker/run",
    {
      config: { scope: "webhooks:write" },
      schema: {
        tags,
        security,
        summary: "Run the delivery worker now for your organization",
        description: "Sends due pending deliveries (force: also those whose retry time has not come), optionally of one webhook.",
        body: optionalBody(WorkerRunRequestSchema),
        response: { 200: WorkerRunResultSchema, ...problems(404, 413, 415, 422) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      const { webhookId, force } = request.body;
      if (webhookId !== undefined && (!isId("webhook", webhookId) || (await store.getWebhook(orgId, webhookId)) === null)) {
        throw notFound("webhook");
      }
      return deps.deliveries.runWorker(orgId, { webhookId, force });
    },
  );
}
