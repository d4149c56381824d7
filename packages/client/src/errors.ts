import type { Problem, ProblemFieldError } from "@driftwatch/schema";

/** Codes the client itself raises when no API answer was had. */
export type ClientErrorCode = "connection_error" | "timeout" | "invalid_response";

/** Base of every error this package throws. Check with `code`/`name` or `instanceof`. */
export class DriftwatchClientError extends Error {
  override readonly name: string = "DriftwatchClientError";
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/** The API answered with an error (an RFC 9457 problem). */
export class DriftwatchApiError extends DriftwatchClientError {
  override readonly name: string = "DriftwatchApiError";
  readonly status: number;
  readonly requestId: string | null;
  readonly title: string;
  readonly detail: string;
  readonly type: string | null;
  readonly errors: ProblemFieldError[];
  readonly headers: Headers;

  constructor(status: number, problem: Partial<Problem> | null, headers: Headers, fallbackText?: string) {
    const code = typeof problem?.code === "string" ? problem.code : `http_${status}`;
    const title = typeof problem?.title === "string" ? problem.title : `HTTP ${status}`;
    const detail = typeof problem?.detail === "string" ? problem.detail : (fallbackText ?? "");
    const requestId = (typeof problem?.requestId === "string" ? problem.requestId : null) ?? headers.get("x-request-id");
    super(code, `${status} ${code}: ${detail || title}${requestId ? ` (request ${requestId})` : ""}`);
    this.status = status;
    this.requestId = requestId;
    this.title = title;
    this.detail = detail;
    this.type = typeof problem?.type === "string" ? problem.type : null;
    this.errors = Array.isArray(problem?.errors) ? problem.errors : [];
    this.headers = headers;
  }

  /** The subclass for a status, so `catch (e) { if (e instanceof NotFoundError) ... }` works. */
  static from(status: number, problem: Partial<Problem> | null, headers: Headers, fallbackText?: string): DriftwatchApiError {
    const Class =
      status === 400
        ? BadRequestError
        : status === 401
          ? AuthenticationError
          : status === 403
            ? PermissionDeniedError
            : status === 404
              ? NotFoundError
              : status === 409
                ? ConflictError
                : status === 422
                  ? UnprocessableEntityError
                  : status === 429
                    ? RateLimitError
                    : status >= 500
                      ? InternalServerError
                      : DriftwatchApiError;
    return new Class(status, problem, headers, fallbackText);
  }
}

export class BadRequestError extends DriftwatchApiError {
  override readonly name = "BadRequestError";
}
export class AuthenticationError extends DriftwatchApiError {
  override readonly name = "AuthenticationError";
}
export class PermissionDeniedError extends DriftwatchApiError {
  override readonly name = "PermissionDeniedError";
}
export class NotFoundError extends DriftwatchApiError {
  override readonly name = "NotFoundError";
}
export class ConflictError extends DriftwatchApiError {
  override readonly name = "ConflictError";
}
export class UnprocessableEntityError extends DriftwatchApiError {
  override readonly name = "UnprocessableEntityError";
}
export class RateLimitError extends DriftwatchApiError {
  override readonly name = "RateLimitError";
  /** Seconds to wait, from `Retry-After`, when the server sent it. */
  get retryAfterSeconds(): number | null {
    const value = this.headers.get("retry-after");
    if (value === null) return null;
    const seconds = Number(value);
    return Number.isFinite(seconds) ? seconds : null;
  }
}
export class InternalServerError extends DriftwatchApiError {
  override readonly name = "InternalServerError";
}

/** No answer: the connection failed (refused, reset, DNS). */
export class ConnectionError extends DriftwatchClientError {
  override readonly name = "ConnectionError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("connection_error", message, options);
  }
}

/** No answer within `timeoutMs`. */
export class TimeoutError extends DriftwatchClientError {
  override readonly name = "TimeoutError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("timeout", message, options);
  }
}

/** True for any error of this package, even from another copy of it. */
export function isDriftwatchApiError(error: unknown): error is DriftwatchApiError {
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as { status?: unknown }).status === "number" &&
    typeof (error as { code?: unknown }).code === "string" &&
    "requestId" in error
  );
}
