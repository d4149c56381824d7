// `id IN (?, ?, ...)` lists whose text takes a few shapes, not one per length: a driver that
// caches prepared statements by their text (store-sqlite's, for the life of the connection) holds
// about ten statements per query this way, instead of one per list length (up to 500 each for the
// claims, lease renewals and channel checks of a long-running server).

/** Most ids one statement names; longer lists go in chunks. */
export const IDS_PER_STATEMENT = 500;

/**
 * The length a list of `n` ids is padded to: the next power of two up to `IDS_PER_STATEMENT`
 * (1, 2, 4, ... 256, then 500), past it the next multiple of `IDS_PER_STATEMENT`.
 */
export function paddedLength(n: number): number {
  if (n <= 1) return 1;
  if (n > IDS_PER_STATEMENT) return Math.ceil(n / IDS_PER_STATEMENT) * IDS_PER_STATEMENT;
  let size = 2;
  while (size < n) size *= 2;
  return Math.min(size, IDS_PER_STATEMENT);
}

/**
 * The ids padded to `paddedLength` by repeating the last one (a repeated id in `IN (...)` changes
 * no result: each row is matched, updated or returned once), with the placeholders to match.
 * An empty list stays empty (callers do not run a statement for it).
 */
export function inList(ids: readonly string[]): { placeholders: string; params: string[] } {
  if (ids.length === 0) return { placeholders: "", params: [] };
  const params = [...ids];
  const size = paddedLength(ids.length);
  while (params.length < size) params.push(ids[ids.length - 1]!);
  return { placeholders: params.map(() => "?").join(", "), params };
}

/** The ids in chunks of at most `IDS_PER_STATEMENT`, each one padded (see `inList`). */
export function inListChunks(ids: readonly string[]): { placeholders: string; params: string[] }[] {
  const out: { placeholders: string; params: string[] }[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) out.push(inList(ids.slice(i, i + IDS_PER_STATEMENT)));
  return out;
}
