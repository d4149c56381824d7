import { promises as dns } from "node:dns";
import type { LookupFunction } from "node:net";
import { FetchError } from "@driftwatch/core";
import { Agent, buildConnector, type Dispatcher } from "undici";
import { classifyAddress, ipLiteralFamily } from "./address.js";

/** One resolved address, as `dns.lookup(host, { all: true })` returns it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a hostname to every address it has. The default is `dns.lookup` with `all: true`. */
export type LookupAll = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardOptions {
  /** Lift the guard (development and tests on local servers only). Default false. */
  allowPrivateNetworks?: boolean;
  /** Name resolution; tests pass one that answers a private address for a public-looking name. */
  lookup?: LookupAll;
  /**
   * Exact IP addresses exempted from the guard (a trusted internal service), without lifting it
   * for anything else. Compared after normalisation, so `::ffff:10.0.0.5` does not match `10.0.0.5`.
   */
  allowAddresses?: readonly string[];
}

export interface GuardedDispatcherOptions extends GuardOptions {
  /** Time to establish a connection (TCP and TLS), in ms. Default 30 000. */
  connectTimeoutMs?: number;
  /** Connections kept per origin. Default undici's (unlimited). */
  connections?: number;
}

const ALLOWED_PROTOCOLS = new Set(["http:", "https:"]);

export const defaultLookup: LookupAll = async (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * Parses a URL the fetchers may request: absolute, `http:` or `https:`, no credentials (send an
 * `authorization` header instead; credentials in a URL end up in logs and Referer headers).
 */
export function parseFetchUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new FetchError("invalid_url", `Not an absolute URL: ${JSON.stringify(url)}`, { cause });
  }
  if (!ALLOWED_PROTOCOLS.has(parsed.protocol)) {
    throw new FetchError("invalid_url", `Only http and https URLs can be fetched, not ${parsed.protocol}`, {
      details: [{ path: "url", message: `scheme ${parsed.protocol} is not allowed` }],
    });
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new FetchError("invalid_url", "Credentials in the URL are not accepted; send an authorization header instead", {
      details: [{ path: "url", message: "contains user info" }],
    });
  }
  return parsed;
}

/**
 * The refusal names the rule (the address class), never the DNS answer: what a name resolves to
 * inside the service's network is not the caller's business.
 */
function refused(host: string, address: string, cls: string): FetchError {
  const name = cls === "cgnat" ? "CGNAT" : cls.replace("_", "-");
  // "an unspecified address", "an invalid address"; "a unique-local address" (a "you" sound)
  const what = `${/^(un[^i]|[aeio])/.test(name) ? "an" : "a"} ${name} address`;
  if (host === address) {
    return new FetchError("unsafe_url", `Refusing to connect to ${host}: ${what}`, {
      details: [{ path: "url", message: `the host is ${what}` }],
    });
  }
  return new FetchError("unsafe_url", `Refusing to connect to ${host}: it resolves to ${what}`, {
    details: [{ path: "url", message: `the host resolves to ${what}` }],
  });
}

/** Throws `unsafe_url` when an IP literal host is in a blocked range (unless the guard is lifted). */
function checkLiteral(host: string, options: GuardOptions): void {
  checkAddress(host, host, options);
}

function checkAddress(host: string, address: string, options: GuardOptions): void {
  if (options.allowPrivateNetworks === true) return;
  const cls = classifyAddress(address);
  if (cls !== null && options.allowAddresses?.includes(address.toLowerCase()) !== true) throw refused(host, address, cls);
}

/**
 * Resolves a hostname and checks every address it resolves to. One blocked address refuses the
 * whole name: a name that mixes public and private answers is a rebinding setup, not a mistake.
 */
export async function resolveGuarded(hostname: string, options: GuardOptions = {}): Promise<ResolvedAddress[]> {
  const host = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  const family = ipLiteralFamily(host);
  if (family !== 0) {
    checkLiteral(host, options);
    return [{ address: host, family }];
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await (options.lookup ?? defaultLookup)(host);
  } catch (cause) {
    throw new FetchError("dns_failure", `Could not resolve ${host}`, { cause });
  }
  if (addresses.length === 0) throw new FetchError("dns_failure", `${host} resolved to no address`);
  for (const { address } of addresses) checkAddress(host, address, options);
  return addresses;
}

/**
 * Checks that a URL may be fetched: scheme, no credentials, and every address its host resolves
 * to. Throws a `FetchError` (`invalid_url`, `unsafe_url`, `dns_failure`). A check ahead of time
 * only; the fetchers check again on every connection, so DNS rebinding is refused there too.
 */
export async function assertSafeUrl(url: string, options: GuardOptions = {}): Promise<void> {
  let parsed: URL;
  try {
    parsed = parseFetchUrl(url);
  } catch (error) {
    // An IP literal in a blocked range is the graver refusal (`http://user@127.0.0.1/`): say that.
    const host = literalHost(url);
    if (host !== null) checkLiteral(host, options);
    throw error;
  }
  await resolveGuarded(parsed.hostname, options);
}

/** The host of an http(s) URL when it is an IP literal (without brackets), else null. */
function literalHost(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (!ALLOWED_PROTOCOLS.has(parsed.protocol)) return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  return ipLiteralFamily(host) === 0 ? null : host;
}

/** A `net.connect` lookup that resolves through the guard. */
export function createGuardedLookup(options: GuardOptions = {}): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolveGuarded(hostname, options).then(
      (all) => {
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? all.filter((a) => a.family === lookupOptions.family) : all;
        const first = wanted[0];
        if (first === undefined) {
          callback(new FetchError("dns_failure", `${hostname} has no IPv${String(lookupOptions.family)} address`), "", 0);
        } else if (lookupOptions.all === true) {
          callback(null, wanted);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, "", 0),
    );
  };
}

/**
 * An undici dispatcher that enforces the SSRF guard on the resolved address of every connection
 * it opens, before the socket connects: redirects, retries and DNS rebinding cannot reach a
 * blocked address. Use it for any outbound request to a user-supplied URL (webhooks included).
 */
export function createGuardedDispatcher(options: GuardedDispatcherOptions = {}): Dispatcher {
  const guard: GuardOptions = {
    allowPrivateNetworks: options.allowPrivateNetworks ?? false,
    ...(options.lookup ? { lookup: options.lookup } : {}),
    ...(options.allowAddresses ? { allowAddresses: options.allowAddresses.map((a) => a.toLowerCase()) } : {}),
  };
  const base = buildConnector({ lookup: createGuardedLookup(guard), timeout: options.connectTimeoutMs ?? 30_000 });
  // net.connect skips `lookup` for IP literals, so those are checked here.
  const connect: buildConnector.connector = (connectOptions, callback) => {
    const host = connectOptions.hostname;
    if (ipLiteralFamily(host) !== 0) {
      try {
        checkLiteral(host.replace(/^\[|\]$/g, ""), guard);
      } catch (error) {
        callback(error as Error, null);
        return;
      }
    }
    base(connectOptions, callback);
  };
  return new Agent({ connect, ...(options.connections === undefined ? {} : { connections: options.connections }) });
}
