import type { Availability, MonitorType, Price, TrackedValue, TrackedValueSpec } from "@driftwatch/schema";
import { TrackSchema } from "@driftwatch/schema";
import type { CheerioAPI } from "cheerio";
import { loadHtml as load } from "../html/cheerio.js";
import { DriftwatchError, type DriftwatchErrorDetail } from "../errors.js";
import { DEFAULT_HTML_MAX_DEPTH, DEFAULT_HTML_MAX_SELECTOR_WORK, depthLimitedAdapter } from "../html/diff-html.js";
import { EvalBudget, evaluateJsonPath, parseJsonPath, type Query } from "../jsonpath/index.js";
import { availabilityFromCode, availabilityFromText } from "./availability.js";
import { parsePrice } from "./price.js";
import { numberFromText, pageLocale, readProductFacts, type ProductFacts, type ProductSource } from "./structured.js";

/** Bounds on one extraction. */
export const TRACK_LIMITS = {
  /** Largest body read, in characters; a larger one gives every value `missing` with a reason. */
  maxBodyChars: 10_000_000,
  /** Longest text kept for `extract: "text"` and `"attribute"`. */
  maxTextChars: 10_000,
  /** JSONPath step budget of all paths on one document. */
  jsonPathBudget: 1_000_000,
} as const;

/** One tracked value read from one check: the value and where it came from, or why there is none. */
export type TrackedReading =
  | { status: "ok"; value: TrackedValue; source: ProductSource | "path" | "selector" }
  | { status: "missing"; reason: string };

/** What `track` becomes after validation: each spec with its compiled path. */
export interface CompiledTrackEntry {
  spec: TrackedValueSpec;
  query?: Query;
}

/**
 * Checks `track` for a monitor of type `kind`: shape (zod), unique names, `path` only for api
 * monitors and `selector` only for website monitors, `attribute` exactly with
 * `extract: "attribute"`, JSONPaths that parse, selectors that compile. Throws a DriftwatchError
 * `invalid_track` with one detail per problem (`track[1].path`).
 */
export function validateTrack(kind: MonitorType, track: unknown): CompiledTrackEntry[] {
  const shaped = TrackSchema.safeParse(track);
  if (!shaped.success) {
    const details = shaped.error.issues.map((issue) => ({ path: `track${issuePath(issue.path)}`, message: issue.message }));
    throw invalidTrack(details);
  }
  const details: DriftwatchErrorDetail[] = [];
  const names = new Set<string>();
  const compiled: CompiledTrackEntry[] = [];
  shaped.data.forEach((spec, index) => {
    const at = `track[${index}]`;
    if (names.has(spec.name)) details.push({ path: `${at}.name`, message: `the name ${JSON.stringify(spec.name)} is already tracked` });
    names.add(spec.name);
    if (spec.extract === "attribute" && spec.attribute === undefined) details.push({ path: `${at}.attribute`, message: 'extract "attribute" needs the attribute to read' });
    if (spec.attribute !== undefined && spec.extract !== "attribute") details.push({ path: `${at}.attribute`, message: 'attribute is only read with extract "attribute"' });
    const entry: CompiledTrackEntry = { spec };
    if (kind === "api") {
      if (spec.selector !== undefined) details.push({ path: `${at}.selector`, message: "an api monitor tracks values by path (a JSONPath), not by selector" });
      if (spec.path === undefined) details.push({ path: `${at}.path`, message: "an api monitor needs a JSONPath for each tracked value" });
      if (spec.extract === "attribute") details.push({ path: `${at}.extract`, message: 'extract "attribute" reads an HTML attribute; an api monitor has none' });
      if (spec.path !== undefined) {
        try {
          entry.query = parseJsonPath(spec.path);
        } catch (error) {
          details.push({ path: `${at}.path`, message: error instanceof Error ? error.message : "not a valid JSONPath" });
        }
      }
    } else {
      if (spec.path !== undefined) details.push({ path: `${at}.path`, message: "a website monitor tracks values by selector (CSS), not by path" });
      const needsSelector = spec.extract !== "price" && spec.extract !== "availability";
      if (spec.selector === undefined && needsSelector) {
        details.push({ path: `${at}.selector`, message: 'a website monitor needs a selector, except for extract "price" and "availability"' });
      }
      if (spec.selector !== undefined && !selectorCompiles(spec.selector)) {
        details.push({ path: `${at}.selector`, message: `not a valid CSS selector: ${JSON.stringify(spec.selector)}` });
      }
    }
    compiled.push(entry);
  });
  if (details.length > 0) throw invalidTrack(details);
  return compiled;
}

