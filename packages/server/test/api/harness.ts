import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { buildPendingDiffDetectedEvent, FetchError, newId, type CheckResult, type Scope, type Store, type WorkerRunResult } from "@driftwatch/core";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { pino } from "pino";
import { buildApp } from "../../src/app.js";
import type { EventHub } from "../../src/live/events.js";
import type { ServerSecrets } from "../../src/config/secret-key.js";
import type { Notifier } from "@driftwatch/notify";
import { generateTokenSecret, hashTokenSecret } from "../../src/index.js";
import type { AppDependencies, CheckService, DeliveryService, MetricsRegistry, ServerConfig, UrlGuard } from "../../src/types.js";

export const ALL_SCOPES: Scope[] = ["monitors:read", "monitors:write", "webhooks:read", "webhooks:write", "admin"];

/** Check service double: records calls and answers what the test queued (a result or an error). */
export class RecordingChecks implements CheckService {
  calls: Array<{ orgId: string; monitorId: string; requestId: string }> = [];
  next: Array<CheckResult | null | Error> = [];
  constructor(private readonly store: Store) {}
  async checkNow(orgId: string, monitorId: string, context: { requestId: string }): Promise<CheckResult | null> {
    this.calls.push({ orgId, monitorId, requestId: context.requestId });
    // as the contract says: null for a monitor that is not in this organization
    if ((await this.store.getMonitor(orgId, monitorId)) === null) return null;
    const answer = this.next.shift();
    if (answer === undefined) throw new Error("RecordingChecks: no answer queued");
    if (answer instanceof Error) throw answer;
    return answer;
  }
}

export class RecordingDeliveries implements DeliveryService {
  calls: Array<{ orgId: string; webhookId: string | undefined; force: boolean }> = [];
  result: WorkerRunResult = { attempted: 0, succeeded: 0, failed: 0, pending: 0 };
  async runWorker(orgId: string, options: { webhookId?: string | undefined; force: boolean }): Promise<WorkerRunResult> {
    this.calls.push({ orgId, webhookId: options.webhookId, force: options.force });
    return this.result;
  }
}

/** A guard that refuses hosts named in `refused` and loopback/private literals, like the real one would by default. */
export class TestUrlGuard implements UrlGuard {
  calls: string[] = [];
  async assertSafeUrl(url: string): Promise<void> {
    this.calls.push(url);
    const host = new URL(url).hostname;
    if (host.endsWith(".invalid")) throw new FetchError("dns_failure", `${host} does not resolve`);
    if (host.startsWith("weird.")) throw new FetchError("invalid_url", `${host} cannot be fetched`);
    if (host === "127.0.0.1" || host === "localhost" || host.startsWith("10.") || host === "169.254.169.254" || host === "[::1]") {
      throw new FetchError("unsafe_url", `${host} is a loopback, private or metadata address`);
    }
  }
}

export interface Tenant {
  orgId: string;
  /** Bearer secret of a token with every scope. */
  admin: string;
  token(scopes: Scope[], name?: string): Promise<{ id: string; secret: string }>;
}

