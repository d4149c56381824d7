import type { Availability, Price } from "@driftwatch/schema";
import type { CheerioAPI } from "cheerio";
import type { AnyNode, Element, ParentNode } from "domhandler";
import { availabilityFromCode, availabilityFromText, MAX_AVAILABILITY_TEXT } from "./availability.js";
import { findCurrency, parseAmount, parsePrice } from "./price.js";

/** Where a product's price or availability was read. */
export type ProductSource = "json-ld" | "microdata" | "opengraph" | "visible";

export interface ProductFinding<T> {
  value: T;
  source: ProductSource;
}

export interface ProductFacts {
  price?: ProductFinding<Price>;
  availability?: ProductFinding<Availability>;
}

/** Bounds on the structured data read from one page. */
export const PRODUCT_LIMITS = {
  /** JSON-LD scripts read per page. */
  maxJsonLdScripts: 50,
  /** Characters of one JSON-LD script (a longer one is skipped). */
  maxJsonLdChars: 2_000_000,
  /** JSON-LD nodes visited per page. */
  maxJsonLdNodes: 20_000,
  /** Elements looked at by the microdata and visible-pattern passes. */
  maxCandidates: 2_000,
  /** Characters of an element's text parsed as a price. */
  maxPriceText: 120,
} as const;

/**
 * Reads a product's price and availability from a parsed page: JSON-LD (`Product`, `Offer`,
 * `AggregateOffer`, in `@graph` and arrays), then schema.org microdata and RDFa (`itemprop` /
 * `property` price, priceCurrency, availability), then Open Graph product tags
 * (`product:price:amount`, `product:price:currency`, `og:availability`), then visible patterns
 * (an element whose class or id says `price` and whose text carries a currency; buy-button and
 * stock phrases). Each fact is taken from the first source that has it.
 */
export function readProductFacts($: CheerioAPI): ProductFacts {
  const locale = pageLocale($);
  const facts: ProductFacts = {};
  const fill = (found: { price?: Price | null; availability?: Availability | null }, source: ProductSource): void => {
    if (facts.price === undefined && found.price) facts.price = { value: found.price, source };
    if (facts.availability === undefined && found.availability && found.availability !== "unknown") {
      facts.availability = { value: found.availability, source };
    }
  };
  fill(fromJsonLd($, locale), "json-ld");
  if (facts.price === undefined || facts.availability === undefined) fill(fromMicrodata($, locale), "microdata");
  if (facts.price === undefined || facts.availability === undefined) fill(fromOpenGraph($, locale), "opengraph");
  if (facts.price === undefined) fill({ price: visiblePrice($, locale) ?? labelledPrice($, locale) }, "visible");
  if (facts.availability === undefined) fill({ availability: visibleAvailability($) }, "visible");
  const sale = saleOverRegular($, locale, facts.price);
  if (sale !== null) facts.price = { value: sale, source: "opengraph" };
  return facts;
}

/**
 * A sale that the structured data has not caught up with: the JSON-LD or microdata price equals
 * the price the Open Graph tags call the regular one (`og:price:standard_amount`,
 * `product:original_price:amount`), and Open Graph's current price (`product:sale_price:amount`,
 * `product:price:amount`) is lower, in the same currency. The page then sells at the lower price.
 */
function saleOverRegular($: CheerioAPI, locale: string | undefined, found: ProductFacts["price"]): Price | null {
  if (found === undefined || (found.source !== "json-ld" && found.source !== "microdata")) return null;
  const meta = (name: string): string | undefined => $(`meta[property="${name}"], meta[name="${name}"]`).first().attr("content")?.trim().slice(0, PRODUCT_LIMITS.maxPriceText);
  const currency = meta("product:price:currency") ?? meta("og:price:currency");
  const regularText = meta("og:price:standard_amount") ?? meta("product:original_price:amount");
  const currentText = meta("product:sale_price:amount") ?? meta("product:price:amount") ?? meta("og:price:amount");
  if (regularText === undefined || currentText === undefined) return null;
  const regular = priceOf(regularText, currency, locale);
  const current = priceOf(currentText, currency, locale);
  if (regular === null || current === null || current.amount <= 0) return null;
  const sameCurrency = (price: Price): boolean => price.currency === null || price.currency === found.value.currency;
  if (!sameCurrency(regular) || !sameCurrency(current)) return null;
  if (Math.abs(regular.amount - found.value.amount) > 0.005 || current.amount >= regular.amount) return null;
  return { amount: current.amount, currency: found.value.currency ?? current.currency };
}

