import type { Availability } from "@driftwatch/schema";

/**
 * schema.org ItemAvailability values (full URL, `schema:` prefix or bare) and the Open Graph
 * `product:availability` words, mapped to the four availabilities driftwatch records.
 * `BackOrder` counts as out of stock (the item cannot be had now), as restock monitors expect.
 */
const CODES: Record<string, Availability> = {
  instock: "in_stock",
  instoreonly: "in_stock",
  onlineonly: "in_stock",
  limitedavailability: "in_stock",
  available: "in_stock",
  availablefororder: "in_stock",
  outofstock: "out_of_stock",
  oos: "out_of_stock",
  soldout: "out_of_stock",
  discontinued: "out_of_stock",
  backorder: "out_of_stock",
  unavailable: "out_of_stock",
  notavailable: "out_of_stock",
  preorder: "preorder",
  presale: "preorder",
  pending: "preorder",
};

/** Maps a structured availability value (`https://schema.org/InStock`, `instock`, `in stock`, `oos`) to an availability, or `unknown`. */
export function availabilityFromCode(value: unknown): Availability {
  if (typeof value === "boolean") return value ? "in_stock" : "out_of_stock";
  if (typeof value !== "string" || value.length > 200) return "unknown";
  const last = value.trim().split(/[/:#]/).pop() ?? "";
  const key = last.toLowerCase().replace(/[\s_-]+/g, "");
  if (key === "in_stock" || key === "out_of_stock") return key;
  return CODES[key] ?? "unknown";
}

/**
 * Visible phrases, lower case. Out-of-stock and pre-order phrases are specific; the in-stock
 * ones are a shop's own words for it or its buy button. A page showing phrases of two kinds is
 * `unknown` (a size picker saying "out of stock" next to an "add to cart" button is common).
 */
const OUT_OF_STOCK = [
  "out of stock",
  "sold out",
  "currently unavailable",
  "no longer available",
  "temporarily unavailable",
  "not available for purchase",
  "ausverkauft",
  "nicht auf lager",
  "derzeit nicht verfügbar",
  "zurzeit nicht verfügbar",
  "momentan nicht verfügbar",
  "rupture de stock",
  "épuisé",
  "actuellement indisponible",
  "esaurito",
  "attualmente non disponibile",
  "agotado",
  "sin stock",
  "esgotado",
  "produto indisponível",
  "non disponibile al momento",
  "nicht lieferbar",
  "produkt niedostępny",
  "producto no disponible",
  "niet op voorraad",
  "uitverkocht",
  "brak w magazynie",
  "wyprzedane",
  "slutsåld",
  "udsolgt",
  "utsolgt",
  "loppuunmyyty",
  "品切れ",
  "在庫切れ",
  "売り切れ",
  "缺货",
  "售完",
  "нет в наличии",
  "품절",
  "vypredané",
  "nie je skladom",
  "vyprodáno",
  "není skladem",
  "ni na zalogi",
  "razprodano",
  "nema na stanju",
  "rasprodano",
  "stoc epuizat",
  "nu este în stoc",
  "indisponibil",
  "nincs raktáron",
  "elfogyott",
  "tükendi",
  "stokta yok",
  "loppunut varastosta",
  "ei varastossa",
  "ikke på lager",
  "tillfälligt slut",
  "ej i lager",
  "fora de estoque",
  "produto esgotado",
  "немає в наявності",
  "išparduota",
  "nėra sandėlyje",
  "izpārdots",
  "nav noliktavā",
  "缺貨",
  "已售完",
  "補貨中",
  "在庫なし",
  "אזל מהמלאי",
  "نفذت الكمية",
  "غير متوفر حاليا",
];
const PREORDER = ["pre-order now", "preorder now", "pre-order", "available for pre-order", "vorbestellen", "précommander", "précommande", "preordina", "reserva ya", "prenotazione"];
const IN_STOCK = [
  "in stock",
  "add to cart",
  "add to basket",
  "add to bag",
  "add to trolley",
  "buy now",
  "auf lager",
  "in den warenkorb",
  "sofort lieferbar",
  "sofort verfügbar",
  "en stock",
  "ajouter au panier",
  "aggiungi al carrello",
  "subito disponibile",
  "disponibilità immediata",
  "añadir al carrito",
  "añadir a la cesta",
  "agregar al carrito",
  "em estoque",
  "adicionar ao carrinho",
  "op voorraad",
  "in winkelwagen",
  "dodaj do koszyka",
  "lägg i varukorgen",
  "læg i kurv",
  "в наличии",
  "в корзину",
  "カートに入れる",
  "在庫あり",
  "加入购物车",
  "장바구니",
  "do košíka",
  "pridať do košíka",
  "vložiť do košíka",
  "skladom",
  "na sklade",
  "do košíku",
  "přidat do košíku",
  "vložit do košíku",
  "skladem",
  "na skladě",
  "v košarico",
  "dodaj v košarico",
  "na zalogi",
  "u košaricu",
  "dodaj u košaricu",
  "na stanju",
  "adaugă în coș",
  "adauga in cos",
  "în stoc",
  "kosárba",
  "raktáron",
  "készleten",
  "sepete ekle",
  "lisää ostoskoriin",
  "varastossa",
  "på lager",
  "lägg i kundvagnen",
  "legg i handlekurven",
  "in den einkaufswagen",
  "jetzt kaufen",
  "acheter maintenant",
  "acquista ora",
  "comprar ahora",
  "añadir a la bolsa",
  "comprar agora",
  "adicionar à sacola",
  "в наявності",
  "в кошик",
  "į krepšelį",
  "pievienot grozam",
  "ielikt grozā",
  "lisa ostukorvi",
  "加入購物車",
  "立即購買",
  "直接購買",
  "立即购买",
  "カートに追加",
  "구매하기",
  "바로구매",
  "הוסף לסל",
  "במלאי",
  "أضف إلى السلة",
];

/**
 * Words that turn an in-stock phrase around when they come right before it: "not in stock",
 * "nicht auf lager", "nie je skladom", and "back in stock" / "in stock again" as in "we don't know when it will be
 * back in stock" (a restock notice, which an in-stock page does not need).
 */
const NEGATION = /(?:^|\s)(?:not|nicht|non|no|kein|pas|back|again|ni|nie|není|nije|nema|nincs|ei|ej|ikke|inte|nėra|nav|не|немає|לא)(?:\s+je)?\s$/;

/** Longest text the phrase search reads. */
export const MAX_AVAILABILITY_TEXT = 300_000;

/** Classifies visible text by the phrases it holds; `unknown` when none or phrases of two kinds. */
export function availabilityFromText(text: string): Availability {
  const haystack = (text.length > MAX_AVAILABILITY_TEXT ? text.slice(0, MAX_AVAILABILITY_TEXT) : text).toLowerCase().replace(/\s+/g, " ");
  const has = (phrases: readonly string[]): boolean => phrases.some((phrase) => containsPhrase(haystack, phrase));
  const out = has(OUT_OF_STOCK);
  const pre = has(PREORDER);
  const inStock = IN_STOCK.some((phrase) => containsPhrase(haystack, phrase, NEGATION));
  const kinds = Number(out) + Number(pre) + Number(inStock);
  if (kinds !== 1) return "unknown";
  return out ? "out_of_stock" : pre ? "preorder" : "in_stock";
}

/** `phrase` in `haystack` not inside a longer word ("in stock" is not in "restocking"). */
function containsPhrase(haystack: string, phrase: string, negation?: RegExp): boolean {
  for (let at = haystack.indexOf(phrase); at !== -1; at = haystack.indexOf(phrase, at + 1)) {
    const before = haystack.charAt(at - 1);
    const after = haystack.charAt(at + phrase.length);
    if (/[\p{L}\p{N}]/u.test(before) || /[\p{L}\p{N}]/u.test(after)) continue;
    if (negation !== undefined && negation.test(haystack.slice(Math.max(0, at - 10), at))) continue;
    return true;
  }
  return false;
}
