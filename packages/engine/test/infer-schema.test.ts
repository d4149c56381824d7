import { describe, expect, it } from "vitest";
import { inferJsonSchema, MAX_INFERRED_NODES, normalizeJsonPath } from "../src/openapi/infer-schema.js";

describe("inferJsonSchema", () => {
  it("merges types (an integer where numbers appear is a number), keeps members every sample had as required, agrees on formats", () => {
    const { schema, samples } = inferJsonSchema([
      { n: 1, at: "2026-01-01T00:00:00Z", id: "3f2b8c1e-0d4a-4b6e-9f1a-2c3d4e5f6a7b", maybe: "x" },
      { n: 1.5, at: "2026-01-02T00:00:00Z", id: "not-a-uuid", maybe: null, extra: true },
    ]);
    expect(samples).toBe(2);
    expect(schema).toEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        n: { type: "number" },
        at: { type: "string", format: "date-time" },
        id: { type: "string" },
        maybe: { type: ["null", "string"] },
        extra: { type: "boolean" },
      },
      required: ["n", "at", "id", "maybe"],
    });
  });

  it("marks volatile members by their JSONPath, written in any of its forms", () => {
    const { schema, volatile } = inferJsonSchema([{ data: [{ "updated-at": "x", ts: 1 }] }], ["$['data'][0]['updated-at']", "$.data[*].ts", "$.nowhere"]);
    expect(volatile).toEqual(["$.data[*]['updated-at']", "$.data[*].ts"]);
    const item = ((schema.properties as Record<string, any>).data.items as Record<string, any>).properties;
    expect(item["updated-at"]["x-driftwatch-volatile"]).toBe(true);
    expect(item.ts["x-driftwatch-volatile"]).toBe(true);
    expect(normalizeJsonPath('$["a b"][3].c')).toBe("$['a b'][*].c");
  });

  it("stops at the node limit and says so", () => {
    const wide = Object.fromEntries(Array.from({ length: MAX_INFERRED_NODES + 10 }, (_, i) => [`k${String(i)}`, i]));
    const result = inferJsonSchema([wide]);
    expect(result.truncated).toBe(true);
    expect(Object.keys((result.schema.properties as object) ?? {}).length).toBe(MAX_INFERRED_NODES - 1);
  });
});
