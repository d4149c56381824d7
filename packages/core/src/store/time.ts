import { StoreError } from "./errors.js";

/**
 * A time as stores keep it: ISO 8601 UTC with milliseconds, whatever precision or offset the
 * caller used. A value that is no time is `StoreError` `invariant_violation`, before anything is written.
 */
export function normalizeStoreTime(value: string): string {
  const time = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw new StoreError("invariant_violation", `${JSON.stringify(value)} is not a time.`);
  return new Date(time).toISOString();
}

export function normalizeStoreTimeOrNull(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : normalizeStoreTime(value);
}

/** A copy of `patch` with the named time fields normalised (absent ones stay absent, null stays null). */
export function normalizeTimeFields<T extends object>(patch: T, fields: readonly (keyof T)[]): T {
  let out: T | undefined;
  for (const field of fields) {
    const value = patch[field];
    if (value === undefined || value === null) continue;
    out ??= { ...patch };
    out[field] = normalizeStoreTime(value as string) as T[keyof T];
  }
  return out ?? patch;
}
