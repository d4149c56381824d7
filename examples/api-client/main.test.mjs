import assert from "node:assert/strict";
import { test } from "node:test";
import { main } from "./main.mjs";

test("creates, checks, diffs and pages through history against a local server", { timeout: 60_000 }, async () => {
  const lines = [];
  const { diff, historyLength } = await main({ log: (line) => lines.push(line) });
  assert.equal(diff.classification, "schema_change");
  // the prepended item is one add (matched by sku), the price type change is critical, updatedAt is ignored
  const paths = diff.changes.map((c) => `${c.op} ${c.path}`);
  assert.ok(paths.includes("add $.items[0]"), paths.join(", "));
  assert.ok(paths.some((p) => p.startsWith("replace $.items[1].price")), paths.join(", "));
  assert.ok(!paths.some((p) => p.includes("updatedAt")), paths.join(", "));
  assert.equal(diff.topSeverity, "critical");
  assert.equal(historyLength, 1);
  assert.ok(lines.some((l) => l.includes("404 not_found")), lines.join("\n"));
});
