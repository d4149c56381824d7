// The key a client address is counted under by the per-address limits: an IPv4 address as it is
// (an IPv4-mapped IPv6 address as its IPv4 form), an IPv6 address by its /64 network, the
// smallest block a single subscriber is usually given, so one client cannot get a fresh
// allowance per address of its network.
import { isIPv4, isIPv6 } from "node:net";

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The eight 16-bit groups of an IPv6 address (without zone), as numbers. */
function groupsOf(address: string): number[] {
  const [head = "", tail] = address.split("::");
  const part = (text: string): number[] => {
    const out: number[] = [];
    for (const piece of text.split(":")) {
      if (piece === "") continue;
      if (isIPv4(piece)) {
        const [a = 0, b = 0, c = 0, d = 0] = piece.split(".").map(Number);
        out.push((a << 8) | b, (c << 8) | d);
      } else {
        out.push(Number.parseInt(piece, 16));
      }
    }
    return out;
  };
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  return [...left, ...Array<number>(Math.max(0, 8 - left.length - right.length)).fill(0), ...right];
}

/**
 * The key of a client address, however it is written: a port is dropped (`10.8.8.8:1234`,
 * `[2001:db8::1]:443`, as some proxies write X-Forwarded-For), an IPv4-mapped IPv6 address in any
 * spelling (`::ffff:10.8.8.8`, `::ffff:a08:808`, `0:0:0:0:0:ffff:10.8.8.8`) is its IPv4 address.
 */
export function addressKey(raw: string): string {
  let address = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(address);
  if (bracketed !== null) address = bracketed[1]!;
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(address);
  if (withPort !== null) address = withPort[1]!;
  if (isIPv4(address)) return address;
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped !== null && isIPv4(mapped[1]!)) return mapped[1]!;
  const bare = address.split("%")[0]!;
  if (!isIPv6(bare)) return raw;
  const groups = groupsOf(bare);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return `${String(high >> 8)}.${String(high & 255)}.${String(low >> 8)}.${String(low & 255)}`;
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}
