import { DriftwatchError } from "../errors.js";
import { isLowSurrogate, parseStringLiteral, pathError } from "./literal.js";

/** One step of a path: a member name or a non-negative array index. */
export type PathSegment = string | number;

// RFC 9535 member-name-shorthand: name-first = ALPHA / "_" / %x80-D7FF / %xE000-10FFFF,
// name-char = name-first / DIGIT. Lone surrogates match neither range, so they get brackets.
const SHORTHAND = /^[A-Za-z_\u0080-\uD7FF\u{E000}-\u{10FFFF}][A-Za-z0-9_\u0080-\uD7FF\u{E000}-\u{10FFFF}]*$/u;
// Characters a normalized string literal must escape (RFC 9535 section 2.7).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
const NEEDS_ESCAPE = /['\\\u0000-\u001F\uD800-\uDFFF]/;

const shorthandCache = new Map<string, boolean>();

/** True when `name` may be written as `.name` (RFC 9535 member-name-shorthand). */
export function isShorthandName(name: string): boolean {
  let ok = shorthandCache.get(name);
  if (ok === undefined) {
    ok = SHORTHAND.test(name);
    if (shorthandCache.size < 10_000) shorthandCache.set(name, ok);
  }
  return ok;
}

/**
 * Escapes a member name for a single-quoted RFC 9535 string literal, using only the escapes a
 * Normalized Path allows (section 2.7): `\b \f \n \r \t \' \\` and lowercase `\u00xx` for other
 * control characters. A lone surrogate, which no JSONPath string literal can hold (nor I-JSON),
 * raises `invalid_path`.
 */
export function escapeNameLiteral(name: string): string {
  if (!NEEDS_ESCAPE.test(name)) return name;
  let out = "";
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x27) out += "\\'";
    else if (c === 0x5c) out += "\\\\";
    else if (c < 0x20) out += controlEscape(c);
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < name.length && isLowSurrogate(name.charCodeAt(i + 1))) {
      out += name[i]! + name[i + 1]!;
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      throw new DriftwatchError("invalid_path", "a member name with a lone surrogate has no RFC 9535 path", {
        details: [{ path: JSON.stringify(name), message: `lone surrogate \\u${c.toString(16)} at ${i}` }],
      });
    }
    else out += name[i]!;
  }
  return out;
}

function controlEscape(c: number): string {
  switch (c) {
    case 0x08:
      return "\\b";
    case 0x09:
      return "\\t";
    case 0x0a:
      return "\\n";
    case 0x0c:
      return "\\f";
    case 0x0d:
      return "\\r";
    default:
      return `\\u00${c.toString(16).padStart(2, "0")}`;
  }
}

function notSegments(value: unknown): DriftwatchError {
  return new DriftwatchError("invalid_path", "path segments must be an array of member names and indexes", {
    details: [{ path: "segments", message: `expected an array, got ${value === null ? "null" : typeof value}` }],
  });
}

function notASegment(value: unknown): DriftwatchError {
  return new DriftwatchError("invalid_path", `a path segment is a member name (string) or an index (number), not ${typeof value}`, {
    details: [{ path: "segments", message: `got ${typeof value}` }],
  });
}

function checkIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0) {
    throw new DriftwatchError("invalid_path", `array index ${String(index)} is not a non-negative integer`, {
      details: [{ path: String(index), message: "array indexes are non-negative safe integers" }],
    });
  }
}

/** One segment as it appears in a driftwatch path: `.name`, `['odd name']` or `[3]`. */
export function formatSegment(segment: PathSegment): string {
  if (typeof segment !== "string" && typeof segment !== "number") throw notASegment(segment);
  if (typeof segment === "number") {
    checkIndex(segment);
    return `[${segment}]`;
  }
  return isShorthandName(segment) ? `.${segment}` : `['${escapeNameLiteral(segment)}']`;
}

/**
 * An RFC 9535 singular query for the given segments: dot notation where the member name allows
 * the shorthand, bracket notation with RFC 9535 escaping otherwise, e.g. `$.items[0]['a.b']`.
 */
export function formatPath(segments: readonly PathSegment[]): string {
  if (!Array.isArray(segments)) throw notSegments(segments);
  let out = "$";
  for (const segment of segments) out += formatSegment(segment);
  return out;
}

