import { validatePolicyRules, type SettingsPatch, type SettingsRecord, type Store } from "@driftwatch/core";
import {
  DiffListQuerySchema,
  DiffSchema,
  idSchema,
  PageQuerySchema,
  pageSchema,
  SettingsSchema,
  SettingsUpdateSchema,
  SnapshotSchema,
  type Settings,
} from "@driftwatch/schema";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { authOf } from "../http/auth.js";
import { ApiError, notFound } from "../http/problem.js";
import type { AppDependencies } from "../types.js";
import { MonitorParams, pageOf, problems, security } from "./common.js";
import { presentDiff, presentSnapshot } from "./present.js";

const DiffParams = z.strictObject({ id: idSchema("monitor"), diffId: idSchema("diff") });
const SnapshotParams = z.strictObject({ id: idSchema("monitor"), snapshotId: idSchema("snapshot") });
const SnapshotWithBodySchema = SnapshotSchema.extend({ body: z.string() });

function presentSettings(s: SettingsRecord): Settings {
  return { monitorId: s.monitorId, policyRulesJson: s.policyRulesJson, snapshotRetention: s.snapshotRetention, updatedAt: s.updatedAt };
}

/** The store's optional `getDiffJson` fast path (store-sqlite has it), bound, or null. */
function diffJsonReaderOf(store: Store): ((orgId: string, monitorId: string, id: string) => Promise<string | null>) | null {
  return typeof store.getDiffJson === "function" ? store.getDiffJson.bind(store) : null;
}

/** Diffs, snapshots and settings of one monitor. */
export function registerMonitorDataRoutes(app: FastifyInstance, deps: AppDependencies, now: () => Date): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = deps;
  const diffJson = diffJsonReaderOf(store);
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
      const page = await store.listDiffs(orgId, request.params.id, {
        ...pageOf(q),
        since: q.since,
        until: q.until,
        minSeverity: q.minSeverity,
        classification: q.classification,
      });
      return { data: page.data.map(presentDiff), nextCursor: page.nextCursor };
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
      if (diffJson !== null) {
        // the store's stored text is already presentDiff's JSON: no parse and stringify per request
        const body = await diffJson(orgId, request.params.id, request.params.diffId);
        if (body === null) throw notFound("diff");
        // (untyped reply: the body is the DiffSchema object, already serialised)
        return (reply as FastifyReply).type("application/json; charset=utf-8").send(body);
      }
      const diff = await store.getDiff(orgId, request.params.id, request.params.diffId);
      if (diff === null) throw notFound("diff");
      return presentDiff(diff);
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
      schema: { tags, security, summary: "Settings of a monitor (policyRulesJson, snapshotRetention)", params: MonitorParams, response: { 200: SettingsSchema, ...problems(404) } },
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
          "omitting policyRules leaves the stored rules unchanged. Invalid rules: 422 invalid_policy_rules naming the rule index.",
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
      const settings =
        patch.policyRulesJson === undefined && patch.snapshotRetention === undefined
          ? await store.getSettings(orgId, request.params.id)
          : await store.updateSettings(orgId, request.params.id, patch);
      if (settings === null) throw notFound("monitor");
      return presentSettings(settings);
    },
  );
}
