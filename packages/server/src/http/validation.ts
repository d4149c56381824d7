import type { ProblemFieldError } from "@driftwatch/schema";
import type { FastifySchemaCompiler, preValidationAsyncHookHandler, RouteOptions } from "fastify";
import type { z } from "zod";
import { ApiError } from "./problem.js";

type HttpPart = "body" | "querystring" | "params" | "headers";

/** Formats a zod issue path the way problems name fields: `browserOptions.viewport.width`, `rules[2].path`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (out === "") out = String(key);
    else out += `.${String(key)}`;
  }
  return out;
}

/**
 * One field error per offending field; an unknown-keys issue gives one entry per unknown key.
 * A field with several issues keeps its first: zod reports a value of the wrong type also against
 * the field's length checks ("expected string, received array" and "expected array to have >=1
 * items"), of which only the first says what is wrong.
 */
export function issuesToFieldErrors(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): ProblemFieldError[] {
  const out: ProblemFieldError[] = [];
  const seen = new Set<string>();
  for (const error of fieldErrors(issues, prefix)) {
    if (seen.has(error.path)) continue;
    seen.add(error.path);
    out.push(error);
  }
  return out;
}

function fieldErrors(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[]): ProblemFieldError[] {
  const out: ProblemFieldError[] = [];
  for (const issue of issues) {
    const base = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ path: formatPath([...base, key]), message: "is not a known field" });
      continue;
    }
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      // the closest alternative explains best: the one with the fewest issues
      const best = [...issue.errors].sort((a, b) => a.length - b.length)[0]!;
      out.push(...fieldErrors(best, base));
      continue;
    }
    out.push({ path: formatPath(base) || "(root)", message: issue.message });
  }
  return out;
}

const SPECIAL_FIELDS: ReadonlyArray<{ field: string; code: "invalid_browser_options" | "invalid_policy_rules" | "invalid_track" | "invalid_conditions"; detail: string }> = [
  { field: "browserOptions", code: "invalid_browser_options", detail: "browserOptions is invalid; see errors for each offending field." },
  { field: "policyRules", code: "invalid_policy_rules", detail: "policyRules is invalid; see errors for each offending rule and field." },
  { field: "track", code: "invalid_track", detail: "track is invalid; see errors for each offending place." },
  { field: "alert", code: "invalid_conditions", detail: "alert is invalid; see errors for each offending place." },
];

/**
 * The problem for a request part that failed its zod schema. Bodies answer 422: when every
 * offending field lies inside `browserOptions` (or `policyRules`), with that field's own code.
 * Query strings and headers answer 400 `invalid_request`; a malformed path id answers 404
 * (identifiers are opaque: a malformed one names nothing that exists).
 */
export function validationProblem(part: HttpPart, issues: readonly z.core.$ZodIssue[]): ApiError {
  const errors = issuesToFieldErrors(issues);
  if (part === "params") return new ApiError("not_found", "No resource with this id exists.");
  if (part === "querystring" || part === "headers") {
    return new ApiError("invalid_request", part === "querystring" ? `The query string is invalid: ${summarize(errors)}` : `The request headers are invalid: ${summarize(errors)}`, { errors });
  }
  for (const special of SPECIAL_FIELDS) {
    if (issues.length > 0 && issues.every((issue) => issue.path[0] === special.field)) {
      return new ApiError(special.code, special.detail, { errors });
    }
  }
  return new ApiError("validation_failed", `The request body is invalid: ${summarize(errors)}`, { errors });
}

function summarize(errors: readonly ProblemFieldError[]): string {
  const first = errors.slice(0, 3).map((e) => `${e.path} ${e.message}`);
  return first.join("; ") + (errors.length > 3 ? ` (and ${errors.length - 3} more)` : "") + ".";
}

/** Schemas whose routes accept an empty body (treated as `{}`). */
const optionalBodies = new WeakSet<object>();

/** Marks a body schema as optional: a request without a body is validated as `{}`. */
export function optionalBody<T extends z.ZodType>(schema: T): T {
  optionalBodies.add(schema);
  return schema;
}

/** The problem for a request without a body on a route that needs one. */
function missingBody(): ApiError {
  return new ApiError("validation_failed", "This endpoint needs a JSON request body.", { errors: [{ path: "(root)", message: "is required" }] });
}

/**
 * An `onRoute` hook: a route whose body schema is required (not {@link optionalBody}) refuses a
 * request without a body (none, or an empty one labelled JSON) as "needs a JSON request body".
 * Fastify hands validators `null` for a missing body, which they cannot tell from a JSON `null`.
 */
export function requireBodyOnRoute(route: RouteOptions): void {
  const body = (route.schema as { body?: unknown } | undefined)?.body;
  if (body === undefined || body === null || typeof body !== "object" || optionalBodies.has(body)) return;
  const check: preValidationAsyncHookHandler = async (request) => {
    if (request.body === undefined) throw missingBody();
  };
  const existing = route.preValidation;
  route.preValidation = existing === undefined ? [check] : [check, ...(Array.isArray(existing) ? existing : [existing])];
}

/** A member that is not there is "required", not "expected string, received undefined". */
const PARSE_OPTIONS = {
  error: (issue: { code?: string; input?: unknown }) => (issue.code === "invalid_type" && issue.input === undefined ? "is required" : undefined),
};

/**
 * Fastify validator compiler for zod schemas that raises our problems directly (so the error
 * handler needs no guessing) and keeps zod's output (defaults applied).
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const part = (httpPart ?? "body") as HttpPart;
  const allowEmpty = part === "body" && optionalBodies.has(schema);
  return (data: unknown) => {
    const input = allowEmpty && (data === undefined || data === null) ? {} : data;
    if (part === "body" && input === undefined) return { error: missingBody() };
    const result = schema.safeParse(input, PARSE_OPTIONS);
    if (result.success) return { value: result.data };
    return { error: validationProblem(part, result.error.issues) };
  };
};
