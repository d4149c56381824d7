import type { Change } from "@driftwatch/client";

/**
 * The segments of an RFC 9535 singular query as driftwatch writes change paths: `$`, then
 * `.name`, `['name']` (with `\'`, `\\` and `\uXXXX` escapes) or `[0]`. Null for anything else.
 */
export function parseSingularPath(path: string): Array<string | number> | null {
  if (!path.startsWith("$")) return null;
  const segments: Array<string | number> = [];
  let i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === ".") {
      const m = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*/.exec(path.slice(i + 1));
      if (m === null) return null;
      segments.push(m[0]);
      i += 1 + m[0].length;
    } else if (c === "[") {
      const index = /^\[(0|[1-9][0-9]*)\]/.exec(path.slice(i));
      if (index !== null) {
        segments.push(Number(index[1]));
        i += index[0].length;
        continue;
      }
      const quote = path[i + 1];
      if (quote !== "'" && quote !== '"') return null;
      let j = i + 2;
      let name = "";
      for (;;) {
        const ch = path[j];
        if (ch === undefined) return null;
        if (ch === quote) break;
        if (ch === "\\") {
          const next = path[j + 1];
          if (next === "u") {
            name += String.fromCharCode(parseInt(path.slice(j + 2, j + 6), 16));
            j += 6;
            continue;
          }
          const map: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", "/": "/", "\\": "\\", "'": "'", '"': '"' };
          if (next === undefined || map[next] === undefined) return null;
          name += map[next];
          j += 2;
          continue;
        }
        name += ch;
        j++;
      }
      if (path[j + 1] !== "]") return null;
      segments.push(name);
      i = j + 2;
    } else {
      return null;
    }
  }
  return segments;
}

/** RFC 6901 JSON Pointer of a singular JSONPath, or null when it is not one. */
export function toJsonPointer(path: string): string | null {
  const segments = parseSingularPath(path);
  if (segments === null) return null;
  return segments.map((s) => "/" + String(s).replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}

export type JsonPatchOperation = { op: "add" | "replace"; path: string; value: unknown } | { op: "remove"; path: string } | { op: "move"; from: string; path: string };

/**
 * An RFC 6902 JSON Patch of an API diff's changes (from the old document towards the new one).
 * Changes whose before/after values are not recorded, or whose paths are not singular, are left
 * out and counted in `skipped`.
 */
export function toJsonPatch(changes: readonly Change[]): { patch: JsonPatchOperation[]; skipped: number } {
  const patch: JsonPatchOperation[] = [];
  let skipped = 0;
  for (const change of changes) {
    const path = toJsonPointer(change.path);
    if (path === null) {
      skipped++;
      continue;
    }
    const op = change.op as string;
    if (op === "remove") patch.push({ op: "remove", path });
    else if (op === "move" && change.from !== undefined) {
      const from = toJsonPointer(change.from);
      if (from === null) skipped++;
      else patch.push({ op: "move", from, path });
    } else if ((op === "add" || op === "replace") && "after" in change) patch.push({ op, path, value: change.after });
    else skipped++;
  }
  return { patch, skipped };
}
