// Every blocked address class, through the fetcher itself (not only assertSafeUrl): refused with
// unsafe_url before any connection is made, whatever form the address is written in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpFetcher, type LookupAll } from "../src/index.js";
import { startServer, type TestServer } from "./server.js";

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect((error as Error).name).toBe("FetchError");
    return (error as { code: string }).code;
  }
  throw new Error("expected a FetchError");
}

let target: TestServer;
const lookupCalls: string[] = [];
const lookup: LookupAll = (hostname) => {
  lookupCalls.push(hostname);
  return Promise.resolve([{ address: "93.184.216.34", family: 4 }]);
};
const fetcher = createHttpFetcher({ lookup, timeoutMs: 5_000 });

beforeAll(async () => {
  // An internal service on 127.0.0.2: every spelling of its address must be refused.
  target = await startServer((_req, res) => res.end("internal secret"), "127.0.0.2");
});
afterAll(async () => {
  await fetcher.close();
  await target.close();
});

describe("the HTTP fetcher refuses every blocked address class", () => {
  const port = (): string => String(target.port);
  const spellings: Array<[string, () => string]> = [
    ["dotted loopback", () => `http://127.0.0.2:${port()}/`],
    ["decimal integer", () => `http://2130706434:${port()}/`],
    ["hexadecimal octets", () => `http://0x7f.0x0.0x0.0x2:${port()}/`],
    ["octal octets", () => `http://0177.0.0.02:${port()}/`],
    ["short form", () => `http://127.2:${port()}/`],
    ["hex integer", () => `http://0x7f000002:${port()}/`],
    ["IPv4-mapped IPv6", () => `http://[::ffff:127.0.0.2]:${port()}/`],
    ["IPv4-mapped IPv6 in hex", () => `http://[::ffff:7f00:2]:${port()}/`],
    ["unspecified 0.0.0.0", () => `http://0.0.0.0:${port()}/`],
    ["unspecified 0", () => `http://0:${port()}/`],
    ["IPv6 unspecified", () => `http://[::]:${port()}/`],
    ["IPv6 loopback", () => `http://[::1]:${port()}/`],
  ];
  it.each(spellings)("%s: unsafe_url and no byte sent", async (_name, url) => {
    expect(await codeOf(fetcher.fetch({ url: url() }))).toBe("unsafe_url");
    expect(target.connections).toBe(0);
    expect(lookupCalls).toEqual([]);
  });

  it.each([
    ["RFC 1918 10/8", "http://10.1.2.3/"],
    ["RFC 1918 172.16/12", "http://172.20.0.1/"],
    ["RFC 1918 192.168/16", "http://192.168.0.1/"],
    ["link-local", "http://169.254.1.1/"],
    ["cloud metadata", "http://169.254.169.254/latest/meta-data/"],
    ["CGNAT", "http://100.64.0.1/"],
    ["multicast", "http://224.0.0.251/"],
    ["broadcast", "http://255.255.255.255/"],
    ["IPv6 unique local", "http://[fd00::1]/"],
    ["IPv6 link-local", "http://[fe80::1]/"],
    ["IPv6 multicast", "http://[ff02::1]/"],
    ["IPv4-mapped metadata", "http://[::ffff:169.254.169.254]/"],
    ["IPv4-mapped RFC 1918", "http://[::ffff:a00:1]/"],
    ["NAT64 of loopback", "http://[64:ff9b::7f00:1]/"],
  ])("%s (%s): unsafe_url", async (_name, url) => {
    expect(await codeOf(fetcher.fetch({ url }))).toBe("unsafe_url");
    expect(lookupCalls).toEqual([]);
  });

  it("names the address class in the error", async () => {
    await expect(fetcher.fetch({ url: "http://169.254.169.254/" })).rejects.toMatchObject({
      code: "unsafe_url",
      message: expect.stringContaining("link-local") as unknown,
      details: [{ path: "url", message: "the host is a link-local address" }],
    });
  });
});
