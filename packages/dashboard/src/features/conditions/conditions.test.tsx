// Tracked values and alert conditions: the preview's evaluation, the charts, the condition editor
// with its live preview on the monitor's history, and the presets of the monitor form.
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeClient, meAs, monitor, renderPage } from "../../test-support";
import { MonitorDetailPage } from "../monitors/MonitorDetailPage";
import { MonitorFormPage } from "../monitors/MonitorFormPage";
import type { ValuePoint } from "./api";
import { AlertsPage, pastChecks } from "./AlertsPage";
import { previewAlert, type PastCheck } from "./evaluate";
import { presetSettings } from "./presets";

const at = (i: number): string => `2026-11-2${String(i)}T09:00:00.000Z`;
const checks = (values: Array<Record<string, PastCheck["values"][string]>>): PastCheck[] => values.map((v, i) => ({ at: at(i), snapshotId: `snp_${String(i)}`, values: v }));

describe("the preview's evaluation", () => {
  it("alerts when a condition becomes true, not while it stays true", () => {
    const out = previewAlert({ when: "all", conditions: [{ value: "stock", op: "changed_to", to: "in_stock" }] }, checks([{ stock: "out_of_stock" }, { stock: "in_stock" }, { stock: "in_stock" }, { stock: "out_of_stock" }, { stock: "in_stock" }]));
    expect(out.map((e) => e.alerted)).toEqual([false, true, false, false, true]);
    expect(out[0]!.results[0]!.reason).toBe("first check: no previous value of stock to compare with");
    expect(out[1]!.results[0]!.reason).toBe('stock changed to "in_stock" (was "out_of_stock")');
  });

  it("compares a price by its amount; a missing value or a text is false and says why", () => {
    const out = previewAlert(
      { when: "all", conditions: [{ value: "price", op: "lt", to: 200 }] },
      checks([{ price: { amount: 249, currency: "EUR" } }, {}, { price: "sold out" }, { price: { amount: 199.5, currency: "EUR" } }]),
    );
    expect(out.map((e) => e.results[0]!.reason)).toEqual([
      "price is 249 EUR, not below 200",
      "price is missing on this check",
      'price is a text ("sold out"), not a number',
      "price is 199.5 EUR, below 200",
    ]);
    expect(out.map((e) => e.alerted)).toEqual([false, false, false, true]);
  });

  it("rides out flaps with forChecks and combines with any", () => {
    const alert = { when: "any" as const, conditions: [{ value: "errors", op: "gt" as const, to: 2, forChecks: 2 }, { value: "status", op: "ne" as const, to: "operational" }] };
    const out = previewAlert(alert, checks([{ errors: 3, status: "operational" }, { errors: 1, status: "operational" }, { errors: 3, status: "operational" }, { errors: 4, status: "operational" }, { errors: 0, status: "degraded" }]));
    expect(out.map((e) => e.matched)).toEqual([false, false, false, true, true]);
    expect(out.map((e) => e.alerted)).toEqual([false, false, false, true, false]);
    expect(out[2]!.results[0]!.reason).toBe("errors is 3, above 2; held 1 of 2 consecutive checks");
  });

  it("measures a drop in percent, not across currencies", () => {
    const out = previewAlert(
      { when: "all", conditions: [{ value: "price", op: "dropped_by_percent", to: 10 }] },
      checks([{ price: { amount: 100, currency: "EUR" } }, { price: { amount: 95, currency: "EUR" } }, { price: { amount: 80, currency: "EUR" } }, { price: { amount: 70, currency: "USD" } }]),
    );
    expect(out.map((e) => e.alerted)).toEqual([false, false, true, false]);
    expect(out[2]!.results[0]!.reason).toBe("price dropped by 15.79 % (95 EUR to 80 EUR), at least 10 %");
    expect(out[3]!.results[0]!.reason).toContain("changed currency");
  });
});

