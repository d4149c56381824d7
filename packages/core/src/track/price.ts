import type { Price } from "@driftwatch/schema";

/**
 * Price parsing with currency and locale: `1.299,00 €`, `$1,299.00`, `CHF 12.–`, `£9.99`,
 * `12,50 zł`, `¥1,200`, `1 299,00 kr`, `EUR 12.50`.
 *
 * How a separator is read:
 * - Both `.` and `,` present: the last one is the decimal separator (`1.299,00`, `1,299.00`).
 * - One kind, several times: thousands (`1.299.000`, `1,299,000`).
 * - One kind, once, followed by 1, 2 or 4+ digits: decimal (`12.5`, `12,50`).
 * - One kind, once, followed by exactly 3 digits (`1.299`, `1,299`): thousands (`1.299 €` and
 *   `$1,299` are 1299), because prices are written with two minor digits or none. The exception is
 *   the currencies with three minor digits (KWD, BHD, OMR, JOD, TND, LYD, IQD), where it is decimal.
 * - A mark right before one or two digits, with no digit before it, is a decimal (`.75 €` is 0.75).
 * - Spaces, no-break spaces, thin spaces and apostrophes between digit groups are thousands
 *   separators (`1 299,00`, `1'299.00`).
 * - A trailing `.-`, `.–`, `,-` or `,–` means no minor units (`CHF 12.–` is 12).
 *
 * Work is linear in the input: it is cut to MAX_PRICE_TEXT characters and every pattern is a
 * plain character-class run without nested quantifiers.
 */

/** Longest text parsed as one price. */
export const MAX_PRICE_TEXT = 400;

/** Symbols and words that name a currency, longest first where one is a prefix of another. */
const SYMBOLS: ReadonlyArray<readonly [string, string | null]> = [
  ["US$", "USD"],
  ["CA$", "CAD"],
  ["C$", "CAD"],
  ["AU$", "AUD"],
  ["A$", "AUD"],
  ["NZ$", "NZD"],
  ["HK$", "HKD"],
  ["S$", "SGD"],
  ["NT$", "TWD"],
  ["R$", "BRL"],
  ["MX$", "MXN"],
  ["€", "EUR"],
  ["£", "GBP"],
  ["¥", "JPY"],
  ["￥", "JPY"],
  ["円", "JPY"],
  ["元", null],
  ["₹", "INR"],
  ["₽", "RUB"],
  ["руб", "RUB"],
  ["₩", "KRW"],
  ["원", "KRW"],
  ["₺", "TRY"],
  ["TL", "TRY"],
  ["euros", "EUR"],
  ["euro", "EUR"],
  ["Euro", "EUR"],
  ["₪", "ILS"],
  ["₴", "UAH"],
  ["грн", "UAH"],
  ["₸", "KZT"],
  ["тг", "KZT"],
  ["₫", "VND"],
  ["฿", "THB"],
  ["₱", "PHP"],
  ["zł", "PLN"],
  ["zl", "PLN"],
  ["Kč", "CZK"],
  ["Ft", "HUF"],
  ["lei", "RON"],
  ["Lei", "RON"],
  ["kn", "HRK"],
  ["Kn", "HRK"],
  ["лв", "BGN"],
  ["Rs.", "INR"],
  ["Rs", "INR"],
  ["Rp", "IDR"],
  ["RM", "MYR"],
  ["ر.س", "SAR"],
  ["د.إ", "AED"],
  ["Fr.", "CHF"],
  // Ambiguous on their own: settled by the page's locale (see currencyForLocale), else unknown.
  ["$", null],
  ["kr", null],
  ["Kr", null],
];

/** ISO 4217 codes recognised in text (`EUR 12.50`, `12.50 CHF`). */
const ISO_CODES = new Set(
  (
    "RUR AED ARS AUD BGN BRL CAD CHF CLP CNY COP CZK DKK EGP EUR GBP HKD HRK HUF IDR ILS INR ISK JPY KRW KZT MAD MXN MYR NGN NOK NZD " +
    "PEN PHP PKR PLN PYG QAR RON RSD RUB SAR SEK SGD THB TRY TWD UAH UGX USD UYU VND ZAR BYN KWD BHD OMR JOD TND LYD IQD"
  ).split(" "),
);

/** Currencies with three minor digits. */
const THREE_DECIMAL = new Set("KWD BHD OMR JOD TND LYD IQD".split(" "));