/** The page's language tag (`<html lang>`, `og:locale`, `content-language`), if any. */
export function pageLocale($: CheerioAPI): string | undefined {
  const lang = $("html").attr("lang") ?? $('meta[property="og:locale"]').attr("content") ?? $('meta[http-equiv="content-language" i]').attr("content");
  return lang !== undefined && /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/.test(lang.trim()) ? lang.trim() : undefined;
}

// ---------------------------------------------------------------------------------------------
// JSON-LD

interface OfferFacts {
  price?: Price | null;
  availability?: Availability | null;
}

function fromJsonLd($: CheerioAPI, locale: string | undefined): OfferFacts {
  const scripts = $('script[type="application/ld+json" i]').slice(0, PRODUCT_LIMITS.maxJsonLdScripts);
  const budget = { nodes: PRODUCT_LIMITS.maxJsonLdNodes };
  const products: Record<string, unknown>[] = [];
  const offers: Record<string, unknown>[] = [];
  scripts.each((_, script) => {
    const text = $(script).text();
    if (text.length > PRODUCT_LIMITS.maxJsonLdChars) return;
    const data = parseJsonLd(text);
    if (data === undefined) return;
    collectTyped(data, budget, products, offers);
  });
  for (const product of products) {
    const found = offerFactsOf(product["offers"], locale, budget);
    if (found.price || (found.availability && found.availability !== "unknown")) return found;
  }
  for (const offer of offers) {
    const found = offerFactsOf(offer, locale, budget);
    if (found.price || (found.availability && found.availability !== "unknown")) return found;
  }
  return {};
}

/** JSON.parse, after removing what pages commonly get wrong (raw newlines and tabs in strings, an HTML comment or CDATA wrapper). */
function parseJsonLd(text: string): unknown {
  let source = text.trim();
  source = source.replace(/^<!--/, "").replace(/-->$/, "").replace(/^\/\/\s*<!\[CDATA\[/, "").replace(/\/\/\s*\]\]>$/, "").trim();
  try {
    return JSON.parse(source);
  } catch {
    try {
      return JSON.parse(source.replace(/[\u0000-\u001f]+/g, " "));
    } catch {
      return undefined;
    }
  }
}

function typesOf(node: Record<string, unknown>): string[] {
  const type = node["@type"];
  const list = Array.isArray(type) ? type : [type];
  return list.filter((t): t is string => typeof t === "string").map((t) => t.replace(/^(?:https?:\/\/schema\.org\/|schema:)/, ""));
}

/** Every Product (or ProductGroup / ProductModel) and every Offer node, in document order, without recursion. */
function collectTyped(data: unknown, budget: { nodes: number }, products: Record<string, unknown>[], offers: Record<string, unknown>[]): void {
  const stack: unknown[] = [data];
  while (stack.length > 0 && budget.nodes > 0) {
    const node = stack.pop();
    budget.nodes--;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
      continue;
    }
    if (typeof node !== "object" || node === null) continue;
    const record = node as Record<string, unknown>;
    const types = typesOf(record);
    if (types.some((t) => t === "Product" || t === "ProductGroup" || t === "ProductModel" || t === "Vehicle" || t === "Book")) {
      if (record["offers"] !== undefined) products.push(record);
    } else if (types.some((t) => t === "Offer" || t === "AggregateOffer")) {
      offers.push(record);
    }
    const children = Object.entries(record).filter(([key]) => key !== "offers" || !types.includes("Product"));
    for (let i = children.length - 1; i >= 0; i--) {
      const value = children[i]![1];
      if (typeof value === "object" && value !== null) stack.push(value);
    }
    // A ProductGroup's variants are products too.
    if (Array.isArray(record["hasVariant"])) for (const variant of record["hasVariant"]) stack.push(variant);
  }
}

