import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiMonitor, createHarness, expectProblem, json, type Harness } from "./harness.js";

let h: Harness;
let monitorId: string;
beforeAll(async () => {
  h = await createHarness();
  monitorId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor })).id;
});
afterAll(async () => {
  await h?.close();
});

describe("PATCH /api/monitors/{id}/settings refuses invalid and explosive JSONPaths", () => {
  it.each([
    ["$..", "must follow .."],
    ["$[0:10:0]", "step 0 selects nothing"],
    ["$[?(@.a.repeat(2e8).split(''))]", "does not parse"],
    ["$[?match(@.a, '(?<n>x)')]", "I-Regexp"],
    ["$..*..*..*..*", "too costly"],
  ])("%s is 422 invalid_policy_rules naming the rule index", async (path, message) => {
    const url = `/api/monitors/${monitorId}/settings`;
    await h.request(h.a.admin, { method: "PATCH", url, payload: { policyRules: { rules: [{ path: "$.keep", action: "ignore" }] } } });
    const problem = expectProblem(
      await h.request(h.a.admin, { method: "PATCH", url, payload: { policyRules: { rules: [{ path: "$.ok", severity: "high" }, { path, action: "ignore" }] } } }),
      422,
      "invalid_policy_rules",
    );
    expect(problem.errors).toEqual([{ path: "policyRules.rules[1].path", message: expect.stringContaining(message) }]);
    const stored = json(await h.request(h.a.admin, { method: "GET", url }));
    expect(stored.policyRulesJson.rules).toEqual([{ path: "$.keep", action: "ignore" }]);
  });

  it("accepts an RFC 9535 filter", async () => {
    const url = `/api/monitors/${monitorId}/settings`;
    const res = await h.request(h.a.admin, { method: "PATCH", url, payload: { policyRules: { rules: [{ path: "$.items[?@.internal == true && length(@.name) > 2]", action: "ignore" }] } } });
    expect(res.statusCode).toBe(200);
  });
});
