import { randomUUID, timingSafeEqual } from "node:crypto";
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
  /**
   * Opens a scope (a browser context, say): proxy credentials of its own and, on a proxy started
   * with `scoped`, the only way through. Closing the proxy closes every scope.
   */
  openScope(): ProxyScope;
  close(): Promise<void>;
}

/** What one scope may send through a `scoped` proxy: only what it was told to let through. */
export interface ProxyScope {
  /** Proxy credentials of the scope (`browser.newContext({ proxy: { server, username, password } })`). */
  readonly username: string;
  readonly password: string;
  /**
   * Lets one request `method url` of the scope through (to a destination the guard allows), for
   * {@link ALLOWANCE_MS} (an `https:` URL needs none: a CONNECT of an open scope passes). When a
   * forwarded request is answered with a redirect, its next hop is let through the same way.
   */
  allow(method: string, url: string): void;
  /** From now on every request and CONNECT of the scope is refused; its tunnels and forwarded requests end. */
  close(): void;
}

/** How long an allowance waits for its request. */
export const ALLOWANCE_MS = 30_000;

export interface GuardProxyOptions extends GuardOptions {
  /** Time to connect to a destination, in ms. Default 10 000. */
  connectTimeoutMs?: number;
  /**
   * Pass only what a scope let through ({@link ProxyScope.allow}): a request or CONNECT without
   * the credentials of an open scope is answered 407 (no credentials) or 403, and so is one its
   * scope did not allow. Default false: everything the guard allows passes.
   */
  scoped?: boolean;
}

interface ScopeState {
  password: Buffer;
  open: boolean;
  /** Allowance key (see allowanceKey) -> expiry times, one per request let through. */
  allowances: Map<string, number[]>;
  /** Sockets and upstream requests of the scope, ended when it closes. */
  sockets: Set<Duplex>;
}

/** `GET http://host:port/path?query` for plain HTTP; `CONNECT host:port` for HTTPS. */
function allowanceKey(method: string, url: URL): string | null {
  if (url.protocol === "https:") return `CONNECT ${url.hostname}:${url.port === "" ? "443" : url.port}`;
  if (url.protocol !== "http:") return null;
  const bare = new URL(url.href);
  bare.hash = "";
  return `${method.toUpperCase()} ${bare.href}`;
}

