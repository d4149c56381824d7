/**
 * The client against the real server: `driftwatch serve` started from the built CLI on a fresh
 * SQLite file, local targets and a local webhook receiver. Every resource method, pagination
 * across pages, each error class from a real response, and a retried create through a proxy that
 * drops the first response.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  Driftwatch,
  DriftwatchApiError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  verifyWebhook,
  type DiffDetectedEvent,
} from "../src/index.js";
import { freePort, startDroppingProxy, startServer, startTarget, type RunningServer } from "./support/server.js";

let server: RunningServer;
let client: Driftwatch;
let target: Awaited<ReturnType<typeof startTarget>>;
let receiver: http.Server;
let receiverUrl: string;
const received: Array<{ body: string; headers: Record<string, string>; status: number }> = [];

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  server = await startServer();
  client = new Driftwatch({ baseUrl: server.baseUrl, token: server.adminToken, maxRetries: 0 });
  target = await startTarget({ price: 10, currency: "EUR", items: [{ id: 1, name: "a" }] });
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      // The first attempt of each event is refused with a long Retry-After, so the server's own
      // background worker leaves it pending and the test's forced worker run delivers it.
      const firstAttempt = !received.some((r) => r.headers["webhook-id"] === headers["webhook-id"]);
      const status = firstAttempt ? 503 : 204;
      received.push({ body: Buffer.concat(chunks).toString("utf8"), headers, status });
      if (firstAttempt) res.writeHead(503, { "retry-after": "3600" }).end();
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await target?.close();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
});

describe("resources against the real server", () => {
  it("monitors, checks, diffs, snapshots, settings and webhooks work end to end", async () => {
    const hook = await client.webhooks.create({ url: receiverUrl, description: "client test" });
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.enabled).toBe(true);

    const { data: monitor, requestId } = await client.monitors
      .create({ type: "api", name: "prices", url: target.url, intervalSeconds: 3600, headers: { authorization: "Bearer secret" } })
      .withResponse();
    expect(requestId).toMatch(/^req_/);
    expect(monitor.id).toMatch(/^mon_/);
    expect(monitor.headers).toEqual({ authorization: "***" });
    expect((await client.monitors.get(monitor.id)).name).toBe("prices");

    const first = await client.monitors.check(monitor.id);
    expect(first.diff).toBeNull();
    expect(first.snapshot.monitorId).toBe(monitor.id);

    target.set({ price: "10.00", currency: "EUR", items: [{ id: 0, name: "new" }, { id: 1, name: "a" }] });
    const second = await client.monitors.check(monitor.id);
    expect(second.diff).not.toBeNull();
    const diff = second.diff!;
    expect(diff.classification).toBe("schema_change");
    if (diff.classification !== "content_change") {
      expect(diff.topSeverity).toBe("critical");
      expect(diff.changes.map((c) => c.path)).toEqual(expect.arrayContaining(["$.price"]));
    }

    const diffs = await client.diffs.list(monitor.id);
    expect(diffs.data.map((d) => d.id)).toEqual([diff.id]);
    expect((await client.diffs.get(monitor.id, diff.id)).diffFingerprint).toBe(diff.diffFingerprint);
    expect((await client.diffs.list(monitor.id, { classification: "value_change" })).data).toEqual([]);

    const snapshots = await client.snapshots.list(monitor.id);
    expect(snapshots.data).toHaveLength(2);
    const latest = await client.snapshots.get(monitor.id, second.snapshot.id);
    expect(JSON.parse(latest.body)).toMatchObject({ price: "10.00" });

    // settings: seed 4.1 semantics
    const updated = await client.settings.update(monitor.id, { policyRules: { rules: [{ path: "$.currency", action: "ignore" }] } });
    expect(updated.policyRulesJson.rules).toHaveLength(1);
    expect((await client.settings.update(monitor.id, { snapshotRetention: 50 })).policyRulesJson.rules).toHaveLength(1);
    target.set({ price: "10.00", currency: "USD", items: [{ id: 0, name: "new" }, { id: 1, name: "a" }] });
    expect((await client.monitors.check(monitor.id)).diff).toBeNull();
    expect((await client.settings.get(monitor.id)).snapshotRetention).toBe(50);
    expect((await client.settings.update(monitor.id, { policyRules: { rules: [] } })).policyRulesJson.rules).toEqual([]);

    // the noise profile: three snapshots so far, learned from; the switch that applies it
    const profile = await client.monitors.noise(monitor.id);
    // a new monitor learns by default (the organization's learnNoiseByDefault); a monitor can turn it off
    expect(profile).toMatchObject({ monitorId: monitor.id, samples: 3, minSamples: 2, appliedAutomatically: true });
    expect(Array.isArray(profile.evidence)).toBe(true);
    expect((await client.settings.update(monitor.id, { autoApplySuggestions: false })).autoApplySuggestions).toBe(false);
    expect((await client.monitors.noise(monitor.id)).appliedAutomatically).toBe(false);
    expect((await client.settings.update(monitor.id, { autoApplySuggestions: true })).autoApplySuggestions).toBe(true);
    expect((await client.monitors.noise(monitor.id)).appliedAutomatically).toBe(true);
    await expect(client.monitors.noise("mon_00000000000000000000000000")).rejects.toBeInstanceOf(NotFoundError);
    // the last two snapshots compared again with no policy, and with the stored rules only
    const pair = (await client.snapshots.list(monitor.id)).data;
    const raw = await client.monitors.compare(monitor.id, { from: pair[1]!.id, to: pair[0]!.id, policy: "none" });
    expect(raw).toMatchObject({ monitorId: monitor.id, fromSnapshotId: pair[1]!.id, toSnapshotId: pair[0]!.id, policy: "none", includesLearned: false });
    expect(raw.diff?.changes.map((c) => c.path)).toEqual(expect.arrayContaining(["$.currency"]));
    expect((await client.monitors.compare(monitor.id, { from: pair[1]!.id, to: pair[0]!.id })).policy).toBe("effective");

    // deliveries: the diff's outbox entry reaches the receiver, signed. The background worker's
    // first attempt gets 503 + Retry-After: 1 h; the delivery stays pending until a forced run.
    const refused = await until("the first delivery attempt", () => received[0]);
    expect(refused.status).toBe(503);
    const pending = await until("the attempt recorded", async () => {
      const page = await client.webhooks.deliveries(hook.id);
      return page.data[0]?.attempts === 1 ? page.data[0] : undefined;
    });
    expect(pending).toMatchObject({ state: "pending", lastResponseStatus: 503 });
    const run = await client.webhooks.runWorker({ force: true });
    expect(run).toMatchObject({ attempted: 1, succeeded: 1, failed: 0 });
    const delivered = received.at(-1)!;
    expect(delivered.status).toBe(204);
    const event: DiffDetectedEvent = await verifyWebhook(delivered.body, delivered.headers, hook.secret!);
    expect(event.diffId).toBe(diff.id);
    expect(event.data.classification).toBe("schema_change");
    const log = await client.webhooks.deliveries(hook.id);
    expect(log.data[0]).toMatchObject({ webhookId: hook.id, state: "succeeded", eventId: event.eventId, attempts: 2 });
    const retried = await client.webhooks.retryDelivery(hook.id, log.data[0]!.id);
    expect(retried.state).toBe("pending");
    await client.webhooks.runWorker({ webhookId: hook.id, force: true });
    await until("the manual redelivery", () => (received.filter((r) => r.headers["webhook-id"] === event.eventId).length === 3 ? true : undefined));

    // webhook management
    const rotated = await client.webhooks.rotateSecret(hook.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect((await client.webhooks.get(hook.id)).secret).toBeUndefined();
    expect((await client.webhooks.update(hook.id, { minSeverity: "high" })).minSeverity).toBe("high");
    expect((await client.webhooks.list()).data.map((w) => w.id)).toContain(hook.id);
    await client.webhooks.delete(hook.id);
    await expect(client.webhooks.get(hook.id)).rejects.toBeInstanceOf(NotFoundError);

    // monitor update and delete
    expect((await client.monitors.update(monitor.id, { state: "paused" })).state).toBe("paused");
    await client.monitors.delete(monitor.id);
    await expect(client.monitors.get(monitor.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.diffs.get(monitor.id, diff.id)).rejects.toBeInstanceOf(NotFoundError);
  }, 120_000);

  it("manages tokens, and a revoked token stops working", async () => {
    const created = await client.tokens.create({ name: "reader", scopes: ["monitors:read"] });
    expect(created.token).toMatch(/^dw_/);
    expect((await client.tokens.get(created.id)).scopes).toEqual(["monitors:read"]);
    const ids: string[] = [];
    for await (const token of client.tokens.list({ limit: 1 })) ids.push(token.id);
    expect(ids).toContain(created.id);
    const reader = new Driftwatch({ baseUrl: server.baseUrl, token: created.token!, maxRetries: 0 });
    await reader.monitors.list();
    expect((await client.tokens.get(created.id)).lastUsedAt).not.toBeNull();
    await client.tokens.delete(created.id);
    await expect(reader.monitors.list()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it("pages through lists with for await, across several pages", async () => {
    const created: string[] = [];
    for (let i = 0; i < 7; i++) created.push((await client.monitors.create({ url: `${target.url}?n=${i}`, intervalSeconds: 3600, state: "paused" })).id);
    const page = await client.monitors.list({ limit: 3 });
    expect(page.data).toHaveLength(3);
    expect(page.nextCursor).not.toBeNull();
    expect(page.hasNextPage()).toBe(true);
    const seen: string[] = [];
    for await (const monitor of client.monitors.list({ limit: 3 })) seen.push(monitor.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(created));
    for (const id of created) await client.monitors.delete(id);
  }, 30_000);

  it("creates and updates tags and lists by tag, across pages with for await", async () => {
    const tagged: string[] = [];
    for (let i = 0; i < 5; i++) {
      const tags = i === 4 ? ["other"] : ["Client-Tag", `n${i}`];
      const monitor = await client.monitors.create({ url: `${target.url}?tag=${i}`, intervalSeconds: 3600, state: "paused", tags });
      if (i < 4) {
        expect(monitor.tags).toEqual(["client-tag", `n${i}`]);
        tagged.push(monitor.id);
      }
    }
    const seen: string[] = [];
    for await (const monitor of client.monitors.list({ tag: "client-tag", limit: 3 })) seen.push(monitor.id);
    expect(seen).toEqual([...tagged].reverse());
    const updated = await client.monitors.update(tagged[0]!, { tags: ["moved"] });
    expect(updated.tags).toEqual(["moved"]);
    expect((await client.monitors.list({ tag: "moved" })).data.map((m) => m.id)).toEqual([tagged[0]]);
    expect((await client.monitors.list({ tag: "client-tag" })).data).toHaveLength(3);
    await expect(client.monitors.list({ tag: "no spaces" })).rejects.toMatchObject({ status: 400, code: "invalid_request" });
  }, 30_000);
});

describe("errors from real responses", () => {
  const expectApiError = async (promise: PromiseLike<unknown>, cls: new (...args: never[]) => DriftwatchApiError, status: number, code: string) => {
    const error = await Promise.resolve(promise).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(cls);
    const api = error as DriftwatchApiError;
    expect(api.status).toBe(status);
    expect(api.code).toBe(code);
    expect(api.requestId).toMatch(/^req_/);
    expect(api.title).toBeTruthy();
    return api;
  };

  it("400, 401, 403, 404, 409 and 422 each map to their class", async () => {
    await expectApiError(client.monitors.list({ cursor: "not-a-cursor!!" }), BadRequestError, 400, "invalid_request");
    const stranger = new Driftwatch({ baseUrl: server.baseUrl, token: "dw_" + "x".repeat(43), maxRetries: 0 });
    await expectApiError(stranger.monitors.list(), AuthenticationError, 401, "invalid_token");
    const scoped = await client.tokens.create({ name: "read-only", scopes: ["monitors:read"] });
    const reader = new Driftwatch({ baseUrl: server.baseUrl, token: scoped.token!, maxRetries: 0 });
    await expectApiError(reader.monitors.create({ url: target.url }), PermissionDeniedError, 403, "insufficient_scope");
    await expectApiError(client.monitors.get("mon_01JAAAAAAAAAAAAAAAAAAAAAAA"), NotFoundError, 404, "not_found");
    await client.monitors.create({ url: target.url, state: "paused" }, { idempotencyKey: "key-409" });
    await expectApiError(
      client.monitors.create({ url: `${target.url}?other`, state: "paused" }, { idempotencyKey: "key-409" }),
      ConflictError,
      409,
      "idempotency_key_reused",
    );
    const invalid = await expectApiError(
      client.monitors.create({ url: "ftp://example.com/x" } as never),
      UnprocessableEntityError,
      422,
      "validation_failed",
    );
    expect(invalid.errors?.length).toBeGreaterThan(0);
  });

  it("5xx maps to InternalServerError", async () => {
    // A check of a target that refuses connections: the server answers 5xx (upstream unreachable).
    const port = await freePort();
    const monitor = await client.monitors.create({ url: `http://127.0.0.1:${port}/gone`, state: "paused" });
    const error = await client.monitors.check(monitor.id).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as DriftwatchApiError).status).toBeGreaterThanOrEqual(500);
    expect((error as DriftwatchApiError).requestId).toMatch(/^req_/);
  });

  it("429 maps to RateLimitError with retryAfter", async () => {
    const limited = await startServer({ env: { DRIFTWATCH_RATE_LIMIT_READS: "2" } });
    try {
      const c = new Driftwatch({ baseUrl: limited.baseUrl, token: limited.adminToken, maxRetries: 0 });
      // The limit counts reads per minute of the clock (windows start on the minute): the three reads
      // must fall in one window, so close to a minute's end (a loaded machine is slow) wait for the next.
      const toNextMinute = 60_000 - (Date.now() % 60_000);
      if (toNextMinute < 15_000) await new Promise((resolve) => setTimeout(resolve, toNextMinute + 100));
      await c.monitors.list();
      await c.monitors.list();
      const error = await expectApiError(c.monitors.list(), RateLimitError, 429, "rate_limited");
      expect((error as RateLimitError).retryAfterSeconds).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  }, 60_000);
});

describe("retries", () => {
  it("a create whose response is dropped is retried with the same Idempotency-Key and creates one monitor", async () => {
    const proxy = await startDroppingProxy(server.baseUrl, (req) => req.method === "POST" && req.url === "/api/monitors");
    try {
      const viaProxy = new Driftwatch({ baseUrl: proxy.url, token: server.adminToken, maxRetries: 2 });
      const url = `${target.url}?retried=${Date.now()}`;
      const monitor = await viaProxy.monitors.create({ url, name: "retried", state: "paused" });
      expect(proxy.dropped()).toBe(1);
      const all: string[] = [];
      for await (const m of client.monitors.list({ limit: 100 })) if (m.url === url) all.push(m.id);
      expect(all).toEqual([monitor.id]);
    } finally {
      await proxy.close();
    }
  }, 30_000);
});

describe("live events and the rules preview", () => {
  it("events.stream yields ready, then check events with their diffs", async () => {
    const live = await startTarget({ price: 1, at: "a" });
    const controller = new AbortController();
    const events = client.events.stream({ signal: controller.signal })[Symbol.asyncIterator]();
    try {
      expect((await events.next()).value).toMatchObject({ type: "ready", requestId: expect.stringMatching(/^req_/) });
      const monitor = await client.monitors.create({ url: live.url, intervalSeconds: 3600, state: "paused" });
      await client.monitors.check(monitor.id);
      live.set({ price: 2, at: "b" });
      const { diff } = await client.monitors.check(monitor.id);
      const seen: Array<{ type: string; diff?: { id: string } | null }> = [];
      while (!seen.some((e) => e.type === "check" && e.diff?.id === diff?.id)) {
        const next = await events.next();
        if (next.done) throw new Error("the stream ended");
        seen.push(next.value as (typeof seen)[number]);
      }
      expect(diff).not.toBeNull();

      const preview = await client.settings.preview(monitor.id, { policyRules: { rules: [{ path: "$.at", action: "ignore" }] } });
      expect(preview.diffs).toHaveLength(1);
      expect(preview.diffs[0]!.hidden.map((c) => c.path)).toEqual(["$.at"]);
      expect(preview.totals.hidden).toBe(1);
    } finally {
      controller.abort();
      await events.return?.(undefined).catch(() => undefined);
      await live.close();
    }
  });

  it("events.stream throws the API error for a bad token", async () => {
    const anonymous = new Driftwatch({ baseUrl: server.baseUrl, token: "dw_not-a-token", maxRetries: 0 });
    await expect(anonymous.events.stream().next()).rejects.toMatchObject({ status: 401, code: "invalid_token" });
  });
});
