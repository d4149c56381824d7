import type { Category, Severity } from "@driftwatch/schema";

/** What happened at one path of a JSON document, before policy rules. */
export type ChangeKind =
  | "member_added"
  | "member_removed"
  | "element_added"
  | "element_removed"
  | "element_moved"
  | "type_changed"
  | "element_type_changed"
  | "became_null"
  | "value_changed";

/** The JSON type of a value, as a diff reports it. */
export type JsonType = "null" | "boolean" | "number" | "string" | "array" | "object";

/**
 * Default severities (after oasdiff's response rules): a consumer breaks when a
 * member disappears or changes type; a value becoming null or an array element changing type
 * often does; additions, value changes and moves do not.
 */
export const DEFAULT_SEVERITIES: Readonly<Record<ChangeKind, Severity>> = Object.freeze({
  member_removed: "critical",
  type_changed: "critical",
  became_null: "medium",
  element_type_changed: "medium",
  member_added: "info",
  value_changed: "info",
  element_added: "info",
  element_removed: "info",
  element_moved: "info",
});

/**
 * Category of each kind: `schema` when the shape changes (members added or removed, types
 * changed, including a value becoming null), `value` when only data changes (same-type value
 * changes and array elements added, removed or moved).
 */
export const CHANGE_CATEGORIES: Readonly<Record<ChangeKind, Category>> = Object.freeze({
  member_removed: "schema",
  member_added: "schema",
  type_changed: "schema",
  element_type_changed: "schema",
  became_null: "schema",
  value_changed: "value",
  element_added: "value",
  element_removed: "value",
  element_moved: "value",
});

/** The default severity of a kind of change. */
export function classifySeverity(kind: ChangeKind): Severity {
  return DEFAULT_SEVERITIES[kind];
}

/** The category (`schema` or `value`) of a kind of change. */
export function categorizeChange(kind: ChangeKind): Category {
  return CHANGE_CATEGORIES[kind];
}

/** JSON type of a JSON value. */
export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value as "boolean" | "number" | "string" | "object";
}

/**
 * Kind of a replacement of `before` by `after` (two JSON values that differ) at one path:
 * `became_null`, a type change (`element_type_changed` inside an array) or `value_changed`.
 */
export function replacementKind(before: unknown, after: unknown, inArray: boolean): ChangeKind {
  if (after === null) return "became_null";
  if (jsonTypeOf(before) !== jsonTypeOf(after)) return inArray ? "element_type_changed" : "type_changed";
  return "value_changed";
}
