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
  ])("%s is %d %s", (text, amount, currency) => {
    expect(parsePrice(text)).toEqual({ amount, currency });
  });

  it("settles a lone separator before three digits by the currency", () => {
    expect(parsePrice("1.299 €")).toEqual({ amount: 1299, currency: "EUR" });
    expect(parsePrice("$1.299")).toEqual({ amount: 1.299, currency: "USD" });
    expect(parsePrice("1,299 €")).toEqual({ amount: 1.299, currency: "EUR" });
    expect(parsePrice("$1,299")).toEqual({ amount: 1299, currency: "USD" });
    expect(parsePrice("¥1.200")).toEqual({ amount: 1200, currency: "JPY" });
    // Without a currency the decimal point reading is used.
    expect(parseAmount("1.299")).toBe(1.299);
    expect(parseAmount("1,299")).toBe(1299);
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
