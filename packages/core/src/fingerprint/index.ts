import { createHash } from "node:crypto";
import type { Change } from "@driftwatch/schema";
import { validateTree } from "../diff/walk.js";
import { DriftwatchError } from "../errors.js";
import { requireChanges } from "../guards.js";

interface Frame {
  value: object;
  keys: string[] | null;
  i: number;
  parts: string[];
}

/**
 * JSON text with object keys sorted at every depth (RFC 8785-like), so equal values serialise
 * equally whatever the key order of the documents they came from. Iterative: documents nested
 * deeper than the call stack serialise too. `undefined` members are skipped, as in JSON.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    return value === undefined ? "null" : JSON.stringify(value);
  }
  const stack: Frame[] = [];
  const open = (v: object): void => {
    stack.push({ value: v, keys: Array.isArray(v) ? null : Object.keys(v).sort(), i: 0, parts: [] });
  };
  open(value);
  let done = "";
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const { keys } = frame;
    const length = keys === null ? (frame.value as unknown[]).length : keys.length;
    if (frame.i >= length) {
      stack.pop();
      const text = keys === null ? `[${frame.parts.join(",")}]` : `{${frame.parts.join(",")}}`;
      const parent = stack[stack.length - 1];
      if (parent) parent.parts[parent.parts.length - 1] += text;
      else done = text;
      continue;
    }
    const key = keys === null ? undefined : keys[frame.i]!;
    const child = key === undefined ? (frame.value as unknown[])[frame.i] : (frame.value as Record<string, unknown>)[key];
    frame.i++;
    if (child === undefined && key !== undefined) continue;
    const prefix = key === undefined ? "" : `${JSON.stringify(key)}:`;
    if (child === null || typeof child !== "object") {
      frame.parts.push(prefix + (child === undefined ? "null" : JSON.stringify(child)));
    } else {
      frame.parts.push(prefix);
      open(child);
    }
  }
  return done;
}

/**
 * The canonical line of one change: path, op, category, severity, before and after (canonical
 * JSON, empty when absent), then `from` for moves, separated by NUL. Paths escape control characters and JSON has none
 * raw, so NUL and the newline between lines cannot occur inside a field.
 */
function changeLine(c: Change): string {
  const before = c.before === undefined ? "" : canonicalJson(c.before);
  const after = c.after === undefined ? "" : canonicalJson(c.after);
  // CSS selectors of website changes could hold a raw newline or NUL; quote those.
  const path = c.path.includes("\n") || c.path.includes("\u0000") ? JSON.stringify(c.path) : c.path;
  const line = `${path}\u0000${c.op}\u0000${c.category}\u0000${c.severity}\u0000${before}\u0000${after}`;
  // A move also says where the value came from (absent on other ops, so their lines are unchanged).
  return c.from === undefined ? line : `${line}\u0000${JSON.stringify(c.from)}`;
}

/**
 * `sha256:<hex>` over the canonical serialisation of a change set: each change's path, op,
 * category, severity, before and after, with the lines sorted, so the same set of changes gives
 * the same fingerprint whatever the key order of the inputs or the order the changes were found
 * in. `detail` is prose and does not count.
 */
export function fingerprintChanges(changes: readonly Change[]): string {
  const checked = requireChanges(changes, "changes");
  checked.forEach((change, i) => {
    for (const side of ["before", "after"] as const) {
      if (change[side] === undefined) continue;
      try {
        validateTree(change[side], side, null, undefined, Number.POSITIVE_INFINITY);
      } catch (error) {
        const where = `changes[${String(i)}].${side}`;
        const inner = error instanceof DriftwatchError ? (error.details[0]?.message ?? error.message) : String(error);
        throw new DriftwatchError("invalid_input", `${where} is not JSON: ${inner}`, { cause: error, details: [{ path: where, message: inner }] });
      }
    }
  });
  return fingerprintValidChanges(checked);
}

/** `fingerprintChanges` for changes the engine made itself (already valid JSON). */
export function fingerprintValidChanges(changes: readonly Change[]): string {
  const lines = changes.map(changeLine);
  lines.sort();
  return `sha256:${createHash("sha256").update(lines.join("\n")).digest("hex")}`;
}
