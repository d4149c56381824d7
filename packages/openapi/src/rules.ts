// The rule registry: every change id the diff can report, its family and its level. The ids and
// levels are oasdiff's (checker/rules.go, see test/oasdiff-rules.tsv); a test keeps them in step.

/** How a change affects existing clients (oasdiff's ERR, WARN and INFO). */
export type ChangeLevel = "breaking" | "potentially-breaking" | "non-breaking";

/** driftwatch severity of a change: breaking is critical or high, potentially breaking medium. */
export type ChangeSeverity = "critical" | "high" | "medium" | "info";

/** Rule families, used to group the docs and the corpus agreement report. */
export type RuleFamily =
  | "paths"
  | "deprecation"
  | "stability"
  | "operation"
  | "security"
  | "parameters"
  | "request-body"
  | "request-property"
  | "response-status"
  | "response-body"
  | "response-property";

const TABLE = {
  "endpoint-added": ["paths", "non-breaking"],
  "webhook-added": ["paths", "non-breaking"],
  "webhook-removed": ["paths", "breaking"],
  "api-path-removed-without-deprecation": ["paths", "breaking"],
  "api-path-removed-with-deprecation": ["paths", "non-breaking"],
  "api-path-removed-before-sunset": ["paths", "breaking"],
  "api-removed-without-deprecation": ["paths", "breaking"],
  "api-removed-with-deprecation": ["paths", "non-breaking"],
  "api-removed-before-sunset": ["paths", "breaking"],
  "api-path-sunset-parse": ["paths", "breaking"],
  "endpoint-deprecated": ["deprecation", "non-breaking"],
  "endpoint-deprecated-with-sunset": ["deprecation", "non-breaking"],
  "endpoint-reactivated": ["deprecation", "non-breaking"],
  "sunset-deleted": ["deprecation", "breaking"],
  "api-sunset-date-changed-too-small": ["deprecation", "breaking"],
  "api-stability-decreased": ["stability", "breaking"],
  "api-stability-increased": ["stability", "non-breaking"],
  "api-invalid-stability-level": ["stability", "breaking"],
  "api-operation-id-added": ["operation", "non-breaking"],
  "api-operation-id-removed": ["operation", "non-breaking"],
  "api-tag-added": ["operation", "non-breaking"],
  "api-tag-removed": ["operation", "non-breaking"],
  "api-security-added": ["security", "non-breaking"],
  "api-security-removed": ["security", "non-breaking"],
  "api-security-scope-added": ["security", "non-breaking"],
  "api-security-scope-removed": ["security", "non-breaking"],
  "api-global-security-added": ["security", "non-breaking"],
  "api-global-security-removed": ["security", "non-breaking"],
  "api-global-security-scope-added": ["security", "non-breaking"],
  "api-global-security-scope-removed": ["security", "non-breaking"],
  "new-required-request-parameter": ["parameters", "breaking"],
  "new-optional-request-parameter": ["parameters", "non-breaking"],
  "new-request-path-parameter": ["parameters", "breaking"],
  "request-parameter-removed": ["parameters", "potentially-breaking"],
  "request-parameter-removed-with-deprecation": ["parameters", "non-breaking"],
  "request-parameter-became-required": ["parameters", "breaking"],
  "request-parameter-became-optional": ["parameters", "non-breaking"],
  "request-parameter-deprecated": ["parameters", "non-breaking"],
  "request-parameter-reactivated": ["parameters", "non-breaking"],
  "request-parameter-type-changed": ["parameters", "breaking"],
  "request-parameter-type-generalized": ["parameters", "non-breaking"],
  "request-parameter-list-of-types-narrowed": ["parameters", "breaking"],
  "request-parameter-list-of-types-widened": ["parameters", "non-breaking"],
  "request-parameter-enum-value-added": ["parameters", "non-breaking"],
  "request-parameter-enum-value-removed": ["parameters", "breaking"],
  "request-parameter-became-enum": ["parameters", "breaking"],
  "request-parameter-became-nullable": ["parameters", "non-breaking"],
  "request-parameter-became-not-nullable": ["parameters", "breaking"],
  "request-parameter-max-decreased": ["parameters", "breaking"],
  "request-parameter-max-increased": ["parameters", "non-breaking"],
  "request-parameter-max-set": ["parameters", "potentially-breaking"],
  "request-parameter-min-increased": ["parameters", "breaking"],
  "request-parameter-min-decreased": ["parameters", "non-breaking"],
  "request-parameter-min-set": ["parameters", "potentially-breaking"],
  "request-parameter-max-length-decreased": ["parameters", "breaking"],
  "request-parameter-max-length-increased": ["parameters", "non-breaking"],
  "request-parameter-max-length-set": ["parameters", "potentially-breaking"],
  "request-parameter-min-length-increased": ["parameters", "breaking"],
  "request-parameter-min-length-decreased": ["parameters", "non-breaking"],
  "request-parameter-max-items-decreased": ["parameters", "breaking"],
  "request-parameter-max-items-increased": ["parameters", "non-breaking"],
  "request-parameter-min-items-increased": ["parameters", "breaking"],
  "request-parameter-min-items-decreased": ["parameters", "non-breaking"],
  "request-parameter-min-items-set": ["parameters", "potentially-breaking"],
  "request-parameter-property-enum-value-added": ["parameters", "non-breaking"],
  "request-parameter-property-enum-value-removed": ["parameters", "breaking"],
  "request-parameter-property-type-changed": ["parameters", "potentially-breaking"],
  "request-parameter-property-type-generalized": ["parameters", "non-breaking"],
  "request-parameter-property-type-specialized": ["parameters", "breaking"],
  "request-parameter-property-became-nullable": ["parameters", "non-breaking"],
  "request-parameter-property-became-not-nullable": ["parameters", "breaking"],
  "request-body-added-required": ["request-body", "breaking"],
  "request-body-added-optional": ["request-body", "non-breaking"],
  "request-body-removed": ["request-body", "breaking"],
  "request-body-became-required": ["request-body", "breaking"],
  "request-body-became-optional": ["request-body", "non-breaking"],
  "request-body-media-type-added": ["request-body", "non-breaking"],
  "request-body-media-type-removed": ["request-body", "breaking"],
  "request-body-type-changed": ["request-body", "breaking"],
  "request-body-type-generalized": ["request-body", "non-breaking"],
  "request-body-type-compatible": ["request-body", "non-breaking"],
  "request-body-list-of-types-narrowed": ["request-body", "breaking"],
  "request-body-list-of-types-widened": ["request-body", "non-breaking"],
  "request-body-enum-value-removed": ["request-body", "breaking"],
  "request-body-became-enum": ["request-body", "breaking"],
  "request-body-became-nullable": ["request-body", "non-breaking"],
  "request-body-became-not-nullable": ["request-body", "breaking"],
  "request-body-one-of-added": ["request-body", "non-breaking"],
  "request-body-one-of-removed": ["request-body", "breaking"],
  "request-body-any-of-added": ["request-body", "non-breaking"],
  "request-body-any-of-removed": ["request-body", "breaking"],
  "request-body-const-added": ["request-body", "breaking"],
  "request-body-const-changed": ["request-body", "breaking"],
  "request-body-const-removed": ["request-body", "non-breaking"],
  "request-body-if-added": ["request-body", "breaking"],
  "request-body-if-removed": ["request-body", "non-breaking"],
  "request-body-then-added": ["request-body", "breaking"],
  "request-body-then-removed": ["request-body", "non-breaking"],
  "request-body-else-added": ["request-body", "breaking"],
  "request-body-else-removed": ["request-body", "non-breaking"],
  "request-body-max-decreased": ["request-body", "breaking"],
  "request-body-max-increased": ["request-body", "non-breaking"],
  "request-body-max-set": ["request-body", "potentially-breaking"],
  "request-body-min-increased": ["request-body", "breaking"],
  "request-body-min-decreased": ["request-body", "non-breaking"],
  "request-body-min-set": ["request-body", "potentially-breaking"],
  "request-body-max-length-decreased": ["request-body", "breaking"],
  "request-body-max-length-increased": ["request-body", "non-breaking"],
  "request-body-max-length-set": ["request-body", "potentially-breaking"],
  "request-body-min-length-increased": ["request-body", "breaking"],
  "request-body-min-length-decreased": ["request-body", "non-breaking"],
  "request-body-min-items-increased": ["request-body", "breaking"],
  "request-body-min-items-set": ["request-body", "potentially-breaking"],
  "new-required-request-property": ["request-property", "breaking"],
  "new-optional-request-property": ["request-property", "non-breaking"],
  "request-property-removed": ["request-property", "potentially-breaking"],
  "request-property-became-required": ["request-property", "breaking"],
  "request-property-became-optional": ["request-property", "non-breaking"],
  "request-property-type-changed": ["request-property", "breaking"],
  "request-property-type-generalized": ["request-property", "non-breaking"],
  "request-property-type-compatible": ["request-property", "non-breaking"],
  "request-property-list-of-types-narrowed": ["request-property", "breaking"],
  "request-property-list-of-types-widened": ["request-property", "non-breaking"],
  "request-property-enum-value-added": ["request-property", "non-breaking"],
  "request-property-enum-value-removed": ["request-property", "breaking"],
  "request-property-became-enum": ["request-property", "breaking"],
  "request-property-became-nullable": ["request-property", "non-breaking"],
  "request-property-became-not-nullable": ["request-property", "breaking"],
  "request-property-one-of-added": ["request-property", "non-breaking"],
  "request-property-one-of-removed": ["request-property", "breaking"],
  "request-property-any-of-added": ["request-property", "non-breaking"],
  "request-property-any-of-removed": ["request-property", "breaking"],
  "request-property-const-added": ["request-property", "breaking"],
  "request-property-const-changed": ["request-property", "breaking"],
  "request-property-const-removed": ["request-property", "non-breaking"],
  "request-property-if-added": ["request-property", "breaking"],
  "request-property-if-removed": ["request-property", "non-breaking"],
  "request-property-then-added": ["request-property", "breaking"],
  "request-property-then-removed": ["request-property", "non-breaking"],
  "request-property-else-added": ["request-property", "breaking"],
  "request-property-else-removed": ["request-property", "non-breaking"],
  "request-property-max-decreased": ["request-property", "breaking"],
  "request-property-max-increased": ["request-property", "non-breaking"],
  "request-property-max-set": ["request-property", "potentially-breaking"],
  "request-property-min-increased": ["request-property", "breaking"],
  "request-property-min-decreased": ["request-property", "non-breaking"],
  "request-property-min-set": ["request-property", "potentially-breaking"],
  "request-property-max-length-decreased": ["request-property", "breaking"],
  "request-property-max-length-increased": ["request-property", "non-breaking"],
  "request-property-max-length-set": ["request-property", "potentially-breaking"],
  "request-property-min-length-increased": ["request-property", "breaking"],
  "request-property-min-length-decreased": ["request-property", "non-breaking"],
  "request-property-min-items-increased": ["request-property", "breaking"],
  "request-property-min-items-set": ["request-property", "potentially-breaking"],
  "request-property-deprecated": ["request-property", "non-breaking"],
  "request-property-reactivated": ["request-property", "non-breaking"],
  "request-property-stability-decreased": ["request-property", "breaking"],
  "request-property-stability-increased": ["request-property", "non-breaking"],
  "response-success-status-removed": ["response-status", "breaking"],
  "required-response-header-removed": ["response-status", "breaking"],
  "optional-response-header-removed": ["response-status", "potentially-breaking"],
  "response-header-added": ["response-status", "non-breaking"],
  "response-header-became-optional": ["response-status", "breaking"],
  "response-header-became-nullable": ["response-status", "breaking"],
  "response-header-became-not-nullable": ["response-status", "non-breaking"],
  "response-header-type-changed": ["response-status", "breaking"],
  "response-header-type-generalized": ["response-status", "breaking"],
  "response-header-type-specialized": ["response-status", "non-breaking"],
  "response-header-type-compatible": ["response-status", "non-breaking"],
  "response-success-status-added": ["response-status", "non-breaking"],
  "response-non-success-status-removed": ["response-status", "non-breaking"],
  "response-non-success-status-added": ["response-status", "non-breaking"],
  "response-media-type-removed": ["response-status", "breaking"],
  "response-media-type-added": ["response-status", "non-breaking"],
  "response-body-type-changed": ["response-body", "breaking"],
  "response-body-type-generalized": ["response-body", "breaking"],
  "response-body-type-specialized": ["response-body", "non-breaking"],
  "response-body-type-compatible": ["response-body", "non-breaking"],
  "response-body-list-of-types-narrowed": ["response-body", "non-breaking"],
  "response-body-list-of-types-widened": ["response-body", "breaking"],
  "response-mediatype-enum-value-removed": ["response-body", "non-breaking"],
  "response-body-became-nullable": ["response-body", "breaking"],
  "response-body-became-not-nullable": ["response-body", "non-breaking"],
  "response-body-one-of-added": ["response-body", "breaking"],
  "response-body-one-of-removed": ["response-body", "non-breaking"],
  "response-body-any-of-added": ["response-body", "non-breaking"],
  "response-body-any-of-removed": ["response-body", "non-breaking"],
  "response-body-const-added": ["response-body", "non-breaking"],
  "response-body-const-changed": ["response-body", "breaking"],
  "response-body-const-removed": ["response-body", "breaking"],
  "response-body-if-added": ["response-body", "non-breaking"],
  "response-body-if-removed": ["response-body", "breaking"],
  "response-body-then-added": ["response-body", "non-breaking"],
  "response-body-then-removed": ["response-body", "breaking"],
  "response-body-else-added": ["response-body", "non-breaking"],
  "response-body-else-removed": ["response-body", "breaking"],
  "response-body-max-increased": ["response-body", "breaking"],
  "response-body-min-decreased": ["response-body", "breaking"],
  "response-body-max-length-increased": ["response-body", "breaking"],
  "response-body-max-length-unset": ["response-body", "breaking"],
  "response-body-min-length-decreased": ["response-body", "breaking"],
  "response-body-min-items-decreased": ["response-body", "breaking"],
  "response-body-min-items-unset": ["response-body", "breaking"],
  "response-required-property-added": ["response-property", "non-breaking"],
  "response-optional-property-added": ["response-property", "non-breaking"],
  "response-required-property-removed": ["response-property", "breaking"],
  "response-optional-property-removed": ["response-property", "potentially-breaking"],
  "response-property-became-optional": ["response-property", "breaking"],
  "response-property-became-required": ["response-property", "non-breaking"],
  "response-property-type-changed": ["response-property", "breaking"],
  "response-property-type-generalized": ["response-property", "breaking"],
  "response-property-type-specialized": ["response-property", "non-breaking"],
  "response-property-type-compatible": ["response-property", "non-breaking"],
  "response-property-list-of-types-narrowed": ["response-property", "non-breaking"],
  "response-property-list-of-types-widened": ["response-property", "breaking"],
  "response-property-enum-value-added": ["response-property", "potentially-breaking"],
  "response-property-enum-value-removed": ["response-property", "non-breaking"],
  "response-property-became-nullable": ["response-property", "breaking"],
  "response-property-became-not-nullable": ["response-property", "non-breaking"],
  "response-property-one-of-added": ["response-property", "breaking"],
  "response-property-one-of-removed": ["response-property", "non-breaking"],
  "response-property-any-of-added": ["response-property", "non-breaking"],
  "response-property-any-of-removed": ["response-property", "non-breaking"],
  "response-property-const-added": ["response-property", "non-breaking"],
  "response-property-const-changed": ["response-property", "breaking"],
  "response-property-const-removed": ["response-property", "breaking"],
  "response-property-if-added": ["response-property", "non-breaking"],
  "response-property-if-removed": ["response-property", "breaking"],
  "response-property-then-added": ["response-property", "non-breaking"],
  "response-property-then-removed": ["response-property", "breaking"],
  "response-property-else-added": ["response-property", "non-breaking"],
  "response-property-else-removed": ["response-property", "breaking"],
  "response-property-max-increased": ["response-property", "breaking"],
  "response-property-min-decreased": ["response-property", "breaking"],
  "response-property-max-length-increased": ["response-property", "breaking"],
  "response-property-max-length-unset": ["response-property", "breaking"],
  "response-property-min-length-decreased": ["response-property", "breaking"],
  "response-property-min-items-decreased": ["response-property", "breaking"],
  "response-property-min-items-unset": ["response-property", "breaking"],
  "response-property-deprecated": ["response-property", "non-breaking"],
  "response-property-reactivated": ["response-property", "non-breaking"],
  "response-property-stability-decreased": ["response-property", "breaking"],
  "response-property-stability-increased": ["response-property", "non-breaking"],
} as const satisfies Record<string, readonly [RuleFamily, ChangeLevel]>;