/** The method a browser uses for the next hop of a redirect (fetch spec, as Chromium does). */
export function redirectMethod(status: number, method: string): string {
  const upper = method.toUpperCase();
  if (status === 303 && upper !== "HEAD") return "GET";
  if ((status === 301 || status === 302) && upper === "POST") return "GET";
  return upper;
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

const PROXY_AUTHENTICATE = 'Basic realm="driftwatch"';

/** Refuses a CONNECT: 407 asks for the scope's credentials, 403 is final. */
function refuse(socket: Duplex, status: 403 | 407): void {
  if (status === 403) {
    reject(socket, 403, "Not let through by the driftwatch proxy");
    return;
  }
  if (!socket.destroyed && socket.writable) {
    socket.end(`HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: ${PROXY_AUTHENTICATE}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  }
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
  const scoped = options.scoped ?? false;
  const scopes = new Map<string, ScopeState>();
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

  function allowNext(scope: ScopeState, key: string): void {
    const expiries = scope.allowances.get(key) ?? [];
    expiries.push(Date.now() + ALLOWANCE_MS);
    scope.allowances.set(key, expiries);
  }

  /** Takes one allowance of `key`; false when there is none left (expired ones are dropped). */
  function takeAllowance(scope: ScopeState, key: string): boolean {
    const now = Date.now();
    const expiries = (scope.allowances.get(key) ?? []).filter((expiry) => expiry > now);
    const taken = expiries.shift() !== undefined;
    if (expiries.length === 0) scope.allowances.delete(key);
    else scope.allowances.set(key, expiries);
    return taken;
  }

  /** The open scope whose credentials the request carries: null with no or wrong ones. */
  function scopeOf(req: http.IncomingMessage): ScopeState | null {
    const match = /^\s*basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers["proxy-authorization"] ?? "");
    if (match === null) return null;
    const decoded = Buffer.from(match[1] ?? "", "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const scope = colon < 0 ? undefined : scopes.get(decoded.slice(0, colon));
    if (scope === undefined || !scope.open) return null;
    const password = Buffer.from(decoded.slice(colon + 1), "utf8");
    return password.length === scope.password.length && timingSafeEqual(password, scope.password) ? scope : null;
  }

  /**
   * On a `scoped` proxy: the scope that let this request through (its allowance taken), or the
   * status to refuse it with, 407 when it carries no credentials (the browser then sends its
   * context's), 403 otherwise. Without `scoped`: no scope, nothing refused.
   *
   * A CONNECT (an HTTPS tunnel) of an open scope passes without an allowance (one is taken when
   * there is one): the proxy cannot see the redirects inside a tunnel, so a chain of HTTPS hops
   * across hosts (`https://example.com` -> `https://www.example.com/`) could not be followed
   * otherwise. What a tunnel reaches is still the guard's to allow, and nothing passes once the
   * scope is closed, which is what keeps a popup or an ended render from sending anything after
   * the render. Plain-HTTP requests, which the proxy sees, need an allowance.
   */
  function admit(req: http.IncomingMessage, key: string | null, tunnel = false): { scope: ScopeState | null } | { status: 403 | 407 } {
    if (!scoped) return { scope: null };
    if (req.headers["proxy-authorization"] === undefined) return { status: 407 };
    const scope = scopeOf(req);
    if (scope === null || key === null) return { status: 403 };
    if (!takeAllowance(scope, key) && !tunnel) return { status: 403 };
    return { scope };
  }

  /** Ties a socket to its scope: it ends when the scope closes. */
  function bind(scope: ScopeState | null, socket: Duplex): void {
    if (scope === null || scope.sockets.has(socket)) return;
    scope.sockets.add(socket);
    socket.once("close", () => scope.sockets.delete(socket));
  }

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
    const admitted = admit(req, `CONNECT ${target.host.toLowerCase()}:${String(target.port)}`, true);
    if ("status" in admitted) {
      noteRefused(req.url ?? "");
      refuse(client, admitted.status);
      return;
    }
    const { scope } = admitted;
    bind(scope, client);
    void guarded(target.host.replace(/^\[|\]$/g, ""), target.port).then((resolved) => {
      if (client.destroyed) return;
      if (scope !== null && !scope.open) {
        client.destroy();
        return;
      }
      if (resolved === null || resolved.address === "") {
        reject(client, resolved?.refused === true ? 403 : 502, "Destination refused by the driftwatch guard");
        return;
      }
      const upstream = net.connect({ host: resolved.address, port: target.port, timeout: connectTimeoutMs });
      track(upstream);
      bind(scope, upstream);
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
    const admitted = admit(req, allowanceKey(req.method ?? "GET", url));
    if ("status" in admitted) {
      noteRefused(`${url.hostname}:${String(port)}`);
      res.writeHead(admitted.status, { "content-type": "text/plain", connection: "close", ...(admitted.status === 407 ? { "proxy-authenticate": PROXY_AUTHENTICATE } : {}) }).end("Not let through by the driftwatch proxy");
      return;
    }
    const { scope } = admitted;
    bind(scope, req.socket);
    void guarded(url.hostname.replace(/^\[|\]$/g, ""), port).then((resolved) => {
      if (res.destroyed) return;
      if (scope !== null && !scope.open) {
        res.destroy();
        return;
      }
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
        // The browser follows a redirect with a new request: its next hop is let through too.
        const location = answer.headers.location;
        const status = answer.statusCode ?? 0;
        if (scope?.open === true && location !== undefined && status >= 300 && status < 400) {
          try {
            const key = allowanceKey(redirectMethod(status, req.method ?? "GET"), new URL(location, url));
            if (key !== null) allowNext(scope, key);
          } catch {
            // an unparsable Location leads nowhere
          }
        }
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
    openScope(): ProxyScope {
      const username = randomUUID();
      const password = randomUUID();
      const scope: ScopeState = { password: Buffer.from(password, "utf8"), open: true, allowances: new Map(), sockets: new Set() };
      scopes.set(username, scope);
      return {
        username,
        password,
        allow(method: string, url: string): void {
          if (!scope.open) return;
          let parsed: URL;
          try {
            parsed = new URL(url);
          } catch {
            return;
          }
          const key = allowanceKey(method, parsed);
          if (key !== null) allowNext(scope, key);
        },
        close(): void {
          scope.open = false;
          scope.allowances.clear();
          scopes.delete(username);
          for (const socket of scope.sockets) socket.destroy();
        },
      };
    },
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
