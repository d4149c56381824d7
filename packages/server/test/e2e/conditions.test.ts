/**
 * Conditions end to end: the built CLI on SQLite, a local shop page whose price and stock change
 * and a local status JSON, a receiver verifying with the `standardwebhooks` package. Every change
 * is recorded as a diff, but only the checks whose alert conditions hold reach the receiver (one
 * of them an alert-only diff: the status stayed the same for the checks `forChecks` needs), and
 * `GET /api/monitors/{id}/values` shows each tracked value's history.
 */
import fs from "node:fs";
import path from "node:path";
import { DiffDetectedEventSchema } from "@driftwatch/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, eventually, killAllChildren, newAdminToken, sleep, startCli, startReceiver, startTarget, tempDir } from "./support.js";

type Call = ReturnType<typeof api>;

/** A shop page: the product's price and stock in JSON-LD, and on the page. */
const shop = (price: string, availability: "InStock" | "OutOfStock"): string => `<!doctype html><html lang="de"><head><title>Kettle</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Kettle",
"offers":{"@type":"Offer","price":"${price}","priceCurrency":"EUR","availability":"https://schema.org/${availability}"}}</script></head>
<body><main><h1>Kettle</h1><p class="price">${price.replace(".", ",")} €</p><p>${availability === "InStock" ? "In den Warenkorb" : "Ausverkauft"}</p></main></body></html>`;

describe("alert conditions end to end (SQLite)", () => {
  const token = newAdminToken();
  let dir: string;
  let call: Call;
  let page: Awaited<ReturnType<typeof startTarget>>;
  let status: Awaited<ReturnType<typeof startTarget>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    dir = tempDir("dw-e2e-conditions-");
    page = await startTarget("text/html; charset=utf-8", shop("219.00", "OutOfStock"));
    status = await startTarget("application/json", JSON.stringify({ status: "operational", uptime: 1 }));
    receiver = await startReceiver();
    const server = await startCli(["--database", `sqlite:${path.join(dir, "driftwatch.db")}`, "--allow-private-networks"], {
      DRIFTWATCH_ADMIN_TOKEN: token,
      DRIFTWATCH_LOG_LEVEL: "warn",
    });
    call = api(server.baseUrl, token);
  });

  afterAll(async () => {
    killAllChildren();
    await Promise.allSettled([page?.close(), status?.close(), receiver?.close()]);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function monitor(body: Record<string, unknown>, settings: Record<string, unknown>): Promise<string> {
    // paused: only the test's "check now" checks it (the scheduler would check a new monitor at once)
    const created = await call("POST", "/api/monitors", { intervalSeconds: 3600, state: "paused", ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // every change is compared as it is (no learned noise), so the test knows which checks record a diff
    const set = await call("PATCH", `/api/monitors/${created.body.id}/settings`, { autoApplySuggestions: false, ...settings });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    return created.body.id as string;
  }

  async function check(id: string): Promise<{ diff: any }> {
    const res = await call("POST", `/api/monitors/${id}/check`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }

  it("only the conditions' alerts reach the webhook; the values API shows the history", async () => {
    const hook = await call("POST", "/api/webhooks", { url: receiver.url, description: "alerts", minSeverity: "info" });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    receiver.setSecret(hook.body.secret);

    const shopId = await monitor(
      { type: "website", name: "kettle", url: page.url },
      {
        track: [
          { name: "price", extract: "price" },
          { name: "stock", extract: "availability" },
        ],
        alert: { when: "all", conditions: [{ value: "stock", op: "eq", to: "in_stock" }, { value: "price", op: "lt", to: 200 }] },
      },
    );
    const statusId = await monitor(
      { type: "api", name: "status", url: status.url },
      { track: [{ name: "status", path: "$.status" }], alert: { conditions: [{ value: "status", op: "ne", to: "operational", forChecks: 2 }] } },
    );
    // a bad condition is refused with its place
    const refused = await call("PATCH", `/api/monitors/${shopId}/settings`, { alert: { conditions: [{ value: "price", op: "lt", to: "cheap" }] } });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "invalid_conditions", errors: [{ path: "alert.conditions[0].to" }] });

    const steps: [string, "InStock" | "OutOfStock", boolean][] = [
      ["219.00", "OutOfStock", false], // the baseline
      ["189.00", "OutOfStock", false], // cheaper, still sold out: a diff, no alert
      ["189.00", "InStock", true], // back in stock under 200: the alert
      ["189.00", "InStock", false], // the same page: nothing
      ["249.00", "InStock", false], // dearer: a diff, no alert
      ["179.00", "InStock", true], // under 200 again: the alert
    ];
    const alerted: string[] = [];
    for (const [price, availability, alerts] of steps) {
      page.set(shop(price, availability));
      const result = await check(shopId);
      if (alerts) {
        expect(result.diff?.alert?.matched, `${price} ${availability}`).toBe(true);
        alerted.push(result.diff.id);
      } else if (result.diff !== null) {
        expect(result.diff.alert?.matched, `${price} ${availability}`).toBe(false);
      }
    }
    const diffs = (await call("GET", `/api/monitors/${shopId}/diffs?limit=100`)).body.data as any[];
    expect(diffs).toHaveLength(4);
    expect(diffs.filter((d) => d.alert.matched).map((d) => d.id).sort()).toEqual([...alerted].sort());

    // the status: degraded for two checks in a row, the second with the same content
    await check(statusId);
    status.set(JSON.stringify({ status: "degraded", uptime: 1 }));
    const degraded = await check(statusId);
    expect(degraded.diff.alert).toMatchObject({ matched: false });
    const held = await check(statusId);
    expect(held.diff).toMatchObject({ alertOnly: true, changes: [], alert: { matched: true } });
    alerted.push(held.diff.id);
    expect((await check(statusId)).diff).toBeNull();

    expect((await call("POST", "/api/webhooks/worker/run", { force: true })).status).toBe(200);
    const events = await eventually(async () => (receiver.unique().size >= 3 ? receiver.unique() : undefined), 30_000, "three alerts");
    await sleep(1500);
    expect(receiver.rejected()).toEqual([]);
    expect(receiver.unique().size).toBe(3);
    expect([...events.values()].map((e) => e.diffId).sort()).toEqual([...alerted].sort());
    for (const event of events.values()) {
      const parsed = DiffDetectedEventSchema.parse(event);
      expect(parsed.data.alert?.matched).toBe(true);
    }
    expect([...events.values()].find((e) => e.monitorId === statusId)).toMatchObject({ data: { alertOnly: true, changes: [] } });

    // the history of each value, newest first
    const prices = await call("GET", `/api/monitors/${shopId}/values?name=price&limit=100`);
    expect(prices.status).toBe(200);
    expect(prices.body.data.map((r: any) => r.value)).toEqual(
      [...steps].reverse().map(([price]) => ({ amount: Number(price), currency: "EUR" })),
    );
    const stock = await call("GET", `/api/monitors/${shopId}/values?name=stock&limit=3`);
    expect(stock.body.data.map((r: any) => r.value)).toEqual(["in_stock", "in_stock", "in_stock"]);
    expect(stock.body.nextCursor).not.toBeNull();
    const snapshots = new Set(((await call("GET", `/api/monitors/${shopId}/snapshots?limit=100`)).body.data as any[]).map((s) => s.id));
    for (const reading of prices.body.data) expect(snapshots.has(reading.snapshotId)).toBe(true);
    const statuses = await call("GET", `/api/monitors/${statusId}/values?name=status`);
    expect(statuses.body.data.map((r: any) => r.value)).toEqual(["degraded", "degraded", "degraded", "operational"]);
  });
});