/** Price and availability of an `offers` value: one Offer, an AggregateOffer or an array of them. */
function offerFactsOf(offers: unknown, locale: string | undefined, budget: { nodes: number }, depth = 0): OfferFacts {
  const list = (Array.isArray(offers) ? offers : [offers]).slice(0, 100);
  let price: Price | null = null;
  const availabilities: Availability[] = [];
  for (const offer of list) {
    budget.nodes--;
    if (typeof offer !== "object" || offer === null) continue;
    const record = lowerKeys(offer as Record<string, unknown>);
    const currency = scalarText(record["pricecurrency"]);
    if (price === null) {
      price =
        priceOf(record["price"], currency, locale) ??
        priceOf(record["lowprice"], currency, locale) ??
        priceSpecificationOf(record["pricespecification"], currency, locale);
    }
    const availability = availabilityFromCode(scalarText(record["availability"]));
    if (availability !== "unknown") availabilities.push(availability);
    // An AggregateOffer may list its offers.
    if (price === null && record["offers"] !== undefined && budget.nodes > 0 && depth < 3) {
      const inner = offerFactsOf(record["offers"], locale, budget, depth + 1);
      price = inner.price ?? null;
      if (inner.availability) availabilities.push(inner.availability);
    }
  }
  return { price, availability: combineAvailabilities(availabilities) };
}

function priceSpecificationOf(spec: unknown, currency: string | undefined, locale: string | undefined): Price | null {
  const list = Array.isArray(spec) ? spec.slice(0, 20) : [spec];
  for (const entry of list) {
    if (typeof entry !== "object" || entry === null) continue;
    const record = entry as Record<string, unknown>;
    const found = priceOf(record["price"], scalarText(record["priceCurrency"]) ?? currency, locale);
    if (found !== null) return found;
  }
  return null;
}

/** The record with its keys in lower case (pages write `lowprice`, `pricecurrency`). */
function lowerKeys(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    const lower = key.toLowerCase();
    if (!(lower in out)) out[lower] = value;
  }
  return out;
}

/** Any offer in stock makes the product in stock; else pre-order; else out of stock. */
function combineAvailabilities(list: Availability[]): Availability | null {
  if (list.length === 0) return null;
  if (list.includes("in_stock")) return "in_stock";
  if (list.includes("preorder")) return "preorder";
  return "out_of_stock";
}

/** A JSON-LD value as text: a string, a number, the first of an array, an object's `@id`, `name` or `@value` (at most 4 levels down). */
function scalarText(value: unknown, depth = 0): string | undefined {
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (depth >= 4) return undefined;
  if (Array.isArray(value)) return scalarText(value[0], depth + 1);
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    return scalarText(record["@id"] ?? record["name"] ?? record["@value"], depth + 1);
  }
  return undefined;
}

/**
 * A structured price: a number, or a string in the machine form schema.org asks for (`1299.00`),
 * or, as pages often write it anyway, a localised one (`1.299,00`).
 */
function priceOf(value: unknown, currency: string | undefined, locale: string | undefined, depth = 0): Price | null {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    // Some platforms nest the amount: `{ "value": 3499, "currency": "ARS" }`, `{ "sales": { ... } }`.
    if (depth >= 2) return null;
    const record = lowerKeys(value as Record<string, unknown>);
    const own = scalarText(record["currency"] ?? record["pricecurrency"]) ?? currency;
    for (const key of ["value", "amount", "price", "sales", "current"]) {
      if (record[key] === undefined || record[key] === null) continue;
      const found = priceOf(record[key], own, locale, depth + 1);
      if (found !== null) return found;
    }
    return null;
  }
  let iso = currency !== undefined && /^[A-Za-z]{3}$/.test(currency) ? currency.toUpperCase() : null;
  // RUR, the rouble's code before 1998, is still what some Russian shops write.
  if (iso === "RUR") iso = "RUB";
  // A price of 0 is what markup says when there is no price ("call for price", no buy box, a
  // template's placeholder): no price, rather than a wrong one.
  if (typeof value === "number") return Number.isFinite(value) && value > 0 ? { amount: value, currency: iso } : null;
  const text = scalarText(value);
  if (text === undefined || text === "") return null;
  if (/^\d+(?:\.\d+)?$/.test(text)) return Number(text) > 0 ? { amount: Number(text), currency: iso } : null;
  const parsed = parsePrice(text, { currency: iso, locale });
  if (parsed === null || parsed.amount <= 0) return null;
  return { amount: parsed.amount, currency: iso ?? parsed.currency };
}

