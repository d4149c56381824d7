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

function pointerKey(segments: readonly PathSegment[]): string {
  return toJsonPointer(segments);
}

/** Whether some proper ancestor of `segments` is in `set` (pointers). */
function belowAny(segments: readonly PathSegment[], set: ReadonlySet<string>): boolean {
  for (let n = segments.length - 1; n >= 0; n--) if (set.has(pointerKey(segments.slice(0, n)))) return true;
  return false;
}

/**
 * RFC 6902 operations that turn the old document into the new one, from the changes of
 * `diffJson` (without policy rules that ignore changes). Removals run first, in reverse order of
 * the old document (their paths resolve there), then additions and replacements in order of the
 * new document, so array indexes stay valid. Pointers escape `~` and `/` as RFC 6901 says.
 *
 * A `move` becomes what RFC 6902 defines a move to be, a removal at `from` followed by an
 * addition at `path`, placed in those two phases so indexes stay valid; the addition carries the
 * element as it is in the new document, so changes inside a moved element (and moves out of or
 * into it) that the element's own value already covers are left out.
 */
export function toJsonPatch(changes: readonly Change[]): JsonPatchOperation[] {
  requireChanges(changes, "changes");
  const removes: { segments: PathSegment[] }[] = [];
  const writes: { segments: PathSegment[]; op: "add" | "replace"; value: unknown }[] = [];
  const movedFrom = new Set<string>();
  const movedTo = new Set<string>();
  const moves: { from: PathSegment[]; to: PathSegment[]; value: unknown }[] = [];
  for (const change of changes) {
    const segments = parsePath(change.path);
    if (change.op === "remove") removes.push({ segments });
    else if (change.op === "move") {
      if (change.from === undefined || change.after === undefined) {
        throw new DriftwatchError("invalid_input", `the move to ${change.path} carries no from path or after value`, {
          details: [{ path: change.path, message: "move changes need `from` and `after` to become patch operations" }],
        });
      }
      const from = parsePath(change.from);
      moves.push({ from, to: segments, value: change.after });
      movedFrom.add(pointerKey(from));
      movedTo.add(pointerKey(segments));
    } else {
      if (change.after === undefined) {
        throw new DriftwatchError("invalid_input", `the ${change.op} at ${change.path} carries no after value`, {
          details: [{ path: change.path, message: "add and replace changes need `after` to become patch operations" }],
        });
      }
      writes.push({ segments, op: change.op === "add" ? "add" : "replace", value: change.after });
    }
  }
  if (moves.length > 0) {
    for (const m of moves) {
      if (!belowAny(m.from, movedFrom)) removes.push({ segments: m.from });
      if (!belowAny(m.to, movedTo)) writes.push({ segments: m.to, op: "add", value: m.value });
    }
    // Changes inside a moved element: its removal and its new value already cover them.
    for (let i = removes.length - 1; i >= 0; i--) if (belowAny(removes[i]!.segments, movedFrom)) removes.splice(i, 1);
    for (let i = writes.length - 1; i >= 0; i--) if (belowAny(writes[i]!.segments, movedTo)) writes.splice(i, 1);
  }
  removes.sort((x, y) => compareSegments(y.segments, x.segments));
  writes.sort((x, y) => compareSegments(x.segments, y.segments));
  const ops: JsonPatchOperation[] = [];
  for (const r of removes) ops.push({ op: "remove", path: toJsonPointer(r.segments) });
  for (const w of writes) ops.push({ op: w.op, path: toJsonPointer(w.segments), value: w.value });
  return ops;
}
