import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { metricsAuthorizer, metricsUnauthenticated } from "../http/metrics-listener.js";
import { ApiError } from "../http/problem.js";
import type { AppDependencies } from "../types.js";

const HealthSchema = z.object({ status: z.literal("ok") });
const ReadySchema = z.object({ status: z.enum(["ok"]) });

/** `/healthz`, `/readyz`, `/metrics` and `/api/openapi.json`: no API auth, no rate limit (`/metrics` takes a token of its own when one is set). */
export function registerSystemRoutes(app: FastifyInstance, deps: AppDependencies): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get("/healthz", { schema: { tags: ["system"], summary: "Liveness", response: { 200: HealthSchema } } }, async () => ({ status: "ok" as const }));

  r.get(
    "/readyz",
    { schema: { tags: ["system"], summary: "Readiness: the store answers", response: { 200: ReadySchema } } },
    async (request) => {
      try {
        await deps.store.ping();
      } catch (error) {
        request.log.warn({ err: error }, "readiness check failed: the store does not answer");
        throw new ApiError("unavailable", "The store is not reachable.", { headers: { "retry-after": "5" } });
      }
      return { status: "ok" as const };
    },
  );

  // With a metrics token, /metrics answers only `Authorization: Bearer <token>` (its counters name
  // organization ids). With a listen address of its own, it is not served here at all.
  const authorized = metricsAuthorizer(deps.config.metricsToken);
  const elsewhere = deps.config.metricsListen !== undefined && deps.config.metricsListen !== null;
  r.get("/metrics", { schema: { tags: ["system"], summary: "Prometheus metrics (text exposition format)" } }, async (request, reply) => {
    if (elsewhere) throw new ApiError("not_found", "/metrics is served on its own listen address (DRIFTWATCH_METRICS_LISTEN).");
    if (!authorized(request.headers.authorization)) throw metricsUnauthenticated();
    if (deps.metrics === undefined) return reply.type("text/plain; version=0.0.4; charset=utf-8").send("");
    const text = await deps.metrics.render();
    return reply.type(deps.metrics.contentType).send(text);
  });

  r.get("/api/openapi.json", { schema: { hide: true } }, async (_request, reply) => {
    return reply.type("application/json; charset=utf-8").send(JSON.stringify(app.swagger()));
  });
}
