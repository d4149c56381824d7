import { inferJsonSchema, createNoiseLearner } from "@driftwatch/engine";
import { InferredSchemaQuerySchema, InferredSchemaSchema } from "@driftwatch/schema";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { authOf } from "../http/auth.js";
import { ApiError, notFound } from "../http/problem.js";
import type { AppDependencies } from "../types.js";
import { MonitorParams, problems, security } from "./common.js";

/** Newest snapshots a schema is inferred from, and their bytes at most (newest first, counted before parsing). */
export const SCHEMA_MAX_SAMPLES = 20;
export const SCHEMA_MAX_BYTES = 8 * 1024 * 1024;

/** `GET /api/monitors/{id}/schema`: the JSON Schema inferred from an api monitor's responses. */
export function registerSchemaRoutes(app: FastifyInstance, deps: AppDependencies): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = deps;
  const noise = deps.noise ?? createNoiseLearner(store);

  r.get(
    "/api/monitors/:id/schema",
    {
      config: { scope: "monitors:read" },
      schema: {
        tags: ["monitors"],
        security,
        summary: "The JSON Schema inferred from an api monitor's responses",
        description:
          `Inferred from the newest snapshots (at most ${String(SCHEMA_MAX_SAMPLES)}, within ${String(SCHEMA_MAX_BYTES / 1024 / 1024)} MB of bodies): ` +
          "the types each member had, required where every response had it, string formats all values matched. Members the monitor " +
          "learned as volatile (GET /api/monitors/{id}/noise) or has volatile rules for are marked x-driftwatch-volatile: true. " +
          "download=true answers the schema alone as a file (Content-Disposition: attachment). Only api monitors: 422 validation_failed otherwise.",
        params: MonitorParams,
        querystring: InferredSchemaQuerySchema,
        response: { 200: InferredSchemaSchema.or(z.record(z.string(), z.unknown())), ...problems(404, 422) },
      },
    },
    async (request, reply) => {
      const { orgId } = authOf(request);
      const monitor = await store.getMonitor(orgId, request.params.id);
      if (monitor === null) throw notFound("monitor");
      if (monitor.type !== "api") {
        throw new ApiError("validation_failed", `Schemas are inferred from api monitors' JSON responses; this is an ${monitor.type} monitor.`, {
          errors: [{ path: "id", message: `is an ${monitor.type} monitor` }],
        });
      }
      const [settings, page, learned] = await Promise.all([
        store.getSettings(orgId, monitor.id),
        store.listSnapshots(orgId, monitor.id, { limit: SCHEMA_MAX_SAMPLES, cursor: null }),
        noise.profile(monitor),
      ]);
      if (settings === null) throw notFound("monitor");
      const samples: unknown[] = [];
      let bytes = 0;
      for (const listed of page.data) {
        const snapshot = await store.getSnapshot(orgId, monitor.id, listed.id);
        if (snapshot?.body == null) continue;
        bytes += Buffer.byteLength(snapshot.body, "utf8");
        if (bytes > SCHEMA_MAX_BYTES) break;
        try {
          samples.push(JSON.parse(snapshot.body));
        } catch {
          // a body that is not JSON (a target that answered otherwise once) says nothing about the schema
        }
      }
      const volatile = [...(settings.policyRulesJson.volatile ?? []), ...(learned.policy.volatile ?? [])].flatMap((rule) => (rule.path === undefined ? [] : [rule.path]));
      const inferred = inferJsonSchema(samples, volatile);
      if (request.query.download === "true") {
        void reply.header("content-disposition", `attachment; filename="${monitor.id}.schema.json"`);
        return { ...inferred.schema, title: monitor.name };
      }
      return { monitorId: monitor.id, samples: inferred.samples, volatile: inferred.volatile, truncated: inferred.truncated, schema: inferred.schema };
    },
  );
}
