import type { KeysetPage } from "@driftwatch/core";

/** A deep copy, so records handed out never alias the stored rows. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/**
 * The rows `matches` accepts below the page's `after`, newest first (ids sort by creation time),
 * at most `take`. `map` turns a stored row into the returned record (and must copy it).
 */
export function listOf<Row extends { id: string }, T>(
  rows: Iterable<Row>,
  matches: (row: Row) => boolean,
  page: KeysetPage,
  map: (row: Row) => T
): T[] {
  const selected: Row[] = [];
  for (const row of rows) {
    if (page.after !== null && !(row.id < page.after)) continue;
    if (matches(row)) selected.push(row);
  }
  selected.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return selected.slice(0, page.take).map(map);
}

/** Drops `undefined` values, so `{ ...row, ...defined(patch) }` leaves omitted fields alone. */
export function defined<T extends object>(patch: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/**
 * Fair claim order: of `rows` (sorted oldest first), the oldest of every organization first, then
 * the second oldest of every organization, and so on; the first `limit` of that, in their original
 * order. One tenant's backlog cannot fill a claim while another tenant has due work.
 */
export function fairTake<Row extends { orgId: string }>(rows: readonly Row[], limit: number): Row[] {
  const rank = new Map<string, number>();
  const ranked = rows.map((row, index) => {
    const r = (rank.get(row.orgId) ?? 0) + 1;
    rank.set(row.orgId, r);
    return { row, index, r };
  });
  return ranked
    .sort((a, b) => a.r - b.r || a.index - b.index)
    .slice(0, Math.max(0, Math.floor(limit)))
    .sort((a, b) => a.index - b.index)
    .map((entry) => entry.row);
}
