import { API_ERROR_STATUS, PROBLEM_TYPE_BASE, type ApiErrorCode, type Problem, type ProblemFieldError } from "@driftwatch/schema";

/** Short human titles of every API error code (the `title` member of a problem). */
const TITLES: Record<ApiErrorCode, string> = {
  invalid_json: "Malformed JSON",
  invalid_request: "Invalid request",
  unauthenticated: "Authentication required",
  invalid_token: "Invalid token",
  insufficient_scope: "Insufficient scope",
  not_found: "Not found",
  conflict: "Conflict",
  idempotency_key_reused: "Idempotency key reused",
  payload_too_large: "Payload too large",
  unsupported_media_type: "Unsupported media type",
  validation_failed: "Validation failed",
  invalid_browser_options: "Invalid browser options",
  invalid_policy_rules: "Invalid policy rules",
  invalid_track: "Invalid tracked values",
  invalid_conditions: "Invalid alert conditions",
  unsafe_url: "Unsafe URL",
  rate_limited: "Rate limit exceeded",
  internal_error: "Internal error",
  unavailable: "Service unavailable",
  invalid_credentials: "Invalid credentials",
  csrf_failed: "CSRF check failed",
  last_owner: "Last owner",
  setup_closed: "Setup closed",
  invite_invalid: "Invite no longer valid",
  weak_password: "Weak password",
  secret_key_missing: "No secret key configured",
  secret_unreadable: "Stored secret unreadable",
  invalid_channel_url: "Invalid channel URL",
  invalid_template: "Invalid template",
  unknown_secret: "Unknown secret",
};

export interface ApiErrorOptions {
  errors?: ProblemFieldError[];
  /** Overrides the status of the code (used for 502 on a failed target fetch). */
  status?: number;
  title?: string;
  /** Extra response headers (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  /** RFC 9457 extension members. */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * An error the HTTP layer answers with as an RFC 9457 problem. Route handlers throw it; the
 * error handler renders it. Checked by `name` + `code`, not `instanceof` alone.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly title: string;
  readonly errors: ProblemFieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(code: ApiErrorCode, detail: string, options: ApiErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? API_ERROR_STATUS[code];
    this.title = options.title ?? TITLES[code];
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError || (typeof error === "object" && error !== null && (error as { name?: unknown }).name === "ApiError");
}

export const PROBLEM_CONTENT_TYPE = "application/problem+json; charset=utf-8";

/** The problem body of an error for the request `requestId`. */
export function problemBody(error: ApiError, requestId: string): Problem & Record<string, unknown> {
  const body: Problem & Record<string, unknown> = {
    type: PROBLEM_TYPE_BASE + error.code,
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    requestId,
    ...error.extensions,
  };
  if (error.errors !== undefined && error.errors.length > 0) body.errors = error.errors;
  return body;
}

export function notFound(what: string): ApiError {
  return new ApiError("not_found", `No ${what} with this id exists.`);
}
