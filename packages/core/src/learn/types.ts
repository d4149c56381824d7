import type { PolicyRules } from "@driftwatch/schema";

/** Why one part of a suggested policy is there, or why a changing field was kept. */
export interface PolicyEvidence {
  kind: "volatile" | "arrayKey" | "unordered" | "tolerance" | "severity" | "kept";
  /**
   * The part of the suggested policy this explains: `volatile[0]`, `arrayKeys['$.items']`,
   * `unordered[1]`, `tolerance[0]`, `rules[2]`. Absent for kind `kept`.
   */
  rule?: string;
  /** JSONPath of the field or array (`[*]` for every element of an array). */
  path?: string;
  /** CSS selector of the block (website monitors). */
  selector?: string;
  /** In how many consecutive pairs of samples it changed. */
  changed: number;
  /** How many consecutive pairs of samples were looked at. */
  pairs: number;
  /** The value shape seen: `iso8601`, `unix_time`, `uuid`, `counter`, `float`, `enum`, `price`... */
  shape?: string;
  /** One sentence: "changed in 4 of 4 fetches, always an ISO 8601 timestamp". */
  reason: string;
}

/** What `suggestPolicy` returns: a policy for the settings API and the diff functions, and why. */
export interface PolicySuggestion {
  policy: PolicyRules;
  evidence: PolicyEvidence[];
}

export interface SuggestPolicyOptions {
  /** `json` for api monitors, `html` for website monitors. */
  kind: "json" | "html";
  /** Website monitors: the monitor's scope selector; blocks outside it are not looked at. */
  selector?: string | null;
}
