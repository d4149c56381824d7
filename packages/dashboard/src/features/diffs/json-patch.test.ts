import { describe, expect, it } from "vitest";
import { parseSingularPath, toJsonPatch, toJsonPointer } from "./json-patch";

describe("JSONPath to JSON Pointer", () => {
  it("reads dot, bracket and index segments with RFC 9535 escapes", () => {
    expect(parseSingularPath("$")).toEqual([]);
    expect(parseSingularPath("$.a.b[0]")).toEqual(["a", "b", 0]);
    expect(parseSingularPath("$['a.b']['it\\'s'][12]['\\u00e9']")).toEqual(["a.b", "it's", 12, "é"]);
    expect(parseSingularPath("$..a")).toBeNull();
    expect(parseSingularPath("$.a[*]")).toBeNull();
    expect(parseSingularPath("a.b")).toBeNull();
  });

  it("escapes ~ and / as RFC 6901 says", () => {
    expect(toJsonPointer("$['a/b']['m~n'].c[3]")).toBe("/a~1b/m~0n/c/3");
    expect(toJsonPointer("$")).toBe("");
  });

  it("turns changes into a JSON Patch, leaving out what it cannot express", () => {
    const { patch, skipped } = toJsonPatch([
      { path: "$.price", category: "value", op: "replace", severity: "info", before: 1, after: 2 },
      { path: "$.items[0]", category: "value", op: "add", severity: "info", after: { id: 1 } },
      { path: "$.old", category: "schema", op: "remove", severity: "critical", before: true },
      { path: "$.b", from: "$.a", category: "value", op: "move", severity: "info" },
      { path: "$.noValue", category: "value", op: "replace", severity: "info" },
    ]);
    expect(patch).toEqual([
      { op: "replace", path: "/price", value: 2 },
      { op: "add", path: "/items/0", value: { id: 1 } },
      { op: "remove", path: "/old" },
      { op: "move", from: "/a", path: "/b" },
    ]);
    expect(skipped).toBe(1);
  });
});
