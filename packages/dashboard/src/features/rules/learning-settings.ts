import type { LearningSettings } from "@driftwatch/client";

/**
 * The service's own defaults (`--warmup-samples`, `--learning-samples`), as the server ships them;
 * a server started with other values uses those, which the API does not tell.
 */
export const SERVICE_LEARNING_DEFAULTS = {
  warmupSamples: 2,
  learningSamples: 3,
} as const;

/** The ranges `LearningSettingsSchema` accepts (the server answers 422 outside them). */
export const LEARNING_LIMITS = {
  warmupSamples: { min: 0, max: 5 },
  learningSamples: { min: 2, max: 10 },
} as const;

export type LearningField = keyof typeof LEARNING_LIMITS;
export const LEARNING_FIELDS: readonly LearningField[] = ["warmupSamples", "learningSamples"];

/** The two fields as typed: an empty field takes the default. */
export type LearningDraft = Record<LearningField, string>;

export function learningDraftOf(settings: LearningSettings | null | undefined): LearningDraft {
  return {
    warmupSamples: settings?.warmupSamples === undefined ? "" : String(settings.warmupSamples),
    learningSamples: settings?.learningSamples === undefined ? "" : String(settings.learningSamples),
  };
}

export type ParsedLearning = { ok: true; value: LearningSettings | null } | { ok: false; errors: Partial<Record<LearningField, string>> };

/**
 * The `learning` value to send for a draft: each empty field left out, both empty `null` (the
 * defaults again); a field that is not a whole number in its range is an error at that field.
 */
export function parseLearningDraft(draft: LearningDraft): ParsedLearning {
  const value: LearningSettings = {};
  const errors: Partial<Record<LearningField, string>> = {};
  for (const field of LEARNING_FIELDS) {
    const text = draft[field].trim();
    if (text === "") continue;
    const { min, max } = LEARNING_LIMITS[field];
    const n = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) errors[field] = `must be a whole number from ${String(min)} to ${String(max)}`;
    else if (n < min || n > max) errors[field] = `must be from ${String(min)} to ${String(max)}`;
    else value[field] = n;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: Object.keys(value).length === 0 ? null : value };
}

/** Whether two `learning` values mean the same (`{}` and null both take the defaults). */
export function sameLearning(a: LearningSettings | null | undefined, b: LearningSettings | null | undefined): boolean {
  return LEARNING_FIELDS.every((field) => a?.[field] === b?.[field]);
}

/** "2 warm-up fetches, 3 learning samples" (each missing member from `fallback`). */
export function describeLearning(settings: LearningSettings | null | undefined, fallback: Required<LearningSettings> = SERVICE_LEARNING_DEFAULTS): string {
  const warmup = settings?.warmupSamples ?? fallback.warmupSamples;
  const samples = settings?.learningSamples ?? fallback.learningSamples;
  return `${String(warmup)} warm-up fetch${warmup === 1 ? "" : "es"}, ${String(samples)} learning samples`;
}
