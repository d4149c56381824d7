import type { Normalize } from "@driftwatch/schema";

/**
 * Built-in normalisation of website text that is obviously volatile. diffHtml compares the
 * visible text of block elements only (attributes never take part), so a CSRF token in a hidden
 * input, a `nonce` attribute, `<meta name="csrf-token">` or a cache-busting `?v=123` in a `src`
 * never causes a change to begin with. What remains is such values when a page shows them as
 * text: relative times, tokens printed next to their names, asset URLs in text. Each pattern
 * below is a plain alternation of fixed words and character runs (no nested quantifiers), so the
 * regular expression engine runs in time linear in the text. Matches are replaced by markers in
 * the comparison key only; changes still show the page's own text.
 */

const RELATIVE_TIME_MARKER = "\u0001time\u0001";
const TOKEN_MARKER = "\u0001token\u0001";
const BUSTER_MARKER = "\u0001v\u0001";

const EN_NUMBER = "(?:\\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|few|several|some)";
const EN_UNIT = "(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|years?|yrs?)";
const DE_NUMBER = "(?:\\d+|einer|einem|einen|ein|zwei|drei|vier|f\u00fcnf|sechs|sieben|acht|neun|zehn|elf|zw\u00f6lf|wenigen|ein paar)";
const DE_UNIT = "(?:Sekunden?|Minuten?|Stunden?|Tagen?|Tag|Wochen?|Monaten?|Monat|Jahren?|Jahr)";
const FR_UNIT = "(?:secondes?|minutes?|heures?|jours?|semaines?|mois|ans?)";

/** "3 minutes ago", "a day ago", "5m ago", "in 2 hours", "just now", "yesterday"; German, French. */
export const RELATIVE_TIME = new RegExp(
  [
    `\\b${EN_NUMBER}\\s+${EN_UNIT}\\s+ago\\b`,
    "\\b\\d+\\s?(?:s|m|min|h|hr|d|w|mo|y)\\s+ago\\b",
    `\\bin\\s+${EN_NUMBER}\\s+${EN_UNIT}\\b`,
    "\\b(?:just now|moments? ago|a moment ago|yesterday|last (?:second|minute|hour))\\b",
    `\\bvor\\s+${DE_NUMBER}\\s+${DE_UNIT}\\b`,
    `\\bin\\s+${DE_NUMBER}\\s+${DE_UNIT}\\b`,
    "\\b(?:gerade eben|soeben|vorgestern|gestern)\\b",
    `\\bil y a\\s+(?:\\d+|une?|quelques)\\s+${FR_UNIT}\\b`,
    "\u00e0 l'instant|\\bavant-hier\\b",
  ].join("|"),
  "gi",
);

/** A token next to its name: `csrf_token: 9f8a...`, `authenticity_token=...`, `nonce="..."`. */
export const TOKEN = /\b(csrf(?:[-_](?:token|param|key|value))?|xsrf(?:[-_]token)?|_token|authenticity_token|nonce)(\s?[=:]\s?["']?)[A-Za-z0-9+/_.=-]{8,}/gi;

/**
 * A cache-busting query on an asset URL: `app.js?v=123`, `style.css?1699999999`, `x.png?_=17`,
 * `?ver=`, `?t=`, `?ts=`, `?cb=`, `?rev=`, `?hash=`. Only the query is replaced: a hashed file name
 * (`app.3f9a1c.js`) is part of the path and still counts.
 */
export const CACHE_BUSTER =
  /(\.(?:js|mjs|css|png|jpe?g|gif|svg|webp|avif|ico|woff2?|ttf|otf|eot|map|json))\?(?:(?:v|ver|version|_|t|ts|cb|cachebust|cachebuster|rev|hash|build)=[\w.-]*|\d{6,})(?=[&#\s"')\]]|$)/gi;

/** The normalisation switches, each on unless turned off. */
export interface NormalizeSwitches {
  relativeTimes: boolean;
  csrfTokens: boolean;
  cacheBusters: boolean;
  /** The items of a list (`li`, table rows) that only changed places are no change (not a text normalisation). */
  listOrder: boolean;
}

export function normalizeSwitches(normalize: Normalize | undefined): NormalizeSwitches {
  return {
    relativeTimes: normalize?.relativeTimes !== false,
    csrfTokens: normalize?.csrfTokens !== false,
    cacheBusters: normalize?.cacheBusters !== false,
    listOrder: normalize?.listOrder !== false,
  };
}

/** The key normaliser for the switches that are on, or undefined when all are off. */
export function textNormalizer(switches: NormalizeSwitches): ((text: string) => string) | undefined {
  const { relativeTimes, csrfTokens, cacheBusters } = switches;
  if (!relativeTimes && !csrfTokens && !cacheBusters) return undefined;
  return (text) => {
    let out = text;
    if (relativeTimes) out = out.replace(RELATIVE_TIME, RELATIVE_TIME_MARKER);
    if (csrfTokens) out = out.replace(TOKEN, `$1$2${TOKEN_MARKER}`);
    if (cacheBusters && out.includes("?")) out = out.replace(CACHE_BUSTER, `$1?${BUSTER_MARKER}`);
    return out;
  };
}

/** Which switches changed a text, for explanations: `normalize.relativeTimes`, ... */
export function normalizationsIn(text: string, switches: NormalizeSwitches): string[] {
  const out: string[] = [];
  const test = (re: RegExp): boolean => {
    re.lastIndex = 0;
    const hit = re.test(text);
    re.lastIndex = 0;
    return hit;
  };
  if (switches.relativeTimes && test(RELATIVE_TIME)) out.push("normalize.relativeTimes");
  if (switches.csrfTokens && test(TOKEN)) out.push("normalize.csrfTokens");
  if (switches.cacheBusters && test(CACHE_BUSTER)) out.push("normalize.cacheBusters");
  return out;
}
