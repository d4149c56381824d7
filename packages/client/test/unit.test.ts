import { Webhook as StandardWebhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  Driftwatch,
  DriftwatchApiError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
  TimeoutError,
  UnprocessableEntityError,
  isDriftwatchApiError,
  parseRetryAfter,
  verifyWebhook,
  WebhookVerificationError,
  type FetchLike,
} from "../src/index.js";

interface Call {
  url: string;
  init: RequestInit;
}

function scripted(responses: Array<Response | Error | (() => Promise<Response>)>): { fetch: FetchLike; calls: Call[] } {
  const calls: Call[] = [];
  const fetch: FetchLike = async (url, init) => {
    calls.push({ url, init });
    const next = responses.shift();
    if (next === undefined) throw new Error("no scripted response left");
    if (next instanceof Error) throw next;
    if (typeof next === "function") return next();
    return next;
  };
  return { fetch, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "x-request-id": "req_test0001", ...headers } });

const problem = (status: number, code: string, extra: Record<string, unknown> = {}): Response =>
  new Response(JSON.stringify({ type: `https://driftwatch.dev/problems/${code}`, title: code, status, detail: `detail of ${code}`, code, requestId: "req_problem01", ...extra }), {
    status,
    headers: { "content-type": "application/problem+json", "x-request-id": "req_problem01" },
  });

function client(fetch: FetchLike, maxRetries = 2): { dw: Driftwatch; sleeps: number[] } {
  const dw = new Driftwatch({ baseUrl: "http://api.test/", token: "dw_secret", fetch, maxRetries });
  const sleeps: number[] = [];
  dw.http.sleep = async (ms) => {
    sleeps.push(ms);
  };
  return { dw, sleeps };
}

describe("noise profile and settings", () => {
  it("monitors.noise GETs the profile; settings.update sends autoApplySuggestions", async () => {
    const profile = {
      monitorId: "mon_1",
      samples: 4,
      minSamples: 3,
      policy: { rules: [], volatile: [{ path: "$.generated_at" }] },
      evidence: [{ kind: "volatile", rule: "volatile[0]", path: "$.generated_at", changed: 3, pairs: 3, shape: "iso8601", reason: "changed in 3 of 3 fetches" }],
      appliedAutomatically: false,
    };
    const settings = { monitorId: "mon_1", policyRulesJson: { rules: [] }, snapshotRetention: 100, autoApplySuggestions: true, updatedAt: "2026-01-01T00:00:00.000Z" };
    const { fetch, calls } = scripted([json(200, profile), json(200, settings)]);
    const { dw } = client(fetch);
    const got = await dw.monitors.noise("mon_1");
    expect(got.policy.volatile).toEqual([{ path: "$.generated_at" }]);
    expect(got.evidence[0]?.reason).toBe("changed in 3 of 3 fetches");
    expect(calls[0]).toMatchObject({ url: "http://api.test/api/monitors/mon_1/noise", init: { method: "GET" } });
    expect((await dw.settings.update("mon_1", { autoApplySuggestions: true })).autoApplySuggestions).toBe(true);
    expect(calls[1]?.init.method).toBe("PATCH");
    expect(JSON.parse(String(calls[1]?.init.body))).toEqual({ autoApplySuggestions: true });
  });
});

