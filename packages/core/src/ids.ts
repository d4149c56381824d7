import { randomBytes } from "node:crypto";
import { ID_PREFIXES, type IdKind } from "@driftwatch/schema";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
let lastTime = 0;
let lastRandom: number[] = [];

/**
 * A new identifier `<prefix>_<26 chars>`: a ULID (48-bit millisecond time + 80 random bits,
 * Crockford base32), monotonic within one process, so ids sort by creation time. Stores page by id.
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  let random: number[];
  if (now <= lastTime && lastRandom.length === 16) {
    now = lastTime;
    random = lastRandom.slice();
    // increment the 80-bit random part (16 base32 digits) by one
    for (let i = 15; i >= 0; i--) {
      const digit = random[i]!;
      if (digit < 31) {
        random[i] = digit + 1;
        break;
      }
      random[i] = 0;
    }
  } else {
    const bytes = randomBytes(16);
    random = Array.from(bytes, (b) => b & 31);
  }
  lastTime = now;
  lastRandom = random;
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  return `${ID_PREFIXES[kind]}_${time}${random.map((d) => CROCKFORD[d]).join("")}`;
}