describe("past checks from the values' histories", () => {
  it("joins readings by check time, keeps why a value was missing, and gives a diff's severity to the check that recorded it only", () => {
    const price: ValuePoint[] = [
      { at: at(2), value: 10, snapshotId: "snp_b" },
      { at: at(1), value: 12, snapshotId: "snp_b" },
      { at: at(0), value: null, snapshotId: "snp_a", reason: "no element matches #price" },
    ];
    const stock: ValuePoint[] = [
      { at: at(2), value: "in_stock", snapshotId: "snp_b" },
      { at: at(1), value: "out_of_stock", snapshotId: "snp_b" },
    ];
    const out = pastChecks(
      [
        ["price", price],
        ["stock", stock],
      ],
      new Map([["snp_b", "high" as const]]),
    );
    expect(out.map((c) => [c.at, c.values, c.topSeverity])).toEqual([
      [at(0), { price: null }, null],
      [at(1), { price: 12, stock: "out_of_stock" }, "high"],
      [at(2), { price: 10, stock: "in_stock" }, null],
    ]);
    const preview = previewAlert({ when: "all", conditions: [{ value: "price", op: "lt", to: 11 }] }, out);
    expect(preview[0]!.results[0]!.reason).toBe("price is missing: no element matches #price");
  });
});

describe("presets", () => {
  it("tracks availability and alerts when back in stock, keeping other tracked values", () => {
    expect(presetSettings({ kind: "restock", below: "", where: "" }, "website", [{ name: "title", selector: "h1" }, { name: "availability", selector: "#old" }])).toEqual({
      track: [{ name: "title", selector: "h1" }, { name: "availability", extract: "availability" }],
      alert: { when: "all", conditions: [{ value: "availability", op: "changed_to", to: "in_stock" }] },
    });
    expect(presetSettings({ kind: "price_below", below: "19.99", where: "$.offer.price" }, "api")).toEqual({
      track: [{ name: "price", extract: "number", path: "$.offer.price" }],
      alert: { when: "all", conditions: [{ value: "price", op: "lt", to: 19.99 }] },
    });
  });

  it("the monitor form saves the monitor, then its tracked price and the condition", async () => {
    const { client, calls } = fakeClient((call) => {
      if (call.method === "POST" && call.path === "/api/monitors") return { status: 201, body: monitor(5, { type: "website" }) };
      if (call.path === "/api/monitors/mon_000005/settings" && call.method === "GET") return { body: { monitorId: "mon_000005", track: [{ name: "title", selector: "h1" }], alert: null } };
      if (call.path === "/api/monitors/mon_000005/settings" && call.method === "PATCH") return { body: call.body };
      return undefined;
    });
    renderPage(<MonitorFormPage />, client, "/monitors/new", "/monitors/new", meAs("member"));
    const user = userEvent.setup();
    await user.click(screen.getByLabelText("A web page"));
    await user.type(screen.getByLabelText("URL"), "https://shop.example.com/p/1");
    await user.click(screen.getByLabelText("When the price falls below…"));
    await user.click(screen.getByRole("button", { name: "Create monitor" }));
    expect(screen.getByRole("alert").textContent).toBe("Type the price to fall below (a positive number).");
    expect(calls.some((c) => c.method === "POST")).toBe(false);
    await user.type(screen.getByLabelText("Price below"), "199");
    await user.click(screen.getByRole("button", { name: "Create monitor" }));
    await waitFor(() => expect(calls.some((c) => c.method === "PATCH")).toBe(true));
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(["POST /api/monitors", "GET /api/monitors/mon_000005/settings", "PATCH /api/monitors/mon_000005/settings"]);
    expect(calls[2]!.body).toEqual({
      track: [{ name: "title", selector: "h1" }, { name: "price", extract: "price" }],
      alert: { when: "all", conditions: [{ value: "price", op: "lt", to: 199 }] },
    });
  });
});

