import { describe, expect, it } from "vitest";
import { formatPath, isDriftwatchError, parsePath, resolvePath, toJsonPointer, toNormalizedPath } from "../src/index.js";

describe("formatPath", () => {
  it("uses dot notation for shorthand names and brackets otherwise", () => {
    expect(formatPath([])).toBe("$");
    expect(formatPath(["items", 0, "name"])).toBe("$.items[0].name");
    expect(formatPath(["_a1", "ünï", "☺", "😀"])).toBe("$._a1.ünï.☺.😀");
    expect(formatPath(["a.b", "", "1a", "a-b", "a b", "$"])).toBe("$['a.b']['']['1a']['a-b']['a b']['$']");
  });
  it("escapes as RFC 9535 string literals", () => {
    expect(formatPath(["it's", "back\\slash", "line\nbreak", "\u0000", "\u001f", "\b\f\r\t", '"'])).toBe(
      "$['it\\'s']['back\\\\slash']['line\\nbreak']['\\u0000']['\\u001f']['\\b\\f\\r\\t']['\"']",
    );
  });
  it("refuses negative or fractional indexes", () => {
    expect(() => formatPath([-1])).toThrow(expect.objectContaining({ code: "invalid_path" }));
    expect(() => formatPath([1.5])).toThrow(expect.objectContaining({ code: "invalid_path" }));
  });
});

describe("parsePath", () => {
  it("parses shorthand, both quote styles, indexes and blanks", () => {
    expect(parsePath("$")).toEqual([]);
    expect(parsePath("$.a.b_c[0]")).toEqual(["a", "b_c", 0]);
    expect(parsePath(`$['a.b']["c'd"][ 12 ] .x`)).toEqual(["a.b", "c'd", 12, "x"]);
    expect(parsePath("$['\\u263A\\uD83D\\uDE00\\n\\/']")).toEqual(["☺😀\n/"]);
    expect(parsePath('$["\\"q\\""]')).toEqual(['"q"']);
  });
  it("round-trips formatPath", () => {
    const segments = ["a", "a.b", "it's", "\u0001", 3, "", "😀x", "0"];
    expect(parsePath(formatPath(segments))).toEqual(segments);
  });
  it.each([
    ["", "starts with $"],
    ["a.b", "starts with $"],
    ["$.", "member name"],
    ["$[*]", "singular"],
    ["$[-1]", "negative"],
    ["$[01]", "bad index"],
    ["$['a]", "unterminated"],
    ["$['a\\q']", "invalid escape"],
    ["$['\\uD800']", "surrogate"],
    ["$['\u0001']", "control"],
    ["$..a", "member name"],
    ["$.a ", "trailing"],
    ["$[0:1]", "expected ']'"],
  ])("refuses %j with invalid_path", (path, message) => {
    try {
      parsePath(path);
      expect.unreachable();
    } catch (error) {
      expect(isDriftwatchError(error) && error.code).toBe("invalid_path");
      expect((error as Error).message).toContain(message);
    }
  });
});

describe("toNormalizedPath", () => {
  it("gives the RFC 9535 section 2.7 form", () => {
    expect(toNormalizedPath("$.a[0]['b.c']")).toBe("$['a'][0]['b.c']");
    expect(toNormalizedPath(["\u000b", "\u007f", "é"])).toBe("$['\\u000b']['\u007f']['é']");
    expect(toNormalizedPath('$["a\'b"]')).toBe("$['a\\'b']");
  });
});

describe("toJsonPointer and resolvePath", () => {
  it("escapes ~ and / per RFC 6901", () => {
    expect(toJsonPointer([])).toBe("");
    expect(toJsonPointer(["a/b", "m~n", 0])).toBe("/a~1b/m~0n/0");
  });
  it("resolves own members and in-range indexes only", () => {
    const doc = { a: [{ b: null }], "x.y": 1 };
    expect(resolvePath(doc, "$.a[0].b")).toEqual({ found: true, value: null });
    expect(resolvePath(doc, "$['x.y']")).toEqual({ found: true, value: 1 });
    expect(resolvePath(doc, "$.a[1]")).toEqual({ found: false });
    expect(resolvePath(doc, "$.toString")).toEqual({ found: false });
    expect(resolvePath(doc, "$.a.length")).toEqual({ found: false });
  });
});
