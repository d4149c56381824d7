export { availabilityFromCode, availabilityFromText, MAX_AVAILABILITY_TEXT } from "./availability.js";
export {
  extractTrackedValues,
  productFactsOfHtml,
  TRACK_LIMITS,
  validateTrack,
  type CompiledTrackEntry,
  type TrackedReading,
} from "./extract.js";
export { currencyForLocale, findCurrency, MAX_PRICE_TEXT, parseAmount, parsePrice, type ParsePriceOptions } from "./price.js";
export { PRODUCT_LIMITS, readProductFacts, type ProductFacts, type ProductFinding, type ProductSource } from "./structured.js";
