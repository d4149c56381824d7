import http from "node:http";
import type { AddressInfo } from "node:net";

export interface TestServer {
  url: string;
  port: number;
  /** TCP connections accepted so far (a refused fetch must leave this at 0). */
  connections: number;
  /** Request lines seen, e.g. `GET /a`. */
  requests: string[];
  /** Headers of the last request. */
  lastHeaders: http.IncomingHttpHeaders;
  close(): Promise<void>;
}

/** Starts an HTTP server on `host` (default 127.0.0.1), random port. */
export async function startServer(handler: http.RequestListener, host = "127.0.0.1"): Promise<TestServer> {
  const server = http.createServer();
  const state: TestServer = {
    url: "",
    port: 0,
    connections: 0,
    requests: [],
    lastHeaders: {},
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on("connection", () => {
    state.connections += 1;
  });
  server.on("request", (req, res) => {
    state.requests.push(`${req.method ?? ""} ${req.url ?? ""}`);
    state.lastHeaders = req.headers;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://${host}:${String(state.port)}`;
  return state;
}
