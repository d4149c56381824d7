// What the people domain refuses with. The code is one of the API's error codes
// (@driftwatch/schema's `ApiErrorCode`), so the HTTP API answers it as that problem (status, title)
// and an embedder can map it as it likes.
import type { ApiErrorCode, ProblemFieldError } from "@driftwatch/schema";

export interface PeopleErrorOptions {
  /** Per-field problems (`errors` of the problem answer). */
  errors?: ProblemFieldError[];
  /** Response headers the refusal asks for (`retry-after`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class PeopleError extends Error {
  override readonly name = "PeopleError";
  readonly code: ApiErrorCode;
  readonly errors: ProblemFieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ApiErrorCode, detail: string, options: PeopleErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

/** True for a `PeopleError`, even one thrown by another copy of this package. */
export function isPeopleError(error: unknown): error is PeopleError {
  return error instanceof PeopleError || (typeof error === "object" && error !== null && (error as { name?: unknown }).name === "PeopleError");
}
