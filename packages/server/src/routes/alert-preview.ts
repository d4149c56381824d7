import { previewAlert, validateAlert, type CheckObservation, type Store, type TrackedValue } from "@driftwatch/core";
import { AlertPreviewRequestSchema, AlertPreviewSchema, type AlertPreview } from "@driftwatch/schema";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { authOf } from "../http/auth.js";
import { ApiError, notFound } from "../http/problem.js";
import type { AppDependencies } from "../types.js";
import { MonitorParams, problems, security } from "./common.js";

/** Readings read per page while collecting a preview's history. */
const PAGE = 100;

/**
 * The monitor's recorded checks, oldest first, as the conditions read them: the values of each
 * check (readings of one check share their `at`), the newest `limit` checks.
 */
async function history(store: Store, orgId: string, monitorId: string, names: readonly string[], limit: number): Promise<(CheckObservation & { at: string })[]> {
  const checks = new Map<string, Record<string, TrackedValue | null>>();
  for (const name of names) {
    let cursor: string | undefined;
    let read = 0;
    do {
      const page = await store.listTrackedValues(orgId, monitorId, name, { limit: Math.min(PAGE, limit - read), ...(cursor !== undefined ? { cursor } : {}) });
      for (const reading of page.data) {
        let values = checks.get(reading.at);
        if (values === undefined) checks.set(reading.at, (values = {}));
        values[name] = reading.value;
      }
      read += page.data.length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined && read < limit);
  }
  return [...checks.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(-limit)
    .map(([at, values]) => ({ at, values }));
}

/**
 * `POST /api/monitors/{id}/alert/preview`: which of the monitor's past checks the given conditions
 * (or the stored ones) would have alerted on, replayed over its recorded tracked values. Nothing is stored.
 */
export function registerAlertPreviewRoutes(app: FastifyInstance, deps: AppDependencies): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = deps;
  r.post(
    "/api/monitors/:id/alert/preview",
    {
      config: { scope: "monitors:read" },
      schema: {
        tags: ["monitors"],
        security,
        summary: "Preview alert conditions on the monitor's recorded values (nothing is stored)",
        description:
          "Replays alert (default: the stored settings.alert) over the tracked values the newest `limit` checks recorded (default 100, " +
          "at most 1000), oldest to newest, carrying the conditions' state as checks do, and answers each check's results newest first " +
          "with `alerted`: the conditions hold on it and did not on the check before. `text` and `diff.topSeverity` are not recorded, so " +
          "conditions on them are false here. Invalid conditions: 422 invalid_conditions naming the place; no conditions given or stored: 422.",
        params: MonitorParams,
        body: AlertPreviewRequestSchema,
        response: { 200: AlertPreviewSchema, ...problems(404, 413, 415, 422) },
      },
    },
    async (request): Promise<AlertPreview> => {
      const { orgId } = authOf(request);
      const settings = await store.getSettings(orgId, request.params.id);
      if (settings === null) throw notFound("monitor");
      const alert = request.body.alert ?? settings.alert;
      if (alert === null) {
        throw new ApiError("invalid_conditions", "The monitor has no alert conditions to preview: send alert.", { errors: [{ path: "alert", message: "is required when the monitor has none" }] });
      }
      const compiled = validateAlert(alert, settings.track);
      const names = [...new Set(compiled.alert.conditions.map((c) => c.value).filter((name) => settings.track.some((spec) => spec.name === name)))];
      const checks = await history(store, orgId, request.params.id, names, request.body.limit ?? 100);
      const entries = previewAlert(compiled, checks).map((entry, index) => ({ at: checks[index]!.at, matched: entry.matched, alerted: entry.alerted, results: entry.results }));
      return { monitorId: request.params.id, checks: entries.reverse(), alerts: entries.filter((e) => e.alerted).length };
    },
  );
}