// ---------------------------------------------------------------------------------------------
// Microdata and RDFa

function fromMicrodata($: CheerioAPI, locale: string | undefined): OfferFacts {
  const read = (name: string): string | undefined => {
    // The first one outside struck-through prices and other products' carousels, else the first.
    const all = $(`[itemprop="${name}" i], [property="${name}" i], [property="schema:${name}" i]`).slice(0, 50);
    if (all.length === 0) return undefined;
    const preferred = all.toArray().find((element) => {
      const ancestors = $(element).parents().toArray();
      return !ancestors.some((parent) => STRUCK.has(parent.name) || OTHER_PRODUCTS.test(`${parent.attribs["class"] ?? ""} ${parent.attribs["id"] ?? ""}`));
    });
    const element = $(preferred ?? all[0]!);
    const value = element.attr("content") ?? element.attr("href") ?? element.attr("value") ?? element.attr("datetime") ?? element.text();
    return value.trim().slice(0, PRODUCT_LIMITS.maxPriceText);
  };
  const currencyText = read("priceCurrency");
  const currency = currencyText !== undefined && /^[A-Za-z]{3}$/.test(currencyText) ? currencyText.toUpperCase() : undefined;
  const priceText = read("price") ?? read("lowPrice");
  const price = priceText === undefined ? null : priceOf(priceText, currency, locale);
  const availabilityText = read("availability");
  const availability =
    availabilityText === undefined ? null : availabilityFromCode(availabilityText) !== "unknown" ? availabilityFromCode(availabilityText) : availabilityFromText(availabilityText);
  return { price, availability };
}

// ---------------------------------------------------------------------------------------------
// Open Graph and other meta tags

function fromOpenGraph($: CheerioAPI, locale: string | undefined): OfferFacts {
  const meta = (...names: string[]): string | undefined => {
    for (const name of names) {
      const value = $(`meta[property="${name}"], meta[name="${name}"]`).first().attr("content");
      if (value !== undefined && value.trim() !== "") return value.trim().slice(0, PRODUCT_LIMITS.maxPriceText);
    }
    return undefined;
  };
  const currency = meta("product:price:currency", "og:price:currency");
  const amount = meta("product:price:amount", "og:price:amount", "product:sale_price:amount");
  const availability = meta("product:availability", "og:availability");
  return {
    price: amount === undefined ? null : priceOf(amount, currency, locale),
    availability: availability === undefined ? null : availabilityFromCode(availability),
  };
}

// ---------------------------------------------------------------------------------------------
// Visible patterns

/** Class or id words of prices that are not the current one. */
const NOT_CURRENT = /old|was|before|strike|crossed|regular|compare|list|original|rrp|msrp|uvp|save|saving|discount|unit|per-|shipping|delivery|installment|monthly|range|filter|slider|min|max/i;

/**
 * The first element (in document order, outside scripts) whose class or id says `price`, that is
 * not an old, list, unit or shipping price nor inside a recommendation carousel, and whose short
 * text holds a currency and an amount.
 */
