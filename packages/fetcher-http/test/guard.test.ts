import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { assertSafeUrl, createGuardedDispatcher, createHttpFetcher, type LookupAll } from "../src/index.js";
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

const fixed = (address: string): LookupAll => () => Promise.resolve([{ address, family: address.includes(":") ? 6 : 4 }]);

describe("assertSafeUrl", () => {
  it.each([
    "http://127.0.0.1/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://017700000001/",
    "http://127.1/",
    "http://0/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/",
    "http://100.64.0.1/",
    "http://224.0.0.1/",
    "http://[fd00:ec2::254]/",
    "http://[fe80::1]/",
  ])("refuses %s without resolving", async (url) => {
    expect(await codeOf(assertSafeUrl(url, { lookup: () => Promise.reject(new Error("must not resolve")) }))).toBe("unsafe_url");
  });

  it("refuses credentials in a URL as invalid_url, but a blocked address first as unsafe_url", async () => {
    const none = () => Promise.reject(new Error("must not resolve"));
    expect(await codeOf(assertSafeUrl("http://user:pass@127.0.0.1/", { lookup: none }))).toBe("unsafe_url");
    expect(await codeOf(assertSafeUrl("http://example.com@169.254.169.254/", { lookup: none }))).toBe("unsafe_url");
    expect(await codeOf(assertSafeUrl("http://user@[::1]/", { lookup: none }))).toBe("unsafe_url");
    expect(await codeOf(assertSafeUrl("https://user:pass@93.184.216.34/", { lookup: none }))).toBe("invalid_url");
    expect(await codeOf(assertSafeUrl("https://user:pass@example.com/", { lookup: none }))).toBe("invalid_url");
    // lifted, only the credentials are refused
    expect(await codeOf(assertSafeUrl("http://user:pass@127.0.0.1/", { allowPrivateNetworks: true }))).toBe("invalid_url");
  });

  it("names the address class with the right article", async () => {
    const messageOf = (url: string, lookup?: LookupAll) =>
      assertSafeUrl(url, lookup === undefined ? {} : { lookup }).then(
        () => "",
        (error: Error) => error.message,
      );
    expect(await messageOf("http://0.0.0.0/")).toBe("Refusing to connect to 0.0.0.0: an unspecified address");
    expect(await messageOf("http://[::]/")).toBe("Refusing to connect to ::: an unspecified address");
    expect(await messageOf("https://zero.example.com/", fixed("0.0.0.0"))).toBe("Refusing to connect to zero.example.com: it resolves to an unspecified address");
    expect(await messageOf("http://127.0.0.1/")).toBe("Refusing to connect to 127.0.0.1: a loopback address");
    expect(await messageOf("http://100.64.0.1/")).toBe("Refusing to connect to 100.64.0.1: a CGNAT address");
  });

  it("refuses a hostname that resolves to a private address", async () => {
    expect(await codeOf(assertSafeUrl("https://internal.example.com/", { lookup: fixed("192.168.1.10") }))).toBe("unsafe_url");
  });

  it("refuses a hostname when any of its addresses is private", async () => {
    const lookup: LookupAll = () => Promise.resolve([{ address: "93.184.216.34", family: 4 }, { address: "10.0.0.7", family: 4 }]);
    expect(await codeOf(assertSafeUrl("https://mixed.example.com/", { lookup }))).toBe("unsafe_url");
  });

  it("accepts a hostname with only public addresses", async () => {
    await expect(assertSafeUrl("https://example.com/x", { lookup: fixed("93.184.216.34") })).resolves.toBeUndefined();
  });

  it("maps a failed lookup to dns_failure", async () => {
    const lookup: LookupAll = () => Promise.reject(Object.assign(new Error("getaddrinfo ENOTFOUND nope.invalid"), { code: "ENOTFOUND" }));
    expect(await codeOf(assertSafeUrl("https://nope.invalid/", { lookup }))).toBe("dns_failure");
  });

  it.each(["ftp://example.com/", "file:///etc/passwd", "javascript:alert(1)", "not a url", "https://user:pass@example.com/"])("refuses %s as invalid_url", async (url) => {
    expect(await codeOf(assertSafeUrl(url, { lookup: fixed("93.184.216.34") }))).toBe("invalid_url");
  });

  it("is lifted by allowPrivateNetworks", async () => {
    await expect(assertSafeUrl("http://127.0.0.1/", { allowPrivateNetworks: true })).resolves.toBeUndefined();
  });
});

describe("guard on connections", () => {
  let target: TestServer;
  let trusted: TestServer;
  beforeAll(async () => {
    // 127.0.0.2 stands for an internal service; 127.0.0.1 is exempted with allowAddresses so it
    // can play a public site that redirects inward.
    target = await startServer((_req, res) => res.end("secret"), "127.0.0.2");
    trusted = await startServer((req, res) => {
      const to = req.url === "/to-ip" ? target.url : `http://internal.test:${String(target.port)}/`;
      res.writeHead(302, { location: to }).end();
    });
  });
  afterAll(async () => {
    await target.close();
    await trusted.close();
  });

  it("sends no byte to a refused IP literal", async () => {
    const fetcher = createHttpFetcher();
    expect(await codeOf(fetcher.fetch({ url: `${target.url}/` }))).toBe("unsafe_url");
    await fetcher.close();
    expect(target.connections).toBe(0);
  });

  it("refuses a hostname that resolves to a private address through lookup", async () => {
    const fetcher = createHttpFetcher({ lookup: fixed("127.0.0.2") });
    expect(await codeOf(fetcher.fetch({ url: `http://public-looking.example:${String(target.port)}/` }))).toBe("unsafe_url");
    await fetcher.close();
    expect(target.connections).toBe(0);
  });

  it("refuses DNS rebinding: the address checked at connect time is the one used", async () => {
    let calls = 0;
    const lookup: LookupAll = () => Promise.resolve([{ address: calls++ === 0 ? "93.184.216.34" : "127.0.0.2", family: 4 }]);
    const url = `http://rebind.example:${String(target.port)}/`;
    await assertSafeUrl(url, { lookup });
    const fetcher = createHttpFetcher({ lookup });
    expect(await codeOf(fetcher.fetch({ url }))).toBe("unsafe_url");
    await fetcher.close();
    expect(target.connections).toBe(0);
  });

  it.each(["/to-ip", "/to-name"])("refuses a redirect into private space (%s)", async (path) => {
    const fetcher = createHttpFetcher({ allowAddresses: ["127.0.0.1"], lookup: fixed("127.0.0.2") });
    expect(await codeOf(fetcher.fetch({ url: `${trusted.url}${path}` }))).toBe("unsafe_url");
    await fetcher.close();
    expect(trusted.requests).toContain(`GET ${path}`);
    expect(target.connections).toBe(0);
  });

  it("guards plain undici requests through createGuardedDispatcher", async () => {
    const dispatcher = createGuardedDispatcher();
    await expect(request(`${target.url}/`, { dispatcher })).rejects.toMatchObject({ code: "unsafe_url" });
    const lifted = createGuardedDispatcher({ allowPrivateNetworks: true });
    const res = await request(`${target.url}/`, { dispatcher: lifted });
    expect(await res.body.text()).toBe("secret");
    await dispatcher.close();
    await lifted.close();
    expect(target.connections).toBe(1);
  });
});
