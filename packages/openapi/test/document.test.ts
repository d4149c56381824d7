import { describe, expect, it } from "vitest";
import { diffOpenApi, type DocumentLoader, isOpenApiError, loadOpenApi, parseOpenApi, resolveRef } from "../src/index.js";

const minimal = (extra = ""): string => `openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths: {}\n${extra}`;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isOpenApiError(error) ? error.code : `not an OpenApiError: ${String(error)}`;
  }
  return undefined;
}

async function codeOfAsync(fn: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await fn();
  } catch (error) {
    return isOpenApiError(error) ? error.code : `not an OpenApiError: ${String(error)}`;
  }
  return undefined;
}

describe("parseOpenApi", () => {
  it("reads JSON and YAML, 3.0 and 3.1", () => {
    expect(parseOpenApi(minimal()).version).toBe("3.0");
    expect(parseOpenApi(JSON.stringify({ openapi: "3.1.0", info: { title: "t", version: "1" }, paths: {} })).version).toBe("3.1");
    expect(parseOpenApi("openapi: 3.1\ninfo: {title: t, version: '1'}\npaths: {}\n").version).toBe("3.1"); // a YAML number
  });

  it("refuses Swagger 2.0, other versions, non-documents and broken text with a code", () => {
    expect(codeOf(() => parseOpenApi('swagger: "2.0"\ninfo: {title: t, version: "1"}\npaths: {}\n'))).toBe("swagger_2_unsupported");
    expect(codeOf(() => parseOpenApi("openapi: 4.0.0\n"))).toBe("unsupported_version");
    expect(codeOf(() => parseOpenApi("- a\n- b\n"))).toBe("invalid_document");
    expect(codeOf(() => parseOpenApi("title: no version\n"))).toBe("invalid_document");
    expect(codeOf(() => parseOpenApi("openapi: [unclosed\n"))).toBe("invalid_document");
  });

  it("refuses a dangling $ref and an external $ref without a loader", () => {
    expect(codeOf(() => parseOpenApi(minimal("components:\n  schemas:\n    A: {$ref: '#/components/schemas/Missing'}\n")))).toBe("unresolved_ref");
    expect(codeOf(() => parseOpenApi(minimal("components:\n  schemas:\n    A: {$ref: 'other.yaml#/B'}\n")))).toBe("external_ref_refused");
  });

  it("stops hostile documents: size, nesting, alias bombs, $ref cycles", () => {
    expect(codeOf(() => parseOpenApi(minimal(`x-pad: "${"a".repeat(2000)}"\n`), { limits: { maxDocumentBytes: 1000 } }))).toBe("too_large");
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    expect(codeOf(() => parseOpenApi(`{"openapi":"3.0.3","x":${deep}}`))).toBe("too_deep");
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 12; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(", ")}]`);
    expect(codeOf(() => parseOpenApi(`openapi: 3.0.3\n${bomb.join("\n")}\n`))).toBe("invalid_document");
    // $refs that only point at each other: refused when read
    const loop = (): unknown => parseOpenApi(
      minimal(`components:\n  schemas:\n    A: {$ref: '#/components/schemas/B'}\n    B: {$ref: '#/components/schemas/A'}\n`).replace(
        "paths: {}",
        "paths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/A'}",
      ),
    );
    expect(codeOf(loop)).toBe("too_deep");
  });
});

describe("bounded work on hostile documents", () => {
  const chain = (n: number, last: string): Record<string, unknown> => {
    const schemas: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) schemas[`S${i}`] = { type: "object", properties: { next: i + 1 < n ? { $ref: `#/components/schemas/S${i + 1}` } : { type: last } } };
    return {
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      paths: { "/a": { get: { responses: { 200: { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/S0" } } } } } } } },
      components: { schemas },
    };
  };

  it("a YAML alias that contains itself is refused as too deep, not a stack overflow", () => {
    const cyclic = minimal().replace("paths: {}", "paths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: &s\n                type: object\n                properties:\n                  self: *s");
    expect(codeOf(() => parseOpenApi(cyclic))).toBe("too_deep");
  });

  it("schemas chained through thousands of $refs end as too_deep", () => {
    expect(codeOf(() => diffOpenApi(parseOpenApi(chain(20_000, "string")), parseOpenApi(chain(20_000, "integer"))))).toBe("too_deep");
    // a chain within the limits is diffed to its end
    const changes = diffOpenApi(parseOpenApi(chain(50, "string")), parseOpenApi(chain(50, "integer")));
    expect(changes.map((c) => c.id)).toEqual(["response-property-type-changed"]);
    expect(changes[0]!.message).toMatch(/"next\/next\/.*next" \(response 200\): type changed from string to integer/);
  });

  // issue 30: one wide object aliased hundreds of times was walked at every place it appears
  describe("objects shared through YAML aliases are walked once", () => {
    /** A wide object behind a proxy that counts how often its keys are listed. */
    const counted = (width: number): { value: Record<string, unknown>; listings: () => number } => {
      const target: Record<string, unknown> = {};
      for (let i = 0; i < width; i++) target[`k${i}`] = { type: "string" };
      let listings = 0;
      const value = new Proxy(target, {
        ownKeys(t) {
          listings++;
          return Reflect.ownKeys(t);
        },
      });
      return { value, listings: () => listings };
    };
    const sharedIn = (shared: unknown, places: number): Record<string, unknown> => ({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {},
      "x-refs": Array.from({ length: places }, () => shared),
    });

    it("loading lists a shared object's keys a fixed number of times, however often it appears", () => {
      const few = counted(1000);
      parseOpenApi(sharedIn(few.value, 5));
      const many = counted(1000);
      parseOpenApi(sharedIn(many.value, 500));
      expect(many.listings()).toBe(few.listings());
      expect(many.listings()).toBeLessThanOrEqual(2); // the depth check and the $ref scan
    });

    it("the work budget counts a shared object once; beyond it, too_complex", () => {
      const wide = Array.from({ length: 1000 }, (_, i) => `  k${i}: 1`).join("\n");
      const aliases = Array.from({ length: 500 }, () => "  - *w").join("\n");
      const yaml = minimal(`x-wide: &w\n${wide}\nx-refs:\n${aliases}\n`);
      // 1,000 entries + 500 aliases + a few, not 500,000 (one per place)
      expect(codeOf(() => parseOpenApi(yaml, { limits: { maxNodes: 2000 } }))).toBeUndefined();
      expect(codeOf(() => parseOpenApi(yaml, { limits: { maxNodes: 1400 } }))).toBe("too_complex");
      expect(codeOf(() => parseOpenApi(JSON.stringify({ openapi: "3.0.3", x: Array(5000).fill(0) }), { limits: { maxNodes: 4000 } }))).toBe("too_complex");
    });

    it("YAML merge keys, which copy their source at every use, are counted before the data is built", () => {
      const wide = Array.from({ length: 1000 }, (_, i) => `  k${i}: 1`).join("\n");
      const merges = Array.from({ length: 200 }, (_, i) => `  - <<: *w\n    own: ${i}`).join("\n");
      const yaml = minimal(`x-wide: &w\n${wide}\nx-merged:\n${merges}\n`);
      // each merge copies 1,000 keys: about 200 * 1,000 values in all (counted twice: converted, then copied)
      expect(codeOf(() => parseOpenApi(yaml, { limits: { maxNodes: 100_000 } }))).toBe("too_complex");
      const doc = parseOpenApi(yaml, { limits: { maxNodes: 500_000 } });
      const merged = doc.root["x-merged"] as Array<Record<string, unknown>>;
      expect(merged).toHaveLength(200);
      expect(Object.keys(merged[199]!)).toHaveLength(1001);
      expect(merged[199]!.own).toBe(199);
    });

    it("the diff charges members it reads from shared lists at every schema that holds them", () => {
      // one 1,000-value enum (a YAML alias) in 200 properties whose format changes
      const doc = (format: string, values: { list: string[]; reads: () => number }): Record<string, unknown> => {
        const properties: Record<string, unknown> = {};
        for (let i = 0; i < 200; i++) properties[`p${i}`] = { type: "string", format, enum: values.list };
        return {
          openapi: "3.1.0",
          info: { title: "t", version: "1" },
          paths: { "/a": { get: { responses: { 200: { description: "ok", content: { "application/json": { schema: { type: "object", properties } } } } } } } },
        };
      };
      const countedList = (): { list: string[]; reads: () => number } => {
        let reads = 0;
        const target = Array.from({ length: 1000 }, (_, i) => `v${i}`);
        const list = new Proxy(target, {
          get(t, key, receiver) {
            if (typeof key === "string" && /^\d+$/.test(key)) reads++;
            return Reflect.get(t, key, receiver) as unknown;
          },
        });
        return { list, reads: () => reads };
      };
      const base = countedList();
      const rev = countedList();
      const changes = diffOpenApi(parseOpenApi(doc("uuid", base)), parseOpenApi(doc("uri", rev)));
      expect(changes.filter((c) => c.id === "response-property-type-changed" && c.message.includes("format changed"))).toHaveLength(200);
      // the load reads the list twice (depth check, $ref scan), the fingerprints once (not at each
      // of the 200 schemas), the diff at each of the 200 schemas, and charges it to its budget:
      expect(base.reads()).toBeLessThanOrEqual(3 * 1000 + 200 * 1000);
      const limits = { maxSchemaVisits: 100_000 };
      expect(codeOf(() => diffOpenApi(parseOpenApi(doc("uuid", countedList()), { limits }), parseOpenApi(doc("uri", countedList()), { limits })))).toBe("too_complex");
    });

    it("a YAML text with more nodes than maxYamlNodes is refused before it is parsed", () => {
      const lines = Array.from({ length: 1000 }, (_, i) => `  - {a${i}: 1}`).join("\n");
      const yaml = minimal(`x-list:\n${lines}\n`);
      expect(codeOf(() => parseOpenApi(yaml, { limits: { maxYamlNodes: 4000 } }))).toBe("too_complex");
      expect(codeOf(() => parseOpenApi(yaml, { limits: { maxYamlNodes: 6000 } }))).toBeUndefined();
      // JSON is not YAML-counted
      expect(codeOf(() => parseOpenApi(JSON.stringify({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths: {}, x: Array(5000).fill({ a: 1 }) }), { limits: { maxYamlNodes: 10 } }))).toBeUndefined();
    });

    it("depth still counts where a shared object sits deepest", () => {
      let deep: unknown = { leaf: true };
      for (let i = 0; i < 200; i++) deep = { next: deep };
      let wrapped: unknown = deep;
      for (let i = 0; i < 100; i++) wrapped = { next: wrapped };
      // first met near the top (depth 201 in all), then 100 levels further down (301 > 256)
      expect(codeOf(() => parseOpenApi({ ...sharedIn(deep, 1), "x-deeper": wrapped }))).toBe("too_deep");
      expect(codeOf(() => parseOpenApi({ ...sharedIn(deep, 3) }))).toBeUndefined();
    });
  });

  it("a diff that would visit more schema pairs than allowed stops with too_complex", () => {
    const limits = { maxSchemaVisits: 20 };
    expect(codeOf(() => diffOpenApi(parseOpenApi(chain(50, "string"), { limits }), parseOpenApi(chain(50, "integer"), { limits })))).toBe("too_complex");
  });
});

describe("loadOpenApi", () => {
  const files: Record<string, string> = {
    "https://api.example.com/openapi.yaml": `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /pets:
    $ref: "paths/pets.yaml"
`,
    "https://api.example.com/paths/pets.yaml": `get:
  responses:
    "200":
      description: ok
      content:
        application/json:
          schema: {$ref: "../schemas.yaml#/Pet"}
`,
    "https://api.example.com/schemas.yaml": `Pet:
  type: object
  properties:
    id: {type: integer}
    parent: {$ref: "#/Pet"}
    owner: {$ref: "people.yaml#/Person"}
`,
    "https://api.example.com/people.yaml": `Person:
  type: object
  properties:
    pet: {$ref: "schemas.yaml#/Pet"}
`,
  };
  const loads: string[] = [];
  const loader: DocumentLoader = async (url) => {
    loads.push(url.href);
    const text = files[url.href];
    if (text === undefined) throw new Error("404 not found");
    return text;
  };

  it("follows relative $refs across documents, cycles included, each document read once", async () => {
    loads.length = 0;
    const doc = await loadOpenApi("https://api.example.com/openapi.yaml", { loader });
    expect(doc.documents.size).toBe(4);
    expect(new Set(loads).size).toBe(loads.length);
    const changed: Record<string, string> = { ...files, "https://api.example.com/people.yaml": files["https://api.example.com/people.yaml"]!.replace("pet:", "name: {type: string}\n    pet:") };
    const other = await loadOpenApi("https://api.example.com/openapi.yaml", { loader: async (url) => changed[url.href] ?? "" });
    const changes = diffOpenApi(doc, other);
    expect(changes.map((c) => [c.id, c.operation, c.path])).toEqual([
      ["response-optional-property-added", "GET /pets", "https://api.example.com/people.yaml#/Person/properties/name"],
    ]);
  });

  it("keeps to the limits on documents and bytes, and names a document that cannot be read", async () => {
    expect(await codeOfAsync(() => loadOpenApi("https://api.example.com/openapi.yaml", { loader, limits: { maxDocuments: 2 } }))).toBe("too_many_documents");
    expect(await codeOfAsync(() => loadOpenApi("https://api.example.com/openapi.yaml", { loader, limits: { maxTotalBytes: 300 } }))).toBe("too_large");
    const broken: Record<string, string | undefined> = { ...files, "https://api.example.com/people.yaml": undefined };
    expect(await codeOfAsync(() => loadOpenApi("https://api.example.com/openapi.yaml", { loader: async (url) => { const t = broken[url.href]; if (t === undefined) throw new Error("404"); return t; } }))).toBe("load_failed");
  });
});

describe("parseOpenApi with documents read earlier", () => {
  const root = `openapi: 3.1.0
info: { title: t, version: "1" }
paths:
  /pets:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: { $ref: "schemas/pet.yaml#/Pet" }
`;
  it("follows external $refs into the given texts", () => {
    const doc = parseOpenApi(root, { url: "https://api.example.com/openapi.yaml", documents: { "https://api.example.com/schemas/pet.yaml": "Pet: { type: object, properties: { name: { type: string } } }" } });
    expect([...doc.documents.keys()]).toEqual(["https://api.example.com/openapi.yaml", "https://api.example.com/schemas/pet.yaml"]);
    const pet = resolveRef(doc, doc.url, "schemas/pet.yaml#/Pet");
    expect(pet.value).toEqual({ type: "object", properties: { name: { type: "string" } } });
  });
  it("refuses a $ref to a document it was not given", () => {
    expect(() => parseOpenApi(root, { url: "https://api.example.com/openapi.yaml", documents: {} })).toThrow(/refers to https:\/\/api.example.com\/schemas\/pet.yaml/);
  });
  it("counts the given documents against the byte limit", () => {
    expect(() =>
      parseOpenApi(root, { url: "https://api.example.com/openapi.yaml", documents: { "https://api.example.com/schemas/pet.yaml": `Pet: { type: object, description: "${"x".repeat(2000)}" }` }, limits: { maxTotalBytes: 1500 } }),
    ).toThrow(expect.objectContaining({ code: "too_large" }));
  });
});
