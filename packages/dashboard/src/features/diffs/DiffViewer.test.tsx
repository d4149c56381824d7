import type { Change, Diff } from "@driftwatch/client";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeClient, renderPage } from "../../test-support";
import { DiffViewer } from "./DiffPage";

const diff: Diff = {
  id: "dif_1",
  monitorId: "mon_1",
  snapshotId: "snp_2",
  previousSnapshotId: "snp_1",
  diffFingerprint: `sha256:${"a".repeat(64)}`,
  topSeverity: "critical",
  classification: "schema_change",
  schemaChanges: 1,
  valueChanges: 2,
  requestId: "req_1",
  status: 200,
  latencyMs: 5,
  createdAt: "2026-11-25T09:00:00.000Z",
  changes: [
    { path: "$.updatedAt", category: "value", op: "replace", severity: "info", before: "2026-01-01", after: "2026-01-02" },
    { path: "$.price", category: "schema", op: "replace", severity: "critical", detail: "type changed from number to string", before: 10, after: "<img src=x onerror=alert(1)>" },
    { path: "$.note", category: "value", op: "add", severity: "info", after: { html: "<b>bold</b>" } },
  ],
};

describe("the diff viewer", () => {
  it("groups changes by severity, most severe first, values as text", () => {
    const { client } = fakeClient(() => undefined);
    const { container } = renderPage(<DiffViewer diff={diff} monitorName="Prices" />, client);
    const headings = screen.getAllByRole("heading", { level: 2 }).map((h) => h.textContent);
    expect(headings).toEqual(["critical 1 change", "info 2 changes"]);
    expect(screen.getByText("<img src=x onerror=alert(1)>")).toBeInTheDocument();
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("b")).toBeNull();
    expect(screen.getByText("type changed from number to string")).toBeInTheDocument();
  });

  it('"Ignore this path" puts an ignore rule first in the stored policy', async () => {
    const stored = { rules: [{ path: "$.other", severity: "high" }] };
    const { client, calls } = fakeClient((call) => {
      if (call.path === "/api/monitors/mon_1/settings" && call.method === "GET")
        return { body: { monitorId: "mon_1", policyRulesJson: stored, snapshotRetention: 100, autoApplySuggestions: false, updatedAt: null } };
      if (call.path === "/api/monitors/mon_1/settings" && call.method === "PATCH")
        return {
          body: {
            monitorId: "mon_1",
            policyRulesJson: (call.body as { policyRules: unknown }).policyRules,
            snapshotRetention: 100,
            autoApplySuggestions: false,
            updatedAt: "2026-11-25T09:01:00.000Z",
          },
        };
      return undefined;
    });
    renderPage(<DiffViewer diff={diff} monitorName="Prices" />, client);
    const user = userEvent.setup();
    const item = screen.getByText("$.updatedAt").closest("li")!;
    await user.click(within(item as HTMLElement).getByRole("button", { name: "Ignore this path" }));
    await screen.findByText(/Rule added: ignore \$\.updatedAt\./);
    const patch = calls.find((c) => c.method === "PATCH");
    expect(patch?.body).toEqual({
      policyRules: {
        rules: [
          { path: "$.updatedAt", action: "ignore" },
          { path: "$.other", severity: "high" },
        ],
      },
    });
  });

  it('"Set severity" is enabled once another severity is chosen, and stores a set rule', async () => {
    const { client, calls } = fakeClient((call) => {
      if (call.path === "/api/monitors/mon_1/settings")
        return { body: { monitorId: "mon_1", policyRulesJson: { rules: [] }, snapshotRetention: 100, autoApplySuggestions: false, updatedAt: null } };
      return undefined;
    });
    renderPage(<DiffViewer diff={diff} monitorName="Prices" />, client);
    const user = userEvent.setup();
    const item = screen.getByText("$.price").closest("li") as HTMLElement;
    const button = within(item).getByRole("button", { name: "Set severity" });
    expect(button).toBeDisabled();
    await user.selectOptions(within(item).getByLabelText("Severity for $.price"), "low");
    await user.click(button);
    await waitFor(() => expect(calls.some((c) => c.method === "PATCH")).toBe(true));
    expect(calls.find((c) => c.method === "PATCH")?.body).toEqual({ policyRules: { rules: [{ path: "$.price", severity: "low" }] } });
  });

  // Thousands of rows rendered and queried in jsdom: past the 30 s test timeout (47 s) on a heavily loaded 2-core machine.
  it("shows a 5,000-change group 200 at a time", async () => {
    const many: Diff = {
      ...diff,
      changes: Array.from({ length: 5000 }, (_, i) => ({ path: `$.items[${String(i)}]`, category: "value" as const, op: "add" as const, severity: "info" as const, after: i })),
    };
    const { client } = fakeClient(() => undefined);
    renderPage(<DiffViewer diff={many} monitorName="Big" />, client);
    expect(screen.getAllByText(/^\$\.items\[\d+\]$/)).toHaveLength(200);
    await userEvent.setup().click(screen.getByRole("button", { name: "Show 200 more of 4800" }));
    await waitFor(() => expect(screen.getAllByText(/^\$\.items\[\d+\]$/)).toHaveLength(400));
  }, 120_000);
});