/** Every rule id the diff reports. */
export type RuleId = keyof typeof TABLE;

export interface RuleInfo {
  readonly id: RuleId;
  readonly family: RuleFamily;
  readonly level: ChangeLevel;
  readonly severity: ChangeSeverity;
}

// Breaking changes that take away a whole operation or its successful answer are critical;
// the other breaking ones are high.
const CRITICAL: ReadonlySet<string> = new Set([
  "api-path-removed-without-deprecation",
  "api-removed-without-deprecation",
  "api-path-removed-before-sunset",
  "api-removed-before-sunset",
  "response-success-status-removed",
  "response-media-type-removed",
  "request-body-media-type-removed",
]);

function severityOf(id: string, level: ChangeLevel): ChangeSeverity {
  if (level === "breaking") return CRITICAL.has(id) ? "critical" : "high";
  return level === "potentially-breaking" ? "medium" : "info";
}

/** The registry, in documentation order. */
export const RULES: readonly RuleInfo[] = Object.entries(TABLE).map(([id, [family, level]]) => ({
  id: id as RuleId,
  family,
  level,
  severity: severityOf(id, level),
}));

const BY_ID: ReadonlyMap<string, RuleInfo> = new Map(RULES.map((rule) => [rule.id, rule]));

/** The rule with this id, or undefined. */
export function getRule(id: string): RuleInfo | undefined {
  return BY_ID.get(id);
}

/** Whether `id` names a rule (composed ids such as `request-property-min-set` are checked with it). */
export function isRuleId(id: string): id is RuleId {
  return BY_ID.has(id);
}

/** Levels from the least to the most severe, for `--fail-on` style thresholds. */
export const LEVEL_ORDER: readonly ChangeLevel[] = ["non-breaking", "potentially-breaking", "breaking"];
