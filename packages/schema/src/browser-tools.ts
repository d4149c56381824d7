import { z } from "zod";
import { BrowserStepActionSchema } from "./enums.js";
import { BoxSchema, BrowserOptionsSchema, SECRET_NAME_PATTERN, TimestampSchema, UrlSchema } from "./resources.js";

// Stored secrets (browser steps' passwords), the steps' dry run and the page inspection.

/** Longest secret value accepted, in characters. */
export const MAX_SECRET_VALUE_LENGTH = 10_000;

export const SecretCreateSchema = z.strictObject({
  /** How steps name it (`"secret": "<name>"`): 1-100 letters, digits, `_`, `.` or `-`, unique in the organization. */
  name: z.string().regex(SECRET_NAME_PATTERN, "must be 1-100 letters, digits, '_', '.' or '-'"),
  /** The value: stored sealed with the server key, never returned or logged. */
  value: z.string().min(1).max(MAX_SECRET_VALUE_LENGTH),
});
export type SecretCreate = z.input<typeof SecretCreateSchema>;

/** A stored secret as the API shows it: never its value. */
export const SecretSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: TimestampSchema,
});
export type Secret = z.infer<typeof SecretSchema>;

export const SecretListSchema = z.object({ data: z.array(SecretSchema) });
export type SecretList = z.infer<typeof SecretListSchema>;

/** The target of a dry run or an inspection: a URL and the browser options (steps included) to render it with. */
export const BrowserRunRequestSchema = z.strictObject({
  url: UrlSchema,
  browserOptions: BrowserOptionsSchema.optional(),
});
export type BrowserRunRequest = z.input<typeof BrowserRunRequestSchema>;

/** How one step of a dry run went. */
export const StepRunSchema = z.object({
  index: z.number().int(),
  action: BrowserStepActionSchema,
  ok: z.boolean(),
  ms: z.number().int(),
  /** Why it failed (a secret's value never appears in it). */
  error: z.string().optional(),
});
export type StepRun = z.infer<typeof StepRunSchema>;

/** `POST /api/monitors/steps/run`: each step run (up to the first that failed) and the page at the end, as a data URL. */
export const StepsRunResultSchema = z.object({
  steps: z.array(StepRunSchema),
  /** `data:image/png;base64,...`: the page after the last step run (the failed one's, when one failed); null when none could be taken. */
  screenshot: z.string().nullable(),
});
export type StepsRunResult = z.infer<typeof StepsRunResultSchema>;

/** `POST /api/monitors/inspect`: the rendered page (steps included) and its visible blocks. */
export const InspectResultSchema = z.object({
  /** `data:image/png;base64,...` of the full page (down to the browser fetcher's height cap). */
  screenshot: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  elements: z.array(
    z.object({
      /** A unique selector for the element (`#id`, or `tag:nth-of-type(n)` steps). */
      selector: z.string(),
      box: BoxSchema,
      text: z.string(),
    }),
  ),
});
export type InspectResult = z.infer<typeof InspectResultSchema>;

// FailedStepSchema (the failed step of a `browser_step_failed` check) is in resources.ts, with the monitor's `lastFailure`.