function visiblePrice($: CheerioAPI, locale: string | undefined): Price | null {
  const candidates = $('[class*="price" i], [id*="price" i], [data-testid*="price" i]').slice(0, PRODUCT_LIMITS.maxCandidates);
  const listed = listedClasses($, candidates.toArray(), locale);
  for (const element of candidates.toArray()) {
    const node = $(element);
    if (listed.has(classKey(element))) continue;
    const label = `${node.attr("class") ?? ""} ${node.attr("id") ?? ""} ${node.attr("data-testid") ?? ""}`;
    if (NOT_CURRENT.test(label)) continue;
    if (node.closest("script, style, noscript, template, del, s, strike, select, option").length > 0) continue;
    if (node.parents().toArray().some((parent) => OTHER_PRODUCTS.test(`${parent.attribs["class"] ?? ""} ${parent.attribs["id"] ?? ""}`))) continue;
    // Without old prices inside first; then the whole text (some themes name the current price `price-old-live`).
    const texts = [currentPriceText(node[0]!), node.text().slice(0, PRODUCT_LIMITS.maxPriceText + 1)];
    for (const child of node.children().slice(0, 5).toArray()) {
      if (!STRUCK.has(child.name) && !NOT_CURRENT.test(`${child.attribs["class"] ?? ""} ${child.attribs["id"] ?? ""}`)) texts.push(currentPriceText(child));
    }
    for (const raw of texts) {
      const text = raw.replace(/\s+/g, " ").trim();
      if (text === "" || text.length > PRODUCT_LIMITS.maxPriceText) continue;
      const parsed = priceOfText(text, locale);
      if (parsed !== null) return parsed;
    }
  }
  return null;
}

/**
 * The price a short text states, or null: the text must be the price, not a sentence that
 * mentions one; a price needs a currency and an amount above 0 (a 0 next to a price class is an
 * empty cart's total or a placeholder); and `$1.299` on a page that does not say which dollar
 * (1.299 or 1299?) is unknown rather than a guess.
 */