const SHOP = monitor(3, { type: "website", name: "Shop", url: "https://shop.example.com/p/1" });
const PRICES: ValuePoint[] = [249, 239, 219, 189, 209, 179].map((amount, i) => ({ at: at(i), value: { amount, currency: "EUR" }, snapshotId: `snp_${String(i)}` })).reverse();
const STOCK: ValuePoint[] = ["out_of_stock", "out_of_stock", "in_stock", "in_stock", "out_of_stock", "in_stock"].map((value, i) => ({ at: at(i), value, snapshotId: `snp_${String(i)}` })).reverse();
const SETTINGS = {
  monitorId: SHOP.id,
  track: [
    { name: "price", extract: "price" },
    { name: "availability", extract: "availability" },
  ],
  alert: { when: "all", conditions: [{ value: "price", op: "lt", to: 200 }] },
};

function shopServer() {
  return fakeClient((call) => {
    if (call.path === `/api/monitors/${SHOP.id}`) return { body: SHOP };
    if (call.path === `/api/monitors/${SHOP.id}/settings` && call.method === "GET") return { body: SETTINGS };
    if (call.path === `/api/monitors/${SHOP.id}/settings` && call.method === "PATCH")
      return { status: 422, body: { type: "about:blank", title: "Invalid conditions", status: 422, code: "invalid_conditions", detail: "1 problem", errors: [{ path: "alert.conditions[1].to", message: "must be a number" }] } };
    // two pages of the price history
    if (call.path === `/api/monitors/${SHOP.id}/values?name=price&limit=100`) return { body: { data: PRICES.slice(0, 4), nextCursor: "c2" } };
    if (call.path === `/api/monitors/${SHOP.id}/values?name=price&limit=100&cursor=c2`) return { body: { data: PRICES.slice(4), nextCursor: null } };
    if (call.path === `/api/monitors/${SHOP.id}/values?name=availability&limit=100`) return { body: { data: STOCK, nextCursor: null } };
    if (call.method === "GET" && call.path.startsWith(`/api/monitors/${SHOP.id}/`)) return { body: { data: [], nextCursor: null } };
    if (call.path.startsWith("/api/channels")) return { body: { data: [], nextCursor: null } };
    return undefined;
  });
}

describe("the alerts page", () => {
  it("previews which past checks would have alerted, live as the conditions change, and shows the server's 422 by place", async () => {
    const { client, calls } = shopServer();
    renderPage(<AlertsPage />, client, `/monitors/${SHOP.id}/alerts`, "/monitors/:monitorId/alerts", meAs("member"));
    // price below 200: 189 (after 219) alerts, 209 ends it, 179 alerts again
    expect((await screen.findByText(/past checks/)).parentElement!.textContent).toBe("2 of 6 past checks would have alerted.");
    const user = userEvent.setup();
    const threshold = screen.getByLabelText("Value of condition 1");
    await user.clear(threshold);
    await user.type(threshold, "215");
    // 189, 209 and 179 are all below 215: one alert, when it first held
    expect(screen.getByText(/past checks/).parentElement!.textContent).toBe("1 of 6 past checks would have alerted.");
    await user.clear(threshold);
    await user.type(threshold, "240");
    // 239 alerts, and it stays below 240 from then on
    expect(screen.getByText(/past checks/).parentElement!.textContent).toBe("1 of 6 past checks would have alerted.");

    // and in stock: both must hold (219 in stock alerts; out of stock ends it; 179 in stock alerts again)
    await user.click(screen.getByRole("button", { name: "Add a condition" }));
    await user.selectOptions(screen.getByLabelText("Condition 2"), "availability");
    await user.selectOptions(screen.getByLabelText("Operator of condition 2"), "eq");
    await user.selectOptions(screen.getByLabelText("Value of condition 2"), "in_stock");
    expect(screen.getByText(/past checks/).parentElement!.textContent).toBe("2 of 6 past checks would have alerted.");
    const newest = within(screen.getByRole("list", { name: "Past checks, newest first" })).getAllByRole("listitem")[0]!;
    expect(newest.textContent).toContain("alert");
    expect(newest.textContent).toContain("price is 179 EUR, below 240");
    expect(newest.textContent).toContain('availability is "in_stock", equal to "in_stock"');

    await user.click(screen.getByRole("button", { name: "Save" }));
    const problems = await screen.findByRole("list", { name: "What to fix" });
    expect(problems.textContent).toBe("alert.conditions[1].to: must be a number");
    expect(calls.find((c) => c.method === "PATCH")!.body).toEqual({
      track: SETTINGS.track,
      alert: {
        when: "all",
        conditions: [
          { value: "price", op: "lt", to: 240 },
          { value: "availability", op: "eq", to: "in_stock" },
        ],
      },
    });
  });
});

