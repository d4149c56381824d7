import assert from "node:assert/strict";
import { test } from "node:test";
import { main } from "./main.mjs";

test("the embedded engine records a diff of a local target and delivers its signed webhook", { timeout: 60_000 }, async () => {
  const lines = [];
  const { diff, event } = await main({ log: (line) => lines.push(line) });
  // the prepended item is one add (matched by sku), the price type change is critical, updatedAt is ignored
  const paths = diff.changes.map((c) => `${c.op} ${c.path}`);
  assert.ok(paths.includes("add $.items[0]"), paths.join(", "));
  assert.ok(paths.some((p) => p.startsWith("replace $.items[1].price")), paths.join(", "));
  assert.ok(!paths.some((p) => p.includes("updatedAt")), paths.join(", "));
  assert.equal(diff.topSeverity, "critical");
  // the receiver verified the signature of exactly this diff's event
  assert.equal(event.eventType, "diff.detected");
  assert.equal(event.diffId, diff.id);
  assert.ok(lines.some((l) => l.startsWith("webhook delivered and verified")), lines.join("\n"));
  assert.ok(!lines.some((l) => l.startsWith("engine:") || l.startsWith("receiver: refused")), lines.join("\n"));
});
