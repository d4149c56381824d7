import { describe, expect, it } from "vitest";
import { IDS_PER_STATEMENT, inList, inListChunks, paddedLength } from "../src/in-list.js";

describe("id lists", () => {
  it("pad to a few lengths", () => {
    expect([0, 1, 2, 3, 5, 16, 17, 200, 256, 257, 499, 500, 501, 1001].map(paddedLength)).toEqual([1, 1, 2, 4, 8, 16, 32, 256, 256, 500, 500, 500, 1000, 1500]);
    const lengths = new Set(Array.from({ length: IDS_PER_STATEMENT }, (_, i) => paddedLength(i + 1)));
    expect(lengths.size).toBe(10);
  });

  it("repeat the last id and keep every id", () => {
    expect(inList([])).toEqual({ placeholders: "", params: [] });
    expect(inList(["a", "b", "c"])).toEqual({ placeholders: "?, ?, ?, ?", params: ["a", "b", "c", "c"] });
    const ids = Array.from({ length: 1203 }, (_, i) => `id${String(i)}`);
    const chunks = inListChunks(ids);
    expect(chunks.map((c) => c.params.length)).toEqual([500, 500, 256]);
    expect(new Set(chunks.flatMap((c) => c.params))).toEqual(new Set(ids));
    for (const chunk of chunks) expect(chunk.placeholders.split(", ")).toHaveLength(chunk.params.length);
  });
});
