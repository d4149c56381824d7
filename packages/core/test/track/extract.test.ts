import { describe, expect, it } from "vitest";
import { extractTrackedValues, isDriftwatchError, validateTrack } from "../../src/index.js";

const PRODUCT = [
  { name: "price", extract: "price" },
  { name: "stock", extract: "availability" },
] as const;

function product(html: string): { price: unknown; stock: unknown } {
  const readings = extractTrackedValues("website", html, PRODUCT);
  return {
    price: readings["price"]!.status === "ok" ? readings["price"]!.value : readings["price"],
    stock: readings["stock"]!.status === "ok" ? readings["stock"]!.value : readings["stock"],
  };
}

function jsonLd(data: unknown): string {
  return `<html><head><script type="application/ld+json">${JSON.stringify(data)}</script></head><body><h1>Thing</h1></body></html>`;
}

describe("product price and availability from structured data", () => {
  it("reads a JSON-LD Product with one Offer", () => {
    const html = jsonLd({ "@context": "https://schema.org", "@type": "Product", name: "A", offers: { "@type": "Offer", price: "1299.00", priceCurrency: "EUR", availability: "https://schema.org/InStock" } });
    expect(product(html)).toEqual({ price: { amount: 1299, currency: "EUR" }, stock: "in_stock" });
  });

  it("reads Products inside @graph and arrays, offers as arrays and AggregateOffer", () => {
    const graph = jsonLd({
      "@context": "https://schema.org",
      "@graph": [{ "@type": "WebPage", name: "x" }, { "@type": ["Product"], offers: [{ "@type": "Offer", price: 19.5, priceCurrency: "CHF", availability: "OutOfStock" }] }],
    });
    expect(product(graph)).toEqual({ price: { amount: 19.5, currency: "CHF" }, stock: "out_of_stock" });
    const aggregate = jsonLd([{ "@type": "BreadcrumbList" }, { "@type": "Product", offers: { "@type": "AggregateOffer", lowPrice: "9.99", highPrice: "19.99", priceCurrency: "GBP" } }]);
    expect(product(aggregate).price).toEqual({ amount: 9.99, currency: "GBP" });
    const preorder = jsonLd({ "@type": "Product", offers: [{ "@type": "Offer", price: 5, priceCurrency: "USD", availability: "http://schema.org/PreOrder" }] });
    expect(product(preorder).stock).toBe("preorder");
  });

  it("says in stock when any offer is, and reads priceSpecification", () => {
    const html = jsonLd({
      "@type": "Product",
      offers: [
        { "@type": "Offer", availability: "https://schema.org/OutOfStock", priceSpecification: { price: "49", priceCurrency: "EUR" } },
        { "@type": "Offer", availability: "https://schema.org/InStock" },
      ],
    });
    expect(product(html)).toEqual({ price: { amount: 49, currency: "EUR" }, stock: "in_stock" });
  });

  it("survives JSON-LD with raw newlines, an HTML comment wrapper, or garbage", () => {
    const html = `<script type="application/ld+json"><!--{"@type":"Product","description":"two\nlines","offers":{"price":"10","priceCurrency":"EUR"}}--></script>
      <script type="application/ld+json">{not json</script>`;
    expect(product(html).price).toEqual({ amount: 10, currency: "EUR" });
  });

  it("reads schema.org microdata (case-insensitive itemprop) and RDFa", () => {
    const microdata = `<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">A</span>
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price" content="1299.00">1.299,00 €</span>
      <meta itemprop="pricecurrency" content="EUR"><link itemprop="availability" href="https://schema.org/InStock"></div></div>`;
    expect(product(microdata)).toEqual({ price: { amount: 1299, currency: "EUR" }, stock: "in_stock" });
    const rdfa = `<div vocab="http://schema.org/" typeof="Product"><div property="offers" typeof="Offer">
      <span property="priceCurrency" content="IDR">Rp.</span><span property="price" content="15000000">15.000.000,00</span>
      <link property="availability" href="http://schema.org/OutOfStock"></div></div>`;
    expect(product(rdfa)).toEqual({ price: { amount: 15000000, currency: "IDR" }, stock: "out_of_stock" });
  });

  it("prefers the product's own microdata to a related product's or a struck-through one", () => {
    const html = `<div class="related-products"><div itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="5"><meta itemprop="priceCurrency" content="EUR"></div></div>
      <p><s><span itemprop="price" content="129">129 €</span></s></p>
      <div itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="99.95"><meta itemprop="priceCurrency" content="EUR"></div>`;
    expect(product(html).price).toEqual({ amount: 99.95, currency: "EUR" });
  });

  it("reads Open Graph product tags", () => {
    const html = `<head><meta property="product:price:amount" content="23.50"><meta property="product:price:currency" content="PLN"><meta property="og:availability" content="oos"></head>`;
    expect(product(html)).toEqual({ price: { amount: 23.5, currency: "PLN" }, stock: "out_of_stock" });
  });

  it("takes Open Graph's sale price when the structured price is the one Open Graph calls regular", () => {
    const offer = (price: string): string =>
      `<script type="application/ld+json">${JSON.stringify({ "@type": "Product", offers: { "@type": "Offer", price, priceCurrency: "USD" } })}</script>`;
    const og = (regular: string, current: string, currency = "USD"): string =>
      `<meta content="${regular}" property="og:price:standard_amount"><meta content="${current}" property="product:price:amount"><meta content="${currency}" property="product:price:currency">`;
    expect(product(`<head>${offer("150.00")}${og("150.00", "120.00")}</head>`).price).toEqual({ amount: 120, currency: "USD" });
    // The structured price is not the regular one, the "sale" is not lower, or the currencies differ: the structured price stands.
    expect(product(`<head>${offer("130.00")}${og("150.00", "120.00")}</head>`).price).toEqual({ amount: 130, currency: "USD" });
    expect(product(`<head>${offer("150.00")}${og("150.00", "180.00")}</head>`).price).toEqual({ amount: 150, currency: "USD" });
    expect(product(`<head>${offer("150.00")}${og("150.00", "120.00", "EUR")}</head>`).price).toEqual({ amount: 150, currency: "USD" });
    expect(product(`<head>${offer("150.00")}<meta content="120.00" property="product:price:amount"></head>`).price).toEqual({ amount: 150, currency: "USD" });
  });

  it("reads no price from a list of products' price boxes", () => {
    const box = (old: string, now: string): string => `<figure><span class="item-price"><span class="item-price-old">${old}</span> <span class="item-price-new">${now} €</span></span></figure>`;
    const list = `${box("881,00", "169,00")}${box("4.599,00", "1.200,00")}${box("990,00", "540,00")}`;
    expect(product(`<html lang="hr"><body><div class="deal-price">Ask us</div>${list}</body></html>`).price).toEqual({ status: "missing", reason: expect.any(String) as string });
    // one product's price box, repeated with the same price (a sticky bar), is still read
    const same = `${box("881,00", "169,00")}${box("881,00", "169,00")}${box("881,00", "169,00")}`;
    expect(product(`<html lang="hr"><body>${same}</body></html>`).price).toEqual({ amount: 169, currency: "EUR" });
  });

  it("reads a labelled visible price on a page without price classes, and nothing else of the kind", () => {
    const html = (body: string): string => `<html lang="en-US"><body>${body}</body></html>`;
    expect(product(html("<div>The Catcher in the Rye\n4 stars\n\nPrice: $6.99\nIn Stock</div>")).price).toEqual({ amount: 6.99, currency: "USD" });
    expect(product(html("<p><span>Preis:</span> <span>12,99 €</span></p>")).price).toEqual({ amount: 12.99, currency: "EUR" });
    expect(product(html("<p>Our price: 1.299,00 €</p>")).price).toEqual({ amount: 1299, currency: "EUR" });
    // not the current price, no currency, not a price, a sentence, another product's box
    const none = { status: "missing", reason: expect.any(String) as string };
    expect(product(html("<p>List price: $10.00</p><p>Was: $12.00</p>")).price).toEqual(none);
    expect(product(html("<p>Price: 12</p>")).price).toEqual(none);
    expect(product(html("<p>Price: call us</p>")).price).toEqual(none);
    expect(product(html("<p>Price: members pay $10 less on every order above $50</p>")).price).toEqual(none);
    expect(product(html('<div class="related-products"><p>Price: $5.00</p></div>')).price).toEqual(none);
  });

  it("falls back to a visible price element and stock phrases, skipping old prices and other products", () => {
    const html = `<html lang="de-AT"><body><h1>Kaffeemaschine</h1>
      <div class="recommendations"><span class="price">€ 5,00</span></div>
      <div class="product-price"><span class="old-price">€ 129,00</span><span class="price-now">€ 99,95</span></div>
      <button>In den Warenkorb</button></body></html>`;
    expect(product(html)).toEqual({ price: { amount: 99.95, currency: "EUR" }, stock: "in_stock" });
    expect(product(`<body><p class="stock">Out of stock</p><p>Notify me when back in stock</p></body>`).stock).toBe("out_of_stock");
  });

  it("says unknown rather than guessing", () => {
    // No price anywhere: missing with a reason.
    const none = extractTrackedValues("website", "<p>Hello</p>", PRODUCT);
    expect(none["price"]).toEqual({ status: "missing", reason: expect.stringContaining("no price") });
    expect(none["stock"]).toMatchObject({ status: "ok", value: "unknown" });
    // Contradicting phrases: unknown.
    expect(product(`<body><span>Size S: sold out</span><button>Add to cart</button></body>`).stock).toBe("unknown");
    // "$1.299" on a page that does not say which dollar: a thousands or a decimal separator? Not guessed.
    expect(product(`<body><span class="price">$1.299</span></body>`).price).toMatchObject({ status: "missing" });
    // A sentence that mentions a price is not a price element.
    expect(product(`<body><div class="price-info">Free delivery on orders over £50 in most of the United Kingdom</div></body>`).price).toMatchObject({ status: "missing" });
  });

  it("reads stock phrases as a shopper sees the page: not hidden messages, menus, footers, disabled buttons or other products", () => {
    // A sold-out message the page renders hidden (a script shows it when a size runs out).
    const hidden = `<body><h1>Montre</h1><p style="display:none">Ce produit est épuisé</p><p hidden>Sold out</p><p class="d-none">Out of stock</p><p>En stock</p></body>`;
    expect(product(hidden).stock).toBe("in_stock");
    // Tailwind's "hidden md:block" is shown on wider screens.
    expect(product(`<body><h1>Lamp</h1><p class="hidden md:block">Sold out</p><p>In stock</p></body>`).stock).toBe("unknown");
    // A menu's "Pre-order" category and a footer's "sold out" link say nothing about this product.
    const chrome = `<body><div id="navigation"><a>Pre-order</a></div><nav><a>Sold out</a></nav><ul role="menu"><li>Out of stock deals</li></ul>
      <h1>Puzzle</h1><button>Aggiungi al carrello</button><footer>Articoli esauriti</footer></body>`;
    expect(product(chrome).stock).toBe("in_stock");
    // A footer inside the content is the content's: a product card's buy button.
    expect(product(`<body><main><article><h1>Lamp</h1><footer><button>Add to cart</button></footer></article></main><footer>Sold out? Ask us</footer></body>`).stock).toBe("in_stock");
    // A disabled buy button is no buy button; another product's "sold out" badge is another product's.
    expect(product(`<body><h1>Kettle</h1><button disabled>Add to cart</button></body>`).stock).toBe("unknown");
    expect(product(`<body><h1>Kettle</h1><button>Add to cart</button><div class="related-products"><span>Sold out</span></div></body>`).stock).toBe("in_stock");
    // Buy buttons whose words are attributes: a submit input's value, an image button's alt.
    expect(product(`<body><form><input type="submit" value="Add to Basket"></form></body>`).stock).toBe("in_stock");
    expect(product(`<body><img id="addToCartButton" alt="Add to Cart" src="b.png"></body>`).stock).toBe("in_stock");
    // An image that is not a button says nothing.
    expect(product(`<body><img alt="Add to cart" src="banner.png"></body>`).stock).toBe("unknown");
  });

  it("reads a pre-order button or label, not a sentence about pre-orders", () => {
    const sentence = "<p>We will charge your default payment method for the lowest price available during the pre-order period.</p>";
    expect(product(`<body><button>Buy now</button>${sentence}</body>`).stock).toBe("in_stock");
    expect(product(`<body><button>Pre-order</button></body>`).stock).toBe("preorder");
    expect(product(`<body><p>Pre-order now: ships in March</p></body>`).stock).toBe("preorder");
    expect(product(`<body><button>Add to cart</button><span>Pre-order</span></body>`).stock).toBe("unknown");
  });

  it("knows stock phrases in more languages, with their negations", () => {
    expect(product(`<body><h1>Notebook</h1><span>Skladom</span><button>Do košíka</button></body>`).stock).toBe("in_stock");
    expect(product(`<body><h1>Notebook</h1><span>Tovar nie je skladom</span></body>`).stock).toBe("out_of_stock");
    expect(product(`<body><h1>Uložak</h1><span>Nema na stanju</span></body>`).stock).toBe("out_of_stock");
    expect(product(`<body><h1>Uložak</h1><span>Na stanju</span><button>Dodaj u košaricu</button></body>`).stock).toBe("in_stock");
    expect(product(`<body><h1>Očala</h1><span>Ni na zalogi</span></body>`).stock).toBe("out_of_stock");
    expect(product(`<body><h1>Kamera</h1><span>Nincs raktáron</span></body>`).stock).toBe("out_of_stock");
    expect(product(`<body><h1>牛排</h1><button>加入購物車</button></body>`).stock).toBe("in_stock");
    expect(product(`<body><h1>牛排</h1><span>已售完</span></body>`).stock).toBe("out_of_stock");
    expect(product(`<body><h1>Kurtka</h1><span>Ikke på lager</span></body>`).stock).toBe("out_of_stock");
    // "nu" is Dutch for "now": "nu op voorraad" is in stock, not negated.
    expect(product(`<body><h1>Fiets</h1><span>Nu op voorraad</span></body>`).stock).toBe("in_stock");
    // A Romanian "nu este în stoc" holds the in-stock "în stoc": phrases of two kinds, unknown rather than a guess.
    expect(product(`<body><h1>Bicicletă</h1><span>Produsul nu este în stoc</span></body>`).stock).toBe("unknown");
  });

  it("never reads a price of 0: a placeholder or an empty cart's total is no price", () => {
    const zero = jsonLd({ "@type": "Product", name: "Phone", offers: { "@type": "Offer", price: "0", priceCurrency: "ILS", availability: "InStock" } });
    expect(product(zero).price).toMatchObject({ status: "missing" });
    expect(product(jsonLd({ "@type": "Product", offers: { "@type": "Offer", price: 0.0, priceCurrency: "EUR" } })).price).toMatchObject({ status: "missing" });
    // The structured price is 0, the page shows the real one: the next source has it.
    const fallback = `<html><head><meta property="product:price:amount" content="0.00"><meta property="product:price:currency" content="EUR"></head>
      <body><h1>Lamp</h1><span itemprop="price" content="0">0,00 €</span><div class="product-price">49,90 €</div></body></html>`;
    expect(product(fallback).price).toEqual({ amount: 49.9, currency: "EUR" });
    // The header's cart total comes first and is 0.
    expect(product(`<body><div class="cart-price">0,00 €</div><h1>Lamp</h1><div class="price">49,90 €</div></body>`).price).toEqual({ amount: 49.9, currency: "EUR" });
  });

  it("stays bounded on hostile pages", () => {
    const deep = `${"<div>".repeat(5000)}x${"</div>".repeat(5000)}`;
    const readings = extractTrackedValues("website", deep, PRODUCT);
    expect(readings["price"]).toMatchObject({ status: "missing" });
    const many = `<body>${'<span class="price">x</span>'.repeat(20_000)}</body>`;
    expect(product(many).price).toMatchObject({ status: "missing" });
    const bigScript = `<script type="application/ld+json">${"[".repeat(100_000)}</script>`;
    expect(product(bigScript).price).toMatchObject({ status: "missing" });
    // Deeply nested arrays and offers in JSON-LD: bounded walks, no stack overflow.
    const deepArrays = `<script type="application/ld+json">{"@type":"Product","offers":{"price":${"[".repeat(50_000)}1${"]".repeat(50_000)},"priceCurrency":"EUR"}}</script>`;
    expect(product(deepArrays).price).toMatchObject({ status: "missing" });
    const deepOffers = `<script type="application/ld+json">{"@type":"Product","offers":${'{"@type":"AggregateOffer","offers":'.repeat(20_000)}{}${"}".repeat(20_000)}}</script>`;
    expect(product(deepOffers).price).toMatchObject({ status: "missing" });
    const nested = jsonLd(JSON.parse(`${'{"a":'.repeat(2000)}{"@type":"Product","offers":{"price":1,"priceCurrency":"EUR"}}${"}".repeat(2000)}`));
    expect(product(nested).price).toEqual({ amount: 1, currency: "EUR" });
  });
});

