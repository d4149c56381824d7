import { z } from "zod";

/**
 * Overall kind of a diff: at least one schema change, only value changes, a website content change,
 * (websites with screenshots) a visual change alone, the page's text unchanged, API changes
 * between two versions of an OpenAPI document (`openapi` monitors), or (api monitors with a
 * contract) a response that violates its documented schema while the content did not change shape.
 */
export const ClassificationSchema = z.enum(["schema_change", "value_change", "content_change", "visual_change", "api_change", "contract_violation"]);
export type Classification = z.infer<typeof ClassificationSchema>;

/**
 * Whether a change alters the shape of a document (schema) or only a value in it; `visual` is the
 * one change a website diff gets when its screenshots differ over the monitor's threshold; `api`
 * is a change between two versions of an OpenAPI document (with its rule, level and operation);
 * `contract` is a response's violation of its documented schema (with keyword, expected, actual).
 */
export const CategorySchema = z.enum(["schema", "value", "visual", "api", "contract"]);
export type Category = z.infer<typeof CategorySchema>;

/** RFC 6902-style operation of one change. */
/**
 * What happened at a path, as in JSON Patch (RFC 6902): `move` takes the value at `from` to `path`
 * (an element that changed place, or an equal value removed at one path and added at another).
 */
export const OpSchema = z.enum(["add", "remove", "replace", "move"]);
export type Op = z.infer<typeof OpSchema>;

/** Severities in ascending order. */
export const SEVERITIES = ["info", "low", "medium", "high", "critical"] as const;
export const SeveritySchema = z.enum(SEVERITIES);
export type Severity = z.infer<typeof SeveritySchema>;

/** Rank of a severity: info 0 ... critical 4. */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

/** Negative, zero or positive as `a` is below, equal to or above `b`. */
export function compareSeverity(a: Severity, b: Severity): number {
  return severityRank(a) - severityRank(b);
}

/** The highest of the given severities, or `undefined` for none. */
export function maxSeverity(severities: Iterable<Severity>): Severity | undefined {
  let best: Severity | undefined;
  for (const s of severities) if (best === undefined || severityRank(s) > severityRank(best)) best = s;
  return best;
}

export const WaitStrategySchema = z.enum(["load", "domcontentloaded", "networkidle", "commit"]);
export type WaitStrategy = z.infer<typeof WaitStrategySchema>;

/** `api`: a JSON endpoint; `website`: a page; `openapi`: an OpenAPI 3.0/3.1 document, diffed as API changes. */
export const MonitorTypeSchema = z.enum(["api", "website", "openapi"]);

/** Level of an API change (oasdiff's): breaking, potentially breaking or non-breaking. */
export const ApiChangeLevelSchema = z.enum(["breaking", "potentially-breaking", "non-breaking"]);
export type ApiChangeLevel = z.infer<typeof ApiChangeLevelSchema>;
export type MonitorType = z.infer<typeof MonitorTypeSchema>;

export const MonitorStateSchema = z.enum(["active", "paused", "failing"]);
export type MonitorState = z.infer<typeof MonitorStateSchema>;

export const DeliveryStateSchema = z.enum(["pending", "succeeded", "failed"]);
export type DeliveryState = z.infer<typeof DeliveryStateSchema>;

export const ScopeSchema = z.enum(["monitors:read", "monitors:write", "webhooks:read", "webhooks:write", "admin"]);
export type Scope = z.infer<typeof ScopeSchema>;

/** A person's role in an organization, from least to most: viewer, member, admin, owner. */
export const RoleSchema = z.enum(["viewer", "member", "admin", "owner"]);
export type Role = z.infer<typeof RoleSchema>;

export const EventTypeSchema = z.enum(["diff.detected"]);
export type EventType = z.infer<typeof EventTypeSchema>;

export const HttpMethodSchema = z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);
export type HttpMethod = z.infer<typeof HttpMethodSchema>;

export const BlockableResourceSchema = z.enum(["image", "font", "media", "stylesheet"]);
export type BlockableResource = z.infer<typeof BlockableResourceSchema>;

/** What a browser render captures as a screenshot: nothing, the viewport, the full page, or the monitor's `waitForSelector` element. */
export const ScreenshotModeSchema = z.enum(["off", "viewport", "fullPage", "selector"]);
export type ScreenshotMode = z.infer<typeof ScreenshotModeSchema>;

/** Actions of a browser step, run in order before the capture. */
export const BrowserStepActionSchema = z.enum([
  "goto",
  "click",
  "fill",
  "select",
  "check",
  "press",
  "waitForSelector",
  "waitForTimeout",
  "scroll",
  "acceptCookies",
]);
export type BrowserStepAction = z.infer<typeof BrowserStepActionSchema>;
