import { screen, waitFor, within } from "@testing-library/react";
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

describe("an api monitor's contract in the form", () => {
  const petstore = monitor(7, { type: "openapi", name: "Petstore document", url: "https://api.example.com/openapi.json" });

  it("is created with a stored OpenAPI monitor's document and an operation by method and path", async () => {
    const { client, calls } = fakeClient((call) => {
      if (call.method === "GET" && call.path.startsWith("/api/monitors?")) return { body: { data: [monitor(1), petstore], nextCursor: null } };
      if (call.method === "POST" && call.path === "/api/monitors") return { status: 201, body: monitor(9, { contract: (call.body as { contract: unknown }).contract }) };
      return undefined;
    });
    renderPage(<MonitorFormPage />, client, "/monitors/new", "/monitors/new");
    const user = userEvent.setup();
    await user.type(screen.getByRole("textbox", { name: "URL" }), "https://api.example.com/pets/1");
    expect(screen.queryByLabelText("OpenAPI document URL")).toBeNull();
    await user.click(screen.getByLabelText("Check each response against an OpenAPI document"));
    await user.click(screen.getByLabelText("An OpenAPI monitor's document"));
    const select = screen.getByLabelText("OpenAPI monitor");
    // only openapi monitors are offered
    await waitFor(() => expect(within(select).getAllByRole("option").map((o) => o.textContent)).toEqual(["Choose…", "Petstore document"]));
    await user.selectOptions(select, "Petstore document");
    await user.click(screen.getByLabelText("By method and path"));
    await user.selectOptions(screen.getByLabelText("Operation method"), "GET");
    await user.type(screen.getByLabelText("Operation path"), "/pets/{{id}");
    await user.type(screen.getByLabelText("Response status"), "2xx");
    await user.click(screen.getByRole("button", { name: "Create monitor" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "POST")).toHaveLength(1));
    expect(calls.find((c) => c.method === "POST")!.body).toMatchObject({
      type: "api",
      url: "https://api.example.com/pets/1",
      contract: { document: { monitorId: petstore.id }, operation: { method: "GET", path: "/pets/{id}" }, status: "2XX" },
    });
  });

  it("edits the current contract, shows the server's 422 at its field, and removes it with null", async () => {
    const current = monitor(1, { contract: { document: "https://api.example.com/openapi.yaml", operation: "getPet", status: 200 } });
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
              title: "Unsafe URL",
              status: 422,
              detail: "The URL is not allowed.",
              code: "unsafe_url",
              requestId: "req_01CONTRACT",
              errors: [
                { path: "contract.document", message: "resolves to a private address" },
                { path: "contract.status", message: "must be a status code, 1XX..5XX or default" },
              ],
            },
          };
        }
        return { body: { ...current, contract: (call.body as { contract: unknown }).contract } };
      }
      return undefined;
    });
    renderPage(<MonitorFormPage />, client, "/monitors/mon_000001/edit", "/monitors/:monitorId/edit");
    const url = await screen.findByLabelText("OpenAPI document URL");
    expect(url).toHaveValue("https://api.example.com/openapi.yaml");
    expect(screen.getByLabelText("operationId")).toHaveValue("getPet");
    const status = screen.getByLabelText("Response status");
    expect(status).toHaveValue("200");
    const user = userEvent.setup();
    await user.clear(url);
    await user.type(url, "http://10.0.0.1/openapi.yaml");
    await user.clear(status);
    await user.type(status, "299x");
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    // each message at its field, the field marked invalid and described by it
    expect(await screen.findByText("resolves to a private address")).toHaveAttribute("id", "f-contract-url-error");
    expect(url).toHaveAttribute("aria-invalid", "true");
    expect(url).toHaveAccessibleDescription("resolves to a private address");
    expect(status).toHaveAccessibleDescription("must be a status code, 1XX..5XX or default");
    expect(calls.find((c) => c.method === "PATCH")!.body).toMatchObject({ contract: { document: "http://10.0.0.1/openapi.yaml", operation: "getPet", status: "299x" } });

    await user.click(screen.getByLabelText("Check each response against an OpenAPI document"));
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PATCH")).toHaveLength(2));
    expect((calls.filter((c) => c.method === "PATCH")[1]!.body as { contract: unknown }).contract).toBeNull();
  });

  it("is not offered for web pages, nor sent for them", async () => {
    const { client, calls } = fakeClient((call) => (call.method === "POST" ? { status: 201, body: monitor(3, { type: "website" }) } : undefined));
    renderPage(<MonitorFormPage />, client, "/monitors/new", "/monitors/new");
    const user = userEvent.setup();
    await user.click(screen.getByRole("radio", { name: "A web page" }));
    expect(screen.queryByRole("group", { name: "API contract" })).toBeNull();
    await user.type(screen.getByRole("textbox", { name: "URL" }), "https://www.example.com/");
    await user.click(screen.getByRole("button", { name: "Create monitor" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "POST")).toHaveLength(1));
    expect(calls.find((c) => c.method === "POST")!.body).not.toHaveProperty("contract");
  });
});

