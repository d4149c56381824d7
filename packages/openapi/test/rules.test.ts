import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RULES } from "../src/index.js";

// test/oasdiff-rules.tsv is oasdiff's rule table (id, level, direction) at a pinned commit.
const table = new Map(
  fs
    .readFileSync(path.join(import.meta.dirname, "oasdiff-rules.tsv"), "utf8")
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => line.split("\t"))
    .map(([id, level]) => [id!, level!] as const),
);
const LEVELS: Record<string, string> = { err: "breaking", warn: "potentially-breaking", info: "non-breaking" };

describe("rule registry", () => {
  it("uses oasdiff's ids with oasdiff's levels", () => {
    for (const rule of RULES) {
      const row = table.get(rule.id);
      expect(row, rule.id).toBeDefined();
      expect(rule.level, rule.id).toBe(LEVELS[row!]);
    }
  });

  it("maps levels to severities: breaking critical or high, potentially breaking medium, else info", () => {
    for (const rule of RULES) {
      if (rule.level === "breaking") expect(["critical", "high"]).toContain(rule.severity);
      else expect(rule.severity).toBe(rule.level === "potentially-breaking" ? "medium" : "info");
    }
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULES.length);
  });
});
