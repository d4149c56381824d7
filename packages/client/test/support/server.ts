import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The built `driftwatch` CLI of @driftwatch/server (turbo builds it before these tests). */
export function cliPath(): string {
  const dir = path.dirname(require.resolve("@driftwatch/server/package.json"));
  const cli = path.join(dir, "dist", "cli.js");
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: build @driftwatch/server first (npx turbo run build)`);
  return cli;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  baseUrl: string;
  adminToken: string;
  databaseUrl: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `driftwatch serve` from the built CLI on a fresh SQLite file, with the SSRF guard lifted for local targets. */
export async function startServer(options: { env?: Record<string, string>; args?: string[] } = {}): Promise<RunningServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-client-e2e-"));
  const port = await freePort();
  const adminToken = "dw_" + randomBytes(32).toString("base64url");
  const databaseUrl = `sqlite:${path.join(dir, "driftwatch.db")}`;
  let log = "";
  const child: ChildProcess = spawn(
    process.execPath,
    [cliPath(), "serve", "--host", "127.0.0.1", "--port", String(port), "--database", databaseUrl, "--allow-private-networks", ...(options.args ?? [])],
    { env: { ...process.env, DRIFTWATCH_ADMIN_TOKEN: adminToken, ...options.env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout!.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`driftwatch serve exited with ${child.exitCode}:\n${log}`);
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`driftwatch serve did not become healthy in 30 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    adminToken,
    databaseUrl,
    output: () => log,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A local JSON target whose body the test changes. */
export async function startTarget(initial: unknown): Promise<{ url: string; set(body: unknown): void; close(): Promise<void> }> {
  let body = JSON.stringify(initial);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/data.json`,
    set: (next) => void (body = JSON.stringify(next)),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/**
 * A proxy in front of the server that forwards the first matching request but drops its response
 * (destroys the client socket after the upstream answered), then passes everything through.
 */
export async function startDroppingProxy(
  upstream: string,
  shouldDrop: (req: http.IncomingMessage) => boolean,
): Promise<{ url: string; dropped: () => number; close(): Promise<void> }> {
  let dropped = 0;
  const target = new URL(upstream);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const drop = dropped === 0 && shouldDrop(req);
      const up = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (upRes) => {
          const body: Buffer[] = [];
          upRes.on("data", (c: Buffer) => body.push(c));
          upRes.on("end", () => {
            if (drop) {
              dropped++;
              req.socket.destroy();
              return;
            }
            res.writeHead(upRes.statusCode ?? 502, upRes.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      up.on("error", () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dropped: () => dropped,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
