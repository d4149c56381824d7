// Small deterministic helpers shared by the world corpus builders.
import { type Rng, rngOf } from "./corpus.js";

export { type Rng, rngOf };

/** FNV-1a, 32 bits. */
export function fnv1a(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

export const rngFor = (name: string): Rng => rngOf(fnv1a(name));

export const between = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));

export function choose<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

export function shuffle<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

const ALPHABETS = {
  hex: "0123456789abcdef",
  HEX: "0123456789ABCDEF",
  digits: "0123456789",
  base62: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
  base64: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
  base64url: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
  lower36: "abcdefghijklmnopqrstuvwxyz0123456789",
};

/** The smallest alphabet above that holds every character of `sample` (base62 when none does). */
function alphabetOf(sample: string): string {
  for (const alphabet of Object.values(ALPHABETS)) if ([...sample].every((c) => alphabet.includes(c))) return alphabet;
  return ALPHABETS.base62;
}

/**
 * A fresh token shaped like `like`: the same length, the same alphabet, the same separators and
 * prefix (`req_`, `evt_`, a UUID's dashes and version digit) kept in place.
 */
export function tokenLike(rng: Rng, like: string): string {
  const prefix = /^[A-Za-z]{2,8}_/.exec(like)?.[0] ?? "";
  const body = like.slice(prefix.length);
  const alphabet = alphabetOf(body.replace(/[-.=:]/g, ""));
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if ("-.=:".includes(c) || (i === 14 && /^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(body))) out += c;
    else out += alphabet[Math.floor(rng() * alphabet.length)];
  }
  return prefix + out;
}

/** A random token of an alphabet: `base62`, `hex`... */
export function token(rng: Rng, alphabet: keyof typeof ALPHABETS, length: number): string {
  const chars = ALPHABETS[alphabet];
  let out = "";
  for (let i = 0; i < length; i++) out += chars[Math.floor(rng() * chars.length)];
  return out;
}

export function uuidOf(rng: Rng): string {
  const h = token(rng, "hex", 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${"89ab"[Math.floor(rng() * 4)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