describe("tracked values by selector and by JSONPath", () => {
  const page = `<html><body><h1 id="t">Status: all good</h1><span class="n">1.234,5</span><a class="l" href="/next">next</a>
    <span class="p">CHF 12.–</span><span class="s">Sold out</span></body></html>`;

  it("reads text, number, attribute, price and availability with a selector", () => {
    const readings = extractTrackedValues("website", page, [
      { name: "title", selector: "#t" },
      { name: "n", selector: ".n", extract: "number" },
      { name: "link", selector: ".l", extract: "attribute", attribute: "href" },
      { name: "p", selector: ".p", extract: "price" },
      { name: "s", selector: ".s", extract: "availability" },
      { name: "gone", selector: ".nothing" },
      { name: "noattr", selector: ".l", extract: "attribute", attribute: "title" },
      { name: "nan", selector: "#t", extract: "number" },
    ]);
    expect(readings["title"]).toEqual({ status: "ok", value: "Status: all good", source: "selector" });
    expect(readings["n"]).toMatchObject({ value: 1234.5 });
    expect(readings["link"]).toMatchObject({ value: "/next" });
    expect(readings["p"]).toMatchObject({ value: { amount: 12, currency: "CHF" } });
    expect(readings["s"]).toMatchObject({ value: "out_of_stock" });
    expect(readings["gone"]).toEqual({ status: "missing", reason: ".nothing matches nothing on this page" });
    expect(readings["noattr"]).toMatchObject({ status: "missing", reason: expect.stringContaining("no title attribute") });
    expect(readings["nan"]).toMatchObject({ status: "missing" });
  });

  it("reads JSON values with RFC 9535 paths, filters included", () => {
    const body = JSON.stringify({
      status: "operational",
      errors: 3,
      total: 150,
      price: { amount: "189.00", currency: "eur" },
      items: [{ sku: "B2", stock: 0 }, { sku: "A1", stock: 7 }],
      flag: true,
      nothing: null,
    });
    const readings = extractTrackedValues("api", body, [
      { name: "status", path: "$.status" },
      { name: "errors", path: "$.errors", extract: "number" },
      { name: "stock", path: "$.items[?@.sku=='A1'].stock" },
      { name: "inStock", path: "$.items[?@.sku=='B2'].stock", extract: "availability" },
      { name: "price", path: "$.price", extract: "price" },
      { name: "flag", path: "$.flag" },
      { name: "null", path: "$.nothing" },
      { name: "obj", path: "$.items" },
      { name: "absent", path: "$.nope" },
      { name: "statusNumber", path: "$.status", extract: "number" },
    ]);
    expect(readings["status"]).toEqual({ status: "ok", value: "operational", source: "path" });
    expect(readings["errors"]).toMatchObject({ value: 3 });
    expect(readings["stock"]).toMatchObject({ value: 7 });
    expect(readings["inStock"]).toMatchObject({ value: "out_of_stock" });
    expect(readings["price"]).toMatchObject({ value: { amount: 189, currency: "EUR" } });
    expect(readings["flag"]).toMatchObject({ value: true });
    expect(readings["null"]).toMatchObject({ status: "missing", reason: expect.stringContaining("null") });
    expect(readings["obj"]).toMatchObject({ status: "missing", reason: expect.stringContaining("an array") });
    expect(readings["absent"]).toMatchObject({ status: "missing", reason: "$.nope selects nothing in this document" });
    expect(readings["statusNumber"]).toMatchObject({ status: "missing", reason: expect.stringContaining("not a number") });
  });

  it("gives every value missing when the body is not JSON", () => {
    expect(extractTrackedValues("api", "<html>", [{ name: "a", path: "$.a" }])).toEqual({ a: { status: "missing", reason: "the body is not JSON" } });
  });
});

