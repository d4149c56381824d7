import { useMutation, useQuery, type UseQueryResult } from "@tanstack/react-query";
import { useClient } from "../../api/context";
import { monitorKeys } from "../../api/keys";
import { apiImage, apiRequest, seg } from "../../api/raw";
import type { BinaryBody } from "@driftwatch/client";

/*
 * Screenshots, visual diffs, browser steps, secrets and the selector picker (issue 28): the
 * shapes the issue states. The typed client has none of these routes yet; every call goes
 * through `apiRequest` / `apiImage` here, and only here.
 */

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A diff of a monitor with screenshots carries this. */
export interface VisualDiff {
  changedPercent: number;
  regions: Region[];
}

export const STEP_ACTIONS = ["goto", "click", "fill", "select", "check", "press", "waitForSelector", "waitForTimeout", "scroll", "acceptCookies"] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

export interface BrowserStep {
  action: StepAction;
  selector?: string;
  value?: string;
  secret?: string;
  url?: string;
  key?: string;
  ms?: number;
  timeoutMs?: number;
}

export interface StepResult {
  index: number;
  action: StepAction;
  ok: boolean;
  ms: number;
  error?: string;
}

export interface StepsRunResult {
  steps: StepResult[];
  /** A data URL. */
  screenshot: string | null;
}

export interface InspectElement {
  selector: string;
  box: Region;
  text: string;
}

export interface InspectResult {
  /** A data URL. */
  screenshot: string;
  width: number;
  height: number;
  elements: InspectElement[];
}

export interface SecretEntry {
  id: string;
  name: string;
  createdAt: string;
}

/** `lastError` of a check that failed at a browser step. */
export interface StepFailure {
  reason: "browser_step_failed";
  message?: string;
  step: { index: number; action: string; selector?: string | null };
}

/**
 * The fetcher's message of a failed step, as `lastError` records it (with the code first):
 * `browser_step_failed: Browser step 2 (click on #go) failed: timeout`.
 */
const STEP_MESSAGE = /^(?:browser_step_failed: )?Browser step (\d+) \((\w+)(?: on (.*))?\) failed: (.*)$/s;

/**
 * The step failure of a monitor: its structured `lastFailure` (`{ reason, message, step }`), else,
 * from a server that records only `lastError`, that text parsed (an object with `reason` and
 * `step`, its JSON text, or the fetcher's message); null when no browser step failed.
 */
export function monitorStepFailure(m: { lastError: string | null; lastFailure?: unknown }): StepFailure | null {
  if (m.lastFailure !== undefined && m.lastFailure !== null) return stepFailureOf(m.lastFailure);
  return stepFailureOf(m.lastError);
}

/**
 * The step failure in a monitor's `lastFailure` or `lastError` (an object with `reason` and
 * `step`, its JSON text, or the fetcher's message), if that is what failed.
 */
export function stepFailureOf(lastError: unknown): StepFailure | null {
  let value = lastError;
  if (typeof value === "string") {
    const m = STEP_MESSAGE.exec(value);
    if (m) return { reason: "browser_step_failed", message: m[4]!, step: { index: Number(m[1]), action: m[2]!, selector: m[3] ?? null } };
  }
  if (typeof value === "string" && value.trimStart().startsWith("{")) {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (value === null || typeof value !== "object") return null;
  const v = value as Partial<StepFailure>;
  if (v.reason !== "browser_step_failed" || v.step === undefined || v.step === null || typeof v.step.index !== "number") return null;
  return v as StepFailure;
}

/** The visual part of a diff, when it has one. */
export function visualOf(diff: object): VisualDiff | null {
  const v = (diff as { visual?: VisualDiff | null }).visual;
  return v && typeof v.changedPercent === "number" && Array.isArray(v.regions) ? v : null;
}

export const screenshotPath = (monitorId: string, snapshotId: string): string => `/api/monitors/${seg(monitorId)}/snapshots/${seg(snapshotId)}/screenshot`;

/** An image's bytes as a `data:` URL (base64), built in chunks so a large image does not overflow the stack. */
export function dataUrlOf(image: BinaryBody): string {
  const bytes = image.data;
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${image.type || "image/png"};base64,${btoa(binary)}`;
}

/**
 * A snapshot's screenshot, fetched with the session or token like every other call (an `<img>`
 * cannot send the bearer token), as a `data:` URL: the dashboard's Content-Security-Policy allows
 * images from `'self'` and `data:` only, so an object (`blob:`) URL would not show. `url` is null
 * and `missing` true when none was taken (404).
 */
export function useScreenshot(monitorId: string, snapshotId: string | null): { url: string | null; isPending: boolean; error: unknown; missing: boolean } {
  const client = useClient();
  const shot = useQuery({
    queryKey: [...monitorKeys.detail(monitorId), "screenshot", snapshotId],
    queryFn: async ({ signal }): Promise<string | null> => {
      try {
        return dataUrlOf(await apiImage(client, screenshotPath(monitorId, snapshotId!), signal));
      } catch (error) {
        if ((error as { status?: number }).status === 404) return null;
        throw error;
      }
    },
    enabled: snapshotId !== null,
    staleTime: Infinity,
    // screenshots are large: keep only those on screen, and briefly
    gcTime: 60_000,
  });
  return { url: shot.data ?? null, isPending: shot.isPending && snapshotId !== null, error: shot.error, missing: shot.data === null };
}

export function useSecrets(): UseQueryResult<SecretEntry[]> {
  const client = useClient();
  return useQuery({ queryKey: ["secrets"], queryFn: async () => (await apiRequest<{ data: SecretEntry[] }>(client, "GET", "/api/secrets")).data });
}

export interface BrowserRequest {
  url: string;
  browserOptions: Record<string, unknown>;
}

/** Renders the target (steps included) and answers its visible blocks with their boxes. */
export function useInspect() {
  const client = useClient();
  return useMutation({ mutationFn: (body: BrowserRequest) => apiRequest<InspectResult>(client, "POST", "/api/monitors/inspect", { body }) });
}

/** Runs the steps without saving anything. */
export function useStepsRun() {
  const client = useClient();
  return useMutation({ mutationFn: (body: BrowserRequest) => apiRequest<StepsRunResult>(client, "POST", "/api/monitors/steps/run", { body }) });
}