export interface Harness {
  app: FastifyInstance;
  store: Store;
  checks: RecordingChecks;
  deliveries: RecordingDeliveries;
  guard: TestUrlGuard;
  a: Tenant;
  b: Tenant;
  logLines: Array<Record<string, unknown>>;
  clock: { now: Date };
  request(secret: string | null, options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Another app (another "process") on the same store and clock. */
  buildAnother(): Promise<FastifyInstance>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  config?: Partial<ServerConfig>;
  /** Hide the store's shared rate-limit counters (as a store without the capability would). */
  withoutStoreRateLimits?: boolean;
  /** Real services instead of the recording doubles (e.g. the engine's createCheckService). */
  checks?: (store: Store, now: () => Date) => CheckService;
  deliveries?: (store: Store, now: () => Date) => DeliveryService;
  urlGuard?: UrlGuard;
  metrics?: (store: Store) => MetricsRegistry;
  /** Live events hub for the app (`observeStore` on `store` publishes into it). */
  events?: EventHub;
  /** The dashboard directory to serve (default null: none). */
  dashboardDir?: string | null;
  /** Another store than the SQLite default (e.g. PostgreSQL); `close` cleans up after it. */
  store?: () => Promise<{ store: Store; close(): Promise<void> }>;
  /** The server key (default none: routes storing a secret answer 503 secret_key_missing). */
  secrets?: ServerSecrets;
  /** The notifier of `/api/channels` (default: the app's own). */
  notifier?: Notifier;
  /** More dependencies of the app (the secret box, the browser fetcher, a screenshot storage). */
  extra?: Partial<AppDependencies>;
}

/** A real SQLite store on a temp file, two organizations, and the app on top. */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "dw-api-"));
  const custom = await options.store?.();
  const store = custom?.store ?? (await createSqliteStore({ filename: join(dir, "api.db") }));
  const checks = new RecordingChecks(store);
  const deliveries = new RecordingDeliveries();
  const guard = new TestUrlGuard();
  const logLines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString("utf8").split("\n")) if (line.trim() !== "") logLines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  const clock = { now: new Date() };
  const config: ServerConfig = {
    allowPrivateNetworks: false,
    rateLimitReads: 10_000,
    rateLimitWrites: 10_000,
    bodyLimitBytes: 64 * 1024,
    ...options.config,
  };
  const appStore: Store = options.withoutStoreRateLimits
    ? new Proxy(store, {
        get(target, property, receiver) {
          if (property === "capabilities") return { ...target.capabilities, rateLimits: false };
          if (property === "hitRateLimit") return undefined;
          const value = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      })
    : store;
  const now = (): Date => new Date(clock.now.getTime());
  const deps: AppDependencies = {
    store: appStore,
    checks: options.checks?.(store, now) ?? checks,
    deliveries: options.deliveries?.(store, now) ?? deliveries,
    urlGuard: options.urlGuard ?? guard,
    config,
    logger: pino({ level: "info" }, sink),
    now,
    dashboardDir: options.dashboardDir ?? null,
    ...options.extra,
  };
  if (options.events !== undefined) deps.events = options.events;
  if (options.secrets !== undefined) deps.secrets = options.secrets;
  if (options.notifier !== undefined) deps.notifier = options.notifier;
  const metrics = options.metrics?.(store);
  if (metrics !== undefined) deps.metrics = metrics;
  const app = await buildApp(deps);
  await app.ready();
  const others: FastifyInstance[] = [];

  async function tenant(slug: string): Promise<Tenant> {
    const org = await store.ensureOrganization(slug);
    const token = async (scopes: Scope[], name = scopes.join(",")): Promise<{ id: string; secret: string }> => {
      const secret = generateTokenSecret();
      const record = await store.createToken(org.id, { name, scopes, tokenHash: hashTokenSecret(secret) });
      return { id: record.id, secret };
    };
    const admin = await token(ALL_SCOPES, "admin");
    return { orgId: org.id, admin: admin.secret, token };
  }

  const a = await tenant("acme");
  const b = await tenant("globex");
  return {
    app,
    store,
    checks,
    deliveries,
    guard,
    a,
    b,
    logLines,
    clock,
    request(secret, opts) {
      const headers = { ...(opts.headers ?? {}) } as Record<string, string>;
      if (secret !== null) headers.authorization = `Bearer ${secret}`;
      return app.inject({ ...opts, headers });
    },
    async buildAnother() {
      const other = await buildApp(deps);
      await other.ready();
      others.push(other);
      return other;
    },
    async close() {
      for (const other of others) await other.close();
      await app.close();
      if (custom !== undefined) await custom.close();
      else await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Parses a JSON or problem body. */
export function json<T = Record<string, any>>(res: LightMyRequestResponse): T {
  return JSON.parse(res.body) as T;
}

/** Asserts the RFC 9457 shape and returns the problem. */
export function expectProblem(res: LightMyRequestResponse, status: number, code: string): Record<string, any> {
  const body = json(res);
  const message = `expected ${status} ${code}, got ${res.statusCode} ${res.body}`;
  if (res.statusCode !== status || body.code !== code) throw new Error(message);
  if (!String(res.headers["content-type"]).startsWith("application/problem+json")) throw new Error(`not a problem content type: ${res.headers["content-type"]}`);
  if (body.status !== status || typeof body.title !== "string" || typeof body.detail !== "string" || typeof body.type !== "string") {
    throw new Error(`not an RFC 9457 body: ${res.body}`);
  }
  if (body.requestId !== res.headers["x-request-id"] || !/^req_/.test(String(body.requestId))) throw new Error(`requestId mismatch: ${res.body}`);
  return body;
}

export const apiMonitor = { type: "api", name: "Prices", url: "https://api.example.com/prices" } as const;
export const websiteMonitor = { type: "website", name: "Home", url: "https://www.example.com/" } as const;

export interface SeededCheck {
  snapshotId: string;
  diffId: string;
  deliveryIds: string[];
}

/** Records one check with a snapshot, an API diff and its event through the real store (as the engine would). */
export async function seedCheck(
  store: Store,
  orgId: string,
  monitorId: string,
  options: { severity?: "info" | "low" | "medium" | "high" | "critical"; at?: Date; body?: string; previousSnapshotId?: string | null } = {},
): Promise<SeededCheck> {
  const at = options.at ?? new Date();
  const snapshotId = newId("snapshot", at.getTime());
  const diffId = newId("diff", at.getTime());
  const body = options.body ?? JSON.stringify({ price: Math.random() });
  const severity = options.severity ?? "critical";
  const changes = [{ path: "$.price", category: "schema" as const, op: "replace" as const, severity, detail: "type changed" }];
  const result = await store.recordCheck(orgId, {
    monitorId,
    monitor: { lastCheckedAt: at.toISOString(), lastChangedAt: at.toISOString(), lastStatus: 200 },
    snapshot: {
      id: snapshotId,
      fetchedAt: at.toISOString(),
      status: 200,
      latencyMs: 12,
      contentType: "application/json",
      contentHash: "sha256:" + createHash("sha256").update(body).digest("hex"),
      size: Buffer.byteLength(body),
      browserRender: false,
      body,
    },
    diff: {
      id: diffId,
      previousSnapshotId: options.previousSnapshotId ?? null,
      classification: "schema_change",
      schemaChanges: 1,
      valueChanges: 0,
      topSeverity: severity,
      diffFingerprint: "sha256:" + createHash("sha256").update(diffId).digest("hex"),
      changes,
      requestId: newId("request"),
      status: 200,
      latencyMs: 12,
      createdAt: at.toISOString(),
    },
    event: buildPendingDiffDetectedEvent({ id: diffId, monitorId, snapshotId, classification: "schema_change", changes }, { occurredAt: at }),
  });
  return { snapshotId, diffId, deliveryIds: result.deliveries.map((d) => d.id) };
}
