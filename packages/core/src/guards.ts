// Argument checks for the public functions: JavaScript callers (and `as any`) can pass anything,
// and they get a DriftwatchError with a code instead of a TypeError from deep inside.
import { CategorySchema, type Change, OpSchema, SEVERITIES } from "@driftwatch/schema";
import { DriftwatchError } from "./errors.js";

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}

function invalid(what: string, message: string): DriftwatchError {
  return new DriftwatchError("invalid_input", `${what}: ${message}`, { details: [{ path: what, message }] });
}

/** `value` as a readonly array, or `invalid_input` naming `what`. */
export function requireArray<T>(value: unknown, what: string): readonly T[] {
  if (!Array.isArray(value)) throw invalid(what, `expected an array, got ${describe(value)}`);
  return value as readonly T[];
}

/** `undefined` and `null` become `{}`; anything but a plain object is `invalid_input`. */
export function optionsObject<T extends object>(value: unknown, what: string): Partial<T> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(what, `expected an options object, got ${describe(value)}`);
  return value as Partial<T>;
}

/** A plain (non-array) object, or `invalid_input` naming `what`. */
export function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid(what, `expected an object, got ${describe(value)}`);
  return value as Record<string, unknown>;
}

const OPS = OpSchema.options;
const CATEGORIES = CategorySchema.options;
const OP_SET: ReadonlySet<unknown> = new Set(OPS);
const CATEGORY_SET: ReadonlySet<unknown> = new Set(CATEGORIES);
const SEVERITY_SET: ReadonlySet<unknown> = new Set(SEVERITIES);

/** Checks the shape of a list of change entries (path, op, category, severity). */
export function requireChanges(value: unknown, what: string): readonly Change[] {
  const changes = requireArray<unknown>(value, what);
  for (let i = 0; i < changes.length; i++) {
    const at = `${what}[${String(i)}]`;
    const c = requireObject(changes[i], at);
    if (typeof c.path !== "string") throw invalid(`${at}.path`, `expected a string, got ${describe(c.path)}`);
    if (!OP_SET.has(c.op)) throw invalid(`${at}.op`, `expected one of ${[...OPS].join(", ")}`);
    if (!CATEGORY_SET.has(c.category)) throw invalid(`${at}.category`, `expected one of ${[...CATEGORIES].join(", ")}`);
    if (!SEVERITY_SET.has(c.severity)) throw invalid(`${at}.severity`, `expected one of ${[...SEVERITIES].join(", ")}`);
    if (c.from !== undefined && typeof c.from !== "string") throw invalid(`${at}.from`, `expected a string, got ${describe(c.from)}`);
  }
  return changes as readonly Change[];
}
