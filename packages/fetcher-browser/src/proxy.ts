import http from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import { isFetchError, parseFetchUrl, resolveGuarded, type GuardOptions } from "@driftwatch/fetcher-http";

/** A local proxy every byte the browser sends to the network goes through. */
export interface GuardProxy {
  /** `http://127.0.0.1:<port>`, for `--proxy-server`. */
  url: string;
  /** Destinations refused so far (`host:port`), newest last, at most 100 kept. */
  refused(): readonly string[];
  /** Connections tunnelled or requests forwarded so far. */
  passed(): number;
  close(): Promise<void>;
}

export interface GuardProxyOptions extends GuardOptions {
  /** Time to connect to a destination, in ms. Default 10 000. */
  connectTimeoutMs?: number;
}

/** Response headers a forwarding proxy must not pass on (hop-by-hop). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"]);

function parseAuthority(authority: string): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/]+):(\d{1,5})$/.exec(authority);
  if (match === null) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return null;
  return { host: match[1] ?? "", port };
}

function reject(socket: Duplex, status: 400 | 403 | 502, reason: string): void {
  const text = status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : "Bad Gateway";
  if (!socket.destroyed && socket.writable) {
    socket.end(`HTTP/1.1 ${String(status)} ${text}\r\nconnection: close\r\ncontent-type: text/plain\r\ncontent-length: ${String(Buffer.byteLength(reason))}\r\n\r\n${reason}`);
  }
}

/**
 * Starts an HTTP proxy on 127.0.0.1 (random port) that resolves every destination and checks it
 * with fetcher-http's SSRF guard before connecting: CONNECT tunnels (HTTPS, WebSockets, TURN over
 * TCP) and plain forwarded requests alike. The browser is launched with `--proxy-server` pointing
 * here, so whatever escapes request interception (prefetches, preconnects, WebRTC's TCP
 * candidates) meets the same guard as the fetchers; with WebRTC limited to proxied transports,
 * no UDP leaves. Every socket error ends that connection only.
 */
export async function startGuardProxy(options: GuardProxyOptions = {}): Promise<GuardProxy> {
  const guard: GuardOptions = {
    ...(options.allowPrivateNetworks === undefined ? {} : { allowPrivateNetworks: options.allowPrivateNetworks }),
    ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
    ...(options.allowAddresses === undefined ? {} : { allowAddresses: options.allowAddresses.map((a) => a.toLowerCase()) }),
  };
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const sockets = new Set<Duplex>();
  const refusedLog: string[] = [];
  let passed = 0;

  const track = (socket: Duplex): void => {
    sockets.add(socket);
    socket.on("error", () => socket.destroy());
    socket.once("close", () => sockets.delete(socket));
  };
  const noteRefused = (destination: string): void => {
    refusedLog.push(destination);
    if (refusedLog.length > 100) refusedLog.shift();
  };

  /** Resolves through the guard; null (and the destination logged) when refused or unresolvable. */
  async function guarded(host: string, port: number): Promise<{ address: string; refused: boolean } | null> {
    try {
      const [first] = await resolveGuarded(host, guard);
      return first === undefined ? null : { address: first.address, refused: false };
    } catch (error) {
      noteRefused(`${host}:${String(port)}`);
      return { address: "", refused: isFetchError(error) && error.code === "unsafe_url" };
    }
  }

  const server = http.createServer();
  server.on("connection", track);
  server.on("clientError", (_error, socket) => socket.destroy());

  server.on("connect", (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const target = parseAuthority(req.url ?? "");
    if (target === null) {
      reject(client, 400, "CONNECT needs host:port");
      return;
    }
    void guarded(target.host.replace(/^\[|\]$/g, ""), target.port).then((resolved) => {
      if (client.destroyed) return;
      if (resolved === null || resolved.address === "") {
        reject(client, resolved?.refused === true ? 403 : 502, "Destination refused by the driftwatch guard");
        return;
      }
      const upstream = net.connect({ host: resolved.address, port: target.port, timeout: connectTimeoutMs });
      track(upstream);
      let established = false;
      upstream.once("timeout", () => upstream.destroy());
      upstream.once("connect", () => {
        established = true;
        upstream.setTimeout(0);
        passed += 1;
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.once("close", () => {
        if (!established) reject(client, 502, "Could not connect");
        else client.destroy();
      });
      client.once("close", () => upstream.destroy());
    });
  });

  server.on("upgrade", (_req: http.IncomingMessage, socket: Duplex) => {
    track(socket);
    reject(socket, 403, "Upgrades are not proxied");
  });

  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    let url: URL;
    try {
      url = parseFetchUrl(req.url ?? "");
      if (url.protocol !== "http:") throw new Error("not http");
    } catch {
      res.writeHead(400, { "content-type": "text/plain", connection: "close" }).end("Absolute http URL expected");
      return;
    }
    const port = url.port === "" ? 80 : Number(url.port);
    void guarded(url.hostname.replace(/^\[|\]$/g, ""), port).then((resolved) => {
      if (res.destroyed) return;
      if (resolved === null || resolved.address === "") {
        res.writeHead(resolved?.refused === true ? 403 : 502, { "content-type": "text/plain", connection: "close" }).end("Destination refused by the driftwatch guard");
        return;
      }
      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
      const upstream = http.request({ host: resolved.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers, timeout: connectTimeoutMs, agent: false });
      upstream.on("error", () => {
        if (!res.headersSent) res.writeHead(502, { connection: "close" }).end();
        else res.destroy();
      });
      upstream.on("timeout", () => upstream.destroy());
      upstream.on("response", (answer) => {
        passed += 1;
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
        res.writeHead(answer.statusCode ?? 502, out);
        answer.on("error", () => res.destroy());
        answer.pipe(res);
      });
      res.on("close", () => upstream.destroy());
      req.on("error", () => upstream.destroy());
      req.pipe(upstream);
    });
  });

  await new Promise<void>((resolve, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", fail);
      resolve();
    });
  });
  server.on("error", () => undefined);
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    refused: () => [...refusedLog],
    passed: () => passed,
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
