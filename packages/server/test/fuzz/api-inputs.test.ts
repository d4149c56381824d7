// Property tests over the API's inputs: whatever a tenant sends (bodies, content types, ids,
// query strings, headers), the answer is a 2xx/3xx or an RFC 9457 problem with a code and the
// request id, never a 5xx, and nothing another tenant stored changes.
import { FetchError } from "@driftwatch/core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiMonitor, createHarness, json, seedCheck, type Harness } from "../api/harness.js";

let h: Harness;
const ids: Record<string, string> = {};
let foreignState = "";

/** Everything tenant B stored, which no request of tenant A may change or reveal. */
async function tenantBState(): Promise<string> {
  const org = h.b.orgId;
  const monitors = await h.store.listMonitors(org, { limit: 100 });
  const settings = await Promise.all(monitors.data.map((m) => h.store.getSettings(org, m.id)));
  const webhooks = await h.store.listWebhooks(org, { limit: 100 });
  const diffs = await Promise.all(monitors.data.map((m) => h.store.listDiffs(org, m.id, { limit: 100 })));
  return JSON.stringify({ monitors: monitors.data, settings, webhooks: webhooks.data, diffs: diffs.map((d) => d.data) });
}

beforeAll(async () => {
  h = await createHarness({
    // scrypt at 2^12: a random body that is a well-formed sign-in costs a hash.
    config: { bodyLimitBytes: 16 * 1024, people: { scryptLogN: 12 } },
    // "check now" against a target that cannot be reached, as a hostile tenant's monitor would be
    checks: (store) => ({
      async checkNow(orgId, monitorId) {
        if ((await store.getMonitor(orgId, monitorId)) === null) return null;
        throw new FetchError("connection_failed", "connection refused");
      },
    }),
  });
  const own = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor }));
  ids.monitor = own.id;
  const seeded = await seedCheck(h.store, h.a.orgId, own.id);
  ids.diff = seeded.diffId;
  ids.snapshot = seeded.snapshotId;
  ids.webhook = json(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://hooks.example.com/in" } })).id;
  const foreign = json(await h.request(h.b.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, name: "theirs" } }));
  ids.foreignMonitor = foreign.id;
  const foreignSeed = await seedCheck(h.store, h.b.orgId, foreign.id);
  ids.foreignDiff = foreignSeed.diffId;
  ids.foreignWebhook = json(await h.request(h.b.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://hooks.example.com/b" } })).id;
  foreignState = await tenantBState();
});

afterAll(async () => {
  await h?.close();
});

/** Route templates of the public API; `{m}`, `{d}`, `{s}`, `{w}` are filled from `idArb`. */
const ROUTES: Array<[string, string]> = [
  ["POST", "/api/monitors"],
  ["GET", "/api/monitors"],
  ["GET", "/api/monitors/{m}"],
  ["PATCH", "/api/monitors/{m}"],
  ["DELETE", "/api/monitors/{m}"],
  ["POST", "/api/monitors/{m}/check"],
  ["GET", "/api/monitors/{m}/diffs"],
  ["GET", "/api/monitors/{m}/diffs/{d}"],
  ["GET", "/api/monitors/{m}/snapshots"],
  ["GET", "/api/monitors/{m}/snapshots/{s}"],
  ["GET", "/api/monitors/{m}/settings"],
  ["PATCH", "/api/monitors/{m}/settings"],
  ["POST", "/api/webhooks"],
  ["GET", "/api/webhooks"],
  ["GET", "/api/webhooks/{w}"],
  ["PATCH", "/api/webhooks/{w}"],
  ["DELETE", "/api/webhooks/{w}"],
  ["POST", "/api/webhooks/{w}/rotate-secret"],
  ["GET", "/api/webhooks/{w}/deliveries"],
  ["POST", "/api/webhooks/{w}/deliveries/{d}/retry"],
  ["POST", "/api/webhooks/worker/run"],
  ["POST", "/api/tokens"],
  ["GET", "/api/tokens"],
  ["DELETE", "/api/tokens/{w}"],
  ["GET", "/api/auth/setup"],
  ["POST", "/api/auth/setup"],
  ["POST", "/api/auth/sign-in"],
  ["POST", "/api/auth/sign-out"],
  ["GET", "/api/auth/me"],
  ["POST", "/api/auth/org"],
  ["POST", "/api/auth/password"],
  ["GET", "/api/orgs/{o}"],
  ["PATCH", "/api/orgs/{o}"],
  ["DELETE", "/api/orgs/{o}"],
  ["GET", "/api/orgs/{o}/members"],
  ["PATCH", "/api/orgs/{o}/members/{w}"],
  ["DELETE", "/api/orgs/{o}/members/{w}"],
  ["POST", "/api/orgs/{o}/transfer-ownership"],
  ["POST", "/api/invites"],
  ["GET", "/api/invites"],
  ["DELETE", "/api/invites/{w}"],
  ["GET", "/api/invites/lookup"],
  ["POST", "/api/invites/accept"],
  ["GET", "/api/audit"],
];

