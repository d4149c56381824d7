// Egress (issue 12, MEDIUM): a rendered page cannot send UDP (WebRTC/STUN/TURN) nor reach a
// forbidden address by fetch, WebSocket, preconnect, prefetch or beacon; the guard proxy refuses
// forbidden destinations, and, scoped as the browser fetcher runs it, whatever a render did not
// let through.
import dgram from "node:dgram";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listProcesses, processTree } from "../../src/index.js";
import { startGuardProxy } from "../../src/proxy.js";
import { createTestFetcher, options, startServer, type TestServer } from "../helpers.js";
import { startHostileSite, type HostileSite } from "./pages.js";

let hostile: HostileSite;
beforeAll(async () => {
  hostile = await startHostileSite();
});
afterAll(async () => {
  await hostile.close();
});

/** Sends raw bytes to the proxy and returns its first answer line. */
function ask(proxyUrl: string, raw: string): Promise<string> {
  const { port } = new URL(proxyUrl);
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port: Number(port) });
    let got = "";
    socket.on("data", (chunk: Buffer) => {
      got += chunk.toString("latin1");
      if (got.includes("\r\n")) {
        resolve(got.split("\r\n")[0] ?? "");
        socket.destroy();
      }
    });
    // A reset counts as closing: the proxy may drop a connection it will not serve.
    socket.on("error", () => resolve(got.split("\r\n")[0] ?? ""));
    socket.on("close", () => resolve(got.split("\r\n")[0] ?? ""));
    socket.write(raw);
  });
}

describe("the guard proxy", () => {
  let target: TestServer;
  beforeAll(async () => {
    target = await startServer((_req, res) => res.end("reached"), "127.0.0.2");
  });
  afterAll(() => target.close());

  it("refuses CONNECT and forwarded requests to forbidden addresses, and tunnels allowed ones", async () => {
    const proxy = await startGuardProxy({ allowAddresses: ["127.0.0.1"], lookup: () => Promise.resolve([{ address: "127.0.0.2", family: 4 }]) });
    try {
      expect(await ask(proxy.url, `CONNECT 127.0.0.2:${String(target.port)} HTTP/1.1\r\nhost: x\r\n\r\n`)).toBe("HTTP/1.1 403 Forbidden");
      expect(await ask(proxy.url, `CONNECT inside.example:${String(target.port)} HTTP/1.1\r\nhost: x\r\n\r\n`)).toBe("HTTP/1.1 403 Forbidden");
      expect(await ask(proxy.url, `CONNECT [::ffff:127.0.0.2]:${String(target.port)} HTTP/1.1\r\nhost: x\r\n\r\n`)).toBe("HTTP/1.1 403 Forbidden");
      expect(await ask(proxy.url, `GET http://127.0.0.2:${String(target.port)}/ HTTP/1.1\r\nhost: 127.0.0.2\r\n\r\n`)).toBe("HTTP/1.1 403 Forbidden");
      expect(await ask(proxy.url, `CONNECT nonsense HTTP/1.1\r\nhost: x\r\n\r\n`)).toBe("HTTP/1.1 400 Bad Request");
      expect(await ask(proxy.url, `GET /relative HTTP/1.1\r\nhost: x\r\n\r\n`)).toMatch(/^HTTP\/1.1 400/);
      expect(target.connections).toBe(0);
      expect(proxy.refused()).toContain(`127.0.0.2:${String(target.port)}`);
      // An allowed destination is tunnelled and forwarded.
      expect(await ask(proxy.url, `CONNECT 127.0.0.1:${String(hostile.site.port)} HTTP/1.1\r\nhost: x\r\n\r\n`)).toBe("HTTP/1.1 200 Connection Established");
      expect(await ask(proxy.url, `GET ${hostile.site.url}/nothing HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`)).toBe("HTTP/1.1 404 Not Found");
      expect(proxy.passed()).toBe(2);
    } finally {
      await proxy.close();
    }
  });
});