function invalidTrack(details: DriftwatchErrorDetail[]): DriftwatchError {
  const first = details[0]!;
  return new DriftwatchError("invalid_track", `${first.path}: ${first.message}`, { details });
}

/** `[1, "path"]` as `[1].path`. */
function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`)).join("");
}

let probe: CheerioAPI | undefined;
function selectorCompiles(selector: string): boolean {
  probe ??= load("");
  try {
    probe(selector);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads each tracked value of one check. `body` is the fetched text (JSON for api monitors, HTML
 * for website ones); a parsed JSON document is accepted too. Never throws for what a target
 * sends: a body that does not parse, a path that selects nothing or a selector that matches
 * nothing gives that value `missing` with the reason. Throws `invalid_track` for a bad `track`.
 */
export function extractTrackedValues(kind: MonitorType, body: unknown, track: unknown): Record<string, TrackedReading> {
  const entries = validateTrack(kind, track);
  const out: Record<string, TrackedReading> = {};
  if (entries.length === 0) return out;
  const missingAll = (reason: string): Record<string, TrackedReading> => {
    for (const { spec } of entries) out[spec.name] = { status: "missing", reason };
    return out;
  };
  if (typeof body === "string" && body.length > TRACK_LIMITS.maxBodyChars) {
    return missingAll(`the body has ${body.length} characters, more than the ${TRACK_LIMITS.maxBodyChars} values are read from`);
  }
  if (kind === "api") {
    let document: unknown = body;
    if (typeof body === "string") {
      try {
        document = JSON.parse(body);
      } catch {
        return missingAll("the body is not JSON");
      }
    }
    const budget = new EvalBudget(TRACK_LIMITS.jsonPathBudget);
    for (const { spec, query } of entries) out[spec.name] = readJsonValue(spec, query!, document, budget);
    return out;
  }
  if (typeof body !== "string") return missingAll("a website monitor's body is HTML text");
  let $: CheerioAPI;
  try {
    $ = load(body, { treeAdapter: depthLimitedAdapter(DEFAULT_HTML_MAX_DEPTH) } as Parameters<typeof load>[1]);
  } catch (error) {
    return missingAll(error instanceof Error ? error.message : "the page could not be parsed");
  }
  let elements: number | undefined;
  let facts: ProductFacts | undefined;
  const locale = pageLocale($);
  for (const { spec } of entries) {
    if (spec.selector === undefined) {
      facts ??= readProductFacts($);
      out[spec.name] = readProductFact(spec, facts);
      continue;
    }
    elements ??= $("*").length;
    if (elements * spec.selector.length > DEFAULT_HTML_MAX_SELECTOR_WORK) {
      out[spec.name] = { status: "missing", reason: "matching this selector against this page exceeds the selector work bound" };
      continue;
    }
    out[spec.name] = readSelectorValue($, spec, locale);
  }
  return out;
}

function readProductFact(spec: TrackedValueSpec, facts: ProductFacts): TrackedReading {
  if (spec.extract === "price") {
    return facts.price ? { status: "ok", value: facts.price.value, source: facts.price.source } : { status: "missing", reason: "the page shows no price in its structured data or common price patterns" };
  }
  // availability: `unknown` is a value (the page says nothing either way), not a missing one.
  return facts.availability ? { status: "ok", value: facts.availability.value, source: facts.availability.source } : { status: "ok", value: "unknown", source: "visible" };
}

function readJsonValue(spec: TrackedValueSpec, query: Query, document: unknown, budget: EvalBudget): TrackedReading {
  let nodes;
  try {
    nodes = evaluateJsonPath(query, document, budget);
  } catch (error) {
    return { status: "missing", reason: error instanceof Error ? error.message : "the path could not be evaluated" };
  }
  if (nodes.length === 0) return { status: "missing", reason: `${spec.path} selects nothing in this document` };
  const value = nodes[0]!.value;
  const converted = convertJson(spec, value);
  return typeof converted === "string" && converted.startsWith("\u0000")
    ? { status: "missing", reason: converted.slice(1) }
    : { status: "ok", value: converted, source: "path" };
}

/** A JSON value as the spec's extract asks; a string starting with NUL is the reason it cannot be. */
function convertJson(spec: TrackedValueSpec, value: unknown): TrackedValue {
  const describe = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : typeof value;
  switch (spec.extract) {
    case "number": {
      if (typeof value === "number") return value;
      if (typeof value === "string") return numberFromText(value) ?? `\u0000${spec.path} is the text ${JSON.stringify(value.slice(0, 40))}, not a number`;
      return `\u0000${spec.path} is ${describe}, not a number`;
    }
    case "text":
      if (typeof value === "string") return value.slice(0, TRACK_LIMITS.maxTextChars);
      if (typeof value === "number" || typeof value === "boolean") return String(value);
      return `\u0000${spec.path} is ${describe}, not a text`;
    case "price": {
      if (typeof value === "number") return { amount: value, currency: null };
      if (typeof value === "string") return parsePrice(value) ?? `\u0000${spec.path} is the text ${JSON.stringify(value.slice(0, 40))}, not a price`;
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        const record = value as Record<string, unknown>;
        const amount = record["amount"] ?? record["price"] ?? record["value"];
        const currency = record["currency"] ?? record["priceCurrency"] ?? record["currencyCode"];
        const iso = typeof currency === "string" && /^[A-Za-z]{3}$/.test(currency) ? currency.toUpperCase() : null;
        if (typeof amount === "number") return { amount, currency: iso };
        if (typeof amount === "string") {
          const parsed = parsePrice(amount, { currency: iso });
          if (parsed !== null) return { amount: parsed.amount, currency: iso ?? parsed.currency };
        }
      }
      return `\u0000${spec.path} is ${describe}, not a price`;
    }
    case "availability":
      return availabilityFromJson(value);
    default:
      if (typeof value === "number" || typeof value === "string" || typeof value === "boolean") {
        return typeof value === "string" ? value.slice(0, TRACK_LIMITS.maxTextChars) : value;
      }
      return `\u0000${spec.path} is ${describe}; track a number, a text or a boolean (or use extract "price")`;
  }
}

function availabilityFromJson(value: unknown): Availability {
  if (typeof value === "boolean") return value ? "in_stock" : "out_of_stock";
  if (typeof value === "number") return value > 0 ? "in_stock" : "out_of_stock";
  if (typeof value !== "string") return "unknown";
  const code = availabilityFromCode(value);
  return code !== "unknown" ? code : availabilityFromText(value);
}

function readSelectorValue($: CheerioAPI, spec: TrackedValueSpec, locale: string | undefined): TrackedReading {
  let element;
  try {
    element = $(spec.selector!).first();
  } catch {
    return { status: "missing", reason: `not a valid CSS selector: ${JSON.stringify(spec.selector)}` };
  }
  if (element.length === 0) return { status: "missing", reason: `${spec.selector} matches nothing on this page` };
  const text = element.text().replace(/\s+/g, " ").trim().slice(0, TRACK_LIMITS.maxTextChars);
  switch (spec.extract ?? "text") {
    case "text":
      return { status: "ok", value: text, source: "selector" };
    case "attribute": {
      const value = element.attr(spec.attribute!);
      return value === undefined
        ? { status: "missing", reason: `${spec.selector} has no ${spec.attribute} attribute` }
        : { status: "ok", value: value.slice(0, TRACK_LIMITS.maxTextChars), source: "selector" };
    }
    case "number": {
      const number = numberFromText(element.attr("content") ?? text);
      return number === null ? { status: "missing", reason: `${spec.selector} holds no number: ${JSON.stringify(text.slice(0, 40))}` } : { status: "ok", value: number, source: "selector" };
    }
    case "price": {
      const price = parsePrice(element.attr("content") ?? text, { locale });
      return price === null ? { status: "missing", reason: `${spec.selector} holds no price: ${JSON.stringify(text.slice(0, 40))}` } : { status: "ok", value: price, source: "selector" };
    }
    case "availability": {
      const code = availabilityFromCode(element.attr("href") ?? element.attr("content") ?? "");
      return { status: "ok", value: code !== "unknown" ? code : availabilityFromText(text), source: "selector" };
    }
  }
}

/** A parsed page's product facts (for callers that parse the page themselves). */
export function productFactsOfHtml(html: string): ProductFacts {
  return readProductFacts(load(html.length > TRACK_LIMITS.maxBodyChars ? html.slice(0, TRACK_LIMITS.maxBodyChars) : html, { treeAdapter: depthLimitedAdapter(DEFAULT_HTML_MAX_DEPTH) } as Parameters<typeof load>[1]));
}

export type { Price };
