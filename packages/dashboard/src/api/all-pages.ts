import type { PagePromise } from "@driftwatch/client";

/** Every item of a paged list, up to `max` (the API pages at most 100 at a time). */
export async function allPages<T>(list: PagePromise<T>, max = 20_000): Promise<T[]> {
  const items: T[] = [];
  for await (const item of list) {
    items.push(item);
    if (items.length >= max) break;
  }
  return items;
}
