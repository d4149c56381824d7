import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RULES } from "../src/index.js";

// docs/contracts.md lists every rule with its level and severity, and no rule that does not exist.
const doc = fs.readFileSync(path.join(import.meta.dirname, "../../../docs/contracts.md"), "utf8");
const table = doc.slice(doc.indexOf("<!-- rules:start -->"), doc.indexOf("<!-- rules:end -->"));

describe("docs/contracts.md", () => {
  it("has one row per rule with its level and severity", () => {
    const rows = [...table.matchAll(/^\| `([a-z0-9-]+)` \| ([a-z-]+) \| ([a-z]+) \|$/gm)].map((m) => [m[1], m[2], m[3]]);
    expect(rows.sort()).toEqual(RULES.map((r) => [r.id, r.level, r.severity]).sort());
  });
});
