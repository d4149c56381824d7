import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeClient, monitor, renderPage } from "../../test-support";
import { MonitorsPage } from "./MonitorsPage";

/** 10,000 monitors served 100 a page, as the API pages them. */
function tenThousand() {
  const all = Array.from({ length: 10_000 }, (_, i) => monitor(i, i === 7 ? { name: "Payments API", state: "paused" } : {}));
  return fakeClient((call) => {
    const url = new URL(`http://x${call.path}`);
    if (call.method === "GET" && url.pathname === "/api/monitors") {
      const start = Number(url.searchParams.get("cursor") ?? 0);
      const data = all.slice(start, start + 100);
      return { body: { data, nextCursor: start + 100 < all.length ? String(start + 100) : null } };
    }
    if (call.method === "PATCH" && url.pathname === "/api/monitors/mon_000007") return { body: { ...all[7], state: "active" } };
    return undefined;
  });
}

describe("the monitors list", () => {
  it("renders 10,000 monitors as a screenful of rows, searches and resumes one", async () => {
    const { client, calls } = tenThousand();
    renderPage(<MonitorsPage />, client);
    await screen.findByText("10000 monitors", {}, { timeout: 10_000 });
    const rows = screen.getAllByRole("listitem");
    expect(rows.length).toBeGreaterThan(0);
    // virtualised: only what fits the window (plus overscan) is in the DOM
    expect(rows.length).toBeLessThan(40);

    const user = userEvent.setup();
    await user.type(screen.getByRole("searchbox", { name: "Search" }), "payments");
    await screen.findByText("1 of 10000 monitors");
    const row = screen.getByRole("article", { name: "Payments API" });
    expect(within(row).getByText("paused")).toBeInTheDocument();
    await user.click(within(row).getByRole("button", { name: "Resume Payments API" }));
    await waitFor(() => expect(within(row).getByRole("button", { name: "Pause Payments API" })).toBeInTheDocument());
    expect(calls.find((c) => c.method === "PATCH")).toEqual({ method: "PATCH", path: "/api/monitors/mon_000007", body: { state: "active" } });
  });

  it("says what to do when there is no monitor, and shows errors with their request id", async () => {
    const empty = fakeClient(() => ({ body: { data: [], nextCursor: null } }));
    const first = renderPage(<MonitorsPage />, empty.client);
    expect(await screen.findByText("No monitors yet")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Create your first monitor" })).toHaveAttribute("href", "/monitors/new");
    first.unmount();

    const failing = fakeClient(() => ({
      status: 500,
      body: { type: "x", title: "Internal error", status: 500, detail: "It broke.", code: "internal_error", requestId: "req_01BROKEN" },
    }));
    renderPage(<MonitorsPage />, failing.client);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("It broke.");
    expect(alert).toHaveTextContent("req_01BROKEN");
  });

  it("shows each monitor's tags and filters by a tag present, together with search and status", async () => {
    const all = [
      monitor(1, { name: "Payments API", tags: ["prod", "team:payments"] }),
      monitor(2, { name: "Payments sandbox", tags: ["staging", "team:payments"] }),
      monitor(3, { name: "Search API", tags: ["prod"], state: "paused" }),
      monitor(4, { name: "Untagged" }),
    ];
    const { client } = fakeClient((call) => (call.method === "GET" && call.path.startsWith("/api/monitors?") ? { body: { data: all, nextCursor: null } } : undefined));
    renderPage(<MonitorsPage />, client);
    await screen.findByText("4 monitors");
    const payments = screen.getByRole("article", { name: "Payments API" });
    expect(within(within(payments).getByRole("list", { name: "Tags" })).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["prod", "team:payments"]);
    expect(within(screen.getByRole("article", { name: "Untagged" })).queryByRole("list", { name: "Tags" })).toBeNull();

    const tag = screen.getByRole("combobox", { name: "Tag" });
    expect(within(tag).getAllByRole("option").map((o) => o.textContent)).toEqual(["All", "prod", "staging", "team:payments"]);
    const user = userEvent.setup();
    await user.selectOptions(tag, "team:payments");
    await screen.findByText("2 of 4 monitors");
    await user.type(screen.getByRole("searchbox", { name: "Search" }), "sandbox");
    await screen.findByText("1 of 4 monitors");
    expect(screen.getByRole("article", { name: "Payments sandbox" })).toBeInTheDocument();
    await user.clear(screen.getByRole("searchbox", { name: "Search" }));
    await user.selectOptions(tag, "prod");
    await user.selectOptions(screen.getByRole("combobox", { name: "Status" }), "paused");
    await screen.findByText("1 of 4 monitors");
    expect(screen.getByRole("article", { name: "Search API" })).toBeInTheDocument();
    await user.selectOptions(screen.getByRole("combobox", { name: "Status" }), "failing");
    expect(await screen.findByText("No monitor matches these filters")).toBeInTheDocument();
  });
});
