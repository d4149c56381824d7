import { createHash } from "node:crypto";
import {
  evaluateAlert,
  evaluateFailedCheck,
  extractTrackedValues,
  MAX_CONDITION_INPUT,
  validateAlert,
  validateTrack,
  type AlertEvaluation,
  type AlertState,
  type CompiledAlert,
  type MonitorRecord,
  type NewDiff,
  type NewTrackedReading,
  type PendingDiffDetectedEvent,
  type SettingsRecord,
  type TrackedCheck,
  type TrackedReading,
} from "@driftwatch/core";
import type { AlertResult, Severity, TrackedValueSpec, WaitStrategy } from "@driftwatch/schema";

/**
 * Tracked values and alert conditions in a check (docs/conditions.md): each successful check
 * reads the monitor's tracked values from the content it saw (new or unchanged), evaluates the
 * alert conditions with the state the previous check left, and the check records the readings,
 * the new state, the diff's `alert` and whether it alerts, in its one `recordCheck`.
 */

/** The severity of a diff recorded only to deliver an alert (no change to rate). */
export const ALERT_ONLY_SEVERITY: Severity = "medium";

/** A monitor's track and alert, validated once per check. */
export interface CheckConditions {
  track: TrackedValueSpec[];
  alert: CompiledAlert | null;
  /** Whether a condition reads `text` (the monitor's selected text). */
  readsText: boolean;
  /** The state the previous check left (alert set only). */
  state: AlertState | null;
}

/**
 * The conditions of a monitor's check, or null when it tracks nothing and has no alert. Stored
 * settings were validated when saved; settings that no longer validate (a build that reads them
 * differently) track nothing and alert as if they had no conditions, rather than fail every check.
 */
export async function loadConditions(
  monitor: MonitorRecord,
  settings: SettingsRecord | null,
  readState: () => Promise<unknown>,
): Promise<CheckConditions | null> {
  if (settings === null || (settings.track.length === 0 && settings.alert === null)) return null;
  let track: TrackedValueSpec[];
  try {
    track = validateTrack(monitor.type, settings.track).map((entry) => entry.spec);
  } catch {
    track = [];
  }
  let alert: CompiledAlert | null = null;
  if (settings.alert !== null) {
    try {
      alert = validateAlert(settings.alert, track);
    } catch {
      alert = null;
    }
  }
  if (track.length === 0 && alert === null) return null;
  const state = alert === null ? null : asAlertState(await readState());
  return { track, alert, readsText: alert?.alert.conditions.some((c) => c.value === "text") ?? false, state };
}

function asAlertState(value: unknown): AlertState | null {
  if (value === null || typeof value !== "object") return null;
  const state = value as Partial<AlertState>;
  return typeof state.key === "string" && Array.isArray(state.streaks) && typeof state.matched === "boolean" ? (state as AlertState) : null;
}

/** What the conditions made of one check. */
export interface ConditionsOutcome {
  /** For `recordCheck`'s `tracked`. */
  tracked: TrackedCheck;
  /** The evaluation, when the monitor has an alert. */
  evaluation: AlertEvaluation | null;
}

/**
 * Reads the tracked values of `body` (the content the check saw) and evaluates the alert with
 * `topSeverity` (the check's diff, null when none). Never throws for what a target sends.
 */
export function judgeCheck(
  conditions: CheckConditions,
  monitor: MonitorRecord,
  input: { body: string; snapshotId: string; at: string; topSeverity: Severity | null },
): ConditionsOutcome {
  let readings: Record<string, TrackedReading> = {};
  if (conditions.track.length > 0) {
    try {
      readings = extractTrackedValues(monitor.type, input.body, conditions.track);
    } catch (error) {
      const reason = error instanceof Error ? error.message : "the values could not be read";
      readings = Object.fromEntries(conditions.track.map((spec) => [spec.name, { status: "missing", reason } as const]));
    }
  }
  const list: NewTrackedReading[] = conditions.track.map((spec) => {
    const reading = readings[spec.name];
    return reading?.status === "ok" ? { name: spec.name, value: reading.value } : { name: spec.name, value: null, reason: reading?.reason ?? "not read" };
  });
  let evaluation: AlertEvaluation | null = null;
  if (conditions.alert !== null) {
    const text = conditions.readsText ? selectedText(monitor, input.body) : null;
    evaluation = evaluateAlert(conditions.alert, { values: readings, text, topSeverity: input.topSeverity }, conditions.state);
  }
  const tracked: TrackedCheck = { at: input.at, snapshotId: input.snapshotId, readings: list };
  if (evaluation !== null) tracked.alertState = evaluation.state;
  return { tracked, evaluation };
}

