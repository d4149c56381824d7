// GET /api/monitors/{id}/compare: two stored snapshots of a monitor compared again under the
// effective policy, the user's rules only, or none, so a person can see what the learned policy hid.
import type { PolicyRules } from "@driftwatch/core";
import { SnapshotCompareQuerySchema, SnapshotCompareSchema, type SnapshotCompare } from "@driftwatch/schema";
import { createComparePool, createNoiseLearner, mergeSuggestedPolicy, silencedOf, type LearnedPolicy } from "@driftwatch/engine";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { authOf } from "../http/auth.js";
import { ApiError, notFound } from "../http/problem.js";
import type { AppDependencies } from "../types.js";
import { MonitorParams, problems, security } from "./common.js";

export function registerCompareRoutes(app: FastifyInstance, deps: AppDependencies): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = deps;
  const noise = deps.noise ?? createNoiseLearner(store);
  // Big documents are compared in worker threads: the engine's pool, or one of this app's own.
  const compare = deps.compare ?? createComparePool();
  if (deps.compare === undefined) app.addHook("onClose", async () => compare.close());

  r.get(
    "/api/monitors/:id/compare",
    {
      config: { scope: "monitors:read", rateLimit: "read" },
      schema: {
        tags: ["monitors"],
        security,
        summary: "Compare two snapshots of a monitor again, with or without the learned policy (nothing is stored)",
        description:
          "policy=effective (default) applies the stored rules merged with what the monitor learned (when autoApplySuggestions is on, " +
          "rejected entries left out), as a check would now; policy=user the stored rules only, so what the learned policy hid shows again; " +
          "policy=none no policy. hidden lists what the policy hid and by which entry. A silenced check's snapshot names the pair " +
          "(silenced.previousSnapshotId, its own id); a diff names it as previousSnapshotId and snapshotId.",
        params: MonitorParams,
        querystring: SnapshotCompareQuerySchema,
        response: { 200: SnapshotCompareSchema, ...problems(404, 422) },
      },
    },
    async (request): Promise<SnapshotCompare> => {
      const { orgId } = authOf(request);
      const { from, to, policy: which } = request.query;
      const monitor = await store.getMonitor(orgId, request.params.id);
      if (monitor === null) throw notFound("monitor");
      const [settings, before, after] = await Promise.all([
        store.getSettings(orgId, monitor.id),
        store.getSnapshot(orgId, monitor.id, from),
        store.getSnapshot(orgId, monitor.id, to),
      ]);
      if (settings === null) throw notFound("monitor");
      if (before?.body == null || after?.body == null) throw new ApiError("not_found", "No snapshot with this id exists for this monitor (it may have passed retention).");
      const user: PolicyRules = settings.policyRulesJson;
      let policy: PolicyRules = which === "none" ? { rules: [] } : user;
      let learned: LearnedPolicy | null = null;
      if (which === "effective" && settings.autoApplySuggestions && monitor.type !== "openapi") {
        const profile = await noise.profile(monitor);
        policy = mergeSuggestedPolicy(user, profile.policy, monitor.type === "api" ? "json" : "html", settings.rejectedSuggestions);
        learned = { learned: profile.policy, merged: policy, samples: profile.samples, stored: profile.stored ?? profile.samples };
      }
      const result = await compare.compare({
        type: monitor.type,
        ...(monitor.type === "openapi" ? { url: monitor.url } : {}),
        body: after.body,
        previousBody: before.body,
        policy,
        selector: monitor.selector,
        explain: true,
      });
      if (!result.ok) throw new ApiError("validation_failed", `The snapshots could not be compared: ${result.message}`);
      const hidden = silencedOf(result.hidden ?? { count: 0, byRule: {}, first: [] }, learned, which === "none" ? { rules: [] } : user, before.id);
      return {
        monitorId: monitor.id,
        fromSnapshotId: before.id,
        toSnapshotId: after.id,
        policy: which,
        includesLearned: learned !== null,
        diff:
          result.diff === null
            ? null
            : {
                classification: result.diff.classification,
                topSeverity: result.diff.topSeverity,
                changes: result.diff.changes,
                ...(result.diff.truncated === true ? { truncated: true } : {}),
              },
        hidden: { count: hidden.count, learnedCount: hidden.learnedCount, changes: hidden.changes },
      };
    },
  );
}