describe("tracked values on the monitor page", () => {
  it("charts the price as a line with min, max and last, and the availability as a band", async () => {
    const { client, calls } = shopServer();
    const { container } = renderPage(<MonitorDetailPage />, client, `/monitors/${SHOP.id}`, "/monitors/:monitorId", meAs("viewer"));
    const price = await screen.findByRole("figure", { name: /price/ });
    await waitFor(() => expect(price.querySelector("path")).not.toBeNull());
    // six points, oldest left; the highest (249) at the top, the lowest (179) at the bottom
    const d = price.querySelector("path")!.getAttribute("d")!;
    const ys = [...d.matchAll(/[ML][\d.]+,([\d.]+)/g)].map((m) => Number(m[1]));
    expect(ys).toHaveLength(6);
    expect(ys[0]).toBeCloseTo(6);
    expect(ys[5]).toBeCloseTo(134);
    const facts = within(price).getAllByRole("definition").map((dd) => dd.textContent);
    expect(facts[0]).toMatch(/179/);
    expect(facts[1]).toMatch(/249/);
    expect(facts[2]).toMatch(/179/);
    const stock = screen.getByRole("figure", { name: /availability/ });
    const rects = [...stock.querySelectorAll("rect")].map((r) => r.getAttribute("class"));
    expect(rects).toEqual(["band-out_of_stock", "band-out_of_stock", "band-in_stock", "band-in_stock", "band-out_of_stock", "band-in_stock"]);
    expect(within(stock).getAllByRole("definition")[0]!.textContent).toMatch(/^in stock/);
    expect(calls.some((c) => c.path === `/api/monitors/${SHOP.id}/values?name=price&limit=100`)).toBe(true);
    expect(container.querySelector(".state.error")).toBeNull();
    expect(screen.getByRole("link", { name: "Alerts" })).toHaveAttribute("href", `/monitors/${SHOP.id}/alerts`);
  });
});

