import { describe, expect, it } from "vitest";
import { rejectionBlocks, type RejectedSuggestion } from "./index.js";

const NOISE = ["volatile", "tolerance", "unordered"] as const;
const KINDS = [...NOISE, "arrayKey"] as const;

describe("rejectionBlocks: which rejected learned entry blocks which learned entry", () => {
  // a rejected noise entry blocks every noise kind at the same path, its own kind included
  it.each(NOISE.flatMap((rejected) => NOISE.map((learned) => [rejected, learned] as const)))("a rejected %s at a path blocks a learned %s there", (rejected, learned) => {
    expect(rejectionBlocks({ kind: rejected, path: "$.temp" }, { kind: learned, path: "$.temp" })).toBe(true);
    expect(rejectionBlocks({ kind: rejected, selector: ".promo" }, { kind: learned, selector: ".promo" })).toBe(true);
  });

  it.each(NOISE)("a rejected %s blocks no array key at its path, nor the reverse", (noise) => {
    expect(rejectionBlocks({ kind: noise, path: "$.tags" }, { kind: "arrayKey", path: "$.tags" })).toBe(false);
    expect(rejectionBlocks({ kind: "arrayKey", path: "$.tags" }, { kind: noise, path: "$.tags" })).toBe(false);
  });

  it("an array key's rejection blocks that array key", () => {
    expect(rejectionBlocks({ kind: "arrayKey", path: "$.tags" }, { kind: "arrayKey", path: "$.tags" })).toBe(true);
    expect(rejectionBlocks({ kind: "arrayKey", path: "$.tags" }, { kind: "arrayKey", path: "$.items" })).toBe(false);
  });

  it.each(KINDS)("a rejected %s blocks nothing at another path, nor a path by a selector of the same text", (kind) => {
    const others: RejectedSuggestion[] = [
      // an enclosing path, a member below, a sibling: paths are compared as written
      ...KINDS.flatMap((k) => [{ kind: k, path: "$" }, { kind: k, path: "$.temp.unit" }, { kind: k, path: "$.tempo" }, { kind: k, path: "$.items[*].temp" }]),
      ...KINDS.map((k) => ({ kind: k, selector: "$.temp" })),
    ];
    for (const entry of others) expect(rejectionBlocks({ kind, path: "$.temp" }, entry), JSON.stringify(entry)).toBe(false);
    expect(rejectionBlocks({ kind, selector: ".promo" }, { kind, path: ".promo" })).toBe(false);
    expect(rejectionBlocks({ kind, selector: ".promo" }, { kind, selector: ".promo .price" })).toBe(false);
  });
});
