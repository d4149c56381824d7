import assert from "node:assert/strict";
import { test } from "node:test";
import { diffFiles } from "./diff.mjs";

test("diffs the sample files with the sample rules", () => {
  const diff = diffFiles("data/before.json", "data/after.json", "data/rules.json");
  assert.ok(diff);
  assert.equal(diff.classification, "schema_change");
  const byPath = Object.fromEntries(diff.changes.map((c) => [`${c.op} ${c.path}`, c]));
  // ignored by the rules
  assert.ok(!Object.keys(byPath).some((k) => k.includes("updatedAt")));
  // a type change and a removed member are critical
  assert.equal(byPath["replace $.price"]?.severity, "critical");
  assert.equal(byPath["remove $.currency"]?.severity, "critical");
  // items are matched by sku: one removal (raised to high by the rule), one addition, one value change
  assert.equal(byPath["remove $.items[1]"]?.severity, "high");
  assert.equal(byPath["add $.items[0]"]?.op, "add");
  assert.equal(byPath["replace $.items[1].stock"]?.category, "value");
  assert.equal(diff.topSeverity, "critical");
  assert.match(diff.diffFingerprint, /^sha256:[0-9a-f]{64}$/);
});

test("reports no change for identical files", () => {
  assert.equal(diffFiles("data/before.json", "data/before.json"), null);
});