/** Ids: the caller's own, another tenant's, and hostile strings (long, unicode, encoded, traversal). */
const idArb = (own: string, foreign: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constant(own),
    fc.constant(foreign),
    fc.constant("mon_" + "x".repeat(120)),
    fc.constant("..%2F..%2Fetc%2Fpasswd"),
    fc.constant("%00"),
    fc.constant("%ED%A0%80"), // a lone surrogate, percent-encoded
    fc.constant("%F0%9F%92%A9"),
    fc.string({ minLength: 1, maxLength: 200 }).map((s) => encodeURIComponent(s)),
    fc.stringMatching(/^[a-z]{3}_[0-9A-Za-z]{1,40}$/),
  );

/** Values of every JSON type, including hostile strings and numbers. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant("\u0000"),
  fc.constant("\ud800"),
  fc.constant("a\r\nx-injected: 1"),
  fc.constant("http://169.254.169.254/latest/meta-data/"),
  fc.constant("file:///etc/passwd"),
  fc.constant("$..[?(@.constructor.constructor('return process')())]"),
  fc.constant(1e308),
  fc.constant(-0),
  fc.constant(Number.MAX_SAFE_INTEGER + 2),
  fc.constant("x".repeat(5000)),
);

/** Bodies: random JSON, objects mixing the API's real field names with hostile values, and raw text. */
const FIELDS = [
  "type", "name", "url", "method", "headers", "body", "intervalSeconds", "selector", "browserOptions", "state",
  "tags", "policyRules", "snapshotRetention", "events", "monitorIds", "minSeverity", "enabled", "description",
  "scopes", "webhookId", "force", "rules", "arrayKeys", "__proto__", "constructor",
  "email", "password", "displayName", "token", "orgId", "orgName", "userId", "role", "currentPassword", "newPassword",
];
const bodyArb: fc.Arbitrary<{ payload: string; contentType: string | undefined }> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => ({ payload: JSON.stringify(v), contentType: "application/json" })),
  fc.dictionary(fc.constantFrom(...FIELDS), hostileValue, { maxKeys: 8 }).map((v) => ({ payload: JSON.stringify(v), contentType: "application/json" })),
  fc.string({ maxLength: 300 }).map((s) => ({ payload: s, contentType: "application/json" })),
  fc.tuple(fc.string({ maxLength: 100 }), fc.constantFrom("text/plain", "application/xml", "multipart/form-data", "application/json; charset=latin1", "")).map(([payload, contentType]) => ({
    payload,
    contentType,
  })),
  fc.constant({ payload: "[".repeat(20_000), contentType: "application/json" }),
  fc.constant({ payload: JSON.stringify({ name: "x".repeat(20_000) }), contentType: "application/json" }),
  fc.constant({ payload: "", contentType: undefined }),
);

/** Query strings: the paging and filter parameters with hostile values, and unknown ones. */
const queryArb: fc.Arbitrary<string> = fc
  .dictionary(
    fc.constantFrom("limit", "cursor", "since", "until", "minSeverity", "classification", "state", "x", "limit[]", "token"),
    fc.oneof(fc.string({ maxLength: 40 }), fc.integer().map(String), fc.constant("-1"), fc.constant("1e400"), fc.constant("%00")),
    { maxKeys: 4 },
  )
  .map((q) => {
    const entries = Object.entries(q);
    return entries.length === 0 ? "" : "?" + entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
  });

