import { DeliveryDetailSchema, idSchema, type DeliveryDetail } from "@driftwatch/schema";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { authOf } from "../http/auth.js";
import { notFound } from "../http/problem.js";
import type { AppDependencies } from "../types.js";
import { problems, security } from "./common.js";
import { presentDelivery } from "./present.js";

const DeliveryParams = z.strictObject({ id: idSchema("webhook"), deliveryId: idSchema("delivery") });

/** `GET /api/webhooks/{id}/deliveries/{deliveryId}`: one delivery with its payload and attempt log (the dashboard's delivery view). */
export function registerDeliveryDetailRoutes(app: FastifyInstance, deps: AppDependencies): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    "/api/webhooks/:id/deliveries/:deliveryId",
    {
      config: { scope: "webhooks:read" },
      schema: {
        tags: ["webhooks"],
        security,
        summary: "One delivery with the event it sends and every attempt (response status, error, duration)",
        params: DeliveryParams,
        response: { 200: DeliveryDetailSchema, ...problems(404) },
      },
    },
    async (request): Promise<DeliveryDetail> => {
      const { orgId } = authOf(request);
      const delivery = await deps.store.getDelivery(orgId, request.params.id, request.params.deliveryId);
      if (delivery === null) throw notFound("delivery");
      const attempts = await deps.store.listDeliveryAttempts(orgId, delivery.id);
      let payload: unknown;
      try {
        payload = JSON.parse(delivery.payload);
      } catch {
        payload = delivery.payload;
      }
      return {
        ...presentDelivery(delivery),
        payload,
        attemptLog: attempts.map((a) => ({ attempt: a.attempt, at: a.at, responseStatus: a.responseStatus, error: a.error, durationMs: a.durationMs })),
      };
    },
  );
}
