import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";

const here = path.dirname(fileURLToPath(import.meta.url));
export const packageDir = path.resolve(here, "../..");
export const cliPath = path.join(packageDir, "dist", "cli.js");

export function newAdminToken(): string {
  return "dw_" + randomBytes(32).toString("base64url");
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

/** Every child the tests started, so afterAll (and a crashed test) can never leave one behind. */
const children = new Set<ChildProcess>();
export function killAllChildren(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  children.clear();
}
process.once("exit", killAllChildren);

export interface ServerProcess {
  baseUrl: string;
  port: number;
  child: ChildProcess;
  output(): string;
  /** Resolves with how the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs the built CLI with `args` until `/readyz` answers 200. */
export async function startCli(args: string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  let log = "";
  const child = spawn(process.execPath, [cliPath, "serve", "--host", "127.0.0.1", "--port", String(port), ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  child.stdout!.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (log += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`driftwatch serve exited with ${child.exitCode}:\n${log}`);
    const ready = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`driftwatch serve was not ready within 60 s:\n${log}`);
    }
    await sleep(100);
  }
  return {
    baseUrl,
    port,
    child,
    output: () => log,
    exited,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `probe` until it returns a value other than undefined (or throws after `timeoutMs`). */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await sleep(200);
  }
}

/** A tiny JSON HTTP client for the API. */
export function api(baseUrl: string, token: string) {
  return async function call<T = any>(method: string, url: string, body?: unknown): Promise<{ status: number; body: T; headers: Headers }> {
    const res = await fetch(baseUrl + url, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text === "" ? null : JSON.parse(text)) as T, headers: res.headers };
  };
}

/** A local target whose response the test sets (JSON or HTML). Counts requests. */
export async function startTarget(contentType: string, initial: string) {
  let body = initial;
  let requests = 0;
  const server = http.createServer((_req, res) => {
    requests++;
    res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    set(next: string) {
      body = next;
    },
    requests: () => requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface ReceivedEvent {
  eventId: string;
  diffId: string;
  monitorId: string;
  snapshotId: string;
  data: { classification: string; changes: { path: string }[] };
}

/**
 * A webhook receiver that verifies every delivery with the `standardwebhooks` package (the
 * reference implementation, not our own code). Keeps every verified receipt, duplicates included.
 */
export async function startReceiver() {
  let secret: string | null = null;
  const receipts: ReceivedEvent[] = [];
  const rejected: string[] = [];
  let holding = false;
  const held = new Set<string>();
  const server = http.createServer((req, res) => {
    if (holding) {
      // Never answered: the delivery stays in flight until the sender gives up or dies.
      held.add(String(req.headers["webhook-id"]));
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const payload = Buffer.concat(chunks).toString("utf8");
      try {
        if (secret === null) throw new Error("no secret yet");
        const event = new Webhook(secret).verify(payload, req.headers as Record<string, string>) as ReceivedEvent;
        if (req.headers["webhook-id"] !== event.eventId) throw new Error("webhook-id is not the eventId");
        receipts.push(event);
        res.writeHead(204).end();
      } catch (error) {
        rejected.push((error as Error).message);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    setSecret(value: string) {
      secret = value;
    },
    /** While on, requests are held open and never answered (their webhook-ids in `held()`). */
    hold(on: boolean) {
      holding = on;
    },
    held: () => new Set(held),
    receipts: () => [...receipts],
    /** Verified events, one per eventId. */
    unique(): Map<string, ReceivedEvent> {
      return new Map(receipts.map((e) => [e.eventId, e]));
    },
    rejected: () => [...rejected],
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export { createPostgresDatabase, POSTGRES_ADMIN_URL } from "../../../../tooling/test-postgres.js";

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? "/tmp"), prefix));
}
