import type { Alert, Condition } from "@driftwatch/schema";
import type { CompiledAlert, PatternMatcher } from "./validate.js";

/**
 * `@driftwatch/core/conditions`: the alert evaluator for browsers (the dashboard's live preview).
 * It imports nothing at run time: no Node module, no zod, no re2js. Validation (`validateAlert`,
 * zod and re2js) stays in the main entry; here an alert that was validated elsewhere (the server
 * validates it when it is saved, and a form before it sends it) is evaluated with the same rules
 * as the service's checks.
 */
export {
  evaluateAlert,
  evaluateFailedCheck,
  MAX_CONDITION_INPUT,
  previewAlert,
  SEVERITY_ORDER,
  type AlertEvaluation,
  type AlertPreviewEntry,
  type AlertState,
  type CheckObservation,
  type ObservedValue,
} from "./evaluate.js";
export type { CompiledAlert, PatternMatcher } from "./validate.js";

/** An alert as a form or the API holds it: `when` may be left out (`all`). */
export interface AlertLike {
  when?: "all" | "any" | undefined;
  conditions: readonly Condition[];
}

/**
 * An alert validated elsewhere, ready for `evaluateAlert` and `previewAlert`: each `matches`
 * pattern compiled by `compile` (in a browser, a RegExp wrapper or re2js; undefined when the
 * pattern does not compile, which makes that condition false with the reason). No validation.
 */
export function compileValidatedAlert(alert: AlertLike, compile: (pattern: string) => PatternMatcher | undefined): CompiledAlert {
  const normalized: Alert = { when: alert.when ?? "all", conditions: [...alert.conditions] };
  const patterns = normalized.conditions.map((condition) => (condition.op === "matches" && typeof condition.to === "string" ? compile(condition.to) : undefined));
  return { alert: normalized, patterns };
}
