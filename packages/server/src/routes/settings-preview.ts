import { type DiffRecord, type PolicyRules, type Store, validatePolicyRules } from "@driftwatch/core";
import { type Change, type PreviewDiff, SettingsPreviewRequestSchema, SettingsPreviewSchema, type SettingsPreview } from "@driftwatch/schema";
import { compareContent, createNoiseLearner, mergeSuggestedPolicy } from "@driftwatch/engine";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { authOf } from "../http/auth.js";
import { notFound } from "../http/problem.js";
import type { AppDependencies } from "../types.js";
import { MonitorParams, problems, security } from "./common.js";

/** Bytes of snapshot bodies one preview compares at most (the newest diffs first). */
export const PREVIEW_MAX_BYTES = 8 * 1024 * 1024;
/** Changes listed per diff in each of hidden / shown / severityChanged. */
const LISTED = 100;
/** Caps of one recomputed diff, as the check pipeline's defaults. */
const MAX_CHANGES = 5000;
const MAX_DIFF_BYTES = 5 * 1024 * 1024;

const keyOf = (change: Change): string => `${change.op}\u0000${change.path}\u0000${change.from ?? ""}`;

/** The stored diff compared with the same snapshot pair under `policy`. */
export async function previewDiff(store: Store, orgId: string, type: "api" | "website", selector: string | null, diff: DiffRecord, policy: PolicyRules, budget: { bytes: number }): Promise<PreviewDiff> {
  const base = {
    diffId: diff.id,
    createdAt: diff.createdAt,
    before: { topSeverity: diff.topSeverity, changes: diff.changes.length },
  };
  const nothing = { after: null, hidden: [], shown: [], severityChanged: [] };
  if (budget.bytes <= 0) return { ...base, outcome: "over_budget", ...nothing };
  const [current, previous] = await Promise.all([
    store.getSnapshot(orgId, diff.monitorId, diff.snapshotId),
    diff.previousSnapshotId === null ? null : store.getSnapshot(orgId, diff.monitorId, diff.previousSnapshotId),
  ]);
  if (current?.body == null || previous?.body == null) return { ...base, outcome: "snapshots_gone", ...nothing };
  budget.bytes -= current.body.length + previous.body.length;
  const result = compareContent({ type, body: current.body, previousBody: previous.body, policy, selector, maxDiffChanges: MAX_CHANGES, maxDiffBytes: MAX_DIFF_BYTES });
  if (!result.ok) return { ...base, outcome: "failed", error: result.message, ...nothing };
  const next = result.diff?.changes ?? [];
  const stored = new Map(diff.changes.map((change) => [keyOf(change), change]));
  const found = new Map(next.map((change) => [keyOf(change), change]));
  const hidden = diff.changes.filter((change) => !found.has(keyOf(change)));
  const shown = next.filter((change) => !stored.has(keyOf(change)));
  const severityChanged: PreviewDiff["severityChanged"] = [];
  for (const change of next) {
    const old = stored.get(keyOf(change));
    if (old !== undefined && old.severity !== change.severity) severityChanged.push({ path: change.path, op: change.op, from: old.severity, to: change.severity });
  }
  return {
    ...base,
    outcome: "compared",
    after: result.diff === null ? null : { topSeverity: result.diff.topSeverity, changes: next.length },
    hidden: hidden.slice(0, LISTED),
    shown: shown.slice(0, LISTED),
    severityChanged: severityChanged.slice(0, LISTED),
  };
}

/**
 * `POST /api/monitors/{id}/settings/preview`: re-runs the newest stored diffs' snapshot pairs
 * under edited rules (nothing is stored) so that a rules editor can show what the rules would hide,
 * add back or re-rate. Bounded: at most 20 diffs and 8 MB of snapshot bodies.
 */
export function registerSettingsPreviewRoutes(app: FastifyInstance, deps: AppDependencies): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = deps;
  const noise = deps.noise ?? createNoiseLearner(store);
  r.post(
    "/api/monitors/:id/settings/preview",
    {
      // a dry run: readers may preview, and it counts as a read
      config: { scope: "monitors:read", rateLimit: "read" },
      schema: {
        tags: ["monitors"],
        security,
        summary: "Preview edited policy rules on the monitor's recent diffs (nothing is stored)",
        description:
          "Compares the snapshot pairs of the newest `limit` diffs (at most 20, within 8 MB of snapshot bodies) again under " +
          "policyRules and lists, per diff, the changes the rules would hide, add back or re-rate, and whether the check would " +
          "have recorded a diff at all. With autoApplySuggestions on, the learned policy is merged in as checks do. " +
          "Invalid rules: 422 invalid_policy_rules naming the rule index.",
        params: MonitorParams,
        body: SettingsPreviewRequestSchema,
        response: { 200: SettingsPreviewSchema, ...problems(404, 413, 415, 422) },
      },
    },
    async (request): Promise<SettingsPreview> => {
      const { orgId } = authOf(request);
      const monitor = await store.getMonitor(orgId, request.params.id);
      if (monitor === null) throw notFound("monitor");
      let policy = validatePolicyRules(request.body.policyRules);
      const settings = await store.getSettings(orgId, monitor.id);
      const includesSuggestions = settings?.autoApplySuggestions === true;
      if (includesSuggestions) {
        const learned = await noise.profile(monitor);
        policy = mergeSuggestedPolicy(policy, learned.policy, monitor.type === "api" ? "json" : "html", settings?.rejectedSuggestions ?? []);
      }
      const page = await store.listDiffs(orgId, monitor.id, { limit: request.body.limit ?? 10, cursor: null });
      const budget = { bytes: PREVIEW_MAX_BYTES };
      const diffs: PreviewDiff[] = [];
      // one at a time, newest first: the budget goes to the diffs a person looks at first
      for (const diff of page.data) diffs.push(await previewDiff(store, orgId, monitor.type, monitor.selector, diff, policy, budget));
      const sum = (pick: (d: PreviewDiff) => number): number => diffs.reduce((total, d) => total + pick(d), 0);
      return {
        monitorId: monitor.id,
        includesSuggestions,
        diffs,
        totals: {
          diffs: diffs.length,
          hidden: sum((d) => d.hidden.length),
          shown: sum((d) => d.shown.length),
          severityChanged: sum((d) => d.severityChanged.length),
          silenced: diffs.filter((d) => d.outcome === "compared" && d.after === null).length,
        },
      };
    },
  );
}