describe("the diff viewer of API changes and contract violations", () => {
  it("groups an openapi diff's changes by operation, the operations with breaking changes first", () => {
    const apiDiff: Diff = {
      ...diff,
      classification: "api_change",
      schemaChanges: 2,
      valueChanges: 2,
      changes: [
        { path: "$.paths['/pets'].get", category: "api", op: "remove", severity: "critical", rule: "api-path-removed-without-deprecation", level: "breaking", operation: "GET /pets", detail: "removed" },
        { path: "$.paths['/pets/{id}'].get", category: "api", op: "add", severity: "info", rule: "new-optional-request-parameter", level: "non-breaking", operation: "GET /pets/{id}" },
        { path: "$.paths['/pets/{id}'].get.responses", category: "api", op: "remove", severity: "medium", rule: "response-optional-property-removed", level: "potentially-breaking", operation: "GET /pets/{id}" },
        { path: "$.info", category: "api", op: "add", severity: "info", rule: "api-tag-added", level: "non-breaking" },
      ],
    };
    const { client } = fakeClient(() => undefined);
    renderPage(<DiffViewer diff={apiDiff} monitorName="Pets spec" />, client);
    const headings = screen.getAllByRole("heading", { level: 2 }).map((h) => h.textContent);
    expect(headings).toEqual(["GET /pets 1 change · breaking", "GET /pets/{id} 2 changes · potentially breaking", "Whole document 1 change"]);
    const second = within(screen.getByRole("region", { name: "GET /pets/{id}" }));
    const rules = second.getAllByText(/^(response-optional-property-removed|new-optional-request-parameter)$/).map((node) => node.textContent);
    expect(rules).toEqual(["response-optional-property-removed", "new-optional-request-parameter"]);
  });

  it("shows a contract violation's schema excerpt next to the value", () => {
    const violation: Diff = {
      ...diff,
      classification: "contract_violation",
      changes: [
        { path: "$.id", category: "contract", op: "replace", severity: "high", keyword: "type", expected: "integer", actual: "1", operation: "GET /pets/{id}", schemaPath: "/components/schemas/Pet/properties/id/type", detail: "is string, the schema says integer" },
        { path: "$.name", category: "contract", op: "remove", severity: "high", keyword: "required", expected: "present", operation: "GET /pets/{id}" },
      ],
    };
    const { client } = fakeClient(() => undefined);
    renderPage(<DiffViewer diff={violation} monitorName="Pet" />, client);
    expect(screen.getByText("/components/schemas/Pet/properties/id/type")).toBeInTheDocument();
    expect(screen.getByText("integer")).toBeInTheDocument();
    // the string shows its quotes: the schema wants an integer
    expect(screen.getByText('"1"')).toBeInTheDocument();
    expect(screen.getByText("(missing)")).toBeInTheDocument();
  });

  it("shows the schema excerpt the check recorded, whatever the contract's document (a URL too), without reading any document", () => {
    const violation: Diff = {
      ...diff,
      classification: "contract_violation",
      changes: [
        {
          path: "$.owner.phone",
          category: "contract",
          op: "add",
          severity: "medium",
          keyword: "additionalProperties",
          expected: false,
          actual: "555",
          operation: "GET /pets/{id}",
          schemaPath: "https://api.example.com/owners.json#/Owner/additionalProperties",
          schemaExcerpt: { type: "object", additionalProperties: false, properties: { email: { $ref: "#/components/schemas/Email" } } },
        },
      ],
    };
    const { client, calls } = fakeClient(() => undefined);
    renderPage(<DiffViewer diff={violation} monitorName="Pet" />, client);
    const excerpt = screen.getByLabelText("Schema excerpt for $.owner.phone");
    expect(JSON.parse(excerpt.textContent!)).toEqual({ type: "object", additionalProperties: false, properties: { email: { $ref: "#/components/schemas/Email" } } });
    expect(within(excerpt.closest("li")!).getByText('"555"')).toBeInTheDocument();
    expect(screen.getByText("https://api.example.com/owners.json#/Owner")).toBeInTheDocument();
    // recorded: neither the monitor nor a snapshot is read for it
    expect(calls).toEqual([]);
  });

  it("shares a schema location's recorded excerpt with the other violations there", () => {
    const pet = { type: "object", required: ["id", "name"] };
    const missing = (i: number): Change => ({ path: `$[${String(i)}].name`, category: "contract", op: "remove", severity: "high", keyword: "required", expected: "present", operation: "GET /pets", schemaPath: "/components/schemas/Pet/required" });
    const violation: Diff = { ...diff, classification: "contract_violation", changes: [{ ...missing(0), schemaExcerpt: pet }, missing(1), missing(2)] };
    const { client, calls } = fakeClient(() => undefined);
    renderPage(<DiffViewer diff={violation} monitorName="Pets" />, client);
    for (const i of [0, 1, 2]) expect(JSON.parse(screen.getByLabelText(`Schema excerpt for $[${String(i)}].name`).textContent!)).toEqual(pet);
    expect(calls).toEqual([]);
  });

  it("shows the schema around the violated keyword when the contract's document is a stored openapi monitor's (a bundle too)", async () => {
    const pet = { type: "object", required: ["id", "name"], properties: { id: { type: "integer" }, name: { type: "string" }, owner: { $ref: "owners.json#/Owner" } } };
    const owners = { Owner: { type: "object", additionalProperties: false, properties: { email: { type: "string", format: "email" } } } };
    const root = { openapi: "3.1.0", info: { title: "Pets", version: "1" }, paths: {}, components: { schemas: { Pet: pet } } };
    const bundle = JSON.stringify({
      "x-driftwatch-openapi-bundle": 1,
      root: "https://api.example.com/openapi.json",
      documents: { "https://api.example.com/openapi.json": JSON.stringify(root), "https://api.example.com/owners.json": JSON.stringify(owners) },
    });
    const violation: Diff = {
      ...diff,
      classification: "contract_violation",
      changes: [
        { path: "$.id", category: "contract", op: "replace", severity: "high", keyword: "type", expected: "integer", actual: "1", operation: "GET /pets/{id}", schemaPath: "/components/schemas/Pet/properties/id/type" },
        { path: "$.owner.phone", category: "contract", op: "add", severity: "medium", keyword: "additionalProperties", expected: false, actual: "555", operation: "GET /pets/{id}", schemaPath: "https://api.example.com/owners.json#/Owner/additionalProperties" },
      ],
    };
    const { client, calls } = fakeClient((call) => {
      if (call.path === "/api/monitors/mon_1") return { body: { id: "mon_1", type: "api", contract: { document: { monitorId: "mon_doc" }, operation: "getPet" } } };
      if (call.path === "/api/monitors/mon_doc/snapshots?limit=25")
        return {
          body: {
            data: [
              { id: "snp_new", monitorId: "mon_doc", fetchedAt: "2026-11-26T09:00:00.000Z" },
              { id: "snp_then", monitorId: "mon_doc", fetchedAt: "2026-11-24T09:00:00.000Z" },
            ],
            nextCursor: null,
          },
        };
      if (call.path === "/api/monitors/mon_doc/snapshots/snp_then") return { body: { id: "snp_then", body: bundle } };
      return undefined;
    });
    renderPage(<DiffViewer diff={violation} monitorName="Pet" />, client);
    const idExcerpt = await screen.findByLabelText("Schema excerpt for $.id");
    expect(JSON.parse(idExcerpt.textContent!)).toEqual({ type: "integer" });
    const ownerExcerpt = screen.getByLabelText("Schema excerpt for $.owner.phone");
    expect(JSON.parse(ownerExcerpt.textContent!)).toEqual(owners.Owner);
    // next to the offending value, in the same change
    expect(within(idExcerpt.closest("li")!).getByText('"1"')).toBeInTheDocument();
    // the document version the check read: the newest snapshot at or before the diff
    expect(calls.some((c) => c.path.endsWith("/snp_new"))).toBe(false);
  });
});

