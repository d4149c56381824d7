import { hash } from "node:crypto";

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
const HEX_GROUPS = /^[0-9a-f]{2,}(?:[:-][0-9a-f]{2,}){2,}$|^[0-9a-f]{6,}(?:[:-][0-9a-f]{4,})+$/i;
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
const IP_ADDRESS = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$|^(?=.*:.*:)[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}$/i;
// A version as people write one: `2.1`, `v10.4.3`, `2024.1`, `1.0.0-beta` (not a quantity written
// with many digits: `"12812.820809"`, a ticker's volume, has five before the point and six after).
// (PEP 440's pre-, post- and development releases are written without a separator: `4.1.0rc1`,
// `21.11b0`, `1.0.post1`, `2.0.dev3`)
const VERSION = /^v?\d{1,4}\.\d{1,4}(?:\.\d+)?(?:(?:a|b|rc|alpha|beta|pre|post|dev)\d{0,3})?(?:\.(?:post|dev)\d{0,3})?(?:[-+][0-9A-Za-z.-]+)?$|^v\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z.-]+)?$|^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;
const PRICE_TEXT = /^(?:[$€£¥₹]|[A-Z]{3} ?)?\s?\d{1,3}(?:[,.\s]?\d{3})*(?:[.,]\d{2})(?:\s?(?:[$€£¥₹]|[A-Z]{3}))?$/;
// A bare `total` (an invoice's, an order's) and a tax are money; `total_count` and `checks_total`
// (a Prometheus-style counter) are counts and do not match.
const PRICE_NAME = /(?:^|_|-|\b)(?:price|prices|amount|cost|fee|fees|subtotal|grand_total|msrp|unit_amount|balance|tax|taxes)(?:$|_|-|\b|(?=[A-Z]))|^total$|(?:Price|Amount|Cost|Fee|Subtotal|Tax)$|[a-z](?:Incl|Excl|InclVat|ExclVat)$|[a-z]_(?:incl|excl)(?:_(?:vat|tax))?$/;
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
  if (looksRandom(s) ? versionedWords(s) || modelAndWord(s) : !prefixedLetterToken(s)) return undefined;
  if (TOKEN.test(s) && /^[A-Za-z]{1,12}[_:.-]/.test(s)) return "token";
  if (BASE64.test(s) && isRandomWord(s.replace(/[+/=]/g, ""))) return "base64";
  if (TOKEN.test(s)) return "token";
  return undefined;
}

/** Member names of a version (`version`, `HWVersion`, `firmware_version`, `sw_ver`): `"2.4E"` there is a version. */
const VERSION_NAME = /(?:version|Version|VERSION)$|(?:^|_)ver$/;

/** A model code and a word (`BMP280_temperature`, `SHT3X_humidity`): parts that are words or upper-case codes, one of them a word of four letters or more; a name, not a token. */
function modelAndWord(s: string): boolean {
  const parts = s.split(/[_.:-]/);
  return parts.length >= 2 && parts.every((p) => humanSegment(p) || /^[A-Z][A-Z0-9]{1,11}$/.test(p)) && parts.some((p) => p.length >= 4 && humanSegment(p));
}

/** Words run together as people write them: `iPhoneProMax`, `getElementById`, `HTMLParser`, `AccountDisabled`. */
const CAMEL_WORDS = /^[A-Z]*[a-z]*(?:[A-Z][a-z]+)*[A-Z]*$/;

/**
 * A prefixed id of letters only (`req_hOtbPFgyvLbDTs`: base62 that happened to draw no digit):
 * after a short prefix, ten letters or more whose case switches more often than words do and that
 * do not read as words run together (`evt_AccountDisabled` is a name).
 */
function prefixedLetterToken(s: string): boolean {
  const prefix = /^[A-Za-z]{1,12}[_:.-]/.exec(s);
  if (prefix === null) return false;
  const body = s.slice(prefix[0].length);
  return /^[A-Za-z]{10,}$/.test(body) && !CAMEL_WORDS.test(body) && isRandomWord(body);
}

/** Words with at most a short number at their ends (`RollingUpdate_v2`, `tier3`, `plan-2024`): a name, not a token. */
function versionedWords(s: string): boolean {
  return s.split(/[_.:-]/).every((part) => /^(?:[A-Za-z]+\d{0,2}|\d{1,4}|[A-Z]?[a-z]+(?:[A-Z][a-z]+)*\d{0,2})$/.test(part) && !/\d.*[A-Za-z]/.test(part));
}

