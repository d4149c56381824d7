// Text that a store column can hold. SQLite (better-sqlite3 hands strings over as UTF-8) cannot
// hold a lone surrogate, which has no UTF-8 form, and PostgreSQL's `text` and `jsonb` cannot hold
// U+0000 (and `jsonb` refuses lone surrogates), yet a target's body, headers or an error text may
// contain both. Strings that could not be stored as they are (or that look encoded) are written
// as a marker followed by their JSON string literal, which every text column accepts; reading
// reverses it exactly, so every JS string the fetcher produced round-trips unchanged. Other
// strings are stored as they are. The SQL adapters share this one encoding.

/** Starts an encoded string. U+0001 begins no text a target or tenant would send in practice. */
const MARKER = "\u0001dw:";
/** U+0000, or a surrogate that is not part of a pair. */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A string as a text column can hold it. */
export function encodeText(value: string): string {
  if (!UNSTORABLE.test(value) && !value.startsWith(MARKER)) return value;
  // JSON.stringify writes U+0000 and lone surrogates as \u escapes (well-formed JSON.stringify).
  return MARKER + JSON.stringify(value);
}
export function encodeTextOrNull(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : encodeText(value);
}

/** The string `encodeText` was given. */
export function decodeText(value: string): string {
  return value.startsWith(MARKER) ? (JSON.parse(value.slice(MARKER.length)) as string) : value;
}
export function decodeTextOrNull(value: string | null): string | null {
  return value === null ? null : decodeText(value);
}

/** A JSON value whose strings (keys included) are encoded, as jsonb text. */
export function encodeJson(value: unknown): string {
  return JSON.stringify(mapStrings(value, encodeText));
}

/** A value read from jsonb, with its strings decoded. */
export function decodeJson<T>(value: T): T {
  return mapStrings(value, decodeText) as T;
}

function mapStrings(value: unknown, map: (s: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (item !== undefined) out[map(key)] = mapStrings(item, map);
    }
    return out;
  }
  return value;
}
