/**
 * API contracts in the dashboard, in real Chromium against the real server: an api monitor's
 * contract made in the monitor form (the server's 422 at its field), a contract violation in the
 * diff viewer with the schema excerpt next to the value (the document a stored openapi monitor's,
 * or a URL), the inferred schema with its volatile
 * member and its download, and the Alerts page's preview answered by the server.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumSkipReason, expectNoAxeViolations, printPageOnFailure, openBrowser, signIn, startDriftwatch, startLocal, type Browsing, type LocalServer, type RunningDriftwatch } from "./support";

const PETSTORE = {
  openapi: "3.1.0",
  info: { title: "Petstore", version: "1.0.0" },
  paths: {
    "/pets/{id}": {
      get: {
        operationId: "getPet",
        responses: { 200: { description: "A pet", content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } } },
      },
    },
  },
  components: {
    schemas: {
      Pet: {
        type: "object",
        required: ["id", "name"],
        properties: { id: { type: "integer" }, name: { type: "string" }, weight: { type: "number" }, checkedAt: { type: "string", format: "date-time" } },
      },
    },
  },
};

let dw: RunningDriftwatch;
let target: LocalServer;
let b: Browsing;
const pet: { body: Record<string, unknown> } = { body: { id: 1, name: "Rex", weight: 30.5, checkedAt: "2026-11-25T09:00:00Z" } };

beforeAll(async () => {
  target = await startLocal((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(req.url?.startsWith("/openapi.json") ? PETSTORE : pet.body));
  });
  dw = await startDriftwatch();
  b = await openBrowser();
});
afterAll(async () => {
  await b?.close();
  await dw?.close();
  await target?.close();
});

async function expectAccessible(page: string): Promise<void> {
  await expectNoAxeViolations(b.page, page);
}

describe.skipIf(chromiumSkipReason() !== null)("API contracts in the dashboard, in Chromium", () => {
  printPageOnFailure(() => b);
  let monitorId: string;

  it("makes an api monitor's contract in the form, with the server's 422 at its field", async () => {
    const doc = await dw.api<{ id: string }>("POST", "/api/monitors", { type: "openapi", name: "Petstore document", url: `${target.url}/openapi.json`, intervalSeconds: 3600 });
    await dw.api("POST", `/api/monitors/${doc.id}/check`);
    await signIn(b.page, dw.baseUrl, dw.token);
    await b.page.getByRole("link", { name: "New monitor" }).click();
    await b.page.getByLabel("URL").fill(`${target.url}/pets/1`);
    await b.page.getByLabel("Name").fill("Pet 1");
    await b.page.getByLabel("Check each response against an OpenAPI document").check();
    await b.page.getByLabel("An OpenAPI monitor's document").check();
    await b.page.getByLabel("OpenAPI monitor", { exact: true }).selectOption({ label: "Petstore document" });
    await b.page.getByLabel("operationId", { exact: true }).fill("getPet");
    await b.page.getByLabel("Response status", { exact: true }).fill("2XY");
    await expectAccessible("new monitor with a contract");
    await b.page.getByRole("button", { name: "Create monitor" }).click();
    const status = b.page.getByLabel("Response status", { exact: true });
    await b.page.locator("#f-contract-status-error").waitFor();
    expect(await status.getAttribute("aria-invalid")).toBe("true");
    expect(await b.page.locator("#f-contract-status-error").textContent()).toBe("must be a status code, 1XX..5XX or default");
    await expectAccessible("the contract's 422");
    // the refused create's 422 is the only console error this test expects
    b.errors.length = 0;
    await status.fill("200");
    await b.page.getByRole("button", { name: "Create monitor" }).click();
    await b.page.getByRole("heading", { name: "Pet 1", level: 1 }).waitFor();
    monitorId = new URL(b.page.url()).pathname.split("/")[2]!;
    const saved = await dw.api<{ contract: unknown }>("GET", `/api/monitors/${monitorId}`);
    expect(saved.contract).toEqual({ document: { monitorId: doc.id }, operation: "getPet", status: 200 });
    await b.page.getByRole("link", { name: "Petstore document" }).waitFor();
    expect(b.errors).toEqual([]);
  });

  it("shows a violation with the schema around the violated keyword next to the value", async () => {
    await dw.api("PATCH", `/api/monitors/${monitorId}/settings`, { autoApplySuggestions: false, policyRules: { volatile: [{ path: "$.checkedAt" }] } });
    await dw.api("POST", `/api/monitors/${monitorId}/check`);
    pet.body = { id: 1, weight: "30 kg", checkedAt: "2026-11-25T10:00:00Z" };
    await dw.api("POST", `/api/monitors/${monitorId}/check`);
    const diffs = await dw.api<{ data: Array<{ id: string; changes: Array<{ category: string }> }> }>("GET", `/api/monitors/${monitorId}/diffs`);
    const violation = diffs.data.find((d) => d.changes.some((c) => c.category === "contract"));
    expect(violation).toBeDefined();
    await b.page.goto(`${dw.baseUrl}/monitors/${monitorId}/diffs/${violation!.id}`);
    const excerpt = b.page.getByLabel("Schema excerpt for $.name");
    await excerpt.waitFor();
    // the Pet schema, whose `required` names the missing property
    expect(JSON.parse((await excerpt.textContent())!)).toMatchObject({ type: "object", required: ["id", "name"] });
    const weight = b.page.locator("li.change", { has: b.page.getByLabel("Schema excerpt for $.weight") });
    expect(JSON.parse((await weight.getByLabel("Schema excerpt for $.weight").textContent())!)).toEqual({ type: "number" });
    expect(await weight.locator(".after pre").first().textContent()).toBe('"30 kg"');
    await expectAccessible("a contract violation");
    expect(b.errors).toEqual([]);
  });

  it("shows the excerpt the check recorded when the contract's document is a URL", async () => {
    const byUrl = await dw.api<{ id: string }>("POST", "/api/monitors", {
      type: "api",
      name: "Pet 1 by URL",
      url: `${target.url}/pets/1`,
      intervalSeconds: 3600,
      contract: { document: `${target.url}/openapi.json`, operation: "getPet" },
    });
    // the pet still answers without a name and with a string weight: the first check reports both
    const checked = await dw.api<{ diff: { id: string; classification: string } }>("POST", `/api/monitors/${byUrl.id}/check`);
    expect(checked.diff.classification).toBe("contract_violation");
    await b.page.goto(`${dw.baseUrl}/monitors/${byUrl.id}/diffs/${checked.diff.id}`);
    const weight = b.page.locator("li.change", { has: b.page.getByLabel("Schema excerpt for $.weight") });
    await weight.waitFor();
    expect(JSON.parse((await weight.getByLabel("Schema excerpt for $.weight").textContent())!)).toEqual({ type: "number" });
    expect(await weight.locator(".after pre").first().textContent()).toBe('"30 kg"');
    expect(JSON.parse((await b.page.getByLabel("Schema excerpt for $.name").textContent())!)).toMatchObject({ type: "object", required: ["id", "name"] });
    expect(b.errors).toEqual([]);
  });

  it("shows the inferred schema with its volatile member, as a tree and as JSON, and downloads it", async () => {
    await b.page.goto(`${dw.baseUrl}/monitors/${monitorId}`);
    const tree = b.page.getByRole("list", { name: "Inferred schema" });
    await tree.waitFor();
    expect(await tree.locator(".schema-node.is-volatile code").allTextContents()).toEqual(["checkedAt"]);
    expect(await tree.locator(".schema-leaf", { has: b.page.locator("code", { hasText: /^weight$/ }) }).locator(".schema-type").textContent()).toBe("number or string");
    await expectAccessible("the inferred schema");
    await b.page.getByRole("button", { name: "JSON", exact: true }).click();
    expect(await b.page.locator("mark.volatile").first().textContent()).toContain('"x-driftwatch-volatile": true');
    const [download] = await Promise.all([b.page.waitForEvent("download"), b.page.getByRole("button", { name: "Download JSON Schema" }).click()]);
    expect(download.suggestedFilename()).toBe(`${monitorId}.schema.json`);
    const schema = JSON.parse(readFileSync((await download.path())!, "utf8")) as { title: string; properties: Record<string, Record<string, unknown>> };
    expect(schema.title).toBe("Pet 1");
    expect(schema.properties.checkedAt!["x-driftwatch-volatile"]).toBe(true);
    expect(b.errors).toEqual([]);
  });

  it("previews alert conditions with the server's replay", async () => {
    await dw.api("PATCH", `/api/monitors/${monitorId}/settings`, { track: [{ name: "id", path: "$.id" }], alert: { when: "all", conditions: [{ value: "id", op: "gt", to: 0 }] } });
    pet.body = { id: 2, name: "Rex", weight: 31, checkedAt: "2026-11-25T11:00:00Z" };
    await dw.api("POST", `/api/monitors/${monitorId}/check`);
    const previews: string[] = [];
    b.page.on("request", (request) => {
      if (request.url().endsWith("/alert/preview")) previews.push(request.postData() ?? "");
    });
    await b.page.goto(`${dw.baseUrl}/monitors/${monitorId}/alerts`);
    await b.page.getByText(/past checks/).waitFor();
    expect(await b.page.getByText(/past checks/).locator("..").textContent()).toBe("1 of 1 past checks would have alerted.");
    expect(await b.page.getByText(/Evaluated in your browser/).count()).toBe(0);
    const value = b.page.getByLabel("Value of condition 1");
    await value.fill("");
    await value.pressSequentially("5", { delay: 50 });
    await b.page.getByText("0 of 1 past checks").waitFor();
    expect(previews.map((p) => (JSON.parse(p) as { alert: { conditions: Array<{ to: unknown }> } }).alert.conditions[0]!.to)).toEqual([0, 5]);
    expect(b.errors).toEqual([]);
  });
});