const DURATION_NAME = /(?:^|_)(?:ms|took|latency|elapsed|duration|timing|rtt|round_?trip)$|(?:Ms|MS|Millis|Time|Timing|Duration|Latency|Elapsed|Trip|RTT)$|_time$|time_ms$|^took$|^(?:roundtrip|rtt)$/;

/** Whether the name of a member says it holds how long the server took (`took`, `generationtime_ms`). */
export function isDurationName(name: string | undefined): boolean {
  return name !== undefined && DURATION_NAME.test(name);
}

/**
 * Whether `IP_ADDRESS` can match: both its forms start with at most 4 hex digits and a `.` or `:`
 * (most strings are told apart by their first characters, without the test's scan of the whole text).
 */
export function mayBeIpAddress(s: string): boolean {
  const n = Math.min(s.length, 5);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46 || c === 58) return true;
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
  }
  return false;
}

/** Whether the name of a member says it holds money. */
export function isPriceName(name: string | undefined): boolean {
  return name !== undefined && PRICE_NAME.test(name);
}

/** The meaningful shape of a scalar, if it has one (`name` is its member name). */
export function meaningfulShape(value: unknown, name: string | undefined): MeaningfulShape | undefined {
  return meaningfulShapeOf(value, name, isPriceName(name));
}

/**
 * `meaningfulShape` with `isPriceName` of the member name already judged (once per field, not once
 * per value) and, for a string, its `volatileStringShape` when the caller has it (`null`: not judged yet).
 */
export function meaningfulShapeOf(value: unknown, name: string | undefined, priceName: boolean, volatileShape: VolatileShape | undefined | null = null): MeaningfulShape | undefined {
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return priceName ? "price" : undefined;
  if (typeof value !== "string") return undefined;
  const s = value.trim();
  if (PRICE_TEXT.test(s) || (priceName && /^\d+(?:[.,]\d+)?$/.test(s))) return "price";
  if (VERSION.test(s) || (VERSION_NAME.test(name ?? "") && /^v?\d+(?:\.\d+)+[-+.\w]*$/.test(s))) return "version";
  // A host's address (10.47.248.116, 2001:db8::1): configuration, rated like an enum-like value.
  if (mayBeIpAddress(s) && IP_ADDRESS.test(s)) return "enum";
  if ((volatileShape === null ? volatileStringShape(s) : volatileShape) !== undefined) return undefined;
  // a code of words and short numbers (`SPS30_P0`, `PMS_P1`, `RollingUpdate_v2`) reads as an enum-like value too
  if (IDENTIFIER.test(s) && s.length <= 40 && (!looksRandom(s.replace(/\d+$/, "")) || versionedWords(s) || modelAndWord(s))) return "enum";
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
  measurement: "a measurement (moves on most fetches)",
  parts: "text whose numbers, times or identifiers change",
  clock_line: "a line that states when the page was updated: its times are noise",
  counts: "a line of counts that grow on their own (comments, shares): its numbers are noise",
  text: "free text",
};

/** "an ISO 8601 timestamp", for evidence reasons. */
export function describeShape(shape: string): string {
  return SHAPE_NAMES[shape] ?? shape;
}

/**
 * Whether a word (letters, digits, `_` and `-`) reads as machine-made rather than human: an
 * identifier, token or cursor of any alphabet. Mixed letters and digits over 8 characters
 * (`a1b2c3d4e5`, `3NxYz0A1b2C3`), mixed case that switches more often than words do
 * (`hOtbPFgyvLbDTs`, not `JavaScript` or `processingTimeMS`), or a long run without vowels.
 */