describe("a scoped guard proxy (the browser fetcher's)", () => {
  let hops: TestServer;
  beforeAll(async () => {
    hops = await startServer((req, res) => {
      if (req.url === "/hop") res.writeHead(302, { location: "/landing" }).end();
      else res.end("landed");
    });
  });
  afterAll(() => hops.close());

  const basic = (user: string, password: string): string => `proxy-authorization: Basic ${Buffer.from(`${user}:${password}`).toString("base64")}\r\n`;

  it("passes only what a scope let through, once, and nothing of a closed scope", async () => {
    const proxy = await startGuardProxy({ allowAddresses: ["127.0.0.1"], scoped: true });
    const scope = proxy.openScope();
    const other = proxy.openScope();
    const auth = basic(scope.username, scope.password);
    const get = (path: string, headers = auth): Promise<string> => ask(proxy.url, `GET ${hops.url}${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers}\r\n`);
    const connect = (headers = auth): Promise<string> => ask(proxy.url, `CONNECT 127.0.0.1:${String(hops.port)} HTTP/1.1\r\nhost: x\r\n${headers}\r\n`);
    try {
      // Without credentials: asked for them; with wrong ones, or not let through: refused.
      expect(await get("/landing", "")).toBe("HTTP/1.1 407 Proxy Authentication Required");
      expect(await connect("")).toBe("HTTP/1.1 407 Proxy Authentication Required");
      expect(await get("/landing", basic(scope.username, "wrong"))).toBe("HTTP/1.1 403 Forbidden");
      expect(await get("/landing")).toBe("HTTP/1.1 403 Forbidden");
      expect(await connect(basic(scope.username, "wrong"))).toBe("HTTP/1.1 403 Forbidden");
      expect(hops.paths).toEqual([]);
      // Let through once, with the next hop of its redirect; another scope's allowance is its own.
      scope.allow("GET", `${hops.url}/hop#fragment`);
      other.allow("GET", `${hops.url}/landing`);
      expect(await get("/hop")).toBe("HTTP/1.1 302 Found");
      expect(await get("/hop")).toBe("HTTP/1.1 403 Forbidden");
      expect(await get("/landing")).toBe("HTTP/1.1 200 OK");
      expect(await get("/landing")).toBe("HTTP/1.1 403 Forbidden");
      expect(await get("/landing", basic(other.username, other.password))).toBe("HTTP/1.1 200 OK");
      // A tunnel (HTTPS: the proxy cannot see its redirects) of an open scope passes to what the
      // guard allows, with or without an allowance; a forbidden destination is still refused.
      scope.allow("GET", `https://127.0.0.1:${String(hops.port)}/x`);
      expect(await connect()).toBe("HTTP/1.1 200 Connection Established");
      expect(await connect()).toBe("HTTP/1.1 200 Connection Established");
      expect(await ask(proxy.url, `CONNECT 127.0.0.2:${String(hops.port)} HTTP/1.1\r\nhost: x\r\n${auth}\r\n`)).toBe("HTTP/1.1 403 Forbidden");
      // Closed: what it let through before is refused, and so is everything else, tunnels too.
      scope.allow("GET", `${hops.url}/landing`);
      scope.close();
      scope.allow("GET", `${hops.url}/landing`);
      expect(await get("/landing")).toBe("HTTP/1.1 403 Forbidden");
      expect(await connect()).toBe("HTTP/1.1 403 Forbidden");
      expect(hops.paths).toEqual(["/hop", "/landing", "/landing"]);
    } finally {
      await proxy.close();
    }
  });

  it("ends the tunnels of a scope when it closes", async () => {
    const proxy = await startGuardProxy({ allowAddresses: ["127.0.0.1"], scoped: true });
    const scope = proxy.openScope();
    scope.allow("CONNECT", `https://127.0.0.1:${String(hops.port)}/`);
    const { port } = new URL(proxy.url);
    const socket = net.connect({ host: "127.0.0.1", port: Number(port) });
    try {
      const established = await new Promise<string>((resolve) => {
        socket.once("data", (chunk: Buffer) => resolve(chunk.toString("latin1").split("\r\n")[0] ?? ""));
        socket.write(`CONNECT 127.0.0.1:${String(hops.port)} HTTP/1.1\r\nhost: x\r\n${basic(scope.username, scope.password)}\r\n`);
      });
      expect(established).toBe("HTTP/1.1 200 Connection Established");
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      socket.on("error", () => undefined);
      scope.close();
      await closed;
      expect(socket.destroyed).toBe(true);
    } finally {
      socket.destroy();
      await proxy.close();
    }
  });
});

