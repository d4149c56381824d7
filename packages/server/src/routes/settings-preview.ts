import { type DiffRecord, type PolicyRules, type Store, validatePolicyRules } from "@driftwatch/core";
import { type Change, type PreviewDiff, SettingsPreviewRequestSchema, SettingsPreviewSchema, type SettingsPreview } from "@driftwatch/schema";
import { type ComparePool, type CompareResult, createComparePool, createNoiseLearner, mergeSuggestedPolicy } from "@driftwatch/engine";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { authOf } from "../http/auth.js";
import { ApiError, notFound } from "../http/problem.js";
import type { AppDependencies } from "../types.js";
import { MonitorParams, problems, security } from "./common.js";

/** Bytes of snapshot bodies one preview compares at most (the newest diffs first), counted before comparing. */
export const PREVIEW_MAX_BYTES = 8 * 1024 * 1024;
/** All the compares of one preview together run at most this long (in a worker thread, waiting for one included). */
export const PREVIEW_TIMEOUT_MS = 10_000;
/** JSONPath rule evaluation steps all the compares of one preview share. */
export const PREVIEW_RULE_STEPS = 20_000_000;
/** Changes listed per diff in each of hidden / shown / severityChanged. */
const LISTED = 100;

const keyOf = (change: Change): string => `${change.op}\u0000${change.path}\u0000${change.from ?? ""}`;

type PreviewBase = Pick<PreviewDiff, "diffId" | "createdAt" | "before">;
const NOTHING = { after: null, hidden: [], shown: [], severityChanged: [] };

function baseOf(diff: DiffRecord): PreviewBase {
  return { diffId: diff.id, createdAt: diff.createdAt, before: { topSeverity: diff.topSeverity, changes: diff.changes.length } };
}

