// Value shapes the learner recognises: volatile ones (timestamps, ids, tokens, relative times)
// whose changes are noise, and meaningful ones (prices, versions, enum-like words) whose changes
// are not, whatever how often they change.

/** Shapes of values whose changes are noise when a field changes on most fetches. */
export type VolatileShape = "iso8601" | "http_date" | "unix_time" | "uuid" | "hex" | "base64" | "etag" | "token" | "relative_time";

/** Shapes of values whose changes mean something. */
export type MeaningfulShape = "price" | "version" | "boolean" | "enum" | "word";

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const ISO_8601_BASIC = /^\d{8}T\d{6}(?:\.\d{1,9})?(?:Z|[+-]\d{4})?$/i;
const HTTP_DATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} (?:GMT|UTC|[+-]\d{4})$/;
// JavaScript's Date#toString, which some APIs send as is (npm search's `time`).
const JS_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{2} \d{4} \d{2}:\d{2}:\d{2} GMT[+-]\d{4}(?: \([^)]*\))?$/;
const RFC_850 = /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \d{2}-(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const UUID = /^(?:urn:uuid:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^(?:0x)?[0-9a-f]{8,}$/i;
// GitHub's `X-GitHub-Request-Id` (`8E1C:3F2A1B:4A5B6C7:4D5E6F7A:674419A2`) and similar.
const HEX_GROUPS = /^[0-9a-f]{2,}(?:[:-][0-9a-f]{2,}){2,}$/i;
const BASE64 = /^[A-Za-z0-9+/]{16,}={0,2}$|^[A-Za-z0-9_-]{16,}$/;
const ETAG = /^(?:W\/)?"[^"]{4,}"$/;
// `req_8f3a91c2`, `ch_3NxYz0A1b2C3`, `a1b2c3d4-req`, `trace:7f00ab12`.
const TOKEN = /^(?:[A-Za-z][A-Za-z0-9]{0,15}[_:.-])+[A-Za-z0-9]{8,}$|^[A-Za-z0-9]{8,}[_:.-][A-Za-z]{2,16}$/;
const RELATIVE_TIME = new RegExp(
  [
    String.raw`^(?:about |almost |over |less than )?(?:an?|\d+|one|a few) (?:sec(?:ond)?|min(?:ute)?|h(?:ou)?r|hour|day|week|month|year)s? ago$`,
    String.raw`^in (?:an?|\d+) (?:sec(?:ond)?|min(?:ute)?|hour|day|week|month|year)s?$`,
    String.raw`^\d+ ?(?:s|m|h|d|w|mo|y|min|mins|hrs?) ago$`,
    String.raw`^(?:just now|now|yesterday|today|moments ago|a moment ago)$`,
    String.raw`^vor (?:einer|einem|\d+) (?:Sekunden?|Minuten?|Stunden?|Tag(?:en)?|Wochen?|Monat(?:en)?|Jahr(?:en)?)$`,
    String.raw`^il y a \d+ (?:secondes?|minutes?|heures?|jours?|semaines?|mois|ans?)$`,
    String.raw`^hace \d+ (?:segundos?|minutos?|horas?|días?|semanas?|meses|años?)$`,
  ].join("|"),
  "i",
);
const VERSION = /^v?\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z.-]+)?$/;
const PRICE_TEXT = /^(?:[$€£¥₹]|[A-Z]{3} ?)?\s?\d{1,3}(?:[,.\s]?\d{3})*(?:[.,]\d{2})(?:\s?(?:[$€£¥₹]|[A-Z]{3}))?$/;
const PRICE_NAME = /(?:^|_|-|\b)(?:price|prices|amount|cost|fee|fees|subtotal|grand_total|msrp|unit_amount|balance)(?:$|_|-|\b)|(?:Price|Amount|Cost|Fee|Subtotal)$/;
const WORDS = /^[\p{L}][\p{L}\p{N}'&/ _.-]{0,40}$/u;
const IDENTIFIER = /^[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)*$/;

// Plausible unix times: 2000-01-01 to 2100-01-01, in seconds or milliseconds.
const UNIX_SECONDS_MIN = 946_684_800;
const UNIX_SECONDS_MAX = 4_102_444_800;

/** Whether an integer looks like a unix time in seconds or milliseconds. */
export function isUnixTime(value: number): boolean {
  if (!Number.isInteger(value)) return false;
  return (value >= UNIX_SECONDS_MIN && value <= UNIX_SECONDS_MAX) || (value >= UNIX_SECONDS_MIN * 1000 && value <= UNIX_SECONDS_MAX * 1000);
}

/** Mixed letters and digits: a token, not a word (`deadbeefcafe` and `Authorization` are not tokens). */
function looksRandom(s: string): boolean {
  return /\d/.test(s) && /[A-Za-z]/.test(s);
}

/** The volatile shape of a string, if it has one. */
export function volatileStringShape(value: string): VolatileShape | undefined {
  const s = value.trim();
  if (s.length === 0 || s.length > 512) return undefined;
  if (ISO_8601.test(s) || ISO_8601_BASIC.test(s)) return "iso8601";
  if (HTTP_DATE.test(s) || RFC_850.test(s) || JS_DATE.test(s)) return "http_date";
  if (/^\d{10}(?:\d{3})?$/.test(s) && isUnixTime(Number(s))) return "unix_time";
  if (UUID.test(s)) return "uuid";
  if (RELATIVE_TIME.test(s)) return "relative_time";
  if (ETAG.test(s)) return "etag";
  if ((HEX.test(s) || HEX_GROUPS.test(s)) && /\d/.test(s) && /[a-f]/i.test(s)) return "hex";
  if (TOKEN.test(s) && looksRandom(s) && /^[A-Za-z]{1,12}[_:.-]/.test(s)) return "token";
  if (BASE64.test(s) && looksRandom(s)) return "base64";
  if (TOKEN.test(s) && looksRandom(s)) return "token";
  return undefined;
}

const DURATION_NAME = /(?:^|_)(?:ms|took|latency|elapsed|duration)$|(?:Ms|MS|Millis|Time|Duration|Latency)$|_time$|time_ms$|^took$/;

/** Whether the name of a member says it holds how long the server took (`took`, `generationtime_ms`). */
export function isDurationName(name: string | undefined): boolean {
  return name !== undefined && DURATION_NAME.test(name);
}

/** Whether the name of a member says it holds money. */
export function isPriceName(name: string | undefined): boolean {
  return name !== undefined && PRICE_NAME.test(name);
}

/** The meaningful shape of a scalar, if it has one (`name` is its member name). */
export function meaningfulShape(value: unknown, name: string | undefined): MeaningfulShape | undefined {
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return isPriceName(name) ? "price" : undefined;
  if (typeof value !== "string") return undefined;
  const s = value.trim();
  if (PRICE_TEXT.test(s) || (isPriceName(name) && /^\d+(?:[.,]\d+)?$/.test(s))) return "price";
  if (VERSION.test(s)) return "version";
  if (volatileStringShape(s) !== undefined) return undefined;
  if (IDENTIFIER.test(s) && s.length <= 40 && !looksRandom(s.replace(/\d+$/, ""))) return "enum";
  // Short codes: units ("°C"), currencies, country codes.
  if (s.length <= 12 && !/\s/.test(s) && !looksRandom(s)) return "enum";
  if (WORDS.test(s) && s.split(" ").length <= 4 && !/\d{3,}/.test(s)) return "word";
  return undefined;
}

const SHAPE_NAMES: Record<string, string> = {
  iso8601: "an ISO 8601 timestamp",
  http_date: "an HTTP date (RFC 7231)",
  unix_time: "a unix time",
  uuid: "a UUID",
  hex: "a hex token",
  base64: "a base64 token",
  etag: "an ETag",
  token: "a request id or token",
  relative_time: 'a relative time ("3 minutes ago")',
  counter: "a counter that only goes one way",
  duration: "a server timing",
  float: "a jittering float",
  price: "a price",
  version: "a version string",
  boolean: "a boolean",
  enum: "an enum-like value",
  word: "a short human word",
  rotating: "rotating text (values recur)",
  text: "free text",
};

/** "an ISO 8601 timestamp", for evidence reasons. */
export function describeShape(shape: string): string {
  return SHAPE_NAMES[shape] ?? shape;
}

/** Volatile parts of a text, replaced by placeholders: what stays is the text's skeleton. */
export function textSkeleton(text: string): string {
  return text
    .replace(/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, "<time>")
    .replace(/\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp][Mm])?\b/g, "<time>")
    .replace(
      /\b(?:(?:about |over |almost )?(?:an?|\d+|one|a few) (?:sec(?:ond)?|min(?:ute)?|h(?:ou)?r|hour|day|week|month|year)s? ago|just now|vor (?:einer|einem|\d+) \p{L}+|il y a \d+ \p{L}+)\b/giu,
      "<ago>",
    )
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, "<hex>")
    .replace(/\d+(?:[.,]\d+)*/g, "<n>");
}

/** The kind of volatile part two texts of one skeleton differ in. */
export function skeletonShape(texts: readonly string[]): string {
  const skeleton = textSkeleton(texts[0] ?? "");
  if (skeleton.includes("<ago>")) return "relative_time";
  if (skeleton.includes("<time>")) return "iso8601";
  if (skeleton.includes("<hex>")) return "hex";
  return "counter";
}