/**
 * The RFC 9535 Normalized Path (section 2.7) of a singular query or of segments: brackets only,
 * single quotes, minimal escaping, e.g. `$['items'][0]['a.b']`.
 */
export function toNormalizedPath(path: string | readonly PathSegment[]): string {
  const segments = typeof path === "string" ? parsePath(path) : path;
  if (!Array.isArray(segments)) throw notSegments(segments);
  let out = "$";
  for (const segment of segments) {
    if (typeof segment !== "string" && typeof segment !== "number") throw notASegment(segment);
    if (typeof segment === "number") {
      checkIndex(segment);
      out += `[${segment}]`;
    } else out += `['${escapeNameLiteral(segment)}']`;
  }
  return out;
}

/** RFC 6901 JSON Pointer of the segments (`~` as `~0`, `/` as `~1`); `""` is the root. */
export function toJsonPointer(segments: readonly PathSegment[]): string {
  let out = "";
  for (const segment of segments) {
    out += typeof segment === "number" ? `/${segment}` : `/${segment.replace(/~/g, "~0").replace(/\//g, "~1")}`;
  }
  return out;
}

const isBlank = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\n" || c === "\r";
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/**
 * Parses an RFC 9535 singular query (`$`, then `.name` or `['name']` / `["name"]` / `[index]`
 * segments, with the blanks RFC 9535 allows between and inside them and every string-literal
 * escape including `\uXXXX` surrogate pairs). Negative indexes, wildcards, slices and filters are
 * not singular-or-resolvable and raise `invalid_path`.
 */
export function parsePath(path: string): PathSegment[] {
  if (typeof path !== "string") throw pathError(String(path), 0, "a path is a string");
  if (path[0] !== "$") throw pathError(path, 0, "a path starts with $");
  const segments: PathSegment[] = [];
  let i = 1;
  const n = path.length;
  while (i < n) {
    const start = i;
    while (isBlank(path[i])) i++;
    if (i === n) throw pathError(path, start, "trailing blanks");
    const c = path[i];
    if (c === ".") {
      i++;
      const nameStart = i;
      while (i < n) {
        const cp = path.codePointAt(i)!;
        const ch = String.fromCodePoint(cp);
        if (!SHORTHAND.test(i === nameStart ? ch : `a${ch}`)) break;
        i += ch.length;
      }
      if (i === nameStart) throw pathError(path, i, "expected a member name after '.'");
      segments.push(path.slice(nameStart, i));
    } else if (c === "[") {
      i++;
      while (isBlank(path[i])) i++;
      const q = path[i];
      if (q === "'" || q === '"') {
        const [name, next] = parseStringLiteral(path, i + 1, q);
        segments.push(name);
        i = next;
      } else if (q === "-" || isDigit(q)) {
        const numStart = i;
        if (q === "-") i++;
        while (isDigit(path[i])) i++;
        const text = path.slice(numStart, i);
        if (!/^(0|-?[1-9][0-9]*)$/.test(text)) throw pathError(path, numStart, `bad index ${JSON.stringify(text)}`);
        const index = Number(text);
        if (index < 0) throw pathError(path, numStart, "negative indexes do not name one node of a document");
        if (!Number.isSafeInteger(index)) throw pathError(path, numStart, "index out of the I-JSON range");
        segments.push(index);
      } else {
        throw pathError(path, i, "expected a quoted name or an index (singular queries only)");
      }
      while (isBlank(path[i])) i++;
      if (path[i] !== "]") throw pathError(path, i, "expected ']'");
      i++;
    } else {
      throw pathError(path, i, `unexpected ${JSON.stringify(c)}`);
    }
  }
  return segments;
}

/** The node a path names in a document, as `{ found: true, value }`, or `{ found: false }`. */
export function resolvePath(document: unknown, path: string | readonly PathSegment[]): { found: true; value: unknown } | { found: false } {
  const segments = typeof path === "string" ? parsePath(path) : path;
  let node = document;
  for (const segment of segments) {
    if (typeof segment === "number") {
      if (!Array.isArray(node) || segment >= node.length) return { found: false };
      node = node[segment];
    } else {
      if (node === null || typeof node !== "object" || Array.isArray(node) || !Object.hasOwn(node, segment)) return { found: false };
      node = (node as Record<string, unknown>)[segment];
    }
  }
  return { found: true, value: node };
}