/** The stored diff set against the same snapshot pair compared again under the edited policy. */
export function previewOf(diff: DiffRecord, result: CompareResult): PreviewDiff {
  const base = baseOf(diff);
  if (!result.ok) return { ...base, outcome: "failed", error: result.message, ...NOTHING };
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
 * Compares the snapshot pairs of `diffs` (newest first) again under `policy`, off the event loop:
 * the pairs are read and counted against the byte budget first (a pair that does not fit, and every
 * older one, is `over_budget` without being compared), then all that fit are compared as one batch in
 * the comparison worker pool, within one time limit and one rule step budget.
 */
export async function previewDiffs(store: Store, compare: ComparePool, orgId: string, monitor: { type: "api" | "website"; selector: string | null }, diffs: readonly DiffRecord[], policy: PolicyRules): Promise<PreviewDiff[]> {
  const out: Array<PreviewDiff | null> = [];
  const pairs: Array<{ body: string; previousBody: string }> = [];
  const slots: number[] = [];
  let bytes = PREVIEW_MAX_BYTES;
  let full = false;
  for (const diff of diffs) {
    if (full || diff.previousSnapshotId === null) {
      out.push(full ? { ...baseOf(diff), outcome: "over_budget", ...NOTHING } : { ...baseOf(diff), outcome: "snapshots_gone", ...NOTHING });
      continue;
    }
    const [current, previous] = await Promise.all([store.getSnapshot(orgId, diff.monitorId, diff.snapshotId), store.getSnapshot(orgId, diff.monitorId, diff.previousSnapshotId)]);
    if (current?.body == null || previous?.body == null) {
      out.push({ ...baseOf(diff), outcome: "snapshots_gone", ...NOTHING });
      continue;
    }
    const size = Buffer.byteLength(current.body, "utf8") + Buffer.byteLength(previous.body, "utf8");
    if (size > bytes) {
      // the budget goes to the diffs a person looks at first: this one and the older ones are not compared
      full = true;
      out.push({ ...baseOf(diff), outcome: "over_budget", ...NOTHING });
      continue;
    }
    bytes -= size;
    slots.push(out.length);
    out.push(null);
    pairs.push({ body: current.body, previousBody: previous.body });
  }
  const batch = await compare.compareBatch({ type: monitor.type, policy, selector: monitor.selector, pairs, ruleSteps: PREVIEW_RULE_STEPS }, { timeoutMs: PREVIEW_TIMEOUT_MS });
  slots.forEach((slot, index) => {
    const diff = diffs[slot]!;
    out[slot] = batch.ok ? previewOf(diff, batch.results[index]!) : { ...baseOf(diff), outcome: "failed", error: batch.message, ...NOTHING };
  });
  return out as PreviewDiff[];
}

/**
 * `POST /api/monitors/{id}/settings/preview`: re-runs the newest stored diffs' snapshot pairs
 * under edited rules (nothing is stored) so that a rules editor can show what the rules would hide,
 * add back or re-rate. Bounded: at most 20 diffs and 8 MB of snapshot bodies, compared in the
 * comparison worker pool (never on the event loop) within 10 s and one rule step budget, and rate
 * limited per caller and per organization as the expensive call it is.
 */
export function registerSettingsPreviewRoutes(app: FastifyInstance, deps: AppDependencies): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = deps;
  const noise = deps.noise ?? createNoiseLearner(store);
  // The engine's pool when the composition root passes it; else one of this app's, closed with it.
  let compare = deps.compare;
  if (compare === undefined) {
    const own = createComparePool();
    compare = own;
    app.addHook("onClose", async () => own.close());
  }
  const pool = compare;
  r.post(
    "/api/monitors/:id/settings/preview",
    {
      // a dry run: readers may preview; limited per caller and per organization, as it is expensive
      config: { scope: "monitors:read", rateLimit: "expensive" },
      schema: {
        tags: ["monitors"],
        security,
        summary: "Preview edited policy rules on the monitor's recent diffs (nothing is stored)",
        description:
          "Compares the snapshot pairs of the newest `limit` diffs (at most 20, within 8 MB of snapshot bodies) again under " +
          "policyRules and lists, per diff, the changes the rules would hide, add back or re-rate, and whether the check would " +
          "have recorded a diff at all. With autoApplySuggestions on, the learned policy is merged in as checks do. " +
          "The compares run in a worker thread within 10 s and one rule step budget (a diff past them: outcome failed); " +
          "a diff whose snapshot pair does not fit in what is left of the 8 MB, and every older one, is over_budget without being compared. " +
          "Rate limited per caller and per organization (429 rate_limited with Retry-After). " +
          "Invalid rules: 422 invalid_policy_rules naming the rule index.",
        params: MonitorParams,
        body: SettingsPreviewRequestSchema,
        response: { 200: SettingsPreviewSchema, ...problems(404, 413, 415, 422, 429) },
      },
    },
    async (request): Promise<SettingsPreview> => {
      const { orgId } = authOf(request);
      const monitor = await store.getMonitor(orgId, request.params.id);
      if (monitor === null) throw notFound("monitor");
      if (monitor.type === "openapi") {
        // API changes come from the OpenAPI rules, not from a policy: there is nothing to preview
        throw new ApiError("validation_failed", "Rules previews are for api and website monitors; an openapi monitor's changes come from its OpenAPI rules.", {
          errors: [{ path: "id", message: "is an openapi monitor" }],
        });
      }
      let policy = validatePolicyRules(request.body.policyRules);
      const settings = await store.getSettings(orgId, monitor.id);
      const includesSuggestions = settings?.autoApplySuggestions === true;
      if (includesSuggestions) {
        const learned = await noise.profile(monitor);
        policy = mergeSuggestedPolicy(policy, learned.policy, monitor.type === "api" ? "json" : "html", settings?.rejectedSuggestions ?? []);
      }
      const page = await store.listDiffs(orgId, monitor.id, { limit: request.body.limit ?? 10, cursor: null });
      const diffs = await previewDiffs(store, pool, orgId, { type: monitor.type, selector: monitor.selector }, page.data, policy);
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
