import { z } from "zod";

/** Every machine-readable code the HTTP API answers with (the `code` of a problem+json body). */
export const API_ERROR_CODES = [
  "invalid_json",
  "invalid_request",
  "unauthenticated",
  "invalid_token",
  "insufficient_scope",
  "not_found",
  "conflict",
  "idempotency_key_reused",
  "payload_too_large",
  "unsupported_media_type",
  "validation_failed",
  "invalid_browser_options",
  "invalid_policy_rules",
  "invalid_track",
  "invalid_conditions",
  "unsafe_url",
  "rate_limited",
  "internal_error",
  "unavailable",
  "invalid_credentials",
  "csrf_failed",
  "last_owner",
  "setup_closed",
  "invite_invalid",
  "weak_password",
  "secret_key_missing",
  "secret_unreadable",
  "invalid_channel_url",
  "invalid_template",
  "unknown_secret",
] as const;
export const ApiErrorCodeSchema = z.enum(API_ERROR_CODES);
export type ApiErrorCode = z.infer<typeof ApiErrorCodeSchema>;

/** HTTP status for each API error code. */
export const API_ERROR_STATUS: Record<ApiErrorCode, number> = {
  invalid_json: 400,
  invalid_request: 400,
  unauthenticated: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  not_found: 404,
  conflict: 409,
  idempotency_key_reused: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  invalid_browser_options: 422,
  invalid_policy_rules: 422,
  invalid_track: 422,
  invalid_conditions: 422,
  unsafe_url: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
  invalid_credentials: 401,
  csrf_failed: 403,
  last_owner: 409,
  setup_closed: 409,
  invite_invalid: 410,
  weak_password: 422,
  secret_key_missing: 503,
  unknown_secret: 422,
  secret_unreadable: 500,
  invalid_channel_url: 422,
  invalid_template: 422,
};

export const PROBLEM_TYPE_BASE = "https://driftwatch.dev/problems/";

/** One offending field of a request. `path` is a JSON Pointer-like dotted path (`browserOptions.timeoutMs`). */
export const ProblemFieldErrorSchema = z.object({ path: z.string(), message: z.string() });
export type ProblemFieldError = z.infer<typeof ProblemFieldErrorSchema>;

/** RFC 9457 problem details body (`application/problem+json`). */
export const ProblemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.string(),
  requestId: z.string(),
  instance: z.string().optional(),
  errors: z.array(ProblemFieldErrorSchema).optional(),
  /** On a failed `POST /api/monitors/{id}/check` (502): how the target failed (`timeout`, `bad_status`, ...). */
  reason: z.string().optional(),
});
export type Problem = z.infer<typeof ProblemSchema>;