describe("validateTrack", () => {
  function problems(kind: "api" | "website", track: unknown): string[] {
    try {
      validateTrack(kind, track);
      return [];
    } catch (error) {
      if (!isDriftwatchError(error)) throw error;
      expect(error.code).toBe("invalid_track");
      return error.details.map((detail) => detail.path);
    }
  }

  it("accepts good specs", () => {
    expect(problems("api", [{ name: "price", path: "$.price", extract: "price" }])).toEqual([]);
    expect(problems("website", [{ name: "price", extract: "price" }, { name: "h", selector: "h1" }])).toEqual([]);
  });

  it("names the place of each problem", () => {
    expect(problems("api", [{ name: "a", selector: "h1" }])).toEqual(["track[0].selector", "track[0].path"]);
    expect(problems("api", [{ name: "a", path: "$[" }])).toEqual(["track[0].path"]);
    expect(problems("website", [{ name: "a", path: "$.a" }])).toEqual(["track[0].path", "track[0].selector"]);
    expect(problems("website", [{ name: "a", selector: "h1[" }])).toEqual(["track[0].selector"]);
    expect(problems("website", [{ name: "a", selector: "a", extract: "attribute" }])).toEqual(["track[0].attribute"]);
    expect(problems("website", [{ name: "a", extract: "price" }, { name: "a", extract: "availability" }])).toEqual(["track[1].name"]);
    expect(problems("website", [{ name: "text", extract: "price" }])).toEqual(["track[0].name"]);
    expect(problems("website", [{ name: "a", extract: "price", bogus: 1 }])).toEqual(["track[0]"]);
    expect(problems("website", "nope")).toEqual(["track"]);
  });
});
