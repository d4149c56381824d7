import type { Settings } from "@driftwatch/client";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeClient, meAs, monitor, renderPage } from "../../test-support";
import { MonitorDetailPage } from "./MonitorDetailPage";
import { conditionOf, describeAlert, formatValue, presetSettings, valueStats } from "./TrackedValues";

const MON = monitor(1, { type: "website", url: "https://shop.example/kettle", lastChangedAt: "2026-11-25T09:00:00.000Z" });
const SETTINGS: Settings = {
  monitorId: MON.id,
  policyRulesJson: { rules: [] },
  snapshotRetention: 100,
  autoApplySuggestions: false,
  rejectedSuggestions: [],
  track: [
    { name: "price", extract: "price" },
    { name: "stock", extract: "availability" },
  ],
  alert: { when: "all", conditions: [{ value: "stock", op: "eq", to: "in_stock" }, { value: "price", op: "lt", to: 200 }] },
  updatedAt: "2026-11-20T00:00:00.000Z",
};
const reading = (at: string, value: unknown) => ({ at, value, snapshotId: "snp_000001" });
const PRICES = [
  reading("2026-11-25T09:00:00.000Z", { amount: 179, currency: "EUR" }),
  reading("2026-11-25T08:00:00.000Z", { amount: 249, currency: "EUR" }),
  { ...reading("2026-11-25T07:00:00.000Z", null), reason: "the page shows no price" },
  reading("2026-11-25T06:00:00.000Z", { amount: 189, currency: "EUR" }),
];
const STOCK = [reading("2026-11-25T09:00:00.000Z", "in_stock"), reading("2026-11-25T08:00:00.000Z", "in_stock"), reading("2026-11-25T07:00:00.000Z", "out_of_stock")];
const diff = (id: string, patch: Record<string, unknown>) => ({
  id,
  monitorId: MON.id,
  snapshotId: `snp_${id}`,
  previousSnapshotId: "snp_0",
  diffFingerprint: `sha256:${"0".repeat(64)}`,
  topSeverity: "medium",
  changes: [],
  requestId: "req_1",
  status: 200,
  latencyMs: 10,
  createdAt: "2026-11-25T09:00:00.000Z",
  classification: "content_change",
  summary: { additions: 0, removals: 0, modifications: 1 },
  changedTargets: [],
  browserRender: false,
  waitStrategy: null,
  selector: null,
  ...patch,
});

function serve(settings: Settings = SETTINGS) {
  let current = settings;
  return fakeClient((call) => {
    const path = call.path.split("?")[0];
    if (path === `/api/monitors/${MON.id}`) return { body: MON };
    if (path === `/api/monitors/${MON.id}/settings`) {
      if (call.method === "PATCH") current = { ...current, ...(call.body as Partial<Settings>) };
      return { body: current };
    }
    if (path === `/api/monitors/${MON.id}/snapshots`) return { body: { data: [], nextCursor: null } };
    if (path === `/api/monitors/${MON.id}/diffs`) {
      return {
        body: {
          data: [
            diff("dif_2", { alertOnly: true, summary: { additions: 0, removals: 0, modifications: 0 }, alert: { matched: true, results: [{ index: 0, matched: true, reason: "price is 179 EUR, below 200" }] } }),
            diff("dif_1", { alert: { matched: false, results: [{ index: 0, matched: false, reason: 'stock is "out_of_stock", not equal to "in_stock"' }] } }),
          ],
          nextCursor: null,
        },
      };
    }
    if (path === `/api/monitors/${MON.id}/alert/preview`) {
      const body = call.body as { alert: { conditions: { value: string; to?: unknown }[] } };
      const to = body.alert.conditions.find((c) => c.value === "price")?.to;
      if (typeof to !== "number") {
        return { status: 422, body: { type: "about:blank", title: "Invalid alert conditions", status: 422, detail: "alert is invalid: alert.conditions[1].to: price is a price; compare it with a number", code: "invalid_conditions", requestId: "req_prev", errors: [{ path: "alert.conditions[1].to", message: "price is a price; compare it with a number" }] } };
      }
      const alerted = to > 180;
      return {
        body: {
          monitorId: MON.id,
          checks: [
            { at: "2026-11-25T09:00:00.000Z", matched: alerted, alerted, results: [] },
            { at: "2026-11-25T08:00:00.000Z", matched: false, alerted: false, results: [] },
          ],
          alerts: alerted ? 1 : 0,
        },
      };
    }
    if (path === `/api/monitors/${MON.id}/values`) {
      const name = new URL(`http://x${call.path}`).searchParams.get("name");
      return { body: { data: name === "price" ? PRICES : name === "stock" ? STOCK : [], nextCursor: null } };
    }
    return undefined;
  });
}

