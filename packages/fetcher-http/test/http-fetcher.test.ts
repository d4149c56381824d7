import { getEventListeners } from "node:events";
import net from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpFetcher, type LookupAll } from "../src/index.js";
import { startServer, type TestServer } from "./server.js";

async function fetchError(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    expect((error as Error).name).toBe("FetchError");
    return error as { code: string; message: string };
  }
  throw new Error("expected a FetchError");
}

const page = "<html><body><h1>Prices</h1><p>Widget: 10 EUR</p></body></html>";
const big = Buffer.alloc(3 * 1024 * 1024, "a");
const timers = new Set<NodeJS.Timeout>();
/** Bytes the endless route had written when its connection closed. */
const endlessSent: number[] = [];

let server: TestServer;
beforeAll(async () => {
  server = await startServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    switch (url.pathname) {
      case "/page":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8", etag: '"v1"', "last-modified": "Mon, 02 Nov 2026 10:00:00 GMT" });
        res.end(page);
        return;
      case "/conditional":
        if (req.headers["if-none-match"] === '"v1"' || req.headers["if-modified-since"] === "Mon, 02 Nov 2026 10:00:00 GMT") {
          res.writeHead(304, { etag: '"v1"' }).end();
        } else {
          res.writeHead(200, { etag: '"v1"' }).end("fresh");
        }
        return;
      case "/latin1":
        res.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
        return;
      case "/gzip":
        res.writeHead(200, { "content-encoding": "gzip" }).end(zlib.gzipSync(page));
        return;
      case "/deflate":
        res.writeHead(200, { "content-encoding": "deflate" }).end(zlib.deflateSync(page));
        return;
      case "/deflate-raw":
        res.writeHead(200, { "content-encoding": "deflate" }).end(zlib.deflateRawSync(page));
        return;
      case "/br":
        res.writeHead(200, { "content-encoding": "br" }).end(zlib.brotliCompressSync(page));
        return;
      case "/bomb":
        // 3 MB of zeros compress to about 3 KB.
        res.writeHead(200, { "content-encoding": "gzip" }).end(zlib.gzipSync(Buffer.alloc(3 * 1024 * 1024)));
        return;
      case "/big-declared":
        res.writeHead(200, { "content-length": String(big.length) }).end(big);
        return;
      case "/big-chunked":
        res.writeHead(200);
        res.write(big.subarray(0, 1024 * 1024));
        res.write(big.subarray(1024 * 1024));
        res.end();
        return;
      case "/trickle": {
        res.writeHead(200, { "content-type": "text/plain" });
        const timer = setInterval(() => res.write("."), 50);
        timers.add(timer);
        res.on("close", () => clearInterval(timer));
        return;
      }
      case "/endless": {
        // Never ends: only a cap enforced while streaming can finish this fetch before the timeout.
        res.writeHead(200, { "content-type": "application/octet-stream" });
        const chunk = Buffer.alloc(64 * 1024, "x");
        let sent = 0;
        const pump = (): void => {
          while (!res.destroyed && res.write(chunk)) sent += chunk.length;
          if (!res.destroyed) res.once("drain", pump);
        };
        res.on("close", () => endlessSent.push(sent));
        pump();
        return;
      }
      case "/endless-gzip": {
        // A gzip stream of zeros that never ends: the decoded-bytes cap must stop it.
        res.writeHead(200, { "content-encoding": "gzip" });
        const gzip = zlib.createGzip();
        gzip.pipe(res);
        const zeros = Buffer.alloc(256 * 1024);
        const pump = (): void => {
          while (!res.destroyed && gzip.write(zeros));
          if (!res.destroyed) gzip.once("drain", pump);
        };
        res.on("close", () => gzip.destroy());
        pump();
        return;
      }
      case "/silent":
        return; // never answers
      case "/redirect": {
        const n = Number(url.searchParams.get("n") ?? "0");
        res.writeHead(302, { location: n > 0 ? `/redirect?n=${String(n - 1)}` : "/page" }).end();
        return;
      }
      case "/see-other":
        res.writeHead(303, { location: "/echo" }).end();
        return;
      case "/echo": {
        let body = "";
        req.on("data", (c: Buffer) => (body += c.toString()));
        req.on("end", () => res.end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null })));
        return;
      }
      case "/to-other-origin":
        res.writeHead(307, { location: `http://other.test:${String(server.port)}/echo` }).end();
        return;
      case "/to-ftp":
        res.writeHead(302, { location: "ftp://example.com/" }).end();
        return;
      default:
        res.writeHead(404).end("missing");
    }
  });
});
afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  await server.close();
});

