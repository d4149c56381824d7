/**
 * Codes of errors raised by the engine and by the ports' adapters. The HTTP layer maps them to
 * API problem codes; embedders switch on `code` (never only on `instanceof`, which breaks with
 * two copies of a package installed).
 */
export type DriftwatchErrorCode =
  | "invalid_input"
  | "invalid_path"
  | "invalid_policy_rules"
  | "invalid_track"
  | "invalid_conditions"
  | "invalid_html"
  | "too_deep"
  | "rule_budget_exceeded"
  | "webhook_verification_failed"
  // secrets at rest
  | "secret_key_invalid"
  | "secret_unreadable"
  // store
  | "not_found"
  | "conflict"
  | "stale_snapshot"
  | "invalid_cursor"
  | "invariant_violation"
  | "schema_too_new"
  | "store_closed"
  | "store_unavailable"
  // fetch
  | "unsafe_url"
  | "invalid_url"
  | "dns_failure"
  | "connection_failed"
  | "timeout"
  | "too_large"
  | "too_many_redirects"
  | "browser_failed"
  | "browser_step_failed";

export interface DriftwatchErrorDetail {
  /** Where in the input the problem is, e.g. `rules[2].path` or `$.a.b`. */
  path: string;
  message: string;
}

export interface DriftwatchErrorOptions {
  cause?: unknown;
  details?: DriftwatchErrorDetail[];
}

export class DriftwatchError<Code extends string = DriftwatchErrorCode> extends Error {
  override readonly name: string = "DriftwatchError";
  readonly code: Code;
  readonly details: DriftwatchErrorDetail[];

  constructor(code: Code, message: string, options: DriftwatchErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? [];
  }
}

/** True for any driftwatch error, even one thrown by another copy of this package. */
export function isDriftwatchError(error: unknown): error is DriftwatchError<string> {
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as { code?: unknown }).code === "string" &&
    typeof (error as { name?: unknown }).name === "string" &&
    /Error$/.test((error as { name: string }).name) &&
    Array.isArray((error as { details?: unknown }).details)
  );
}
