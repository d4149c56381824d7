import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeClient, monitor, renderPage } from "../../test-support";
import { parseTags } from "./form";
import { MonitorDetailPage } from "./MonitorDetailPage";
import { MonitorFormPage } from "./MonitorFormPage";

describe("monitor tags in the form and on the monitor page", () => {
  it("splits the comma-separated text into tags, dropping empty entries", () => {
    expect(parseTags(" Prod, team:payments,,  ,eu ")).toEqual(["Prod", "team:payments", "eu"]);
    expect(parseTags("")).toEqual([]);
  });

  it("edits a monitor's tags: shows the current ones, sends the new list, shows the server's refusal", async () => {
    const current = monitor(1, { tags: ["prod", "team:payments"] });
    let refuse = true;
    const { client, calls } = fakeClient((call) => {
      if (call.method === "GET" && call.path === "/api/monitors/mon_000001") return { body: current };
      if (call.method === "PATCH" && call.path === "/api/monitors/mon_000001") {
        if (refuse) {
          refuse = false;
          return {
            status: 422,
            body: {
              type: "about:blank",
              title: "Validation failed",
              status: 422,
              detail: "The request body is invalid: tags[1]: may hold only lowercase letters, digits, '-', '_', ':' and '.'",
              code: "validation_failed",
              requestId: "req_01TAGS",
              errors: [{ path: "tags[1]", message: "may hold only lowercase letters, digits, '-', '_', ':' and '.'" }],
            },
          };
        }
        return { body: { ...current, tags: ["staging", "eu"] } };
      }
      return undefined;
    });
    renderPage(<MonitorFormPage />, client, "/monitors/mon_000001/edit", "/monitors/:monitorId/edit");
    const field = await screen.findByRole("textbox", { name: "Tags" });
    expect(field).toHaveValue("prod, team:payments");
    const user = userEvent.setup();
    await user.clear(field);
    await user.type(field, "Staging, eu west");
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    expect(await screen.findByText(/req_01TAGS/)).toBeInTheDocument();
    expect(calls.filter((c) => c.method === "PATCH").map((c) => (c.body as { tags: string[] }).tags)).toEqual([["Staging", "eu west"]]);

    await user.clear(field);
    await user.type(field, "Staging, eu,");
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PATCH")).toHaveLength(2));
    expect((calls.filter((c) => c.method === "PATCH")[1]!.body as { tags: string[] }).tags).toEqual(["Staging", "eu"]);
  });

  it("shows the tags on the monitor page, and says none when there are none", async () => {
    const tagged = monitor(1, { tags: ["prod", "team:payments"] });
    const untagged = monitor(2);
    const { client } = fakeClient((call) => {
      if (call.method !== "GET") return undefined;
      if (call.path === "/api/monitors/mon_000001") return { body: tagged };
      if (call.path === "/api/monitors/mon_000002") return { body: untagged };
      if (call.path.includes("/diffs")) return { body: { data: [], nextCursor: null } };
      return undefined;
    });
    const first = renderPage(<MonitorDetailPage />, client, "/monitors/mon_000001", "/monitors/:monitorId");
    const list = await screen.findByRole("list", { name: "Tags" });
    expect(list).toHaveTextContent("prodteam:payments");
    first.unmount();
    renderPage(<MonitorDetailPage />, client, "/monitors/mon_000002", "/monitors/:monitorId");
    await screen.findByRole("heading", { name: untagged.name });
    expect(screen.queryByRole("list", { name: "Tags" })).toBeNull();
    expect(screen.getByText("Tags").nextElementSibling).toHaveTextContent("none");
  });
});

describe("an OpenAPI document monitor", () => {
  it("is created from the form with type openapi", async () => {
    const { client, calls } = fakeClient((call) => {
      if (call.method === "POST" && call.path === "/api/monitors") return { status: 201, body: monitor(9, { type: "openapi", url: "https://api.example.com/openapi.yaml" }) };
      return undefined;
    });
    renderPage(<MonitorFormPage />, client, "/monitors/new", "/monitors/new");
    const user = userEvent.setup();
    await user.click(screen.getByRole("radio", { name: /An OpenAPI document/ }));
    await user.type(screen.getByRole("textbox", { name: "URL" }), "https://api.example.com/openapi.yaml");
    await user.click(screen.getByRole("button", { name: "Create monitor" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "POST")).toHaveLength(1));
    expect(calls.find((c) => c.method === "POST")!.body).toMatchObject({ type: "openapi", url: "https://api.example.com/openapi.yaml", selector: null });
  });
});
