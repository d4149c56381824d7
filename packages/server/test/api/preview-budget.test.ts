import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Fetcher, Store } from "@driftwatch/core";
import { SettingsPreviewSchema } from "@driftwatch/schema";
import { assertSafeUrl, createHttpFetcher } from "@driftwatch/fetcher-http";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckService } from "../../src/index.js";
import { createHarness, expectProblem, json, type Harness } from "./harness.js";

/**
 * The rules preview as the expensive call it is: compared off the event loop, within one byte
 * budget counted before comparing, and rate limited per caller and per organization.
 */
let h: Harness;
let target: Server;
let base: string;
let fetcher: Fetcher;
let apiUrl: string;
let dir: string;
const state = { body: "{}" };
/** Resolves once the preview has read `want` snapshots (it compares right after). */
const reads = { count: 0, want: Infinity, reached: (): void => undefined };

/** A nested document of about `items` x 10 nodes whose `n` values depend on `round`. */
function nested(items: number, round: number, pad = 0): string {
  const list = Array.from({ length: items }, (_, i) => ({ id: `i${i}`, n: (i * 7 + round) % 13, tags: ["a", "b", "c"], inner: { x: i, y: round, deep: { z: (i + round) % 5, w: "v".repeat(pad) } } }));
  return JSON.stringify({ round, list });
}

beforeAll(async () => {
  target = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(state.body);
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  fetcher = createHttpFetcher({ allowPrivateNetworks: true, timeoutMs: 10_000, maxBodyBytes: 16 * 1024 * 1024 });
  dir = mkdtempSync(join(tmpdir(), "dw-preview-"));
  h = await createHarness({
    config: { rateLimitExpensivePerCaller: 1000, rateLimitExpensivePerOrg: 1000 },
    store: async () => {
      const store = await createSqliteStore({ filename: join(dir, "preview.db") });
      const counted = new Proxy(store, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver) as unknown;
          if (property === "getSnapshot") {
            return async (...args: Parameters<Store["getSnapshot"]>) => {
              const snapshot = await store.getSnapshot(...args);
              if (++reads.count === reads.want) reads.reached();
              return snapshot;
            };
          }
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      return { store: counted, close: () => store.close() };
    },
    checks: (store, now) => createCheckService({ store, httpFetcher: fetcher, now }),
    urlGuard: { assertSafeUrl: (url) => assertSafeUrl(url, { allowPrivateNetworks: true }) },
  });
  await h.app.listen({ port: 0, host: "127.0.0.1" });
  apiUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await h?.close();
  await fetcher?.close();
  await new Promise<void>((resolve) => target?.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

async function monitorWith(bodies: string[]): Promise<string> {
  state.body = bodies[0]!;
  const id = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { url: `${base}/doc-${bodies.length}-${Math.random()}`, name: "Preview" } })).id as string;
  for (const body of bodies) {
    state.body = body;
    const res = await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${id}/check` });
    expect(res.statusCode).toBe(200);
  }
  return id;
}

describe("POST /api/monitors/{id}/settings/preview off the event loop", () => {
  it("answers /healthz while a heavy preview compares", async () => {
    const id = await monitorWith([nested(1000, 0), nested(1000, 1), nested(1000, 2), nested(1000, 3)]);
    // filter rules make every compare walk the whole document once per rule and side
    const rules = Array.from({ length: 40 }, (_, i) => ({ path: `$.list[?@.n == ${i % 13} && @.inner.x > ${i}].inner.deep.z`, action: "ignore" as const }));
    reads.count = 0;
    reads.want = 6; // three diffs, two snapshots each
    const started = new Promise<void>((resolve) => (reads.reached = resolve));
    const order: string[] = [];
    const preview = fetch(`${apiUrl}/api/monitors/${id}/settings/preview`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.a.admin}`, "content-type": "application/json" },
      body: JSON.stringify({ policyRules: { rules } }),
    }).then(async (res) => {
      order.push("preview");
      return res;
    });
    await started;
    const health = await fetch(`${apiUrl}/healthz`).then((res) => {
      order.push("healthz");
      return res;
    });
    expect(health.status).toBe(200);
    const res = await preview;
    expect(res.status).toBe(200);
    const body = SettingsPreviewSchema.parse(await res.json());
    expect(body.diffs.map((d) => d.outcome)).toEqual(["compared", "compared", "compared"]);
    expect(order).toEqual(["healthz", "preview"]);
  });

  it("counts the byte budget before comparing: a pair that does not fit is not compared", async () => {
    // pairs of about 2 x 2.9 MB: the newest fits in 8 MB, the next would pass it
    const id = await monitorWith([nested(6000, 0, 400), nested(6000, 1, 400), nested(6000, 2, 400)]);
    const res = await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${id}/settings/preview`, payload: { policyRules: { rules: [] } } });
    expect(res.statusCode).toBe(200);
    const body = SettingsPreviewSchema.parse(json(res));
    expect(body.diffs.map((d) => d.outcome)).toEqual(["compared", "over_budget"]);
  });
});

describe("POST /api/monitors/{id}/settings/preview rate limits", () => {
  it("limits each caller, then the organization, below the read limit", async () => {
    const limited = await createHarness({ config: { rateLimitExpensivePerCaller: 2, rateLimitExpensivePerOrg: 3 } });
    try {
      const monitor = json(await limited.request(limited.a.admin, { method: "POST", url: "/api/monitors", payload: { url: "https://api.example.com/x", name: "X" } }));
      const call = (secret: string) =>
        limited.request(secret, { method: "POST", url: `/api/monitors/${monitor.id}/settings/preview`, payload: { policyRules: { rules: [] } } });
      const one = await limited.a.token(["monitors:read"]);
      const two = await limited.a.token(["monitors:read"]);
      const three = await limited.a.token(["monitors:read"]);
      expect((await call(one.secret)).statusCode).toBe(200);
      expect((await call(one.secret)).statusCode).toBe(200);
      const perCaller = expectProblem(await call(one.secret), 429, "rate_limited");
      expect(perCaller.detail).toMatch(/per caller/);
      // another caller of the same organization still may, until the organization's limit
      expect((await call(two.secret)).statusCode).toBe(200);
      const perOrg = await call(three.secret);
      expectProblem(perOrg, 429, "rate_limited");
      expect(perOrg.headers["retry-after"]).toBeDefined();
      // another organization is not limited by this one
      const other = json(await limited.request(limited.b.admin, { method: "POST", url: "/api/monitors", payload: { url: "https://api.example.com/y", name: "Y" } }));
      expect((await limited.request(limited.b.admin, { method: "POST", url: `/api/monitors/${other.id}/settings/preview`, payload: { policyRules: { rules: [] } } })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