export function isRandomWord(word: string): boolean {
  const n = word.length;
  if (n < 8 || n > 512) return false;
  if (/[_-]/.test(word) && word.split(/[_-]+/).every(humanSegment)) return false;
  let digits = 0;
  let upper = 0;
  let lower = 0;
  let switches = 0;
  let vowels = 0;
  let previous = 0; // 1 upper, 2 lower, 0 other
  for (let i = 0; i < n; i++) {
    const c = word.charCodeAt(i);
    let kind = 0;
    if (c >= 48 && c <= 57) digits++;
    else if (c >= 65 && c <= 90) {
      upper++;
      kind = 1;
    } else if (c >= 97 && c <= 122) {
      lower++;
      kind = 2;
      if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117 || c === 121) vowels++;
    }
    if (kind !== 0 && previous !== 0 && kind !== previous) switches++;
    if (kind !== 0) previous = kind;
  }
  const letters = upper + lower;
  if (digits > 0 && letters > 0) {
    // `covid19-response`, `windows10`: a word with a number at its end is a name, not a token
    if (/^[A-Za-z]+[_-]?\d{1,4}$/.test(word) || /^\d{1,4}[_-]?[A-Za-z]+$/.test(word)) return false;
    return true;
  }
  if (upper >= 2 && lower >= 2 && switches >= 4 && switches * 4 >= letters) return true;
  // `qxjzvbtkwrmn`: a long lower-case run with hardly a vowel (base32 ids, hashes of letters)
  if (lower >= 12 && upper === 0 && digits === 0 && vowels * 8 < lower) return true;
  return false;
}

/** A part of a snake_case or kebab-case name that reads as written by a person: `details`, `v2`, `2024`, `API`. */
function humanSegment(segment: string): boolean {
  if (segment === "") return true;
  if (/^\d{1,4}$/.test(segment) || /^[a-z]{1,3}\d{1,3}$/i.test(segment) || /^[A-Z]{2,5}$/.test(segment)) return true;
  if (!/^[A-Z]?[a-z]{2,}$/.test(segment)) return false;
  const vowels = (segment.match(/[aeiouy]/gi) ?? []).length;
  return vowels * 5 >= segment.length;
}

/**
 * Whether a whole string reads as an identifier, token or cursor: an optional prefix
 * (`req_`, `evt_`, `cus:`), then one machine-made word (see `isRandomWord`), or a base64 run.
 */
export function isIdentifierLike(value: string): boolean {
  const s = value.trim();
  if (s.length < 8 || s.length > 512 || /\s/.test(s)) return false;
  const rest = s.replace(/^(?:[A-Za-z][A-Za-z0-9]{0,15}[_:.])+/, "");
  if (/^[A-Za-z0-9_-]+$/.test(rest) && isRandomWord(rest)) return true;
  if (/^[A-Za-z0-9+/_-]{16,}={0,2}$/.test(rest) && isRandomWord(rest.replace(/[+/=]/g, ""))) return true;
  return false;
}

const MONTHS = "Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?";
const WEEKDAYS = "Mon(?:day)?|Tue(?:s(?:day)?)?|Wed(?:nesday)?|Thu(?:r(?:s(?:day)?)?)?|Fri(?:day)?|Sat(?:urday)?|Sun(?:day)?";
const SKELETON_UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const SKELETON_ISO = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g;
const SKELETON_WEEKDAY = new RegExp(String.raw`\b(?:${WEEKDAYS}),?(?=\s+(?:\d|${MONTHS}))`, "g");
const SKELETON_MONTH = new RegExp(String.raw`\b(?:${MONTHS})\.?(?=\s+\d)|(?<=\d\.?\s+|\d-)(?:${MONTHS})\b`, "g");
const SKELETON_CLOCK = /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?\b/g;
const SKELETON_AGO =
  /\b(?:(?:about |over |almost |less than )?(?:an?|\d+|one|a few) (?:sec(?:ond)?|min(?:ute)?|h(?:ou)?r|hour|day|week|month|year)s? ago|\d+ ?(?:s|m|h|d|w|mo|y|mins?|hrs?) ago|just now|moments ago|vor (?:einer|einem|\d+) \p{L}+|il y a \d+ \p{L}+|hace \d+ \p{L}+)\b/giu;
const SKELETON_HEX = /\b(?=[0-9a-f:-]*\d)(?=[0-9a-f:-]*[a-f])[0-9a-f]{6,}(?:[:-][0-9a-f]{4,})+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi;
const SKELETON_WORD = /[A-Za-z0-9_-]{8,}/g;
const SKELETON_NUMBER = /\d+(?:[.,]\d+)*/g;

/**
 * Volatile parts of a text, replaced by placeholders: what stays is the text's skeleton. Dates and
 * times (ISO 8601, RFC 1123 and written dates, clock times, relative times), UUIDs, hex and
 * machine-made tokens of any alphabet (also inside URLs and query strings), and numbers, except
 * amounts of money (a number beside a currency sign or code stays: a price is never a volatile part).
 */
