// Plain test servers and pages, free of vitest (the process-level test's child uses them).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface TestServer {
  url: string;
  port: number;
  connections: number;
  /** Paths requested so far, in order. */
  paths: string[];
  close(): Promise<void>;
}

export async function startServer(handler: http.RequestListener, host = "127.0.0.1"): Promise<TestServer> {
  const server = http.createServer();
  const state: TestServer = {
    url: "",
    port: 0,
    connections: 0,
    paths: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on("connection", () => (state.connections += 1));
  server.on("upgrade", (_req, socket) => socket.destroy());
  server.on("request", (req, res) => {
    state.paths.push(req.url ?? "");
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://${host}:${String(state.port)}`;
  return state;
}

export function html(body: string, head = ""): string {
  return `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
}
