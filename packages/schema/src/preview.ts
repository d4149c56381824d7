import { z } from "zod";
import { SeveritySchema } from "./enums.js";
import { ChangeSchema, PolicyRulesSchema, TimestampSchema } from "./resources.js";

/** Most stored diffs one preview re-runs. */
export const PREVIEW_MAX_DIFFS = 20;

/** Body of `POST /api/monitors/{id}/settings/preview`: the edited rules and how many recent diffs to re-run. */
export const SettingsPreviewRequestSchema = z.strictObject({
  policyRules: PolicyRulesSchema,
  /** The newest `limit` diffs of the monitor (default 10). */
  limit: z.number().int().min(1).max(PREVIEW_MAX_DIFFS).default(10),
});
export type SettingsPreviewRequest = z.input<typeof SettingsPreviewRequestSchema>;

/** One change whose severity the edited rules would change. */
export const PreviewSeverityChangeSchema = z.object({
  path: z.string(),
  op: z.string(),
  from: SeveritySchema,
  to: SeveritySchema,
});

/** One stored diff re-run under the edited rules. */
export const PreviewDiffSchema = z.object({
  diffId: z.string(),
  createdAt: TimestampSchema,
  /**
   * `compared`: both snapshots were still stored and were compared again; `snapshots_gone`: one of
   * them was dropped by retention; `over_budget`: the preview's byte budget was spent on newer
   * diffs; `failed`: the comparison failed (`error` says why).
   */
  outcome: z.enum(["compared", "snapshots_gone", "over_budget", "failed"]),
  error: z.string().optional(),
  /** The stored diff's top severity and number of changes. */
  before: z.object({ topSeverity: SeveritySchema, changes: z.number().int() }),
  /** Under the edited rules: null when the check would have recorded no diff at all. */
  after: z.object({ topSeverity: SeveritySchema, changes: z.number().int() }).nullable(),
  /** Stored changes the edited rules hide (at most 100). */
  hidden: z.array(ChangeSchema),
  /** Changes the edited rules would add back (at most 100), e.g. after removing an ignore rule. */
  shown: z.array(ChangeSchema),
  /** Changes whose severity the edited rules change (at most 100). */
  severityChanged: z.array(PreviewSeverityChangeSchema),
});
export type PreviewDiff = z.infer<typeof PreviewDiffSchema>;

export const SettingsPreviewSchema = z.object({
  monitorId: z.string(),
  /** Whether the monitor's learned suggestions were merged in, as its checks do. */
  includesSuggestions: z.boolean(),
  diffs: z.array(PreviewDiffSchema),
  totals: z.object({ diffs: z.number().int(), hidden: z.number().int(), shown: z.number().int(), severityChanged: z.number().int(), silenced: z.number().int() }),
});
export type SettingsPreview = z.infer<typeof SettingsPreviewSchema>;