describe("tracked values on the monitor page", () => {
  it("formats values, their min, max and last, and the conditions", () => {
    expect(formatValue({ amount: 1299, currency: "EUR" })).toBe("1299 EUR");
    expect(formatValue({ amount: 12, currency: null })).toBe("12");
    expect(formatValue("out_of_stock")).toBe("out of stock");
    expect(formatValue(null)).toBe("missing");
    expect(valueStats(PRICES as never)).toEqual({ min: 179, max: 249, last: 179 });
    expect(valueStats(STOCK as never)).toBeNull();
    expect(describeAlert(SETTINGS.alert!)).toBe('stock = "in_stock" and price < 200');
    expect(describeAlert({ when: "any", conditions: [{ value: "status", op: "ne", to: "operational", forChecks: 3 }, { value: "price", op: "dropped_by_percent", to: 10 }] })).toBe(
      'status ≠ "operational" for 3 checks or price dropped by percent 10',
    );
  });

  it("presets add the price or availability they need, named apart from what is tracked", () => {
    const none: Settings = { ...SETTINGS, track: [{ name: "stock", path: undefined, selector: "#stock" }], alert: null };
    expect(presetSettings(none, { kind: "restock" })).toEqual({
      track: [{ name: "stock", selector: "#stock" }, { name: "stock2", extract: "availability" }],
      alert: { when: "all", conditions: [{ value: "stock2", op: "eq", to: "in_stock" }] },
    });
    expect(presetSettings(SETTINGS, { kind: "price-below", amount: 150 })).toEqual({
      track: SETTINGS.track,
      alert: { when: "all", conditions: [{ value: "price", op: "lt", to: 150 }] },
    });
  });

  it("shows each value's chart with min, max and last, the conditions, and which diffs alerted", async () => {
    const { client } = serve();
    renderPage(<MonitorDetailPage />, client, `/monitors/${MON.id}`, "/monitors/:monitorId", meAs("viewer"));
    expect(await screen.findByText('stock = "in_stock" and price < 200')).toBeInTheDocument();
    const price = await screen.findByRole("region", { name: "Tracked value price" });
    expect(await within(price).findByText("179 EUR")).toBeInTheDocument();
    expect(within(price).getByText(/min 179 · max 249/)).toBeInTheDocument();
    const line = within(price).getByRole("img", { name: "price over the last 4 checks" });
    expect(line.querySelector("polyline")?.getAttribute("points")?.split(" ")).toHaveLength(3);
    const stock = screen.getByRole("region", { name: "Tracked value stock" });
    const band = await within(stock).findByRole("img", { name: "stock over the last 3 checks" });
    expect([...band.querySelectorAll("rect")].map((r) => r.getAttribute("class"))).toEqual(["band-out_of_stock", "band-in_stock", "band-in_stock"]);
    expect(screen.getByText("alert")).toHaveAttribute("title", "price is 179 EUR, below 200");
    expect(screen.getByText("no alert")).toBeInTheDocument();
    expect(screen.getByText("the alert conditions became true (no change to report)")).toBeInTheDocument();
    // a viewer cannot change the conditions
    expect(screen.queryByRole("button", { name: "Notify me when back in stock" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Edit the alert conditions" })).toBeNull();
  });

  it("a member sets the price-below preset: the settings are sent and shown", async () => {
    const { client, calls } = serve();
    renderPage(<MonitorDetailPage />, client, `/monitors/${MON.id}`, "/monitors/:monitorId", meAs("member"));
    const user = userEvent.setup();
    await user.type(await screen.findByRole("textbox", { name: "Price" }), "149,90");
    await user.click(screen.getByRole("button", { name: "Notify me" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PATCH").map((c) => c.body)).toEqual([{ track: SETTINGS.track, alert: { when: "all", conditions: [{ value: "price", op: "lt", to: 149.9 }] } }]));
    expect(await screen.findByText("price < 149.9")).toBeInTheDocument();
  });

  it("turns typed rows into conditions: numbers for numbers and prices, texts otherwise, forChecks above 1", () => {
    expect(conditionOf({ value: "price", op: "lt", to: "149,90", forChecks: "" }, SETTINGS.track)).toEqual({ value: "price", op: "lt", to: 149.9 });
    expect(conditionOf({ value: "stock", op: "changed_to", to: "in_stock", forChecks: "3" }, SETTINGS.track)).toEqual({ value: "stock", op: "changed_to", to: "in_stock", forChecks: 3 });
    expect(conditionOf({ value: "price", op: "changed", to: "ignored", forChecks: "1" }, SETTINGS.track)).toEqual({ value: "price", op: "changed" });
    expect(conditionOf({ value: "diff.topSeverity", op: "gte", to: "high", forChecks: "" }, SETTINGS.track)).toEqual({ value: "diff.topSeverity", op: "gte", to: "high" });
  });

  it("a member edits the conditions with a live preview of the past checks, and saves them", async () => {
    const { client, calls } = serve();
    renderPage(<MonitorDetailPage />, client, `/monitors/${MON.id}`, "/monitors/:monitorId", meAs("member"));
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Edit the alert conditions" }));
    const preview = await screen.findByRole("status", { name: "Preview" });
    expect(await within(preview).findByText(/would have alerted 1 time/)).toBeInTheDocument();
    const operand = screen.getByRole("textbox", { name: "Operand 2" });
    await user.clear(operand);
    expect(await within(preview).findByText(/compare it with a number/)).toBeInTheDocument();
    await user.type(operand, "150");
    expect(await within(preview).findByText(/would have alerted 0 times/)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Save conditions" }));
    await waitFor(() =>
      expect(calls.filter((c) => c.method === "PATCH").map((c) => c.body)).toEqual([
        { alert: { when: "all", conditions: [{ value: "stock", op: "eq", to: "in_stock" }, { value: "price", op: "lt", to: 150 }] } },
      ]),
    );
    expect(await screen.findByText('stock = "in_stock" and price < 150')).toBeInTheDocument();
  });
});
