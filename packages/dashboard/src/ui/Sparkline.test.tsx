import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { MonitorsPage } from "../features/monitors/MonitorsPage";
import { fakeClient, monitor, renderPage } from "../test-support";
import { countPerDay } from "./Sparkline";

const DAY = 86_400_000;

describe("countPerDay", () => {
  it("counts per day, oldest first, ignoring what is older or in the future", () => {
    const now = Date.parse("2026-11-25T12:00:00.000Z");
    const at = (ms: number) => new Date(now - ms).toISOString();
    expect(countPerDay([at(1000), at(2000), at(DAY + 1), at(3 * DAY - 1), at(3 * DAY + 1), at(-5000), "not a date"], now, 3)).toEqual([1, 1, 2]);
  });
});

describe("the monitors list's sparkline", () => {
  it("shows the changes of the last 14 days from the monitor's diffs, asking only for monitors that changed lately", async () => {
    const now = Date.now();
    const diff = (i: number, ageMs: number) => ({ id: `dif_${String(i)}`, monitorId: "mon_000001", createdAt: new Date(now - ageMs).toISOString(), topSeverity: "info", classification: "value_change" });
    const changed = monitor(1, { name: "Changed", lastChangedAt: new Date(now - 3600_000).toISOString() });
    const quiet = monitor(2, { name: "Quiet", lastChangedAt: new Date(now - 40 * DAY).toISOString() });
    const { client, calls } = fakeClient((call) => {
      const url = new URL(`http://x${call.path}`);
      if (url.pathname === "/api/monitors") return { body: { data: [changed, quiet], nextCursor: null } };
      if (url.pathname === "/api/monitors/mon_000001/diffs" && url.searchParams.has("since")) return { body: { data: [diff(1, 1000), diff(2, 2 * DAY), diff(3, 2 * DAY + 60_000)], nextCursor: null } };
      if (url.pathname.endsWith("/diffs")) return { body: { data: [diff(1, 1000)], nextCursor: null } };
      return undefined;
    });
    renderPage(<MonitorsPage />, client);
    expect(await screen.findByRole("img", { name: "3 changes in the last 14 days" })).toBeInTheDocument();
    expect(screen.getByRole("img", { name: "0 changes in the last 14 days" })).toBeInTheDocument();
    const sinceCalls = calls.filter((c) => c.path.includes("since="));
    expect(sinceCalls.map((c) => new URL(`http://x${c.path}`).pathname)).toEqual(["/api/monitors/mon_000001/diffs"]);
    expect(new URL(`http://x${sinceCalls[0]!.path}`).searchParams.get("limit")).toBe("100");
  });
});
