import { DriftwatchError, type DriftwatchErrorOptions, isDriftwatchError } from "../errors.js";

export type StoreErrorCode =
  | "not_found"
  | "conflict"
  | "last_owner"
  | "stale_snapshot"
  | "invalid_cursor"
  | "invariant_violation"
  | "schema_too_new"
  | "store_closed"
  | "store_unavailable";

export class StoreError extends DriftwatchError<StoreErrorCode> {
  override readonly name = "StoreError";
  constructor(code: StoreErrorCode, message: string, options?: DriftwatchErrorOptions) {
    super(code, message, options);
  }
}

/**
 * A failure as the store raises it: driftwatch errors pass through, `mapError` turns what it
 * knows (a driver's error codes) into a `StoreError`, and anything else (an error of the
 * caller's own hook, say) passes through as it is.
 */
export function toStoreError(error: unknown, mapError?: (error: unknown) => StoreError | undefined): unknown {
  if (isDriftwatchError(error)) return error;
  return mapError?.(error) ?? error;
}
