import { StoreError, decodeCursor, encodeCursor, type Page, type PageRequest } from "@driftwatch/core";

const MAX_PAGE = 100;

/** The page size the SQL adapters use: 1..100, 20 for nonsense. */
export function clampLimit(limit: number): number {
  if (!Number.isFinite(limit)) return 20;
  return Math.min(MAX_PAGE, Math.max(1, Math.floor(limit)));
}

/** ISO 8601 UTC with milliseconds, whatever precision or offset the caller used (as the SQL adapters store times); a value that is no time is a typed error. */
export function isoTime(value: string): string {
  const time = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw new StoreError("invariant_violation", `${JSON.stringify(value)} is not a time.`);
  return new Date(time).toISOString();
}
export function isoTimeOrNull(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : isoTime(value);
}

/** A deep copy, so records handed out never alias the stored rows. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/**
 * One page, newest first (ids sort by creation time), of the rows `matches` accepts, after the
 * cursor. `map` turns a stored row into the returned record (and must copy it).
 */
export function pageOf<Row extends { id: string }, T>(
  rows: Iterable<Row>,
  matches: (row: Row) => boolean,
  page: PageRequest,
  map: (row: Row) => T
): Page<T> {
  const limit = clampLimit(page.limit);
  const after = page.cursor === undefined || page.cursor === null ? null : decodeCursor(page.cursor);
  const selected: Row[] = [];
  for (const row of rows) {
    if (after !== null && !(row.id < after)) continue;
    if (matches(row)) selected.push(row);
  }
  selected.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const more = selected.length > limit;
  const data = selected.slice(0, limit).map(map);
  const last = more ? selected[limit - 1] : undefined;
  return { data, nextCursor: last === undefined ? null : encodeCursor(last.id) };
}

/** Drops `undefined` values, so `{ ...row, ...defined(patch) }` leaves omitted fields alone. */
export function defined<T extends object>(patch: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}