export function textSkeleton(text: string): string {
  if (text.length > 100_000) return text;
  return text
    .replace(SKELETON_UUID, "<id>")
    .replace(SKELETON_ISO, "<time>")
    .replace(SKELETON_WEEKDAY, "<day>")
    .replace(SKELETON_MONTH, "<month>")
    .replace(SKELETON_CLOCK, "<time>")
    .replace(SKELETON_AGO, "<ago>")
    .replace(SKELETON_HEX, "<hex>")
    .replace(SKELETON_WORD, (word) => (isRandomWord(word) ? "<id>" : word))
    .replace(SKELETON_NUMBER, (number, offset: number, whole: string) => (isAmountOfMoney(whole, offset, number.length) ? number : "<n>"));
}

const CURRENCY_BEFORE = /(?:[$€£¥₹]|\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|PLN|CZK|Rs\.?|R\$|kr))\s?$/;
const CURRENCY_AFTER = /^\s?(?:[$€£¥₹]|(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|PLN|CZK|kr|zł|Kč|€)\b)/;

/** Whether the number at `offset` is an amount of money (a currency sign or code beside it): a skeleton keeps it. */
function isAmountOfMoney(text: string, offset: number, length: number): boolean {
  return CURRENCY_BEFORE.test(text.slice(Math.max(0, offset - 5), offset)) || CURRENCY_AFTER.test(text.slice(offset + length, offset + length + 5));
}

const WORD_CHAR = /[A-Za-z0-9_-]/;

/**
 * A word that can be a token a per-word test missed: 6 or more characters, with digits or mixed
 * case - a capital after the first letter: a capitalised word (`Facebook`, `Pinterest`, a name)
 * is a word, not a token.
 */
function tokenSlot(word: string): boolean {
  return word.length >= 6 && word.length <= 512 && /^[A-Za-z0-9_-]+$/.test(word) && (/\d/.test(word) || (/[A-Z]/.test(word.slice(1)) && /[a-z]/.test(word)));
}

/**
 * Whether two texts differ only in their volatile parts: the same skeleton (see `textSkeleton`),
 * or skeletons that differ in one word only, a token of the same length give or take two
 * characters on both sides (a random id that happens to read like a word to the per-word test).
 */
export function sameSkeleton(a: string, b: string): boolean {
  const x = textSkeleton(a);
  const y = textSkeleton(b);
  if (x === y) return true;
  // the one differing word, in the skeletons or in the texts themselves
  return oneTokenApart(x, y) || oneTokenApart(a, b);
}

function oneTokenApart(x: string, y: string): boolean {
  const n = Math.min(x.length, y.length);
  let p = 0;
  while (p < n && x[p] === y[p]) p++;
  while (p > 0 && WORD_CHAR.test(x[p - 1]!)) p--;
  let s = 0;
  while (s < n - p && x[x.length - 1 - s] === y[y.length - 1 - s]) s++;
  while (s > 0 && WORD_CHAR.test(x[x.length - s]!)) s--;
  const mx = x.slice(p, x.length - s);
  const my = y.slice(p, y.length - s);
  return Math.abs(mx.length - my.length) <= 2 && tokenSlot(mx) && tokenSlot(my);
}

/** A currency amount inside a text (`$19.99`, `19,99 €`, `EUR 20`): the learner keeps prices. */
const CURRENCY_AMOUNT = /[$€£¥₹]\s?\d|\d\s?(?:[$€£¥₹]|\b(?:USD|EUR|GBP|CHF|JPY|kr|zł)\b)|\b(?:USD|EUR|GBP|CHF|JPY)\s?\d/;

/** Whether a text shows an amount of money. */
export function hasCurrencyAmount(text: string): boolean {
  return CURRENCY_AMOUNT.test(text);
}

/** How a value or block text is kept in a volatile entry's `seen` list: itself, or `#` and its hash past 200 characters. */
export function seenKey(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
  return text.length <= 200 ? text : `#${hash("sha256", text).slice(0, 16)}`;
}

/** The kind of volatile part two texts of one skeleton differ in. */
export function skeletonShape(texts: readonly string[]): string {
  const skeleton = textSkeleton(texts[0] ?? "");
  if (skeleton.includes("<ago>")) return "relative_time";
  if (skeleton.includes("<time>")) return "iso8601";
  if (skeleton.includes("<day>") || skeleton.includes("<month>")) return "http_date";
  if (skeleton.includes("<id>")) return "token";
  if (skeleton.includes("<hex>")) return "hex";
  return "counter";
}