describe("the guard proxy under garbage", () => {
  it("answers or closes every malformed, refused or abandoned connection and keeps serving", async () => {
    const proxy = await startGuardProxy({ allowAddresses: ["127.0.0.1"] });
    const closedPort = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    try {
      const answers = await Promise.all([
        ask(proxy.url, "\u0000\u0001garbage\r\n\r\n"),
        ask(proxy.url, "CONNECT 127.0.0.1:0 HTTP/1.1\r\n\r\n"),
        ask(proxy.url, "CONNECT example.com:99999 HTTP/1.1\r\n\r\n"),
        ask(proxy.url, `GET http://x/ HTTP/1.1\r\nx-flood: ${"a".repeat(100_000)}\r\n\r\n`),
        ask(proxy.url, `CONNECT 127.0.0.1:${String(closedPort)} HTTP/1.1\r\n\r\n`),
        ask(proxy.url, `GET http://127.0.0.1:${String(closedPort)}/ HTTP/1.1\r\nhost: x\r\n\r\n`),
        ask(proxy.url, "GET ftp://example.com/ HTTP/1.1\r\n\r\n"),
        ask(proxy.url, `GET http://127.0.0.2/ HTTP/1.1\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n`),
      ]);
      expect(answers[1]).toBe("HTTP/1.1 400 Bad Request");
      expect(answers[2]).toBe("HTTP/1.1 400 Bad Request");
      expect(answers[4]).toBe("HTTP/1.1 502 Bad Gateway");
      expect(answers[5]).toBe("HTTP/1.1 502 Bad Gateway");
      expect(answers[6]).toMatch(/^HTTP\/1.1 400/);
      expect(answers[7]).toBe("HTTP/1.1 403 Forbidden");
      // Abandoned while the destination is being resolved and connected.
      for (let i = 0; i < 20; i++) {
        const { port } = new URL(proxy.url);
        const socket = net.connect({ host: "127.0.0.1", port: Number(port) });
        socket.on("error", () => undefined);
        socket.write(`CONNECT 127.0.0.1:${String(hostile.site.port)} HTTP/1.1\r\n\r\n`);
        socket.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await ask(proxy.url, `CONNECT 127.0.0.1:${String(hostile.site.port)} HTTP/1.1\r\n\r\n`)).toBe("HTTP/1.1 200 Connection Established");
    } finally {
      await proxy.close();
    }
  });
});

describe("a rendered page", () => {
  const fetcher = createTestFetcher({ allowAddresses: ["127.0.0.1"], lookup: () => Promise.resolve([{ address: "127.0.0.2", family: 4 }]) });
  afterAll(() => fetcher.close());

  it("sends no UDP: WebRTC to a STUN/TURN server on a local UDP socket gets nothing", async () => {
    const stun = dgram.createSocket("udp4");
    let datagrams = 0;
    stun.on("message", () => (datagrams += 1));
    await new Promise<void>((resolve) => stun.bind(0, "127.0.0.1", resolve));
    try {
      const res = await fetcher.fetch({ url: `${hostile.site.url}/webrtc?stun=127.0.0.1:${String(stun.address().port)}`, browserOptions: options({ waitStrategy: "load", extraWaitMs: 1800 }) });
      // The page ran its WebRTC code to the end...
      expect(res.body).toMatch(/<p id="rtc">candidates \d+<\/p>/);
      // ... and not one datagram left the browser.
      expect(datagrams).toBe(0);
    } finally {
      stun.close();
    }
  });

  it("reaches no forbidden address by fetch, WebSocket, preconnect, prefetch or beacon", async () => {
    const res = await fetcher.fetch({ url: `${hostile.site.url}/egress`, browserOptions: options({ waitStrategy: "load", extraWaitMs: 800 }) });
    expect(res.body).toContain(`<p id="fetch">failed TypeError</p>`);
    expect(res.body).toContain(`<p id="ws">ws closed</p>`);
    expect(hostile.internal.connections).toBe(0);
  });

  it("runs in a browser whose only way out is the guard proxy", () => {
    const pid = fetcher.browserProcessId();
    expect(pid).not.toBeNull();
    const main = processTree(pid ?? -1, listProcesses()).find((p) => p.pid === pid);
    expect(main?.cmdline).toMatch(/--proxy-server=http:\/\/127\.0\.0\.1:\d+/);
    expect(main?.cmdline).toContain("--proxy-bypass-list=<-loopback>");
    expect(main?.cmdline).toContain("--force-webrtc-ip-handling-policy=disable_non_proxied_udp");
    expect(main?.cmdline).toMatch(/--js-flags=--max-old-space-size=\d+/);
  });
});