/**
 * What a failed check records for its conditions: no readings, and the alert state with every
 * `forChecks` streak started again (core's `evaluateFailedCheck`). Null when the monitor has no
 * alert or no state yet (nothing to start again). `latestSnapshotId` is the monitor's newest
 * snapshot, which the record names (it holds no reading).
 */
export function failedCheckTracked(conditions: CheckConditions | null, reason: string, at: Date, latestSnapshotId: string | null): TrackedCheck | null {
  if (conditions === null || conditions.alert === null || conditions.state === null || latestSnapshotId === null) return null;
  const evaluation = evaluateFailedCheck(conditions.alert, reason, conditions.state);
  return { at: at.toISOString(), snapshotId: latestSnapshotId, readings: [], alertState: evaluation.state };
}

/**
 * The monitor's selected text, as `text` conditions read it: for a website monitor, the text of
 * the first element its selector matches (the page's body without one); for an api monitor, the
 * body as sent. At most `MAX_CONDITION_INPUT` characters.
 */
function selectedText(monitor: MonitorRecord, body: string): string | null {
  if (monitor.type === "api") return body.slice(0, MAX_CONDITION_INPUT);
  const reading = extractTrackedValues("website", body, [{ name: "_text", selector: monitor.selector ?? "body", extract: "text" }])["_text"];
  return reading?.status === "ok" && typeof reading.value === "string" ? reading.value : null;
}

/** The alert a diff carries: `{ matched, results }`. */
export function alertResultOf(evaluation: AlertEvaluation): AlertResult {
  return { matched: evaluation.matched, results: evaluation.results };
}

/**
 * Whether a check with an alert notifies: the conditions hold, and the check either recorded a
 * diff (a change while they hold) or they did not hold on the previous check (they became true).
 */
export function alertNotifies(evaluation: AlertEvaluation, recordedDiff: boolean): boolean {
  return evaluation.matched && (recordedDiff || evaluation.newlyMatched);
}

/**
 * The diff a check records only to deliver an alert: the conditions became true but the check
 * found no change to report (same content, or every change hidden by the policy). No changes,
 * severity `ALERT_ONLY_SEVERITY`, `alertOnly: true`.
 */
export function alertOnlyDiff(
  monitor: MonitorRecord,
  evaluation: AlertEvaluation,
  common: { id: string; previousSnapshotId: string | null; requestId: string; status: number; latencyMs: number; createdAt: string },
  page: { browserRender: boolean; waitStrategy: WaitStrategy | null },
): NewDiff {
  const alert = alertResultOf(evaluation);
  const diffFingerprint = `sha256:${createHash("sha256").update(`alert\u0000${monitor.id}\u0000${JSON.stringify(alert)}`, "utf8").digest("hex")}`;
  const base = { ...common, diffFingerprint, topSeverity: ALERT_ONLY_SEVERITY, changes: [], alert, alertOnly: true };
  if (monitor.type === "api") return { ...base, classification: "value_change", schemaChanges: 0, valueChanges: 0 };
  return {
    ...base,
    classification: "content_change",
    summary: { additions: 0, removals: 0, modifications: 0 },
    changedTargets: [],
    browserRender: page.browserRender,
    waitStrategy: page.waitStrategy,
    selector: monitor.selector,
  };
}

/** The event of a diff of a monitor with an alert: `data.alert` (and `data.alertOnly`) added. */
export function withAlert(event: PendingDiffDetectedEvent, diff: NewDiff): PendingDiffDetectedEvent {
  if (diff.alert === undefined) return event;
  return { ...event, data: { ...event.data, alert: diff.alert, ...(diff.alertOnly === true ? { alertOnly: true } : {}) } };
}