function priceOfText(text: string, locale: string | undefined): ReturnType<typeof parsePrice> {
  if (text.replace(/[\d.,'’\s\u00a0\u202f€£$¥₹₽₩₺₪₴₸₫฿₱–-]/g, "").length > 12) return null;
  const parsed = parsePrice(text, { locale });
  if (parsed === null || parsed.currency === null || parsed.amount <= 0) return null;
  if (/(?:^|[^\d.,])\d{1,3}[.,]\d{3}(?![\d.,])/.test(text) && findCurrency(text, locale)?.marker === "$" && !hasRegion(locale)) return null;
  return parsed;
}

/** An element's tag and class list, the mark of a repeated box in a list. */
function classKey(element: Element): string {
  const classes = (element.attribs["class"] ?? "").trim();
  return classes === "" ? "" : `${element.name}.${classes.split(/\s+/).sort().join(".")}`;
}

/**
 * Price classes of a list of products: a class (with its tag) carried by three or more price
 * elements that show at least two different prices. A page listing other products (a shop's
 * offers, "more deals") repeats its price box once per product; the first of them is another
 * product's price, so none of them is read.
 */
function listedClasses($: CheerioAPI, candidates: Element[], locale: string | undefined): Set<string> {
  const amounts = new Map<string, Set<number>>();
  const counts = new Map<string, number>();
  for (const element of candidates) {
    const key = classKey(element);
    if (key === "") continue;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const text = currentPriceText(element).replace(/\s+/g, " ").trim();
    if (text === "" || text.length > 40) continue;
    const parsed = parsePrice(text, { locale });
    if (parsed === null) continue;
    let set = amounts.get(key);
    if (set === undefined) amounts.set(key, (set = new Set()));
    set.add(parsed.amount);
  }
  const listed = new Set<string>();
  for (const [key, count] of counts) if (count >= 3 && (amounts.get(key)?.size ?? 0) >= 2) listed.add(key);
  return listed;
}

/**
 * An element's text without struck-through or old prices inside it (`<s>`, `<del>`, an
 * `old-price` span), read depth-first and cut past maxPriceText + 1 characters.
 */
function currentPriceText(element: Element): string {
  let text = "";
  const stack: AnyNode[] = [element];
  while (stack.length > 0 && text.length <= PRODUCT_LIMITS.maxPriceText) {
    const node = stack.pop()!;
    if (node.type === "text") {
      text += node.data;
      continue;
    }
    if (node.type !== "tag") continue;
    if (node !== element && (STRUCK.has(node.name) || NOT_CURRENT.test(`${node.attribs["class"] ?? ""} ${node.attribs["id"] ?? ""}`))) continue;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return text;
}

const STRUCK = new Set(["s", "del", "strike", "script", "style"]);

/** Containers of other products' prices: recommendations, carousels, related items. */
const OTHER_PRODUCTS = /recommend|related|carousel|similar|upsell|cross-?sell|also-?(?:bought|viewed|like)|sponsored|swiper|slick|p13n|recently/i;

function hasRegion(locale: string | undefined): boolean {
  return locale !== undefined && /^[a-z]{2,3}[-_][a-z]{2}\b/i.test(locale);
}

const HIDDEN_TEXT = new Set(["script", "style", "noscript", "template", "select", "option", "head", "nav"]);

/** Elements that hold a page's content: a `footer` inside one is the content's (a product card's buy button), not the page's. */
const CONTENT = new Set(["main", "article"]);

/** Landmark roles of a page's chrome (menus, footers), whose words are not about the product. */
const CHROME_ROLES = new Set(["navigation", "menu", "menubar", "contentinfo"]);

/** Class or id tokens of menus and footers: `nav`, `main-menu`, `submenu`, `navbar`, `site-footer`. */
const CHROME_TOKEN = /^(?:(?:main|site|top|mega|sub|primary|global)[-_]?)?(?:nav|navigation|navbar|menu)$|^(?:site[-_]?|page[-_]?|global[-_]?)?footer$/i;

/** Class tokens that hide an element (`hidden`, Bootstrap's `d-none`); screen-reader text (`visually-hidden`, `sr-only`) is not hidden. */
const HIDDEN_CLASS = /^(?:hidden|hide|d-none|is-hidden|u-hidden|js-hidden)$/i;

/**
 * Whether an element's text is left out of the stock-phrase search: hidden (the `hidden`
 * attribute, an inline `display: none` or `visibility: hidden`, a hiding class), a disabled
 * button, the page's menus and footer (a `footer` outside `main` and `article`), or another
 * product's box (recommendations, carousels).
 * A message that a page renders hidden ("this product is sold out", shown by a script when a
 * size runs out) says nothing about the product as the page shows it.
 */
function leftOut(element: Element, inContent: boolean): boolean {
  const attribs = element.attribs;
  if (HIDDEN_TEXT.has(element.name)) return true;
  if (element.name === "footer" && !inContent) return true;
  if (attribs["hidden"] !== undefined) return true;
  if (element.name === "button" && attribs["disabled"] !== undefined) return true;
  const style = attribs["style"];
  if (style !== undefined && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b/i.test(style)) return true;
  const role = attribs["role"];
  if (role !== undefined && CHROME_ROLES.has(role.trim().toLowerCase())) return true;
  const classes = (attribs["class"] ?? "").split(/\s+/).filter((token) => token !== "");
  // Tailwind's `hidden md:block` shows the element on wider screens: hidden only without such a token.
  if (classes.some((token) => HIDDEN_CLASS.test(token)) && !classes.some((token) => /^[a-z0-9-]+:(?:block|flex|inline|inline-block|inline-flex|grid|table|contents)$/i.test(token))) return true;
  const id = attribs["id"] ?? "";
  if (CHROME_TOKEN.test(id) || classes.some((token) => CHROME_TOKEN.test(token))) return true;
  return OTHER_PRODUCTS.test(`${attribs["class"] ?? ""} ${id}`);
}

/** Words a page puts in attributes of its buttons: a submit button's `value`, an image button's `alt` or `title`. */
function buttonWords(element: Element): string | undefined {
  const attribs = element.attribs;
  const type = (attribs["type"] ?? "").toLowerCase();
  if (element.name === "input") {
    if (attribs["disabled"] !== undefined) return undefined;
    if (type === "submit" || type === "button") return attribs["value"];
    if (type === "image") return attribs["alt"] ?? attribs["title"];
    return undefined;
  }
  // An image used as a buy button: its id or class says so (`addToCartButton`, `buy-now`).
  if (element.name === "img" && /cart|basket|buy/i.test(`${attribs["id"] ?? ""} ${attribs["class"] ?? ""}`)) return attribs["alt"] ?? attribs["title"];
  return undefined;
}

function visibleAvailability($: CheerioAPI): Availability | null {
  // A sentence about pre-orders ("we charge the lowest price during the pre-order period") is not
  // a pre-order button or label: in a text longer than a label, a bare "pre-order" does not count.
  const parts = visibleParts($).map((part) => (part.length > LABEL_LENGTH ? part.replace(/\bpre-?order(?!\s+now)/gi, " ") : part));
  const availability = availabilityFromText(parts.join(" "));
  return availability === "unknown" ? null : availability;
}

/** Longest text read as a label or a button's words rather than a sentence. */
const LABEL_LENGTH = 60;

/**
 * The page's text as a shopper sees it, in document order, up to MAX_AVAILABILITY_TEXT
 * characters: outside scripts, styles, templates and pickers, hidden elements, menus, footers and
 * other products' boxes (see leftOut), with the words of its buttons (see buttonWords).
 */
function visibleText($: CheerioAPI): string {
  return visibleParts($).join(" ");
}

/** The text nodes (and button words) of visibleText, in document order. */
function visibleParts($: CheerioAPI): string[] {
  const parts: string[] = [];
  let length = 0;
  // Each node with whether it sits inside the page's content (`main`, `article`).
  const stack: Array<[AnyNode, boolean]> = [[$.root()[0]!, false]];
  while (stack.length > 0 && length < MAX_AVAILABILITY_TEXT) {
    const [node, outer] = stack.pop()!;
    if (node.type === "text") {
      parts.push(node.data);
      length += node.data.length + 1;
      continue;
    }
    if (node.type !== "tag" && node.type !== "root") continue;
    let inContent = outer;
    if (node.type === "tag") {
      if (leftOut(node, outer)) continue;
      inContent ||= CONTENT.has(node.name);
      const words = buttonWords(node);
      if (words !== undefined) {
        const text = words.slice(0, PRODUCT_LIMITS.maxPriceText);
        parts.push(text);
        length += text.length + 1;
      }
    }
    const children = (node as ParentNode).children;
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!, inContent]);
  }
  return parts;
}

/**
 * Words that label the current price, alone or with a qualifier of the current price: `Price:`,
 * `Our price:`, `Preis:`, `Prix :`, `Precio:`, `Cena:`, `Цена:`. A list, old or recommended price
 * (`List price:`, `Was:`, `UVP:`, `RRP:`) is not one of them.
 */
const PRICE_LABEL =
  /^(?:(?:our|sale|your|current)\s+)?(?:price|preis|unser\s+preis|prix|notre\s+prix|precio|prezzo|preço|preco|prijs|cena|pris|hinta|ár|fiyat|цена|ціна|kaina|cijena|preț|pret)(?:\s+now)?\s*:\s*(.*)$/i;

/**
 * A price written as visible text after a label (`Price: $6.99`, `<span>Preis:</span> <span>12,99 €</span>`)
 * on a page whose price has no price class. The label and the price are on one line of a text
 * node, or the price is the next text. The price must carry a currency and be the whole rest of
 * the line, as visiblePrice asks.
 */
function labelledPrice($: CheerioAPI, locale: string | undefined): Price | null {
  const segments: string[] = [];
  for (const part of visibleParts($)) {
    for (const line of part.split(/\n/)) {
      const trimmed = line.replace(/\s+/g, " ").trim();
      if (trimmed !== "") segments.push(trimmed);
    }
    if (segments.length > PRODUCT_LIMITS.maxCandidates * 10) break;
  }
  for (let i = 0; i < segments.length; i++) {
    const label = PRICE_LABEL.exec(segments[i]!);
    if (label === null) continue;
    const text = label[1] !== "" ? label[1]! : (segments[i + 1] ?? "");
    if (text === "" || text.length > 40) continue;
    const parsed = priceOfText(text, locale);
    if (parsed !== null) return parsed;
  }
  return null;
}

/** Parses a bare number in a page's locale (for `extract: "number"`). */
export function numberFromText(text: string): number | null {
  const negative = /^\s*[-−–]\s*\d/.test(text);
  const amount = parseAmount(text);
  return amount === null ? null : negative ? -amount : amount;
}