/** The currency an ambiguous symbol (`$`, `kr`) means on a page in this locale, if any. */
export function currencyForLocale(symbol: string, locale: string | undefined): string | null {
  if (locale === undefined) return symbol === "$" ? "USD" : symbol === "元" ? "CNY" : null;
  const tag = locale.toLowerCase().replace("_", "-");
  const region = tag.split("-")[1];
  if (symbol === "$") {
    const byRegion: Record<string, string> = {
      us: "USD", ca: "CAD", au: "AUD", nz: "NZD", hk: "HKD", sg: "SGD", tw: "TWD", mx: "MXN", ar: "ARS", cl: "CLP", co: "COP", uy: "UYU",
    };
    if (region !== undefined && byRegion[region] !== undefined) return byRegion[region]!;
    if (tag === "zh-tw" || tag.startsWith("zh-hant")) return "TWD";
    return region === undefined && tag.startsWith("en") ? "USD" : null;
  }
  const lang = tag.split("-")[0];
  if (symbol === "元") return tag === "zh-tw" || tag.startsWith("zh-hant") || region === "tw" ? "TWD" : lang === "zh" ? "CNY" : null;
  if (lang === "sv" || region === "se") return "SEK";
  if (lang === "nb" || lang === "nn" || lang === "no" || region === "no") return "NOK";
  if (lang === "da" || region === "dk") return "DKK";
  if (lang === "is" || region === "is") return "ISK";
  return null;
}

/** The currency named in `text` (an ISO code first, then a symbol), or undefined. */
export function findCurrency(text: string, locale?: string): { currency: string | null; marker: string } | undefined {
  const iso = /(?:^|[^A-Za-z])([A-Z]{3})(?![A-Za-z])/g;
  for (let m = iso.exec(text); m !== null; m = iso.exec(text)) {
    if (ISO_CODES.has(m[1]!)) return { currency: m[1]!, marker: m[1]! };
  }
  for (const [symbol, code] of SYMBOLS) {
    const at = text.indexOf(symbol);
    if (at === -1) continue;
    // Letters-only markers (`kr`, `lei`, `Rs`, `zl`) must stand alone, not be part of a word.
    if (/^[A-Za-z.]+$/.test(symbol)) {
      const before = text.charAt(at - 1);
      const after = text.charAt(at + symbol.length);
      if (/[A-Za-z]/.test(before) || /[A-Za-z]/.test(after)) continue;
    }
    return { currency: code ?? currencyForLocale(symbol, locale), marker: symbol };
  }
  return undefined;
}

export interface ParsePriceOptions {
  /** ISO 4217 code known from elsewhere on the page (structured data); wins over the text's own symbol when the symbol is ambiguous. */
  currency?: string | null;
  /** The page's locale (`<html lang>`), used for ambiguous symbols such as `$` and `kr`. */
  locale?: string;
}

