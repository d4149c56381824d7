import { encodeCursor, validateAlert, validatePolicyRules, validateTrack, type SettingsPatch, type SettingsRecord, type TrackedReadingRecord } from "@driftwatch/core";
import {
  DiffListQuerySchema,
  DiffSchema,
  idSchema,
  NOISE_MIN_SAMPLES,
  NoiseProfileSchema,
  PageQuerySchema,
  pageSchema,
  SettingsSchema,
  SettingsUpdateSchema,
  SnapshotSchema,
  TrackedValueListQuerySchema,
  TrackedValueReadingSchema,
  type RejectedSuggestion,
  type Settings,
  type TrackedValueReading,
} from "@driftwatch/schema";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { DEFAULT_MAX_LIST_RESPONSE_BYTES, LIST_CHUNK } from "../config/limits.js";
import { authOf } from "../http/auth.js";
import { ApiError, notFound } from "../http/problem.js";
import { createNoiseLearner } from "@driftwatch/engine";
import type { AppDependencies } from "../types.js";
import { MonitorParams, pageOf, problems, security } from "./common.js";
import { presentDiff, presentSnapshot } from "./present.js";

const DiffParams = z.strictObject({ id: idSchema("monitor"), diffId: idSchema("diff") });
const SnapshotParams = z.strictObject({ id: idSchema("monitor"), snapshotId: idSchema("snapshot") });
const SnapshotWithBodySchema = SnapshotSchema.extend({ body: z.string() });

