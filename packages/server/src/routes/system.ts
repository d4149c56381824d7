import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
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
  // organization ids); compared by hash in constant time.
  const metricsToken = deps.config.metricsToken ?? null;
  const metricsHash = metricsToken === null || metricsToken === "" ? null : createHash("sha256").update(metricsToken).digest();
  r.get("/metrics", { schema: { tags: ["system"], summary: "Prometheus metrics (text exposition format)" } }, async (request, reply) => {
    if (metricsHash !== null) {
      const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? "")?.[1];
      if (given === undefined || !timingSafeEqual(createHash("sha256").update(given).digest(), metricsHash)) {
        throw new ApiError("unauthenticated", "/metrics needs the metrics token: Authorization: Bearer <DRIFTWATCH_METRICS_TOKEN>.", {
          headers: { "www-authenticate": 'Bearer realm="driftwatch-metrics"' },
        });
      }
    }
    if (deps.metrics === undefined) return reply.type("text/plain; version=0.0.4; charset=utf-8").send("");
    const text = await deps.metrics.render();
    return reply.type(deps.metrics.contentType).send(text);
  });

  r.get("/api/openapi.json", { schema: { hide: true } }, async (_request, reply) => {
    return reply.type("application/json; charset=utf-8").send(JSON.stringify(app.swagger()));
  });
}
