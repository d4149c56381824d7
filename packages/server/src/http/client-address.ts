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

export function addressKey(address: string): string {
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped !== null && isIPv4(mapped[1]!)) return mapped[1]!;
  const bare = address.split("%")[0]!;
  if (!isIPv6(bare)) return address;
  return `${groupsOf(bare)
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}