describe("the alerts page's preview from the server", () => {
  it("asks the server 600 ms after the typing stops, one request at a time, and shows its answer and its 422", async () => {
    const held: Array<{ body: { alert: { conditions: Array<{ to?: unknown }> } }; release: (answer: { status?: number; body: unknown }) => void }> = [];
    const { client, calls } = fakeClient((call) => {
      if (call.method === "POST" && call.path === `/api/monitors/${SHOP.id}/alert/preview`) {
        return new Promise((resolve) => held.push({ body: call.body as (typeof held)[number]["body"], release: resolve }));
      }
      if (call.path === `/api/monitors/${SHOP.id}`) return { body: SHOP };
      if (call.path === `/api/monitors/${SHOP.id}/settings`) return { body: SETTINGS };
      if (call.path.startsWith("/api/channels")) return { body: { data: [], nextCursor: null } };
      return undefined;
    });
    const answer = (to: number, alerts: number) => ({
      body: {
        monitorId: SHOP.id,
        alerts,
        checks: [
          { at: at(5), matched: true, alerted: alerts > 0, results: [{ index: 0, matched: true, reason: `price is 179 EUR, below ${String(to)}` }] },
          { at: at(4), matched: false, alerted: false, results: [{ index: 0, matched: false, reason: `price is 209 EUR, not below ${String(to)}` }] },
        ],
      },
    });
    renderPage(<AlertsPage />, client, `/monitors/${SHOP.id}/alerts`, "/monitors/:monitorId/alerts", meAs("member"));
    const previews = () => calls.filter((c) => c.path.endsWith("/alert/preview"));
    // the page's first preview goes at once
    await waitFor(() => expect(held).toHaveLength(1));
    expect(held[0]!.body).toEqual({ alert: SETTINGS.alert, limit: 200 });
    const user = userEvent.setup();
    const threshold = await screen.findByLabelText("Value of condition 1");
    await user.clear(threshold);
    await user.type(threshold, "215");
    // past the debounce: still one request, the first one is in flight
    await new Promise((r) => setTimeout(r, 900));
    expect(previews()).toHaveLength(1);
    held[0]!.release(answer(200, 1));
    // when it returns, the newest conditions go, once
    await waitFor(() => expect(held).toHaveLength(2));
    expect(held[1]!.body.alert.conditions[0]!.to).toBe(215);
    expect(screen.getByText(/past checks/).parentElement!.textContent).toBe("1 of 2 past checks would have alerted. Updating…");
    held[1]!.release(answer(215, 0));
    await waitFor(() => expect(screen.getByText(/past checks/).parentElement!.textContent).toBe("0 of 2 past checks would have alerted."));
    expect(screen.getByText("price is 179 EUR, below 215")).toBeInTheDocument();
    expect(screen.queryByText(/Evaluated in your browser/)).toBeNull();

    // typing fast sends once, after the pause
    await user.type(threshold, "0");
    await user.type(threshold, "0");
    await new Promise((r) => setTimeout(r, 300));
    expect(previews()).toHaveLength(2);
    await waitFor(() => expect(held).toHaveLength(3), { timeout: 2000 });
    expect(held[2]!.body.alert.conditions[0]!.to).toBe(21500);
    held[2]!.release({
      status: 422,
      body: { type: "about:blank", title: "Invalid conditions", status: 422, code: "invalid_conditions", detail: "1 problem", errors: [{ path: "alert.conditions[0].to", message: "is too large" }] },
    });
    expect((await screen.findByRole("list", { name: "What to fix" })).textContent).toBe("alert.conditions[0].to: is too large");
    await new Promise((r) => setTimeout(r, 700));
    expect(previews()).toHaveLength(3);
  });

  it("evaluates in the browser, and says why, when the server's preview cannot answer", async () => {
    const { client, calls } = shopServer();
    renderPage(<AlertsPage />, client, `/monitors/${SHOP.id}/alerts`, "/monitors/:monitorId/alerts", meAs("member"));
    expect((await screen.findByText(/past checks/)).parentElement!.textContent).toBe("2 of 6 past checks would have alerted.");
    expect(screen.getByText(/Evaluated in your browser: the server's preview is not available \(HTTP 404\)/)).toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText("Value of condition 1"), "0");
    await new Promise((r) => setTimeout(r, 800));
    // after a failure the server is not asked again on each edit
    expect(calls.filter((c) => c.path.endsWith("/alert/preview"))).toHaveLength(1);
  });
});

describe("a condition on the change's severity", () => {
  it("is previewed in the browser (the server does not replay severities), from the diffs", async () => {
    const { client, calls } = fakeClient((call) => {
      if (call.path === `/api/monitors/${SHOP.id}`) return { body: SHOP };
      if (call.path === `/api/monitors/${SHOP.id}/settings`)
        return { body: { ...SETTINGS, alert: { when: "all", conditions: [{ value: "price", op: "lt", to: 200 }, { value: "diff.topSeverity", op: "eq", to: "high" }] } } };
      if (call.path === `/api/monitors/${SHOP.id}/values?name=price&limit=100`) return { body: { data: PRICES, nextCursor: null } };
      if (call.path.startsWith(`/api/monitors/${SHOP.id}/diffs`)) return { body: { data: [], nextCursor: null } };
      if (call.path.startsWith("/api/channels")) return { body: { data: [], nextCursor: null } };
      return undefined;
    });
    renderPage(<AlertsPage />, client, `/monitors/${SHOP.id}/alerts`, "/monitors/:monitorId/alerts", meAs("member"));
    expect((await screen.findByText(/past checks/)).parentElement!.textContent).toBe("0 of 6 past checks would have alerted.");
    expect(screen.getByText(/the server's preview does not replay the changes' severities/)).toBeInTheDocument();
    expect(calls.some((c) => c.path.endsWith("/alert/preview"))).toBe(false);
  });
});