describe("createHttpFetcher on a local server (guard lifted)", () => {
  const lookup: LookupAll = () => Promise.resolve([{ address: "127.0.0.1", family: 4 }]);
  const fetcher = createHttpFetcher({ allowPrivateNetworks: true, lookup, maxBodyBytes: 1024 * 1024, timeoutMs: 2_000 });
  afterAll(() => fetcher.close());

  it("fetches a page with status, headers, content type, size and final URL", async () => {
    const res = await fetcher.fetch({ url: `${server.url}/page` });
    expect(res).toMatchObject({ status: 200, body: page, contentType: "text/html; charset=utf-8", size: page.length, finalUrl: `${server.url}/page`, notModified: false, browserRender: false, waitStrategy: null });
    expect(res.headers.etag).toBe('"v1"');
    expect(res.latencyMs).toBeGreaterThanOrEqual(0);
    expect(server.lastHeaders["user-agent"]).toMatch(/^driftwatch\//);
    expect(server.lastHeaders["accept-encoding"]).toBe("gzip, deflate, br");
  });

  it("sends the userAgent option unless the request has its own user-agent", async () => {
    const custom = createHttpFetcher({ allowPrivateNetworks: true, userAgent: "acme-monitor/2.0" });
    try {
      await custom.fetch({ url: `${server.url}/page` });
      expect(server.lastHeaders["user-agent"]).toBe("acme-monitor/2.0");
      await custom.fetch({ url: `${server.url}/page`, headers: { "User-Agent": "per-request/1" } });
      expect(server.lastHeaders["user-agent"]).toBe("per-request/1");
    } finally {
      await custom.close();
    }
  });

  it("reports a 404 as a response, not an error", async () => {
    expect(await fetcher.fetch({ url: `${server.url}/nothing` })).toMatchObject({ status: 404, body: "missing" });
  });

  it("decodes the body with the declared charset", async () => {
    expect((await fetcher.fetch({ url: `${server.url}/latin1` })).body).toBe("café");
  });

  it.each(["/gzip", "/deflate", "/deflate-raw", "/br"])("decodes %s", async (path) => {
    const res = await fetcher.fetch({ url: `${server.url}${path}` });
    expect(res.body).toBe(page);
    expect(res.size).toBe(page.length);
  });

  it("answers notModified on a 304 to If-None-Match and to If-Modified-Since", async () => {
    const byEtag = await fetcher.fetch({ url: `${server.url}/conditional`, etag: '"v1"' });
    expect(byEtag).toMatchObject({ status: 304, notModified: true, body: "", size: 0 });
    expect(server.lastHeaders["if-none-match"]).toBe('"v1"');
    const byDate = await fetcher.fetch({ url: `${server.url}/conditional`, lastModified: "Mon, 02 Nov 2026 10:00:00 GMT" });
    expect(byDate.notModified).toBe(true);
    const fresh = await fetcher.fetch({ url: `${server.url}/conditional`, etag: '"v0"' });
    expect(fresh).toMatchObject({ status: 200, notModified: false, body: "fresh" });
  });

  it("follows redirects up to maxRedirects and reports the final URL", async () => {
    const res = await fetcher.fetch({ url: `${server.url}/redirect?n=4` });
    expect(res).toMatchObject({ status: 200, body: page, finalUrl: `${server.url}/page` });
    expect((await fetchError(fetcher.fetch({ url: `${server.url}/redirect?n=5` }))).code).toBe("too_many_redirects");
  });

  it("turns a POST into a GET on 303", async () => {
    const res = await fetcher.fetch({ url: `${server.url}/see-other`, method: "POST", body: "x=1", headers: { "content-type": "text/plain" } });
    expect(JSON.parse(res.body)).toMatchObject({ method: "GET", body: "" });
  });

  it("drops credentials on a redirect to another origin", async () => {
    const same = await fetcher.fetch({ url: `${server.url}/echo`, headers: { Authorization: "Bearer s3cret" } });
    expect(JSON.parse(same.body)).toMatchObject({ auth: "Bearer s3cret" });
    const other = await fetcher.fetch({ url: `${server.url}/to-other-origin`, headers: { Authorization: "Bearer s3cret" } });
    expect(JSON.parse(other.body)).toMatchObject({ auth: null });
    expect(other.finalUrl).toBe(`http://other.test:${String(server.port)}/echo`);
  });

  it("refuses a redirect to a non-http scheme", async () => {
    expect((await fetchError(fetcher.fetch({ url: `${server.url}/to-ftp` }))).code).toBe("invalid_url");
  });

  it.each(["/big-declared", "/big-chunked", "/bomb"])("aborts %s past maxBodyBytes with too_large", async (path) => {
    expect((await fetchError(fetcher.fetch({ url: `${server.url}${path}` }))).code).toBe("too_large");
  });

  it.each(["/endless", "/endless-gzip"])("stops reading %s at the cap instead of buffering it", async (path) => {
    const error = await fetchError(fetcher.fetch({ url: `${server.url}${path}` }));
    expect(error.code).toBe("too_large");
  });

  it("closes the connection of an endless body soon after the cap", async () => {
    endlessSent.length = 0;
    expect((await fetchError(fetcher.fetch({ url: `${server.url}/endless` }))).code).toBe("too_large");
    await new Promise<void>((resolve) => {
      const poll = (): void => (endlessSent.length > 0 ? resolve() : void setTimeout(poll, 10));
      poll();
    });
    // The cap is 1 MB; what the server managed to write before the socket closed is bounded by
    // the cap plus socket buffers, nowhere near what an unbounded read would have taken.
    expect(endlessSent[0]).toBeLessThan(16 * 1024 * 1024);
  });

  it("times out a trickling body", async () => {
    const before = server.requests.length;
    const error = await fetchError(fetcher.fetch({ url: `${server.url}/trickle` }));
    expect(error.code).toBe("timeout");
    expect(server.requests.length).toBe(before + 1);
  });

  it("times out a target that never answers", async () => {
    expect((await fetchError(fetcher.fetch({ url: `${server.url}/silent` }))).code).toBe("timeout");
  });

  it("passes a caller's abort through as the signal's reason", async () => {
    const controller = new AbortController();
    const pending = fetcher.fetch({ url: `${server.url}/silent`, signal: controller.signal });
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
  });

  it("rejects at once with the reason of a caller's signal aborted before the fetch, sending nothing", async () => {
    await expect(fetcher.fetch({ url: `${server.url}/silent?sent-after-abort`, signal: AbortSignal.abort(new Error("too late")) })).rejects.toThrow("too late");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.requests.filter((line) => line.includes("sent-after-abort"))).toEqual([]);
  });

  it("leaves nothing on a caller's long-lived signal once a fetch ends (the scheduler passes one to every check)", async () => {
    const lifetime = new AbortController();
    for (let i = 0; i < 5; i++) await fetcher.fetch({ url: `${server.url}/page`, signal: lifetime.signal });
    await fetchError(fetcher.fetch({ url: `${server.url}/silent`, signal: lifetime.signal }));
    expect(getEventListeners(lifetime.signal, "abort")).toHaveLength(0);
  });
});