const NUMBER = /\d[\d.,'’\u00a0\u202f\u2009 ]*/;

/**
 * Reads a price from a short text. Returns null when the text holds no number. The currency is
 * the ISO code or symbol in the text, else `options.currency`, else null.
 */
export function parsePrice(text: string, options: ParsePriceOptions = {}): Price | null {
  if (typeof text !== "string") return null;
  const input = text.length > MAX_PRICE_TEXT ? text.slice(0, MAX_PRICE_TEXT) : text;
  const found = findCurrency(input, options.locale);
  let currency = found?.currency ?? null;
  if (currency === "RUR") currency = "RUB";
  if (options.currency !== undefined && options.currency !== null && (currency === null || found?.marker === "$")) {
    currency = options.currency.toUpperCase();
  }
  const amount = parseAmount(found === undefined ? input : input.slice(numberNextTo(input, found.marker)), currency);
  if (amount === null) return null;
  return { amount, currency };
}

/**
 * Where the number written with the currency starts: right before the marker (`14,85 EUR`,
 * `1 299,00 kr`, `12,- €`) or else right after it (`$60.00`, `EUR 12.50`), so that a text's other
 * numbers (`3 Ausgaben für nur 14,85 EUR`, `50 - $2.00`) are not read as the price. 0 (the first
 * number) when no number stands next to the marker.
 */
function numberNextTo(input: string, marker: string): number {
  const at = input.indexOf(marker);
  if (at === -1) return 0;
  const before = /(?:(?<![\d.,])[.,]{1,2})?\d[\d.,'’\u00a0\u202f\u2009 ]*?(?:[.,][-–])?[\s\u00a0\u202f\u2009]{0,3}$/.exec(input.slice(0, at));
  if (before !== null) {
    // Two numbers before the marker (`881,00 169,00 Kn`, an old and a new price): the last one
    // that reads as a number on its own, from the first that does (`1 299,00 kr` is one number).
    let start = before.index;
    const oneNumber = (text: string): boolean => parseAmount(text) !== null && !/[.,]\d{1,2}[\s\u00a0\u202f\u2009]+\d/.test(text);
    while (!oneNumber(input.slice(start, at))) {
      const space = input.slice(start, at).search(/[\s\u00a0\u202f\u2009]\S/);
      if (space === -1) break;
      start += space + 1;
    }
    return start;
  }
  const after = /^[\s\u00a0\u202f\u2009:]{0,3}(?=[.,]{0,2}\d)/.exec(input.slice(at + marker.length));
  return after === null ? 0 : at + marker.length + after[0].length;
}

/** Reads a number written with a locale's separators (`1.299,00`, `1,299.00`, `1 299`), or null. */
export function parseAmount(text: string, currency: string | null = null): number | null {
  const input = text.length > MAX_PRICE_TEXT ? text.slice(0, MAX_PRICE_TEXT) : text;
  // A percentage (`40% OFF`) is not an amount: the next number is read instead.
  const numbers = new RegExp(NUMBER.source, "g");
  let match = numbers.exec(input);
  while (match !== null && /^[\s\u00a0]?%/.test(input.slice(match.index + match[0].length))) match = numbers.exec(input);
  if (match === null) return null;
  let raw = match[0].replace(/[\s\u00a0\u202f\u2009]+$/, "");
  // A price under 1 written without its leading 0 (`.75 €`, `$.75`): a mark right before one or two digits, with no digit before it.
  if (match.index > 0 && /[.,]/.test(input.charAt(match.index - 1)) && !/\d/.test(input.charAt(match.index - 2)) && /^\d{1,2}$/.test(raw.replace(/[.,\s\u00a0\u202f\u2009'’]+$/, ""))) {
    return Number(`0.${raw.replace(/[.,\s\u00a0\u202f\u2009'’]+$/, "")}`);
  }
  // Separators that end the run (`12.`, `12,`) are punctuation, not part of the number.
  let noMinor = false;
  const tail = input.slice(match.index + match[0].length);
  if (/^[-–—]/.test(tail) && /[.,]$/.test(raw)) noMinor = true;
  raw = raw.replace(/[.,\s\u00a0\u202f\u2009'’]+$/, "");
  // A space-separated run continues only with groups of exactly three digits (`1 299,00`), so
  // `12 50` (two numbers) is read as 12.
  raw = raw.replace(/^(\d{1,3}(?:[\s\u00a0\u202f\u2009'’]\d{3})+)(?=[.,]|$)|^(\d+)[\s\u00a0\u202f\u2009'’].*$/, (_, grouped: string | undefined, head: string | undefined) =>
    grouped !== undefined ? grouped.replace(/[\s\u00a0\u202f\u2009'’]/g, "") : head!,
  );
  // A space after a decimal part ends the number (`2.00 100`: a price, then a quantity).
  raw = raw.replace(/^(\d[\d.,]*[.,]\d{1,2})[\s\u00a0\u202f\u2009'’].*$/, "$1");
  raw = raw.replace(/[\s\u00a0\u202f\u2009'’]/g, "");
  const dots = count(raw, ".");
  const commas = count(raw, ",");
  let normalized: string;
  if (dots > 0 && commas > 0) {
    const decimal = raw.lastIndexOf(".") > raw.lastIndexOf(",") ? "." : ",";
    const thousands = decimal === "." ? "," : ".";
    if (count(raw, decimal) > 1) return null;
    normalized = raw.split(thousands).join("").replace(decimal, ".");
  } else if (dots + commas === 0) {
    normalized = raw;
  } else {
    const separator = dots > 0 ? "." : ",";
    const parts = raw.split(separator);
    if (parts.length > 2) {
      // Several of one kind: thousands, if every group after the first has three digits.
      if (!parts.slice(1).every((part) => part.length === 3)) return null;
      normalized = parts.join("");
    } else {
      const after = parts[1]!;
      normalized = after.length === 3 && isThousands(currency) ? parts.join("") : `${parts[0]}.${after}`;
    }
  }
  if (noMinor) normalized = normalized.split(".")[0]!;
  if (!/^\d+(?:\.\d+)?$/.test(normalized)) return null;
  const value = Number(normalized);
  return Number.isFinite(value) ? value : null;
}

/**
 * A lone separator before exactly three digits (`1.299`, `73,460`) separates thousands: prices are
 * written with two minor digits or none, so three digits after the mark are a group. The exception
 * is the currencies with three minor digits (KWD, BHD, OMR, JOD, TND, LYD, IQD: `423.923 KWD`).
 */
function isThousands(currency: string | null): boolean {
  return currency === null || !THREE_DECIMAL.has(currency);
}

function count(text: string, char: string): number {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) n++;
  return n;
}
