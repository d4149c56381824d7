// GET /api/monitors/{id}/compare: two stored snapshots of a monitor compared again under the
// effective policy, the user's rules only, or none, so a person can see what the learned policy hid.
import type { MonitorRecord, PolicyRules, SnapshotRecord, Store } from "@driftwatch/core";
import { SnapshotCompareQuerySchema, SnapshotCompareSchema, type SnapshotCompare } from "@driftwatch/schema";
import { createComparePool, createNoiseLearner, mergeSuggestedPolicy, silencedOf, type LearnedPolicy } from "@driftwatch/engine";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { authOf } from "../http/auth.js";
import { ApiError, notFound } from "../http/problem.js";
import type { AppDependencies } from "../types.js";
import { MonitorParams, problems, security } from "./common.js";

/**
 * The CSS selector a website monitor's two stored pages are compared under: the one in force when
 * the check that stored `to` ran, so the comparison is the one that check made. A snapshot keeps the
 * whole page as fetched and not the selector; a website diff records its selector, so a `to` with a
 * recorded diff gives it (an alert-only diff too). Without one (the check found no change in its
 * scope, or hid every change), the monitor's current selector applies when `to` was fetched since the monitor's target last changed
 * (`learningSince`: its URL, method, body or selector): that check ran with the current one. Before
 * that the selector it ran with is not known, and comparing the pages under another scope would show
 * changes that check never looked at: `409 conflict`.
 */
async function selectorOf(store: Store, monitor: MonitorRecord, to: SnapshotRecord): Promise<string | null> {
  // the check's diff has its snapshot's fetchedAt as createdAt (one clock reading per check)
  const recorded = await store.listDiffs(monitor.orgId, monitor.id, { since: to.fetchedAt, until: to.fetchedAt, limit: 100 });
  const diff = recorded.data.find((d) => d.snapshotId === to.id);
  if (diff !== undefined && "selector" in diff) return diff.selector;
  const since = monitor.learningSince == null ? null : Date.parse(monitor.learningSince);
  if (since === null || Date.parse(to.fetchedAt) >= since) return monitor.selector;
  throw new ApiError(
    "conflict",
    `Snapshot ${to.id} was checked before this monitor's URL, method, body or selector last changed (${monitor.learningSince!}), and its check recorded no diff, ` +
      "so the selector it was compared under is not known: comparing the pages under the current selector would show changes that check never looked at. " +
      "Compare snapshots taken since the change, or a pair of a recorded diff.",
    { extensions: { targetChangedAt: monitor.learningSince } },
  );
}

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
          "(silenced.previousSnapshotId, its own id); a diff names it as previousSnapshotId and snapshotId. A website monitor's pages are compared " +
          "under the selector the check that stored `to` used (selector in the answer): the one its recorded diff names, else the monitor's current " +
          "one when `to` was fetched since the monitor's target last changed (learningSince); otherwise that selector is not known and the answer " +
          "is 409 conflict.",
        params: MonitorParams,
        querystring: SnapshotCompareQuerySchema,
        response: { 200: SnapshotCompareSchema, ...problems(404, 409, 422) },
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
      // before the policy is learned: a pair that cannot be compared as its check saw it is refused first
      const selector = monitor.type === "website" ? await selectorOf(store, monitor, after) : monitor.selector;
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
        selector,
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
        ...(monitor.type === "website" ? { selector } : {}),
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