describe("requests", () => {
  it("sends the bearer token, JSON body and version header, and exposes the request id", async () => {
    const { fetch, calls } = scripted([json(201, { id: "mon_1" })]);
    const { dw } = client(fetch);
    const { data, requestId, response } = await dw.monitors.create({ url: "https://example.com" }).withResponse();
    expect(data).toEqual({ id: "mon_1" });
    expect(requestId).toBe("req_test0001");
    expect(response.status).toBe(201);
    const headers = calls[0]!.init.headers as Record<string, string>;
    expect(calls[0]!.url).toBe("http://api.test/api/monitors");
    expect(headers.authorization).toBe("Bearer dw_secret");
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["driftwatch-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(headers["idempotency-key"]).toMatch(/.{16,}/);
    expect(JSON.parse(calls[0]!.init.body as string)).toEqual({ url: "https://example.com" });
  });

  it("encodes path segments and query parameters", async () => {
    const { fetch, calls } = scripted([json(200, { data: [], nextCursor: null })]);
    const { dw } = client(fetch);
    await dw.diffs.list("mon_a/b", { limit: 5, minSeverity: "high", since: "2026-01-01T00:00:00.000Z" });
    const url = new URL(calls[0]!.url);
    expect(url.pathname).toBe("/api/monitors/mon_a%2Fb/diffs");
    expect(Object.fromEntries(url.searchParams)).toEqual({ limit: "5", minSeverity: "high", since: "2026-01-01T00:00:00.000Z" });
  });
});

describe("channels", () => {
  it("creates, tests, lists messages and replays one on the /api/channels routes", async () => {
    const channel = { id: "ch_a", name: "Ops", service: "slack", url: "slack://***/***/***" };
    const { fetch, calls } = scripted([
      json(201, channel),
      json(200, { outcome: "delivered", status: 200, reason: null, retryAfterSeconds: null }),
      json(200, { data: [{ id: "cdl_1" }], nextCursor: null }),
      json(202, { id: "cdl_1", state: "pending" }),
      json(200, channel),
    ]);
    const { dw } = client(fetch);
    expect(await dw.channels.create({ name: "Ops", url: "slack://A/B/C", quietHours: { timeZone: "UTC", windows: [{ start: "22:00", end: "07:00" }] } })).toMatchObject({ id: "ch_a" });
    expect(JSON.parse(calls[0]!.init.body as string)).toMatchObject({ name: "Ops", url: "slack://A/B/C" });
    expect((await dw.channels.test("ch_a")).outcome).toBe("delivered");
    expect((await dw.channels.deliveries("ch_a", { limit: 5 })).data).toEqual([{ id: "cdl_1" }]);
    expect((await dw.channels.retryDelivery("ch_a", "cdl_1")).state).toBe("pending");
    await dw.channels.update("ch_a", { paused: true });
    expect(calls.map((c) => `${c.init.method} ${new URL(c.url).pathname}${new URL(c.url).search}`)).toEqual([
      "POST /api/channels",
      "POST /api/channels/ch_a/test",
      "GET /api/channels/ch_a/deliveries?limit=5",
      "POST /api/channels/ch_a/deliveries/cdl_1/retry",
      "PATCH /api/channels/ch_a",
    ]);
  });

  it("asks which channels a monitor reaches on GET /api/monitors/{id}/channels", async () => {
    const answer = { data: [{ channel: { id: "ch_a" }, events: ["diff.detected"], minSeverity: "high", matchedTags: ["prod"], state: "failing" }], policyMinSeverity: "high" };
    const { fetch, calls } = scripted([json(200, answer)]);
    const { dw } = client(fetch);
    const routed = await dw.channels.forMonitor("mon_a/b");
    expect(routed.data[0]).toMatchObject({ state: "failing", matchedTags: ["prod"] });
    expect(routed.policyMinSeverity).toBe("high");
    expect(`${calls[0]!.init.method} ${new URL(calls[0]!.url).pathname}`).toBe("GET /api/monitors/mon_a%2Fb/channels");
  });
});

describe("errors", () => {
  it.each([
    [400, "invalid_json", "BadRequestError"],
    [401, "invalid_token", "AuthenticationError"],
    [403, "insufficient_scope", "PermissionDeniedError"],
    [404, "not_found", "NotFoundError"],
    [409, "idempotency_key_reused", "ConflictError"],
    [422, "validation_failed", "UnprocessableEntityError"],
    [500, "internal_error", "InternalServerError"],
  ])("maps %i %s to %s with code, requestId, title, detail", async (status, code, name) => {
    const { fetch } = scripted([problem(status, code, { errors: [{ path: "url", message: "bad" }] })]);
    const { dw } = client(fetch, 0);
    const error = await dw.monitors.get("mon_x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DriftwatchApiError);
    expect(isDriftwatchApiError(error)).toBe(true);
    const e = error as DriftwatchApiError;
    expect(e.name).toBe(name);
    expect(e.status).toBe(status);
    expect(e.code).toBe(code);
    expect(e.requestId).toBe("req_problem01");
    expect(e.title).toBe(code);
    expect(e.detail).toBe(`detail of ${code}`);
    expect(e.errors).toEqual([{ path: "url", message: "bad" }]);
  });

  it("uses the subclasses for instanceof", async () => {
    const cases: Array<[Response, unknown]> = [
      [problem(401, "unauthenticated"), AuthenticationError],
      [problem(404, "not_found"), NotFoundError],
      [problem(409, "conflict"), ConflictError],
      [problem(422, "unsafe_url"), UnprocessableEntityError],
      [problem(503, "unavailable"), InternalServerError],
      [problem(429, "rate_limited"), RateLimitError],
    ];
    for (const [response, Class] of cases) {
      const { fetch } = scripted([response]);
      const { dw } = client(fetch, 0);
      await expect(dw.monitors.get("mon_x")).rejects.toBeInstanceOf(Class as new () => unknown);
    }
  });

  it("keeps a non-JSON error body as the detail", async () => {
    const { fetch } = scripted([new Response("upstream exploded", { status: 502 })]);
    const { dw } = client(fetch, 0);
    const e = (await dw.monitors.get("mon_x").catch((x: unknown) => x)) as DriftwatchApiError;
    expect(e).toBeInstanceOf(InternalServerError);
    expect(e.code).toBe("http_502");
    expect(e.detail).toBe("upstream exploded");
  });
});

describe("retries", () => {
  it("retries 5xx, 408 and 429 with growing back-off and reuses one idempotency key", async () => {
    const { fetch, calls } = scripted([problem(503, "unavailable"), problem(408, "timeout"), json(201, { id: "mon_1" })]);
    const { dw, sleeps } = client(fetch, 2);
    await expect(dw.monitors.create({ url: "https://example.com" })).resolves.toEqual({ id: "mon_1" });
    expect(calls).toHaveLength(3);
    const keys = calls.map((c) => (c.init.headers as Record<string, string>)["idempotency-key"]);
    expect(new Set(keys).size).toBe(1);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(375);
    expect(sleeps[0]).toBeLessThanOrEqual(500);
    expect(sleeps[1]).toBeGreaterThanOrEqual(750);
    expect(sleeps[1]).toBeLessThanOrEqual(1000);
  });

  it("generates a new idempotency key per call", async () => {
    const { fetch, calls } = scripted([json(201, {}), json(201, {})]);
    const { dw } = client(fetch);
    await dw.monitors.create({ url: "https://a.example" });
    await dw.monitors.create({ url: "https://a.example" });
    const keys = calls.map((c) => (c.init.headers as Record<string, string>)["idempotency-key"]);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it("honours Retry-After in seconds on 429", async () => {
    const limited = new Response(JSON.stringify({ code: "rate_limited", status: 429 }), { status: 429, headers: { "retry-after": "3" } });
    const { fetch } = scripted([limited, json(200, { id: "mon_1" })]);
    const { dw, sleeps } = client(fetch);
    await expect(dw.monitors.get("mon_1")).resolves.toEqual({ id: "mon_1" });
    expect(sleeps).toEqual([3000]);
  });

  it("gives up after maxRetries with the last error", async () => {
    const { fetch, calls } = scripted([problem(500, "internal_error"), problem(500, "internal_error"), problem(500, "internal_error")]);
    const { dw } = client(fetch, 2);
    await expect(dw.monitors.get("mon_1")).rejects.toMatchObject({ status: 500, code: "internal_error" });
    expect(calls).toHaveLength(3);
  });

  it("does not retry 4xx other than 408 and 429", async () => {
    const { fetch, calls } = scripted([problem(422, "validation_failed")]);
    const { dw } = client(fetch, 2);
    await expect(dw.monitors.create({ url: "x" })).rejects.toMatchObject({ status: 422 });
    expect(calls).toHaveLength(1);
  });

  it("retries connection errors, then raises ConnectionError", async () => {
    const { fetch, calls } = scripted([new TypeError("fetch failed"), new TypeError("fetch failed")]);
    const { dw } = client(fetch, 1);
    const e = await dw.monitors.get("mon_1").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect((e as ConnectionError).code).toBe("connection_error");
    expect(calls).toHaveLength(2);
  });

  it("raises TimeoutError when no answer comes in time", async () => {
    const hang: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => init.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    const dw = new Driftwatch({ baseUrl: "http://api.test", token: "t", fetch: hang, timeoutMs: 20, maxRetries: 0 });
    const e = await dw.monitors.get("mon_1").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as TimeoutError).name).toBe("TimeoutError");
  });

  it("parses Retry-After forms", () => {
    expect(parseRetryAfter(new Headers({ "retry-after": "2" }))).toBe(2000);
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "150" }))).toBe(150);
    expect(parseRetryAfter(new Headers({ "retry-after": new Date(10_000).toUTCString() }), 4_000)).toBe(6000);
    expect(parseRetryAfter(new Headers({}))).toBeNull();
  });
});

