import { describe, expect, it } from "vitest";
import { createCheckService } from "../src/index.js";
import { createMonitor, manualClock, useCheckSetup } from "./fixtures.js";

describe("a JSONPath rule over its step budget fails the check with rule_budget_exceeded (SQLite)", () => {
  const clock = manualClock();
  const setup = useCheckSetup(clock.now);

  it.each([
    ["a small document (a rule with a filter still runs in a worker thread)", Number.MAX_SAFE_INTEGER],
    ["a document over the worker threshold", 0],
  ])("%s", async (_where, workerThresholdBytes) => {
    const { store, orgId, target, fetcher } = setup;
    const compare = setup.pool({ workerThresholdBytes });
    const checks = createCheckService({ store, httpFetcher: fetcher, now: clock.now, compare });
    const monitor = await createMonitor(store, orgId, { url: `${target.url}/items-${String(workerThresholdBytes)}` });
    // Each of 3000 items compares the count of all items: 9,000,000 steps, over the 1,000,000 of one rule.
    const rules = [{ path: "$.items[?count($.items[*]) > 0]", action: "ignore" as const }];
    await store.updateSettings(orgId, monitor.id, { policyRulesJson: { rules }, updatedAt: clock.now().toISOString() });
    const items = Array.from({ length: 3000 }, (_, i) => i);
    target.setJson({ items });
    const first = await checks.runCheck(monitor, { requestId: "req_1" });
    expect(first.result).toBe("new_snapshot");
    clock.advance(60_000);
    target.setJson({ items: [...items, 1] });
    const outcome = await checks.runCheck(first.monitor, { requestId: "req_2" });
    expect(outcome.result).toBe("failed");
    expect(outcome.error?.code).toBe("rule_budget_exceeded");
    expect(outcome.monitor.lastError).toMatch(/^rule_budget_exceeded: rules\[0\]\.path exceeded/);
    expect((await store.getMonitor(orgId, monitor.id))?.lastError).toBe(outcome.monitor.lastError);
    // filter rules cost up to their budget whatever the size: both comparisons left the event loop
    expect(compare.offloaded).toBe(2);
  });
});
