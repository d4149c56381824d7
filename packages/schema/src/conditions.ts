import { z } from "zod";

/**
 * Tracked values and alert conditions (monitor settings `track` and `alert`). These schemas check
 * the shape only; `validateTrack` and `validateAlert` in @driftwatch/core check the meaning (a
 * condition's `value` names a tracked value, `to` fits the operator, a `matches` pattern compiles)
 * and name the offending place, e.g. `alert.conditions[1].to`.
 */

/** Most values one monitor tracks. */
export const MAX_TRACKED_VALUES = 20;
/** Most conditions in one `alert`. */
export const MAX_ALERT_CONDITIONS = 20;
/** Longest `matches` pattern, in characters. */
export const MAX_CONDITION_PATTERN_LENGTH = 256;
/** Largest `forChecks`. */
export const MAX_FOR_CHECKS = 1000;

export const TRACK_EXTRACTS = ["number", "text", "attribute", "price", "availability"] as const;
export const TrackExtractSchema = z.enum(TRACK_EXTRACTS);
export type TrackExtract = z.infer<typeof TrackExtractSchema>;

/** A tracked value's name: letters, digits, `_`, `-`; not `text` and not starting with `diff.` (both are built in). */
export const TrackedNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, "a tracked name starts with a letter or _ and holds only letters, digits, _ and -")
  .refine((name) => name !== "text", { message: "`text` is built in (the monitor's selected text); pick another name" });

/**
 * One value a monitor tracks. `path` (a JSONPath, RFC 9535) for api monitors; `selector` (CSS)
 * for website monitors; `extract` says what to read (default: the JSON value for a path, `text`
 * for a selector). `price` and `availability` on a website monitor may omit `selector`: they are
 * then read from the page's structured data first (JSON-LD, microdata, Open Graph), then from
 * common visible patterns.
 */
export const TrackedValueSpecSchema = z.strictObject({
  name: TrackedNameSchema,
  path: z.string().min(1).max(1000).optional(),
  selector: z.string().min(1).max(1000).optional(),
  extract: TrackExtractSchema.optional(),
  /** The attribute to read with `extract: "attribute"`. */
  attribute: z.string().min(1).max(200).optional(),
});
export type TrackedValueSpec = z.infer<typeof TrackedValueSpecSchema>;

export const TrackSchema = z.array(TrackedValueSpecSchema).max(MAX_TRACKED_VALUES);
export type Track = z.infer<typeof TrackSchema>;

export const AVAILABILITIES = ["in_stock", "out_of_stock", "preorder", "unknown"] as const;
export const AvailabilitySchema = z.enum(AVAILABILITIES);
export type Availability = z.infer<typeof AvailabilitySchema>;

/** A price: its amount and its ISO 4217 currency (null when the page does not say which). */
export const PriceSchema = z.object({
  amount: z.number(),
  currency: z.string().length(3).nullable(),
});
export type Price = z.infer<typeof PriceSchema>;

/** A tracked value as recorded: a number, a text, a boolean (JSON), a price or an availability. */
export const TrackedValueSchema = z.union([z.number(), z.string(), z.boolean(), PriceSchema]);
export type TrackedValue = z.infer<typeof TrackedValueSchema>;

export const CONDITION_OPS = [
  "lt",
  "lte",
  "gt",
  "gte",
  "eq",
  "ne",
  "contains",
  "matches",
  "changed",
  "changed_to",
  "dropped_by_percent",
  "rose_by_percent",
  "appeared",
  "disappeared",
] as const;
export const ConditionOpSchema = z.enum(CONDITION_OPS);
export type ConditionOp = z.infer<typeof ConditionOpSchema>;

/**
 * One condition: `value` is a tracked name, `text` (the monitor's selected text) or
 * `diff.topSeverity`; `to` is the operand (absent for `changed`, `appeared`, `disappeared`);
 * `forChecks: N` holds only after the condition held on N consecutive checks.
 */
export const ConditionSchema = z.strictObject({
  value: z.string().min(1).max(80),
  op: ConditionOpSchema,
  to: z.union([z.number(), z.string().max(1000), z.boolean()]).optional(),
  forChecks: z.number().int().min(1).max(MAX_FOR_CHECKS).optional(),
});
export type Condition = z.infer<typeof ConditionSchema>;

export const AlertSchema = z.strictObject({
  when: z.enum(["all", "any"]).default("all"),
  conditions: z.array(ConditionSchema).min(1).max(MAX_ALERT_CONDITIONS),
});
export type Alert = z.output<typeof AlertSchema>;
export type AlertInput = z.input<typeof AlertSchema>;

/** One condition's outcome on one check. */
export const ConditionResultSchema = z.object({
  index: z.number().int(),
  matched: z.boolean(),
  reason: z.string(),
});
export type ConditionResult = z.infer<typeof ConditionResultSchema>;

/** What a diff carries when its monitor has `alert` set. */
export const AlertResultSchema = z.object({
  matched: z.boolean(),
  results: z.array(ConditionResultSchema),
});
export type AlertResult = z.infer<typeof AlertResultSchema>;
