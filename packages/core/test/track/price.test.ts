import { describe, expect, it } from "vitest";
import { parseAmount, parsePrice } from "../../src/index.js";

describe("parsePrice", () => {
  it.each([
    ["1.299,00 €", 1299, "EUR"],
    ["$1,299.00", 1299, "USD"],
    ["CHF 12.–", 12, "CHF"],
    ["CHF 12.-", 12, "CHF"],
    ["12,- €", 12, "EUR"],
    ["£9.99", 9.99, "GBP"],
    ["12,50 zł", 12.5, "PLN"],
    ["¥1,200", 1200, "JPY"],
    ["1 299,00 kr", 1299, null],
    ["1\u00a0299,00\u00a0€", 1299, "EUR"],
    ["1\u202f299,00 €", 1299, "EUR"],
    ["EUR 12.50", 12.5, "EUR"],
    ["12.50 USD", 12.5, "USD"],
    ["CHF 1'299.50", 1299.5, "CHF"],
    ["R$ 1.759,99", 1759.99, "BRL"],
    ["₹2,433", 2433, "INR"],
    ["Rs 23,450", 23450, "INR"],
    ["44 890 тг.", 44890, "KZT"],
    ["30,000원", 30000, "KRW"],
    ["₽ 249", 249, "RUB"],
    ["173,34 Lei", 173.34, "RON"],
    ["270,00 Kn", 270, "HRK"],
    ["1.299.000 ₫", 1299000, "VND"],
    ["$1,299,000.50", 1299000.5, "USD"],
    ["10,75 TL", 10.75, "TRY"],
    ["749,00 euro", 749, "EUR"],
  ])("%s is %d %s", (text, amount, currency) => {
    expect(parsePrice(text)).toEqual({ amount, currency });
  });

  it("reads a lone separator before three digits as thousands, except in currencies with three minor digits", () => {
    expect(parsePrice("1.299 €")).toEqual({ amount: 1299, currency: "EUR" });
    expect(parsePrice("$1.299")).toEqual({ amount: 1299, currency: "USD" });
    expect(parsePrice("1,299 €")).toEqual({ amount: 1299, currency: "EUR" });
    expect(parsePrice("$1,299")).toEqual({ amount: 1299, currency: "USD" });
    expect(parsePrice("¥1.200")).toEqual({ amount: 1200, currency: "JPY" });
    expect(parsePrice("1.899,-")).toEqual({ amount: 1899, currency: null });
    expect(parsePrice("423.923 KWD")).toEqual({ amount: 423.923, currency: "KWD" });
    expect(parsePrice("BHD 1,250")).toEqual({ amount: 1.25, currency: "BHD" });
    expect(parseAmount("1.299")).toBe(1299);
    expect(parseAmount("1,299")).toBe(1299);
    // Two or four digits after the mark are decimals.
    expect(parseAmount("12.99")).toBe(12.99);
    expect(parseAmount("34.9920")).toBe(34.992);
  });

  it("reads the number next to the currency in a longer text", () => {
    expect(parsePrice("3 Ausgaben für nur 14,85 EUR")).toEqual({ amount: 14.85, currency: "EUR" });
    expect(parsePrice("50 - $2.00 100 - $2.75")).toEqual({ amount: 2, currency: "USD" });
    expect(parsePrice("881,00 169,00 Kn")).toEqual({ amount: 169, currency: "HRK" });
    expect(parsePrice("1 299,00 kr")).toEqual({ amount: 1299, currency: null });
    expect(parsePrice("40% OFF")).toBeNull();
    expect(parsePrice("-20 % 79,99 €")).toEqual({ amount: 79.99, currency: "EUR" });
  });

  it("reads a price under 1 written without its leading 0", () => {
    expect(parsePrice(".75 €")).toEqual({ amount: 0.75, currency: "EUR" });
    expect(parsePrice("$.75")).toEqual({ amount: 0.75, currency: "USD" });
    expect(parsePrice("$..75")).toEqual({ amount: 0.75, currency: "USD" });
    // A mark after a digit is a separator as before; three digits after a bare mark are no price under 1.
    expect(parsePrice("12.75 €")).toEqual({ amount: 12.75, currency: "EUR" });
    expect(parsePrice(".750 €")).toEqual({ amount: 750, currency: "EUR" });
  });

  it("reads ambiguous symbols with the page's locale", () => {
    expect(parsePrice("$24.990", { locale: "es-CL" })).toEqual({ amount: 24990, currency: "CLP" });
    expect(parsePrice("$3.499", { locale: "es-AR" })).toEqual({ amount: 3499, currency: "ARS" });
    expect(parsePrice("$229.99", { locale: "en-CA" })).toEqual({ amount: 229.99, currency: "CAD" });
    expect(parsePrice("1 299,00 kr", { locale: "sv-SE" })).toEqual({ amount: 1299, currency: "SEK" });
    expect(parsePrice("499,- kr", { locale: "nb-NO" })).toEqual({ amount: 499, currency: "NOK" });
    expect(parsePrice("$10", { locale: "fr" })).toEqual({ amount: 10, currency: null });
  });

  it("lets a known currency settle a bare or $ price", () => {
    expect(parsePrice("3.499", { currency: "ARS" })).toEqual({ amount: 3499, currency: "ARS" });
    expect(parsePrice("$3.499", { currency: "ARS" })).toEqual({ amount: 3499, currency: "ARS" });
    expect(parsePrice("£5", { currency: "EUR" })).toEqual({ amount: 5, currency: "GBP" });
  });

  it("does not take a currency out of a word", () => {
    expect(parsePrice("12 krone")?.currency).toBeNull();
    expect(parsePrice("Rsvp 12")?.currency).toBeNull();
  });

  it("returns null without a number and for malformed groupings", () => {
    expect(parsePrice("free")).toBeNull();
    expect(parsePrice("")).toBeNull();
    expect(parsePrice("€")).toBeNull();
    expect(parseAmount("1.2.3")).toBeNull();
    expect(parsePrice(42 as unknown as string)).toBeNull();
  });

  it("stays fast on long hostile input (cut to a bounded length)", () => {
    const hostile = `${"1 ".repeat(200_000)}x`;
    expect(parseAmount(hostile)).toBe(1);
    expect(parsePrice(`${"9,".repeat(100_000)}€`)).toBeNull();
  });
});
