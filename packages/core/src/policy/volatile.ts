import type { VolatileRule } from "@driftwatch/schema";
import { sameSkeleton, seenKey, textSkeleton } from "../learn/shapes.js";

/** How a `volatile` entry decides that a value change is noise. */
export interface VolatileMode {
  /** Only the volatile parts of a text may change (its skeleton must stay). */
  readonly parts: boolean;
  /** A rotation: the values seen before (as `seenKey` keeps them); undefined: any value. */
  readonly seen: ReadonlySet<string> | undefined;
  /** A clock or counter: noise while it moves forward. */
  readonly forward: boolean;
  /** The skeletons (as `skeletonKey` keeps them) of the texts the entry selects; undefined: any. */
  readonly skeletons?: ReadonlySet<string> | undefined;
}

export const ANY_VALUE: VolatileMode = Object.freeze({ parts: false, seen: undefined, forward: false });

export function volatileModeOf(entry: VolatileRule): VolatileMode {
  if (entry.parts !== true && entry.seen === undefined && entry.forward !== true && entry.skeletons === undefined) return ANY_VALUE;
  const mode: { -readonly [K in keyof VolatileMode]: VolatileMode[K] } = {
    parts: entry.parts === true,
    seen: entry.seen === undefined ? undefined : new Set(entry.seen),
    forward: entry.forward === true,
  };
  if (entry.skeletons !== undefined) mode.skeletons = new Set(entry.skeletons);
  return mode;
}

/** A plain entry (perhaps narrowed by `skeletons`): any value change of what it selects is noise. */
export function isPlain(mode: VolatileMode): boolean {
  return !mode.parts && mode.seen === undefined && !mode.forward;
}

/** How a volatile entry's `skeletons` keeps a text's skeleton: `textSkeleton`, as `seen` keeps texts. */
export function skeletonKey(text: string): string {
  return seenKey(textSkeleton(text));
}

/**
 * Whether an entry selects a value (a JSON value or a block's text): always, unless it lists
 * `skeletons`, which select only texts of those skeletons.
 */
export function volatileSelects(mode: VolatileMode, value: unknown): boolean {
  if (mode.skeletons === undefined) return true;
  return typeof value === "string" && mode.skeletons.has(skeletonKey(value));
}

/**
 * Whether a same-type value change from `before` to `after` is noise under a volatile entry:
 * always for a plain entry; with `seen`, when the new value was seen before; with `parts`, when
 * both texts have the same skeleton (`sameSkeleton`; a number is a volatile part as a whole).
 */
export function volatileHides(mode: VolatileMode, before: unknown, after: unknown): boolean {
  if (mode === ANY_VALUE || isPlain(mode)) return true;
  if (mode.seen !== undefined && mode.seen.has(seenKey(after))) return true;
  if (mode.forward && movesForward(before, after)) return true;
  if (mode.parts) {
    if (typeof before === "string" && typeof after === "string") return sameSkeleton(before, after);
    return typeof before === "number" && typeof after === "number";
  }
  return false;
}

/** A time or count as a comparable value: numbers, digit strings, ISO 8601 and HTTP dates. */
function pointOf(value: unknown): number | bigint | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "string" || value.length > 64) return undefined;
  if (/^\d{1,30}$/.test(value)) return BigInt(value);
  if (!/^\d{4}-\d{2}-\d{2}|^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)/.test(value)) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/** Whether `after` is a later time or a bigger number than `before` (of the same kind). */
export function movesForward(before: unknown, after: unknown): boolean {
  const a = pointOf(before);
  const b = pointOf(after);
  return a !== undefined && b !== undefined && typeof a === typeof b && b > a;
}