const requestArb = fc.record({
  route: fc.constantFrom(...ROUTES),
  m: fc.constant(null).chain(() => idArb(ids.monitor!, ids.foreignMonitor!)),
  d: fc.constant(null).chain(() => idArb(ids.diff!, ids.foreignDiff!)),
  s: fc.constant(null).chain(() => idArb(ids.snapshot!, "snp_none")),
  w: fc.constant(null).chain(() => idArb(ids.webhook!, ids.foreignWebhook!)),
  o: fc.constant(null).chain(() => idArb(h.a.orgId, h.b.orgId)),
  body: bodyArb,
  query: queryArb,
  extraHeaders: fc.dictionary(
    fc.constantFrom("idempotency-key", "driftwatch-version", "accept", "x-request-id", "origin", "cookie", "x-driftwatch-csrf"),
    fc.oneof(fc.string({ maxLength: 80 }).filter((s) => /^[\t\x20-\x7e]*$/.test(s)), fc.constant("2024-01-01"), fc.constant("x".repeat(300))),
    { maxKeys: 3 },
  ),
  auth: fc.constantFrom<"admin" | "none" | "garbage" | "readonly">("admin", "admin", "admin", "none", "garbage", "readonly"),
});

describe("API inputs (fast-check)", () => {
  it("every request answers a non-5xx response with a request id, and problems are RFC 9457 with a code", async () => {
    const readonly = await h.a.token(["monitors:read", "webhooks:read"]);
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const [method, template] = r.route;
        const url = template.replace("{m}", r.m).replace("{d}", r.d).replace("{s}", r.s).replace("{w}", r.w).replace("{o}", r.o) + r.query;
        const headers: Record<string, string> = { ...r.extraHeaders };
        if (r.body.contentType !== undefined && method !== "GET" && method !== "DELETE") headers["content-type"] = r.body.contentType;
        const secret = r.auth === "admin" ? h.a.admin : r.auth === "readonly" ? readonly.secret : r.auth === "garbage" ? "dw_not-a-token" : null;
        const payload = method === "GET" || method === "DELETE" || r.body.contentType === undefined ? undefined : r.body.payload;
        // failed authentication is rate limited per client address: the bad-token requests come
        // from an address of their own, so the limit they reach does not hide the other answers
        const remoteAddress = r.auth === "garbage" || r.auth === "none" ? "198.51.100.7" : "198.51.100.8";
        const res = await h.request(secret, { method: method as "GET", url, headers, remoteAddress, ...(payload === undefined ? {} : { payload }) });
        const context = `${method} ${url.slice(0, 200)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
        // The one 5xx by design: "check now" of the own monitor, whose target cannot be reached,
        // is 502 unavailable with the fetch failure as its reason (the double above).
        const checkedOwnMonitor = method === "POST" && url.split("?")[0] === `/api/monitors/${ids.monitor}/check`;
        if (res.statusCode === 502 && checkedOwnMonitor) {
          expect(json(res), context).toMatchObject({ code: "unavailable", reason: "connection_failed" });
        } else {
          expect(res.statusCode, context).toBeLessThan(500);
        }
        expect(String(res.headers["x-request-id"]), context).toMatch(/^req_/);
        if (res.statusCode >= 400) {
          expect(String(res.headers["content-type"]), context).toMatch(/^application\/problem\+json/);
          const problem = json(res);
          expect(typeof problem.code, context).toBe("string");
          expect(problem.requestId, context).toBe(res.headers["x-request-id"]);
          expect(problem.status, context).toBe(res.statusCode);
          // no internals in errors
          expect(res.body, context).not.toMatch(/at .+\.(ts|js):\d+|node_modules|SQLITE_|TypeError/);
        }
        // tenant B's data is never revealed to tenant A
        if (res.statusCode < 300 && res.body !== "") {
          expect(res.body, context).not.toContain(ids.foreignMonitor);
          expect(res.body, context).not.toContain(ids.foreignWebhook);
        }
      }),
      { numRuns: Number(process.env.DRIFTWATCH_FUZZ_RUNS ?? 400), seed: process.env.DRIFTWATCH_FUZZ_SEED ? Number(process.env.DRIFTWATCH_FUZZ_SEED) : undefined },
    );
  });

  it("no request of tenant A changed anything tenant B stored", async () => {
    expect(await tenantBState()).toBe(foreignState);
  });

  it("the service still serves after the run", async () => {
    const health = await h.app.inject({ method: "GET", url: "/healthz" });
    expect(health.statusCode).toBe(200);
    const list = await h.request(h.b.admin, { method: "GET", url: "/api/monitors", remoteAddress: "198.51.100.9" });
    expect(list.statusCode).toBe(200);
    expect(json(list).data.map((m: { id: string }) => m.id)).toContain(ids.foreignMonitor);
  });
});
