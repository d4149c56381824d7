import type { Page } from "@driftwatch/schema";
import { StoreError } from "./errors.js";

export interface PageRequest {
  /** 1..100 */
  limit: number;
  cursor?: string | null | undefined;
}

/**
 * A page as an adapter reads it (`defineStore` turns a `PageRequest` into it): the records with
 * an id below `after` (all when null), newest first, at most `take` of them. `take` is the
 * page's limit plus one, so the wrapper sees whether another page follows.
 */
export interface KeysetPage {
  take: number;
  after: string | null;
}

/** Largest page a list returns. */
export const MAX_PAGE_LIMIT = 100;

/** The page size adapters use: 1..100, 20 for a value that is no number. */
export function clampPageLimit(limit: number): number {
  if (!Number.isFinite(limit)) return 20;
  return Math.min(MAX_PAGE_LIMIT, Math.max(1, Math.floor(limit)));
}

/** Opaque cursor for keyset paging by id (ids sort by creation time). */
export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ v: 1, id: lastId }), "utf8").toString("base64url");
}

/** The id a cursor continues after; `StoreError` `invalid_cursor` when malformed. */
export function decodeCursor(cursor: string): string {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      typeof parsed === "object" &&
      parsed !== null &&
      (parsed as { v?: unknown }).v === 1 &&
      typeof (parsed as { id?: unknown }).id === "string" &&
      CURSOR_ID.test((parsed as { id: string }).id)
    ) {
      return (parsed as { id: string }).id;
    }
  } catch {
    // fall through
  }
  throw new StoreError("invalid_cursor", "The cursor is not one this API issued.");
}

/** The `KeysetPage` an adapter reads for a request: limit clamped, cursor decoded. */
export function keysetPageOf(page: PageRequest): KeysetPage {
  const cursor = page.cursor;
  return { take: clampPageLimit(page.limit) + 1, after: cursor === undefined || cursor === null ? null : decodeCursor(cursor) };
}

/** The page of `records` an adapter read for `page` (newest first, at most `page.take`). */
export function pageFromRecords<T extends { id: string }>(records: T[], page: KeysetPage): Page<T> {
  const limit = page.take - 1;
  if (records.length <= limit) return { data: records, nextCursor: null };
  const data = records.slice(0, limit);
  return { data, nextCursor: encodeCursor(data[limit - 1]!.id) };
}

/**
 * A page of a list ordered by a time rather than by id (members, by when they joined): the
 * records below `after` in (time, id) order, newest first, at most `take`.
 */
export interface TimeKeysetPage {
  take: number;
  after: { at: string; id: string } | null;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CURSOR_ID = /^[a-z]{2,3}_[0-9A-Za-z_-]{8,64}$/;

/** Opaque cursor for keyset paging by (time, id). */
export function encodeTimeCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify({ v: 1, at, id }), "utf8").toString("base64url");
}

/** The (time, id) a cursor continues after; `StoreError` `invalid_cursor` when malformed. */
export function decodeTimeCursor(cursor: string): { at: string; id: string } {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (typeof parsed === "object" && parsed !== null) {
      const { v, at, id } = parsed as { v?: unknown; at?: unknown; id?: unknown };
      if (v === 1 && typeof at === "string" && ISO_TIME.test(at) && typeof id === "string" && CURSOR_ID.test(id)) return { at, id };
    }
  } catch {
    // fall through
  }
  throw new StoreError("invalid_cursor", "The cursor is not one this API issued.");
}

/** The `TimeKeysetPage` an adapter reads for a request: limit clamped, cursor decoded. */
export function timeKeysetPageOf(page: PageRequest): TimeKeysetPage {
  const cursor = page.cursor;
  return { take: clampPageLimit(page.limit) + 1, after: cursor === undefined || cursor === null ? null : decodeTimeCursor(cursor) };
}

/** The page of `records` an adapter read for `page`, `at` giving each record's time. */
export function pageFromTimeRecords<T extends { id: string }>(records: T[], page: TimeKeysetPage, at: (record: T) => string): Page<T> {
  const limit = page.take - 1;
  if (records.length <= limit) return { data: records, nextCursor: null };
  const data = records.slice(0, limit);
  const last = data[limit - 1]!;
  return { data, nextCursor: encodeTimeCursor(at(last), last.id) };
}
