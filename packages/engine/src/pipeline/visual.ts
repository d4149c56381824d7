import {
  classifyWebsiteChanges,
  compareSeverity,
  DriftwatchError,
  fingerprintValidChanges,
  visualDiffOptions,
  type FetchError,
  type FetchResponse,
  type FetchScreenshot,
  type MonitorRecord,
  type NewDiff,
  type PolicyRules,
  type ScreenshotStorage,
  type SnapshotRecord,
  type VisualComparison,
} from "@driftwatch/core";
import type { WebsiteDiff } from "@driftwatch/schema";
import { compareScreenshots, type VisualResult, type VisualTask } from "../workers/compare.js";

/** Default cap on a stored screenshot (bigger ones are compared but not kept). */
export const DEFAULT_MAX_STORED_SCREENSHOT_BYTES = 4 * 1024 * 1024;

type NewWebsiteDiff = Omit<WebsiteDiff, "monitorId" | "snapshotId">;

export interface VisualChecks {
  /**
   * The new screenshot compared with the one stored for `previous` (null: no screenshot on either
   * side, or the stored one cannot be compared, say a capture mode that changed its size bounds).
   */
  compare(
    monitor: MonitorRecord,
    previous: SnapshotRecord | null,
    screenshot: FetchScreenshot | undefined,
    policy: PolicyRules,
    context: { sameContent: boolean; at: Date },
  ): Promise<VisualComparison | null>;
  /** Keeps the render's screenshot for the snapshot just recorded, then applies the monitor's retention. */
  keep(monitor: MonitorRecord, snapshotId: string, screenshot: FetchScreenshot, retention: number, at: Date): Promise<void>;
  /** Keeps the page of a failed browser step (the error's screenshot) as the monitor's failure screenshot. */
  keepFailure(monitor: MonitorRecord, error: FetchError, at: Date): Promise<void>;
}

export interface VisualChecksOptions {
  storage: ScreenshotStorage;
  maxStoredBytes?: number;
  onError?: (error: unknown, monitor: MonitorRecord) => void;
  /** Compares two screenshots (the compare pool's `visual`, off the event loop for big ones); default inline. */
  compare?: (task: VisualTask) => Promise<VisualResult>;
}

export function createVisualChecks(options: VisualChecksOptions): VisualChecks {
  const compareScreens = options.compare ?? (async (task: VisualTask) => compareScreenshots(task));
  const maxStoredBytes = options.maxStoredBytes ?? DEFAULT_MAX_STORED_SCREENSHOT_BYTES;
  const report = options.onError ?? (() => undefined);
  const keep: VisualChecks["keep"] = async (monitor, snapshotId, screenshot, retention, at) => {
    if (screenshot.data.byteLength > maxStoredBytes) {
      report(new Error(`The screenshot of ${String(screenshot.data.byteLength)} bytes is larger than the ${String(maxStoredBytes)} bytes kept; it was not stored`), monitor);
      return;
    }
    try {
      await options.storage.putScreenshot(monitor.orgId, monitor.id, {
        snapshotId,
        type: screenshot.type,
        data: screenshot.data,
        width: screenshot.width,
        height: screenshot.height,
        createdAt: at.toISOString(),
      });
      await options.storage.pruneScreenshots(monitor.orgId, monitor.id, retention);
    } catch (error) {
      // The check is recorded already: the next one compares with nothing rather than failing.
      report(error, monitor);
    }
  };
  return {
    async compare(monitor, previous, screenshot, policy, context) {
      if (screenshot === undefined || previous === null) return null;
      const before = await options.storage.getScreenshot(monitor.orgId, monitor.id, previous.id);
      if (before === null) {
        // Screenshots were just turned on (or the last one was too large to keep): the same content's
        // render becomes the newest snapshot's screenshot, the baseline of the next check.
        if (context.sameContent) await keep(monitor, previous.id, screenshot, Number.MAX_SAFE_INTEGER, context.at);
        return null;
      }
      if (before.type !== "image/png") return null;
      const result = await compareScreens({ before: before.data, after: screenshot.data, options: visualDiffOptions(policy.visual) });
      if (result.ok) {
        const { ok: _ok, ...comparison } = result;
        return comparison;
      }
      // An image too large to compare, bytes that do not decode, a comparison out of time: no visual comparison this time.
      report(new DriftwatchError("invalid_input", `The screenshots could not be compared (${result.code}): ${result.message}`), monitor);
      return null;
    },
    keep,
    async keepFailure(monitor, error, at) {
      const screenshot = error.screenshot;
      if (error.code !== "browser_step_failed" || screenshot === undefined || error.step === undefined) return;
      if (screenshot.data.byteLength > maxStoredBytes) return;
      try {
        await options.storage.putFailureScreenshot(monitor.orgId, monitor.id, {
          type: screenshot.type,
          data: screenshot.data,
          width: screenshot.width,
          height: screenshot.height,
          createdAt: at.toISOString(),
          step: error.step,
        });
      } catch (cause) {
        report(cause, monitor);
      }
    },
  };
}

/** Whether the monitor's renders take screenshots. */
export function takesScreenshots(monitor: MonitorRecord): boolean {
  return monitor.type === "website" && (monitor.browserOptionsJson?.screenshot ?? "off") !== "off";
}

/** The selectors painted over before a screenshot: the monitor's `policyRules.visual.mask`. */
export function screenshotMaskOf(policy: PolicyRules): { screenshotMask?: readonly string[] } {
  const mask = policy.visual?.mask;
  return mask === undefined || mask.length === 0 ? {} : { screenshotMask: mask };
}

/**
 * The diff with the visual comparison in: `visual` on a website diff, and the `visual` change when
 * over the threshold; a visual change alone makes a `visual_change` diff (the text diff found
 * nothing). Null when there is nothing to record.
 */
export function withVisual(
  diff: NewDiff | null,
  comparison: VisualComparison | null,
  context: { previous: SnapshotRecord; response: FetchResponse; monitor: MonitorRecord; id: string; requestId: string; at: Date },
): NewDiff | null {
  if (comparison === null) return diff;
  const visual = { changedPercent: comparison.changedPercent, regions: comparison.regions };
  if (diff !== null) {
    if (diff.classification !== "content_change" && diff.classification !== "visual_change") return diff;
    if (comparison.change === null) return { ...diff, visual };
    const changes = [...diff.changes, comparison.change];
    const topSeverity = compareSeverity(comparison.change.severity, diff.topSeverity) > 0 ? comparison.change.severity : diff.topSeverity;
    return {
      ...diff,
      classification: classifyWebsiteChanges(changes),
      changes,
      topSeverity,
      diffFingerprint: diff.truncated === true ? diff.diffFingerprint : fingerprintValidChanges(changes),
      visual,
    };
  }
  if (comparison.change === null) return null;
  const changes = [comparison.change];
  const made: NewWebsiteDiff = {
    id: context.id,
    previousSnapshotId: context.previous.id,
    classification: "visual_change",
    diffFingerprint: fingerprintValidChanges(changes),
    topSeverity: comparison.change.severity,
    changes,
    requestId: context.requestId,
    status: context.response.status,
    latencyMs: context.response.latencyMs,
    createdAt: context.at.toISOString(),
    summary: { additions: 0, removals: 0, modifications: 0 },
    changedTargets: [],
    browserRender: context.response.browserRender,
    waitStrategy: context.response.waitStrategy,
    selector: context.monitor.selector,
    visual,
  };
  return made;
}