describe("error mapping", () => {
  it("maps a refused connection to connection_failed", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const fetcher = createHttpFetcher({ allowPrivateNetworks: true });
    expect((await fetchError(fetcher.fetch({ url: `http://127.0.0.1:${String(port)}/` }))).code).toBe("connection_failed");
    await fetcher.close();
  });

  it("maps a connection reset mid-response to connection_failed", async () => {
    const rude = net.createServer((socket) => socket.once("data", () => socket.resetAndDestroy()));
    await new Promise<void>((resolve) => rude.listen(0, "127.0.0.1", resolve));
    const fetcher = createHttpFetcher({ allowPrivateNetworks: true });
    const url = `http://127.0.0.1:${String((rude.address() as net.AddressInfo).port)}/`;
    expect((await fetchError(fetcher.fetch({ url }))).code).toBe("connection_failed");
    await fetcher.close();
    await new Promise<void>((resolve) => rude.close(() => resolve()));
  });

  it("maps a name that does not resolve to dns_failure", async () => {
    const lookup: LookupAll = () => Promise.reject(Object.assign(new Error("getaddrinfo ENOTFOUND nope.invalid"), { code: "ENOTFOUND" }));
    const fetcher = createHttpFetcher({ lookup });
    expect((await fetchError(fetcher.fetch({ url: "http://nope.invalid/" }))).code).toBe("dns_failure");
    await fetcher.close();
  });

  it("refuses to fetch after close", async () => {
    const fetcher = createHttpFetcher({ allowPrivateNetworks: true });
    await fetcher.close();
    await fetcher.close();
    expect((await fetchError(fetcher.fetch({ url: `${server.url}/page` }))).code).toBe("connection_failed");
  });
});
