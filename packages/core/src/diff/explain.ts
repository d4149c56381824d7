import type { Severity } from "@driftwatch/schema";

/** What decided the fate of one change (or of something that would have been one). */
export type ExplanationOutcome = "ignored" | "rated" | "volatile" | "tolerance" | "unordered" | "float_noise" | "inferred_key";

/**
 * One line of `driftwatch diff --explain`: which rule or inference hid or rated a change.
 * `rule` names the policy entry (`rules[2]`, `volatile[0]`, `tolerance[1]`, `unordered[0]`,
 * `arrayKeys["$.items"]`, `normalize.relativeTimes`, `floatEpsilon`) when one did; inferences and
 * default severities have none.
 */
export interface DiffExplanation {
  /** JSON diffs: the RFC 9535 path; website diffs: the CSS selector of the element. */
  path: string;
  /** Website diffs: the selector (same as `path`). */
  selector?: string;
  outcome: ExplanationOutcome;
  rule?: string;
  /** For `rated`: the severity the change got. */
  severity?: Severity;
  detail: string;
}
