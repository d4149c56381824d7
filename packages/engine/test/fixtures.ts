import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import {
  buildPendingDiffDetectedEvent,
  diffJson,
  generateWebhookSecret,
  newId,
  type DeliveryRecord,
  type MonitorRecord,
  type NewChannel,
  type NewMonitor,
  type NewWebhook,
  type Store,
  type WebhookRecord,
} from "@driftwatch/core";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { afterAll, beforeAll } from "vitest";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import type { Fetcher } from "@driftwatch/core";
import { createComparePool, type ComparePool } from "../src/workers/compare-pool.js";

/** A real SQLite store on a file in a fresh temp folder. */
export async function openTempStore(now?: () => Date): Promise<{ store: Store; orgId: string; cleanup(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-engine-"));
  const store = await createSqliteStore({ filename: path.join(dir, "engine.db"), ...(now ? { now } : {}) });
  const org = await store.createOrganization({ slug: `org-${path.basename(dir)}`.toLowerCase() });
  return {
    store,
    orgId: org.id,
    async cleanup() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * What the engine's tests run on: a SQLite store with one organization, a loopback JSON target, an
 * HTTP fetcher allowed to reach it, and a loopback webhook receiver.
 */
export interface CheckSetup {
  store: Store;
  orgId: string;
  target: Target;
  fetcher: Fetcher;
  receiver: Receiver;
  /** A compare pool with these limits, closed by `close()`. */
  pool(limits?: Parameters<typeof createComparePool>[0]): ComparePool;
  /** Closes the pools, the fetcher, the target and the store, and removes the store's folder. */
  close(): Promise<void>;
}

export async function openCheckSetup(now?: () => Date): Promise<CheckSetup> {
  const { store, orgId, cleanup } = await openTempStore(now);
  const target = await startTarget();
  const fetcher = createHttpFetcher({ allowPrivateNetworks: true });
  const receiver = await startReceiver();
  const pools: ComparePool[] = [];
  return {
    store,
    orgId,
    target,
    fetcher,
    receiver,
    pool(limits) {
      const created = createComparePool(limits);
      pools.push(created);
      return created;
    },
    async close() {
      await Promise.all(pools.map((pool) => pool.close()));
      await fetcher.close();
      await target.close();
      await receiver.close();
      await cleanup();
    },
  };
}

/**
 * A `CheckSetup` opened before the tests of the calling describe block and closed after them; its
 * members are read when a test runs.
 */
export function useCheckSetup(now?: () => Date): CheckSetup {
  let opened: CheckSetup | undefined;
  beforeAll(async () => {
    opened = await openCheckSetup(now);
  });
  afterAll(() => opened?.close());
  const current = (): CheckSetup => {
    if (opened === undefined) throw new Error("useCheckSetup: its members are there only while the block's tests run");
    return opened;
  };
  return {
    get store() {
      return current().store;
    },
    get orgId() {
      return current().orgId;
    },
    get target() {
      return current().target;
    },
    get fetcher() {
      return current().fetcher;
    },
    get receiver() {
      return current().receiver;
    },
    pool: (limits) => current().pool(limits),
    close: () => current().close(),
  };
}

/** A clock the test moves by hand. */
export function manualClock(start = Date.parse("2026-01-01T00:00:00.000Z")): { now: () => Date; advance(ms: number): void; set(ms: number): void; ms(): number } {
  let current = start;
  return {
    now: () => new Date(current),
    advance(ms) {
      current += ms;
    },
    set(ms) {
      current = ms;
    },
    ms: () => current,
  };
}

export interface TestServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

async function listen(server: http.Server): Promise<{ url: string; port: number }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${String(port)}`, port };
}

function closer(server: http.Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** A local target answering every path with the current body (JSON or HTML), or a set status. */
export interface Target extends TestServer {
  setJson(value: unknown): void;
  setHtml(html: string): void;
  setStatus(status: number): void;
  /** Requests received, by path. */
  hits: string[];
}

export async function startTarget(): Promise<Target> {
  let body = "{}";
  let contentType = "application/json";
  let status = 200;
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? "/");
    res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  const { url, port } = await listen(server);
  return {
    url,
    port,
    hits,
    close: closer(server),
    setJson(value) {
      body = JSON.stringify(value);
      contentType = "application/json";
    },
    setHtml(html) {
      body = html;
      contentType = "text/html; charset=utf-8";
    },
    setStatus(next) {
      status = next;
    },
  };
}

export interface ReceivedRequest {
  body: string;
  headers: Record<string, string>;
  path: string;
}

/** A local webhook receiver that records each request and answers with the next queued reply (default 204). */
export interface Receiver extends TestServer {
  received: ReceivedRequest[];
  /** Replies used in order, one per request; when empty the receiver answers `fallback`. */
  reply(...replies: Reply[]): void;
  fallback: Reply;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Never answer. */
  hang?: boolean;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const queue: Reply[] = [];
  const state: Receiver = {
    url: "",
    port: 0,
    received,
    fallback: { status: 204 },
    close: async () => undefined,
    reply(...replies) {
      queue.push(...replies);
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
      received.push({ body: Buffer.concat(chunks).toString("utf8"), headers, path: req.url ?? "/" });
      const reply = queue.shift() ?? state.fallback;
      if (reply.hang === true) return; // never answers (closed with the server)
      res.writeHead(reply.status, reply.headers ?? {});
      res.end();
    });
  });
  const { url, port } = await listen(server);
  state.url = url;
  state.port = port;
  state.close = closer(server);
  return state;
}

/** A Slack channel that takes every change of the organization, with `overrides`. */
export function newChannel(overrides: Partial<NewChannel> = {}): NewChannel {
  return {
    name: "ops",
    service: "slack",
    urlSealed: "sealed",
    urlMasked: "slack://***/***/***",
    minSeverity: "info",
    tags: [],
    events: ["diff.detected"],
    groupSeconds: 0,
    quietHours: null,
    template: null,
    paused: false,
    ...overrides,
  };
}

export async function createMonitor(store: Store, orgId: string, input: Partial<NewMonitor> & { url: string }): Promise<MonitorRecord> {
  return store.createMonitor(orgId, {
    type: "api",
    name: "test monitor",
    method: "GET",
    headers: {},
    body: null,
    intervalSeconds: 60,
    selector: null,
    browserOptionsJson: null,
    state: "active",
    nextCheckAt: null,
    ...input,
  });
}

export async function createWebhook(store: Store, orgId: string, input: Partial<NewWebhook> & { url: string }): Promise<WebhookRecord> {
  return store.createWebhook(orgId, {
    description: null,
    events: ["diff.detected"],
    monitorIds: null,
    minSeverity: "info",
    enabled: true,
    secret: generateWebhookSecret(),
    ...input,
  });
}

/**
 * Records one check with a diff and its outbox event straight through the store (what the check
 * pipeline does), so delivery tests control the time the deliveries become due.
 */
export async function recordDiff(
  store: Store,
  orgId: string,
  monitorId: string,
  at: Date,
  changes: { before: unknown; after: unknown } = { before: { price: 1 }, after: { price: 2 } },
): Promise<{ diffId: string; eventId: string; deliveries: DeliveryRecord[] }> {
  const found = diffJson(changes.before, changes.after);
  if (found === null) throw new Error("the fixture's documents do not differ");
  const snapshotId = newId("snapshot", at.getTime());
  const diffId = newId("diff", at.getTime());
  const body = JSON.stringify(changes.after);
  const event = buildPendingDiffDetectedEvent(found, { monitorId, snapshotId, diffId, occurredAt: at });
  const recorded = await store.recordCheck(orgId, {
    monitorId,
    monitor: { lastCheckedAt: at.toISOString(), lastChangedAt: at.toISOString(), updatedAt: at.toISOString() },
    snapshot: {
      id: snapshotId,
      fetchedAt: at.toISOString(),
      status: 200,
      latencyMs: 1,
      contentType: "application/json",
      contentHash: `sha256:${createHash("sha256").update(body).digest("hex")}`,
      size: Buffer.byteLength(body),
      browserRender: false,
      body,
    },
    diff: { ...found, id: diffId, previousSnapshotId: null, requestId: "req_fixture00", status: 200, latencyMs: 1, createdAt: at.toISOString() },
    event,
  });
  return { diffId, eventId: event.eventId, deliveries: recorded.deliveries };
}

/** A JSON target that holds every request until the test lets it go, counting concurrency. */
export interface GatedTarget extends TestServer {
  /** Requests held right now. */
  readonly parked: number;
  /** Most requests held at once so far. */
  readonly maxParked: number;
  readonly total: number;
  /** Answers every held request (and, when `open`, every later one at once). */
  releaseAll(open?: boolean): void;
}

export async function startGatedTarget(body: unknown = { ok: true }): Promise<GatedTarget> {
  const held: http.ServerResponse[] = [];
  let maxParked = 0;
  let total = 0;
  let open = false;
  const text = JSON.stringify(body);
  const answer = (res: http.ServerResponse): void => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(text);
  };
  const server = http.createServer((req, res) => {
    total++;
    req.resume();
    if (open) return answer(res);
    held.push(res);
    maxParked = Math.max(maxParked, held.length);
    res.on("close", () => {
      const i = held.indexOf(res);
      if (i >= 0) held.splice(i, 1);
    });
  });
  const { url, port } = await listen(server);
  return {
    url,
    port,
    close: closer(server),
    get parked() {
      return held.length;
    },
    get maxParked() {
      return maxParked;
    },
    get total() {
      return total;
    },
    releaseAll(nextOpen = false) {
      open = nextOpen;
      for (const res of held.splice(0, held.length)) answer(res);
    },
  };
}
