import { DriftwatchError, type DriftwatchErrorOptions, isDriftwatchError } from "../errors.js";

export type StoreErrorCode =
  | "not_found"
  | "conflict"
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
 * Any failure as a driftwatch error: driftwatch errors pass through, `mapError` turns what it
 * knows (a driver's error codes) into a `StoreError`, and the rest is `store_unavailable`.
 */
export function toStoreError(error: unknown, mapError?: (error: unknown) => StoreError | undefined): Error {
  if (isDriftwatchError(error)) return error as Error;
  const mapped = mapError?.(error);
  if (mapped !== undefined) return mapped;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError("store_unavailable", `The store failed: ${message}`, { cause: error });
}