/** The rejected entries in their order, each once. */
function uniqueRejections(entries: RejectedSuggestion[]): RejectedSuggestion[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = `${entry.kind}\u0000${entry.path ?? ""}\u0000${entry.selector ?? ""}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function presentSettings(s: SettingsRecord): Settings {
  return {
    monitorId: s.monitorId,
    policyRulesJson: s.policyRulesJson,
    snapshotRetention: s.snapshotRetention,
    autoApplySuggestions: s.autoApplySuggestions,
    rejectedSuggestions: s.rejectedSuggestions,
    track: s.track,
    alert: s.alert,
    learning: s.learning ?? null,
    updatedAt: s.updatedAt,
  };
}

function presentReading(r: TrackedReadingRecord): TrackedValueReading {
  return { at: r.at, value: r.value, snapshotId: r.snapshotId, ...(r.value === null && r.reason !== null ? { reason: r.reason } : {}) };
}


/**
 * A page of at most `limit` items and at most about `maxBytes` of JSON: items are read from the
 * store a few at a time and the page stops before the item that would pass `maxBytes` (the first
 * item is always included, so every page makes progress); `nextCursor` then continues after the
 * last item returned.
 */
export async function boundedPage<T extends { id: string }, P>(
  read: (page: { limit: number; cursor: string | null }) => Promise<{ data: T[]; nextCursor: string | null }>,
  page: { limit: number; cursor: string | null },
  present: (item: T) => P,
  maxBytes: number,
): Promise<{ data: P[]; nextCursor: string | null }> {
  const data: P[] = [];
  let bytes = 0;
  let lastId: string | null = null;
  let cursor = page.cursor;
  for (;;) {
    const chunk = await read({ limit: Math.min(LIST_CHUNK, page.limit - data.length), cursor });
    for (const item of chunk.data) {
      const presented = present(item);
      const size = Buffer.byteLength(JSON.stringify(presented), "utf8") + 1;
      if (lastId !== null && bytes + size > maxBytes) return { data, nextCursor: encodeCursor(lastId) };
      bytes += size;
      data.push(presented);
      lastId = item.id;
    }
    cursor = chunk.nextCursor;
    if (cursor === null || data.length >= page.limit || chunk.data.length === 0) return { data, nextCursor: cursor };
  }
}

/** Diffs, snapshots and settings of one monitor. */
export function registerMonitorDataRoutes(app: FastifyInstance, deps: AppDependencies, now: () => Date): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = deps;
  const noise = deps.noise ?? createNoiseLearner(store);
  const tags = ["monitors"];

  async function requireMonitor(orgId: string, monitorId: string): Promise<void> {
    if ((await store.getMonitor(orgId, monitorId)) === null) throw notFound("monitor");
  }

  r.get(
    "/api/monitors/:id/diffs",
    {
      config: { scope: "monitors:read" },
      schema: {
        tags,
        security,
        summary: "Change history of a monitor, newest first",
        description: "Filters: since and until (ISO 8601 UTC, on createdAt), minSeverity (on topSeverity), classification.",
        params: MonitorParams,
        querystring: DiffListQuerySchema,
        response: { 200: pageSchema(DiffSchema), ...problems(404) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      const q = request.query;
      if (q.since !== undefined && q.until !== undefined && q.since > q.until) {
        throw new ApiError("invalid_request", "since must not be later than until.", { errors: [{ path: "since", message: "is later than until" }] });
      }
      await requireMonitor(orgId, request.params.id);
      const filters = { since: q.since, until: q.until, minSeverity: q.minSeverity, classification: q.classification };
      return boundedPage(
        (page) => store.listDiffs(orgId, request.params.id, { ...page, ...filters }),
        pageOf(q),
        presentDiff,
        deps.config.maxListResponseBytes ?? DEFAULT_MAX_LIST_RESPONSE_BYTES,
      );
    },
  );

  r.get(
    "/api/monitors/:id/diffs/:diffId",
    {
      config: { scope: "monitors:read" },
      schema: {
        tags,
        security,
        summary: "One diff (2.2 for API monitors, 2.4 for website monitors)",
        params: DiffParams,
        response: { 200: DiffSchema, ...problems(404) },
      },
    },
    async (request, reply) => {
      const { orgId } = authOf(request);
      // the store answers presentDiff's JSON text (a SQL store without parsing the stored JSON)
      const body = await store.getDiffJson(orgId, request.params.id, request.params.diffId);
      if (body === null) throw notFound("diff");
      // (untyped reply: the body is the DiffSchema object, already serialised)
      return (reply as FastifyReply).type("application/json; charset=utf-8").send(body);
    },
  );

  r.get(
    "/api/monitors/:id/snapshots",
    {
      config: { scope: "monitors:read" },
      schema: {
        tags,
        security,
        summary: "Snapshots of a monitor (without bodies), newest first",
        params: MonitorParams,
        querystring: PageQuerySchema,
        response: { 200: pageSchema(SnapshotSchema), ...problems(404) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      await requireMonitor(orgId, request.params.id);
      const page = await store.listSnapshots(orgId, request.params.id, pageOf(request.query));
      return { data: page.data.map((s) => presentSnapshot(s, false)), nextCursor: page.nextCursor };
    },
  );

  r.get(
    "/api/monitors/:id/values",
    {
      config: { scope: "monitors:read" },
      schema: {
        tags,
        security,
        summary: "Readings of one tracked value of a monitor, newest first",
        description:
          "Each successful check records each value of settings.track: { at, value, snapshotId }, value null with a reason when the check " +
          "could not read it. The newest 1000 readings of each name are kept. A name the monitor does not track (or no longer tracks) has its " +
          "past readings, or none.",
        params: MonitorParams,
        querystring: TrackedValueListQuerySchema,
        response: { 200: pageSchema(TrackedValueReadingSchema), ...problems(404) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      await requireMonitor(orgId, request.params.id);
      const { name } = request.query;
      return boundedPage(
        (page) => store.listTrackedValues(orgId, request.params.id, name, page),
        pageOf(request.query),
        presentReading,
        deps.config.maxListResponseBytes ?? DEFAULT_MAX_LIST_RESPONSE_BYTES,
      );
    },
  );

  r.get(
    "/api/monitors/:id/snapshots/:snapshotId",
    {
      config: { scope: "monitors:read" },
      schema: { tags, security, summary: "One snapshot with its body", params: SnapshotParams, response: { 200: SnapshotWithBodySchema, ...problems(404) } },
    },
    async (request) => {
      const snapshot = await store.getSnapshot(authOf(request).orgId, request.params.id, request.params.snapshotId);
      if (snapshot === null) throw notFound("snapshot");
      return { ...presentSnapshot(snapshot, false), body: snapshot.body ?? "" };
    },
  );

  r.get(
    "/api/monitors/:id/settings",
    {
      config: { scope: "monitors:read" },
      schema: {
        tags,
        security,
        summary: "Settings of a monitor (policyRulesJson, snapshotRetention, autoApplySuggestions)",
        params: MonitorParams,
        response: { 200: SettingsSchema, ...problems(404) },
      },
    },
    async (request) => {
      const settings = await store.getSettings(authOf(request).orgId, request.params.id);
      if (settings === null) throw notFound("monitor");
      return presentSettings(settings);
    },
  );

  r.patch(
    "/api/monitors/:id/settings",
    {
      config: { scope: "monitors:write" },
      schema: {
        tags,
        security,
        summary: "Change the settings of a monitor",
        description:
          "policyRules replaces the whole stored rule set; policyRules with rules: [] clears the rules; " +
          "omitting policyRules leaves the stored rules unchanged. Invalid rules: 422 invalid_policy_rules naming the rule index. " +
          "autoApplySuggestions: true makes future diffs use the stored rules merged with the policy GET /api/monitors/{id}/noise suggests " +
          "(the stored rules first: a user's rule always wins); policyRulesJson itself is not changed. New monitors start with " +
          "autoApplySuggestions set to their organization's learnNoiseByDefault (default true). rejectedSuggestions replaces the list " +
          "of learned entries ({ kind, path | selector }) that are never applied again to this monitor. " +
          "track replaces the values each check records (docs/conditions.md; invalid: 422 invalid_track naming the place, e.g. track[1].path); " +
          "alert replaces the conditions that decide when a check alerts (null removes them; invalid, or naming a value that is not tracked: " +
          "422 invalid_conditions naming the place, e.g. alert.conditions[1].to). " +
          "learning replaces how the monitor starts learning its noise: warmupSamples (0 to 5) extra fetches in the check that stores its first " +
          "content, learningSamples (2 to 10) stored contents it learns from before its diffs stop being learning diffs; an absent member " +
          "(or null for the whole object) takes the service's default (--warmup-samples, --learning-samples; docs/signal.md).",
        params: MonitorParams,
        body: SettingsUpdateSchema,
        response: { 200: SettingsSchema, ...problems(404, 413, 415, 422) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      const body = request.body;
      const patch: SettingsPatch = { updatedAt: now().toISOString() };
      if (body.policyRules !== undefined) patch.policyRulesJson = validatePolicyRules(body.policyRules);
      if (body.snapshotRetention !== undefined) patch.snapshotRetention = body.snapshotRetention;
      if (body.autoApplySuggestions !== undefined) patch.autoApplySuggestions = body.autoApplySuggestions;
      if (body.rejectedSuggestions !== undefined) patch.rejectedSuggestions = uniqueRejections(body.rejectedSuggestions);
      if (body.learning !== undefined) patch.learning = body.learning === null || Object.keys(body.learning).length === 0 ? null : body.learning;
      if (body.track !== undefined || body.alert !== undefined) {
        // track is checked against the monitor's type, alert against the tracked values it will have.
        const [monitor, current] = await Promise.all([store.getMonitor(orgId, request.params.id), store.getSettings(orgId, request.params.id)]);
        if (monitor === null || current === null) throw notFound("monitor");
        const track = body.track ?? current.track;
        if (body.track !== undefined) patch.track = validateTrack(monitor.type, body.track).map((entry) => entry.spec);
        const alert = body.alert !== undefined ? body.alert : current.alert;
        if (alert !== null) validateAlert(alert, track);
        if (body.alert !== undefined) patch.alert = body.alert;
      }
      const settings =
        patch.policyRulesJson === undefined &&
        patch.snapshotRetention === undefined &&
        patch.autoApplySuggestions === undefined &&
        patch.rejectedSuggestions === undefined &&
        patch.track === undefined &&
        patch.alert === undefined &&
        patch.learning === undefined
          ? await store.getSettings(orgId, request.params.id)
          : await store.updateSettings(orgId, request.params.id, patch);
      if (settings === null) throw notFound("monitor");
      return presentSettings(settings);
    },
  );

  r.get(
    "/api/monitors/:id/noise",
    {
      config: { scope: "monitors:read" },
      schema: {
        tags,
        security,
        summary: "The noise profile of a monitor: the policy learned from its recent snapshots, with evidence",
        description:
          `Learned from the newest snapshots (at most 10, within 1 MB of bodies). With fewer than ${String(NOISE_MIN_SAMPLES)} snapshots ` +
          "the answer is 200 with samples below minSamples: with one, what one snapshot tells (severity rules of stable fields, clocks and " +
          "counts by their names); with none, an empty policy ({ rules: [] }) and no evidence. policy is a valid " +
          "policyRules for PATCH /api/monitors/{id}/settings; appliedAutomatically says whether the monitor's autoApplySuggestions " +
          "setting merges it into its diffs.",
        params: MonitorParams,
        response: { 200: NoiseProfileSchema, ...problems(404) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      const monitor = await store.getMonitor(orgId, request.params.id);
      if (monitor === null) throw notFound("monitor");
      const [settings, learned] = await Promise.all([store.getSettings(orgId, monitor.id), noise.profile(monitor)]);
      if (settings === null) throw notFound("monitor");
      return {
        monitorId: monitor.id,
        samples: learned.samples,
        minSamples: NOISE_MIN_SAMPLES,
        policy: learned.policy,
        evidence: learned.evidence,
        appliedAutomatically: settings.autoApplySuggestions,
      };
    },
  );
}
