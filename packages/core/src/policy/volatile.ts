import type { VolatileRule } from "@driftwatch/schema";
import { sameSkeleton, seenKey } from "../learn/shapes.js";

/** How a `volatile` entry decides that a value change is noise. */
export interface VolatileMode {
  /** Only the volatile parts of a text may change (its skeleton must stay). */
  readonly parts: boolean;
  /** A rotation: the values seen before (as `seenKey` keeps them); undefined: any value. */
  readonly seen: ReadonlySet<string> | undefined;
}

export const ANY_VALUE: VolatileMode = Object.freeze({ parts: false, seen: undefined });

export function volatileModeOf(entry: VolatileRule): VolatileMode {
  if (entry.parts !== true && entry.seen === undefined) return ANY_VALUE;
  return { parts: entry.parts === true, seen: entry.seen === undefined ? undefined : new Set(entry.seen) };
}

/**
 * Whether a same-type value change from `before` to `after` is noise under a volatile entry:
 * always for a plain entry; with `seen`, when the new value was seen before; with `parts`, when
 * both texts have the same skeleton (`sameSkeleton`; a number is a volatile part as a whole).
 */
export function volatileHides(mode: VolatileMode, before: unknown, after: unknown): boolean {
  if (mode === ANY_VALUE) return true;
  if (mode.seen !== undefined && mode.seen.has(seenKey(after))) return true;
  if (mode.parts) {
    if (typeof before === "string" && typeof after === "string") return sameSkeleton(before, after);
    return typeof before === "number" && typeof after === "number";
  }
  return false;
}
