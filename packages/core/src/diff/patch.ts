import type { Change } from "@driftwatch/schema";
import { DriftwatchError } from "../errors.js";
import { requireChanges } from "../guards.js";
import { parsePath, type PathSegment, toJsonPointer } from "../paths/index.js";

/** One RFC 6902 operation as `toJsonPatch` produces them. */
export type JsonPatchOperation =
  | { op: "add"; path: string; value: unknown }
  | { op: "replace"; path: string; value: unknown }
  | { op: "remove"; path: string };

/** Document order of two paths in the same document: indexes numerically, ancestors first. */
function compareSegments(x: readonly PathSegment[], y: readonly PathSegment[]): number {
  const n = x.length < y.length ? x.length : y.length;
  for (let i = 0; i < n; i++) {
    const a = x[i]!;
    const b = y[i]!;
    if (a === b) continue;
    if (typeof a === "number" && typeof b === "number") return a - b;
    const sa = String(a);
    const sb = String(b);
    return sa < sb ? -1 : sa > sb ? 1 : 0;
  }
  return x.length - y.length;
}

/**
 * RFC 6902 operations that turn the old document into the new one, from the changes of
 * `diffJson` (without policy rules that ignore changes). Removals run first, in reverse order of
 * the old document (their paths resolve there), then additions and replacements in order of the
 * new document, so array indexes stay valid. Pointers escape `~` and `/` as RFC 6901 says.
 */
export function toJsonPatch(changes: readonly Change[]): JsonPatchOperation[] {
  requireChanges(changes, "changes");
  const removes: { segments: PathSegment[] }[] = [];
  const writes: { segments: PathSegment[]; change: Change }[] = [];
  for (const change of changes) {
    const segments = parsePath(change.path);
    if (change.op === "remove") removes.push({ segments });
    else {
      if (change.after === undefined) {
        throw new DriftwatchError("invalid_input", `the ${change.op} at ${change.path} carries no after value`, {
          details: [{ path: change.path, message: "add and replace changes need `after` to become patch operations" }],
        });
      }
      writes.push({ segments, change });
    }
  }
  removes.sort((x, y) => compareSegments(y.segments, x.segments));
  writes.sort((x, y) => compareSegments(x.segments, y.segments));
  const ops: JsonPatchOperation[] = [];
  for (const r of removes) ops.push({ op: "remove", path: toJsonPointer(r.segments) });
  for (const w of writes) {
    ops.push({ op: w.change.op === "add" ? "add" : "replace", path: toJsonPointer(w.segments), value: w.change.after });
  }
  return ops;
}
