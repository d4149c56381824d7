import {
  AlertSchema,
  MAX_CONDITION_PATTERN_LENGTH,
  SEVERITIES,
  AVAILABILITIES,
  type Alert,
  type Condition,
  type ConditionOp,
  type TrackedValueSpec,
} from "@driftwatch/schema";
import { RE2JS } from "re2js";
import { DriftwatchError, type DriftwatchErrorDetail } from "../errors.js";

/** What a condition's `value` names, as far as validation can tell. */
export type ConditionValueKind = "number" | "price" | "text" | "availability" | "severity" | "any";

/** A compiled `matches` pattern, as the evaluator uses it (an RE2JS pattern is one). */
export interface PatternMatcher {
  matcher(input: string): { find(): boolean };
}

/** A validated alert: the conditions with their compiled patterns. */
export interface CompiledAlert {
  alert: Alert;
  /** Per condition, the compiled `matches` pattern (undefined for other ops); validateAlert compiles them with re2js. */
  patterns: ReadonlyArray<PatternMatcher | undefined>;
}

/** Ops that compare with a number (or, for `diff.topSeverity`, a severity). */
const ORDER_OPS: ReadonlySet<ConditionOp> = new Set(["lt", "lte", "gt", "gte"]);
const PERCENT_OPS: ReadonlySet<ConditionOp> = new Set(["dropped_by_percent", "rose_by_percent"]);
const NO_OPERAND_OPS: ReadonlySet<ConditionOp> = new Set(["changed", "appeared", "disappeared"]);

/** The kind of value a tracked spec records. */
export function kindOfSpec(spec: TrackedValueSpec): ConditionValueKind {
  switch (spec.extract) {
    case "number":
      return "number";
    case "price":
      return "price";
    case "availability":
      return "availability";
    case "text":
    case "attribute":
      return "text";
    default:
      // A selector without extract reads text; a JSONPath without extract records whatever scalar is there.
      return spec.selector !== undefined ? "text" : "any";
  }
}

/**
 * Validates `alert` against the monitor's tracked values. Throws a DriftwatchError
 * `invalid_conditions` with one detail per problem, each naming its place
 * (`alert.conditions[1].to`). `track` is the monitor's (already valid) `track`.
 */
export function validateAlert(alert: unknown, track: readonly TrackedValueSpec[] = []): CompiledAlert {
  const shaped = AlertSchema.safeParse(alert);
  if (!shaped.success) {
    const details = shaped.error.issues.map((issue) => ({ path: `alert${issue.path.map((k) => (typeof k === "number" ? `[${k}]` : `.${String(k)}`)).join("")}`, message: issue.message }));
    throw invalidConditions(details);
  }
  const kinds = new Map<string, ConditionValueKind>(track.map((spec) => [spec.name, kindOfSpec(spec)]));
  kinds.set("text", "text");
  kinds.set("diff.topSeverity", "severity");
  const details: DriftwatchErrorDetail[] = [];
  const patterns: (RE2JS | undefined)[] = [];
  shaped.data.conditions.forEach((condition, index) => {
    const at = `alert.conditions[${index}]`;
    const kind = kinds.get(condition.value);
    patterns.push(undefined);
    if (kind === undefined) {
      const names = [...kinds.keys()].map((name) => JSON.stringify(name)).join(", ");
      details.push({ path: `${at}.value`, message: `${JSON.stringify(condition.value)} is not a tracked value; use one of ${names}` });
      return;
    }
    const problem = operandProblem(condition, kind);
    if (problem !== null) {
      details.push({ path: `${at}.${problem.field}`, message: problem.message });
      return;
    }
    if (condition.op === "matches") {
      const compiled = compilePattern(condition.to as string);
      if (typeof compiled === "string") details.push({ path: `${at}.to`, message: compiled });
      else patterns[index] = compiled;
    }
  });
  if (details.length > 0) throw invalidConditions(details);
  return { alert: shaped.data, patterns };
}

function invalidConditions(details: DriftwatchErrorDetail[]): DriftwatchError {
  const first = details[0]!;
  return new DriftwatchError("invalid_conditions", `${first.path}: ${first.message}`, { details });
}

function operandProblem(condition: Condition, kind: ConditionValueKind): { field: "to" | "op"; message: string } | null {
  const { op, to } = condition;
  if (NO_OPERAND_OPS.has(op)) return to === undefined ? null : { field: "to", message: `${op} takes no operand; remove to` };
  if (to === undefined) return { field: "to", message: `${op} needs an operand in to` };
  if (ORDER_OPS.has(op)) {
    if (kind === "severity") {
      return typeof to === "string" && (SEVERITIES as readonly string[]).includes(to) ? null : { field: "to", message: `diff.topSeverity compares with a severity: ${SEVERITIES.join(", ")}` };
    }
    if (kind === "text" || kind === "availability") return { field: "op", message: `${op} compares numbers; ${condition.value} is ${kind === "text" ? "a text" : "an availability"}` };
    return typeof to === "number" && Number.isFinite(to) ? null : { field: "to", message: `${op} compares with a number` };
  }
  if (PERCENT_OPS.has(op)) {
    if (kind === "text" || kind === "availability" || kind === "severity") return { field: "op", message: `${op} needs a number or a price; ${condition.value} is not one` };
    return typeof to === "number" && Number.isFinite(to) && to > 0 && to <= 100_000 ? null : { field: "to", message: `${op} takes a percentage above 0` };
  }
  if (op === "contains" || op === "matches") {
    if (kind === "number" || kind === "price" || kind === "availability" || kind === "severity") return { field: "op", message: `${op} reads a text; ${condition.value} is not one` };
    if (typeof to !== "string" || to === "") return { field: "to", message: `${op} needs a non-empty text` };
    if (op === "matches" && to.length > MAX_CONDITION_PATTERN_LENGTH) return { field: "to", message: `a pattern has at most ${MAX_CONDITION_PATTERN_LENGTH} characters` };
    return null;
  }
  // eq, ne, changed_to
  switch (kind) {
    case "number":
    case "price":
      return typeof to === "number" && Number.isFinite(to) ? null : { field: "to", message: `${condition.value} is a ${kind}; compare it with a number` };
    case "availability":
      return typeof to === "string" && (AVAILABILITIES as readonly string[]).includes(to) ? null : { field: "to", message: `${condition.value} is an availability: ${AVAILABILITIES.join(", ")}` };
    case "severity":
      return typeof to === "string" && (SEVERITIES as readonly string[]).includes(to) ? null : { field: "to", message: `diff.topSeverity is a severity: ${SEVERITIES.join(", ")}` };
    case "text":
      return typeof to === "string" ? null : { field: "to", message: `${condition.value} is a text; compare it with a text` };
    default:
      return null;
  }
}

/**
 * Compiles a `matches` pattern with re2js (RE2's linear-time matching: no backtracking, so no
 * pattern makes matching slow, whatever the input). Returns the error message when it does not compile.
 */
export function compilePattern(pattern: string): RE2JS | string {
  if (pattern.length > MAX_CONDITION_PATTERN_LENGTH) return `a pattern has at most ${MAX_CONDITION_PATTERN_LENGTH} characters`;
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    return `not a valid pattern (RE2 syntax): ${error instanceof Error ? error.message : String(error)}`;
  }
}