describe("pagination", () => {
  it("awaits the first page and iterates every item across pages", async () => {
    const { fetch, calls } = scripted([
      json(200, { data: [{ id: "dif_3" }, { id: "dif_2" }], nextCursor: "c1" }),
      json(200, { data: [{ id: "dif_1" }], nextCursor: null }),
      json(200, { data: [{ id: "dif_3" }, { id: "dif_2" }], nextCursor: "c1" }),
    ]);
    const { dw } = client(fetch);
    const ids: string[] = [];
    for await (const diff of dw.diffs.list("mon_1", { limit: 2 })) ids.push(diff.id);
    expect(ids).toEqual(["dif_3", "dif_2", "dif_1"]);
    expect(new URL(calls[1]!.url).searchParams.get("cursor")).toBe("c1");
    expect(new URL(calls[1]!.url).searchParams.get("limit")).toBe("2");
    const page = await dw.diffs.list("mon_1", { limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.hasNextPage()).toBe(true);
  });
});

describe("verifyWebhook", () => {
  const secret = "whsec_" + Buffer.from("0123456789abcdef0123456789abcdef").toString("base64");
  const event = {
    schemaVersion: "v1",
    eventVersion: 1,
    eventId: "evt_01JTESTTESTTEST",
    eventType: "diff.detected",
    occurredAt: "2026-01-01T00:00:00.000Z",
    deliveredAt: "2026-01-01T00:00:01.000Z",
    monitorId: "mon_01JTESTTESTTEST",
    diffId: "dif_01JTESTTESTTEST",
    snapshotId: "snp_01JTESTTESTTEST",
    data: { classification: "value_change", schemaChanges: 0, valueChanges: 1, changes: [{ path: "$.price", category: "value", op: "replace", severity: "info" }] },
  };
  const body = JSON.stringify(event);

  it("accepts what standardwebhooks signs and refuses tampering, wrong secret and stale timestamps", async () => {
    const wh = new StandardWebhook(secret);
    const now = new Date();
    const signature = wh.sign(event.eventId, now, body);
    const headers = { "webhook-id": event.eventId, "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": signature };
    await expect(verifyWebhook(body, headers, secret)).resolves.toEqual(event);
    await expect(verifyWebhook(body, new Headers(headers), secret)).resolves.toEqual(event);
    await expect(verifyWebhook(body.replace("price", "prize"), headers, secret)).rejects.toMatchObject({ reason: "invalid_signature" });
    const other = "whsec_" + Buffer.from("another-secret-another-secret-32").toString("base64");
    await expect(verifyWebhook(body, headers, other)).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(verifyWebhook(body, headers, secret, { now: now.getTime() + 301_000 })).rejects.toMatchObject({ reason: "timestamp_out_of_tolerance" });
    await expect(verifyWebhook(body, headers, secret, { now: now.getTime() - 301_000 })).rejects.toMatchObject({ reason: "timestamp_out_of_tolerance" });
    await expect(verifyWebhook(body, { "webhook-id": event.eventId }, secret)).rejects.toMatchObject({ code: "webhook_verification_failed", reason: "missing_headers" });
  });

  it("accepts any of several signatures (rotation)", async () => {
    const now = new Date();
    const old = "whsec_" + Buffer.from("old-secret-old-secret-old-secret").toString("base64");
    const sigNew = new StandardWebhook(secret).sign(event.eventId, now, body);
    const sigOld = new StandardWebhook(old).sign(event.eventId, now, body);
    const headers = { "webhook-id": event.eventId, "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": `${sigNew} ${sigOld}` };
    await expect(verifyWebhook(body, headers, old)).resolves.toMatchObject({ eventId: event.eventId });
    await expect(verifyWebhook(body, headers, secret)).resolves.toMatchObject({ eventId: event.eventId });
  });
});

describe("version", () => {
  it("speaks the API version of the schema package", async () => {
    const schema = await import("@driftwatch/schema");
    const { API_VERSION } = await import("../src/index.js");
    expect(API_VERSION).toBe(schema.API_VERSION);
  });
});

describe("parseEventBlock", () => {
  it("reads the data lines of one server-sent event, skipping comments and non-JSON", async () => {
    const { parseEventBlock } = await import("../src/index.js");
    expect(parseEventBlock('id: 3\nevent: check\ndata: {"type":"check","monitor":{"id":"mon_1"},"diff":null}')).toEqual({ type: "check", monitor: { id: "mon_1" }, diff: null });
    expect(parseEventBlock(": keep-alive")).toBeNull();
    expect(parseEventBlock("retry: 3000")).toBeNull();
    expect(parseEventBlock("event: x\ndata: not json")).toBeNull();
    expect(parseEventBlock('data: {"no":"type"}')).toBeNull();
  });
});

describe("the default fetch", () => {
  it("is called as a plain function, as browsers require (a method call throws Illegal invocation there)", async () => {
    const { Driftwatch } = await import("../src/index.js");
    const original = globalThis.fetch;
    const receivers: unknown[] = [];
    globalThis.fetch = function (this: unknown) {
      receivers.push(this);
      // a browser's fetch refuses any receiver other than the window (or none)
      if (this !== undefined && this !== globalThis) throw new TypeError("Failed to execute 'fetch' on 'Window': Illegal invocation");
      return Promise.resolve(new Response('{"data":[],"nextCursor":null}', { status: 200, headers: { "content-type": "application/json" } }));
    } as typeof fetch;
    try {
      const client = new Driftwatch({ baseUrl: "http://127.0.0.1:1", token: "dw_x", maxRetries: 0 });
      await client.monitors.list();
      expect(receivers).toHaveLength(1);
    } finally {
      globalThis.fetch = original;
    }
  });
});

describe("screenshots, secrets and the browser tools", () => {
  it("snapshots.screenshot resolves the image's bytes and type; a 404 is NotFoundError", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 255]);
    const { fetch, calls } = scripted([new Response(png, { status: 200, headers: { "content-type": "image/png" } }), problem(404, "not_found")]);
    const { dw } = client(fetch);
    const shot = await dw.snapshots.screenshot("mon_1", "snp_2");
    expect(shot.type).toBe("image/png");
    expect([...shot.data]).toEqual([...png]);
    expect(calls[0]!.url).toBe("http://api.test/api/monitors/mon_1/snapshots/snp_2/screenshot");
    expect((calls[0]!.init.headers as Record<string, string>).accept).toContain("image/png");
    await expect(dw.snapshots.screenshot("mon_1", "snp_3")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("secrets.create/list/delete and monitors.runSteps/inspect call their routes", async () => {
    const secret = { id: "sec_1", name: "pw", createdAt: "2026-01-01T00:00:00.000Z" };
    const { fetch, calls } = scripted([
      json(201, secret),
      json(200, { data: [secret] }),
      new Response(null, { status: 204 }),
      json(200, { steps: [{ index: 0, action: "click", ok: true, ms: 3 }], screenshot: null }),
      json(200, { screenshot: "data:image/png;base64,AA==", width: 1, height: 1, elements: [] }),
    ]);
    const { dw } = client(fetch);
    expect(await dw.secrets.create({ name: "pw", value: "hunter2" })).toEqual(secret);
    expect(await dw.secrets.list()).toEqual([secret]);
    await dw.secrets.delete("sec_1");
    const run = await dw.monitors.runSteps({ url: "https://example.com/", browserOptions: { steps: [{ action: "click", selector: "#a" }] } });
    expect(run.steps[0]!.ok).toBe(true);
    expect((await dw.monitors.inspect({ url: "https://example.com/" })).width).toBe(1);
    expect(calls.map((call) => `${String(call.init.method)} ${call.url}`)).toEqual([
      "POST http://api.test/api/secrets",
      "GET http://api.test/api/secrets",
      "DELETE http://api.test/api/secrets/sec_1",
      "POST http://api.test/api/monitors/steps/run",
      "POST http://api.test/api/monitors/inspect",
    ]);
    expect(JSON.parse(String(calls[0]!.init.body))).toEqual({ name: "pw", value: "hunter2" });
  });
});