describe("the inferred schema on an api monitor's page", () => {
  const SCHEMA = {
    monitorId: "mon_000001",
    samples: 3,
    volatile: ["$.checkedAt"],
    truncated: false,
    schema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      required: ["id", "checkedAt"],
      properties: {
        id: { type: "integer" },
        checkedAt: { type: "string", format: "date-time", "x-driftwatch-volatile": true },
        tags: { type: "array", items: { type: "string" } },
      },
    },
  };

  it("shows the members as a tree with the volatile ones marked, as JSON, and downloads the schema", async () => {
    const { client, calls } = fakeClient((call) => {
      if (call.path === "/api/monitors/mon_000001") return { body: monitor(1, { contract: { document: "https://api.example.com/openapi.json", operation: "getPet" } }) };
      if (call.path === "/api/monitors/mon_000001/schema") return { body: SCHEMA };
      if (call.path === "/api/monitors/mon_000001/schema?download=true") return { body: { ...SCHEMA.schema, title: "Monitor 1" } };
      if (call.path.startsWith("/api/monitors/mon_000001/")) return { body: { data: [], nextCursor: null } };
      if (call.path.startsWith("/api/channels")) return { body: { data: [], nextCursor: null } };
      return undefined;
    });
    renderPage(<MonitorDetailPage />, client, "/monitors/mon_000001", "/monitors/:monitorId");
    const tree = await screen.findByRole("list", { name: "Inferred schema" });
    expect(screen.getByText("Contract").nextElementSibling).toHaveTextContent("getPet in https://api.example.com/openapi.json");
    expect(screen.getByText(/Inferred from 3 responses/)).toHaveTextContent("1 volatile member");
    const rows = [...tree.querySelectorAll(".schema-node")].map((li) => (li.querySelector("summary, .schema-leaf") as HTMLElement).textContent);
    expect(rows).toEqual(["(response) object", "id integer", "checkedAt string (date-time)volatile", "tags array · optional", "[items] string"]);
    const volatile = [...tree.querySelectorAll(".schema-node.is-volatile")].map((li) => li.querySelector("code")!.textContent);
    expect(volatile).toEqual(["checkedAt"]);

    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "JSON" }));
    const json = screen.getByLabelText("Inferred schema as JSON");
    expect(JSON.parse(json.textContent!)).toEqual(SCHEMA.schema);
    expect(json.querySelector("mark.volatile")!.textContent).toContain('"format": "date-time"');

    const saved: Blob[] = [];
    const created = URL.createObjectURL;
    const revoked = URL.revokeObjectURL;
    URL.createObjectURL = (blob: Blob) => {
      saved.push(blob);
      return "blob:schema";
    };
    URL.revokeObjectURL = () => undefined;
    let downloaded: string | null = null;
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      downloaded = this.download;
    };
    try {
      await user.click(screen.getByRole("button", { name: "Download JSON Schema" }));
      await waitFor(() => expect(downloaded).toBe("mon_000001.schema.json"));
      expect(calls.some((c) => c.path === "/api/monitors/mon_000001/schema?download=true")).toBe(true);
      const text = await new Promise<string>((resolve) => {
        const reader = new FileReader();
        reader.onload = () => resolve(reader.result as string);
        reader.readAsText(saved[0]!);
      });
      expect(JSON.parse(text)).toEqual({ ...SCHEMA.schema, title: "Monitor 1" });
    } finally {
      URL.createObjectURL = created;
      URL.revokeObjectURL = revoked;
      HTMLAnchorElement.prototype.click = click;
    }
  });

  it("is not asked for website monitors", async () => {
    const { client, calls } = fakeClient((call) => {
      if (call.path === "/api/monitors/mon_000002") return { body: monitor(2, { type: "website" }) };
      if (call.path.startsWith("/api/monitors/mon_000002/")) return { body: { data: [], nextCursor: null } };
      if (call.path.startsWith("/api/channels")) return { body: { data: [], nextCursor: null } };
      return undefined;
    });
    renderPage(<MonitorDetailPage />, client, "/monitors/mon_000002", "/monitors/:monitorId");
    await screen.findByRole("heading", { name: "Timeline" });
    expect(screen.queryByRole("heading", { name: "Inferred schema" })).toBeNull();
    expect(calls.some((c) => c.path.endsWith("/schema"))).toBe(false);
  });
});
