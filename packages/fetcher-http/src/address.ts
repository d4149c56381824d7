import { isIP } from "node:net";

/**
 * Why an address is refused by the SSRF guard. `null` from {@link classifyAddress} means the
 * address is public unicast and may be connected to.
 */
export type BlockedAddressClass =
  | "loopback"
  | "private"
  | "link_local"
  | "cgnat"
  | "multicast"
  | "unspecified"
  | "broadcast"
  | "documentation"
  | "reserved"
  | "unique_local"
  | "invalid";

interface Range {
  base: number;
  bits: number;
  cls: BlockedAddressClass;
}

function v4(text: string, bits: number, cls: BlockedAddressClass): Range {
  const base = parseIPv4(text);
  if (base === null) throw new Error(`bad range ${text}`);
  return { base, bits, cls };
}

// Most specific first where ranges nest (255.255.255.255 inside 240/4).
const IPV4_RANGES: readonly Range[] = [
  v4("255.255.255.255", 32, "broadcast"),
  v4("0.0.0.0", 8, "unspecified"),
  v4("10.0.0.0", 8, "private"),
  v4("100.64.0.0", 10, "cgnat"),
  v4("127.0.0.0", 8, "loopback"),
  // 169.254.169.254 (cloud metadata) lives here.
  v4("169.254.0.0", 16, "link_local"),
  v4("172.16.0.0", 12, "private"),
  v4("192.0.0.0", 24, "reserved"),
  v4("192.0.2.0", 24, "documentation"),
  v4("192.88.99.0", 24, "reserved"),
  v4("192.168.0.0", 16, "private"),
  v4("198.18.0.0", 15, "reserved"),
  v4("198.51.100.0", 24, "documentation"),
  v4("203.0.113.0", 24, "documentation"),
  v4("224.0.0.0", 4, "multicast"),
  v4("240.0.0.0", 4, "reserved"),
];

/** Dotted-quad IPv4 to an unsigned 32-bit number, or null when not strictly a.b.c.d. */
function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

function classifyIPv4(value: number): BlockedAddressClass | null {
  for (const range of IPV4_RANGES) {
    const size = 2 ** (32 - range.bits);
    if (Math.floor(value / size) === Math.floor(range.base / size)) return range.cls;
  }
  return null;
}

/** Expands an IPv6 text form (with `::` and an optional trailing dotted quad) to 8 groups. */
function parseIPv6(text: string): number[] | null {
  let rest = text;
  const lastColon = rest.lastIndexOf(":");
  const last = rest.slice(lastColon + 1);
  if (last.includes(".")) {
    // A trailing dotted quad is two groups written differently.
    const quad = parseIPv4(last);
    if (quad === null) return null;
    rest = `${rest.slice(0, lastColon + 1)}${Math.floor(quad / 65536).toString(16)}:${(quad % 65536).toString(16)}`;
  }
  const parseGroups = (s: string): number[] | null => {
    if (s === "") return [];
    const out: number[] = [];
    for (const g of s.split(":")) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const doubleColon = rest.indexOf("::");
  if (doubleColon === -1) {
    const groups = parseGroups(rest);
    return groups !== null && groups.length === 8 ? groups : null;
  }
  const head = parseGroups(rest.slice(0, doubleColon));
  const back = parseGroups(rest.slice(doubleColon + 2));
  if (head === null || back === null || head.length + back.length > 7) return null;
  return [...head, ...new Array<number>(8 - head.length - back.length).fill(0), ...back];
}

function embeddedIPv4(high: number, low: number): number {
  return high * 65536 + low;
}

function classifyIPv6(g: number[]): BlockedAddressClass | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const firstSixZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstSixZero && g5 === 0) {
    if (g6 === 0 && g7 === 0) return "unspecified";
    if (g6 === 0 && g7 === 1) return "loopback";
    // IPv4-compatible (::a.b.c.d), deprecated: never a legitimate public destination.
    return "reserved";
  }
  // IPv4-mapped ::ffff:a.b.c.d: the connection goes to the embedded IPv4 address.
  if (firstSixZero && g5 === 0xffff) return classifyIPv4(embeddedIPv4(g6, g7));
  // NAT64 well-known prefix 64:ff9b::/96 reaches the embedded IPv4 address through a gateway.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return classifyIPv4(embeddedIPv4(g6, g7));
  }
  // Local-use NAT64 64:ff9b:1::/48 (RFC 8215).
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return "private";
  // 6to4 2002:wwxx:yyzz::/48 tunnels to the embedded IPv4 address.
  if (g0 === 0x2002) return classifyIPv4(embeddedIPv4(g1, g2));
  // Teredo 2001::/32 embeds an obfuscated client address: refuse outright.
  if (g0 === 0x2001 && g1 === 0) return "reserved";
  if (g0 === 0x2001 && g1 === 0xdb8) return "documentation";
  if (g0 >= 0xff00) return "multicast";
  if ((g0 & 0xffc0) === 0xfe80) return "link_local";
  // fec0::/10 (deprecated site-local) behaves like private space.
  if ((g0 & 0xffc0) === 0xfec0) return "private";
  if ((g0 & 0xfe00) === 0xfc00) return "unique_local";
  // Only 2000::/3 is global unicast; everything else (100::/64 discard, unassigned) is refused.
  if ((g0 & 0xe000) !== 0x2000) return "reserved";
  return null;
}

/**
 * Classifies an IP address literal (IPv4 dotted quad or IPv6, with or without brackets and a
 * zone id). Returns why the SSRF guard refuses it, or `null` for a public unicast address.
 * Anything that is not a valid IP literal is `"invalid"` (refused: never guess).
 */
export function classifyAddress(ip: string): BlockedAddressClass | null {
  let text = ip.trim();
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
  const zone = text.indexOf("%");
  if (zone !== -1) text = text.slice(0, zone);
  const family = isIP(text);
  if (family === 4) {
    const value = parseIPv4(text);
    return value === null ? "invalid" : classifyIPv4(value);
  }
  if (family === 6) {
    const groups = parseIPv6(text.toLowerCase());
    return groups === null ? "invalid" : classifyIPv6(groups);
  }
  return "invalid";
}

/** Strips the brackets of an IPv6 URL host; returns the IP family (0 when a hostname). */
export function ipLiteralFamily(host: string): 0 | 4 | 6 {
  const text = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return isIP(text) as 0 | 4 | 6;
}
