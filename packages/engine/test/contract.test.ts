import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { parseOpenApi } from "@driftwatch/openapi";
import type { FetchResponse, MonitorRecord, NewDiff, SnapshotRecord } from "@driftwatch/core";
import type { Change, Contract } from "@driftwatch/schema";
import { describe, expect, it } from "vitest";
import { ContractCompiler, documentKey, MAX_EXCERPTS_CHARS_PER_RESPONSE, MAX_SCHEMA_EXCERPT_CHARS, schemaDialect, shareExcerpts, schemaExcerptOf, toJsonSchema, validateAgainst, findResponseSchema } from "../src/openapi/contract.js";
import { ContractChecker, withViolations } from "../src/openapi/contract-checker.js";
import { aliasedLongKeyYaml, longKeyJson } from "./hostile-contract.js";

const real = path.join(import.meta.dirname, "../../openapi/test/real");
const recorded = (name: string): unknown => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "contracts", name), "utf8"));
const load = (file: string) => {
  const text = fs.readFileSync(path.join(real, file), "utf8");
  return { doc: parseOpenApi(text, { url: `file:///${file}` }), key: documentKey(text) };
};
const petstore = load("petstore/openapi-1.0.26.yaml");
const museum = load("museum/openapi-2024-11-20.yaml");

function check(target: { doc: ReturnType<typeof parseOpenApi>; key: string }, contract: Contract, status: number, body: unknown) {
  const compiler = new ContractCompiler();
  const compiled = compiler.get(target.key, target.doc, contract, status);
  if (compiled instanceof Error) throw compiled;
  return validateAgainst(compiled, body, target.doc.url);
}

describe("contract validation on recorded responses against their published schemas", () => {
  it("Swagger Petstore (OpenAPI 3.0): recorded GET /pet/{id} and findByStatus answers conform", () => {
    expect(check(petstore, { document: "https://x/openapi.yaml", operation: "getPetById" }, 200, recorded("petstore-get-pet.json"))).toEqual({ violations: [], count: 0 });
    expect(check(petstore, { document: "https://x/openapi.yaml", operation: { method: "GET", path: "/pet/findByStatus" } }, 200, recorded("petstore-find-by-status.json")).count).toBe(0);
  });

  it("Redocly Museum (OpenAPI 3.1): the published GET /museum-hours answer conforms (formats and patterns checked)", () => {
    expect(check(museum, { document: "https://x/openapi.yaml", operation: "getMuseumHours" }, 200, recorded("museum-hours.json")).count).toBe(0);
    const hours = recorded("museum-hours.json") as Array<Record<string, unknown>>;
    hours[1]!.timeOpen = "9 o'clock";
    hours[2]!.date = "next tuesday";
    const found = check(museum, { document: "https://x/openapi.yaml", operation: "getMuseumHours" }, 200, hours);
    expect(found.violations.map((v) => [v.change.path, v.change.keyword, v.change.severity])).toEqual([
      ["$[1].timeOpen", "pattern", "medium"],
      ["$[2].date", "format", "medium"],
    ]);
    // the schema excerpt is found in the document: the violated keyword's pointer
    expect(found.violations[0]!.change.schemaPath).toBe("/components/schemas/MuseumDailyHours/properties/timeOpen/pattern");
  });

  it("a missing required property and a wrong type are high, with path, keyword, expected and actual", () => {
    const pet = recorded("petstore-get-pet.json") as Record<string, unknown>;
    delete pet.name;
    pet.photoUrls = "string";
    (pet.tags as Array<Record<string, unknown>>)[0]!.id = "0";
    const found = check(petstore, { document: "https://x/openapi.yaml", operation: "getPetById" }, 200, pet);
    const byPath = Object.fromEntries(found.violations.map((v) => [v.change.path, v.change]));
    expect(byPath["$.name"]).toMatchObject({ category: "contract", op: "remove", keyword: "required", severity: "high", expected: "present", operation: "GET /pet/{petId}" });
    expect(byPath["$.name"]).not.toHaveProperty("actual");
    expect(byPath["$.photoUrls"]).toMatchObject({ keyword: "type", severity: "high", expected: "array", actual: "string", op: "replace" });
    expect(byPath["$.tags[0].id"]).toMatchObject({ keyword: "type", expected: "integer", actual: "0", schemaPath: "/components/schemas/Tag/properties/id/type" });
    expect(found.count).toBe(3);
  });

  it("each violation records the schema object that holds the violated keyword, as the document writes it", () => {
    const pet = recorded("petstore-get-pet.json") as Record<string, unknown>;
    delete pet.name;
    (pet.tags as Array<Record<string, unknown>>)[0]!.id = "0";
    const byPath = Object.fromEntries(check(petstore, { document: "https://x/openapi.yaml", operation: "getPetById" }, 200, pet).violations.map((v) => [v.change.path, v.change]));
    expect(byPath["$.tags[0].id"]!.schemaExcerpt).toEqual({ type: "integer", format: "int64" });
    // the Pet schema, its $refs as written, three levels deep
    expect(byPath["$.name"]!.schemaExcerpt).toMatchObject({
      required: ["name", "photoUrls"],
      type: "object",
      properties: { category: { $ref: "#/components/schemas/Category" }, photoUrls: { type: "array", xml: "{…}", items: "{…}" }, tags: { items: "{…}" } },
    });
  });

  it("an OpenAPI 3.0 nullable schema's excerpt is the document's (not the converted copy Ajv validates)", () => {
    const doc = parseOpenApi(`openapi: 3.0.3
info: { title: t, version: "1" }
paths:
  /a:
    get:
      operationId: a
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  n: { type: integer, nullable: true, description: "${"long ".repeat(60)}" }
`);
    const [violation] = check({ doc, key: "k" }, { document: "https://x", operation: "a" }, 200, { n: "x" }).violations;
    expect(violation!.change.schemaPath).toBe("/paths/~1a/get/responses/200/content/application~1json/schema/properties/n/type");
    expect(violation!.change.schemaExcerpt).toEqual({ type: "integer", nullable: true, description: `${"long ".repeat(40)}…` });
  });

  it("schema excerpts are bounded: long lists cut, fewer levels when three are too long, none past the bound", () => {
    const values = Array.from({ length: 300 }, (_, i) => `value-${String(i)}`);
    expect(schemaExcerptOf({ type: "string", enum: values })).toEqual({ type: "string", enum: [...values.slice(0, 25), "… 275 more"] });
    const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${String(i)}`, { type: "string", description: "d".repeat(150) }])) };
    const excerpt = schemaExcerptOf(wide) as { properties: Record<string, unknown> };
    expect(JSON.stringify(excerpt).length).toBeLessThanOrEqual(MAX_SCHEMA_EXCERPT_CHARS);
    expect(excerpt.properties.p0).toBe("{…}");
    const huge = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${String(i)}`, "x".repeat(150)]));
    expect(schemaExcerptOf(huge)).toBeUndefined();
  });

  it("records each schema location's excerpt once per response, within a total bound", () => {
    const pets = Array.from({ length: 5 }, (_, i) => ({ id: i, photoUrls: [] }));
    const found = check(petstore, { document: "https://x/openapi.yaml", operation: { method: "GET", path: "/pet/findByStatus" } }, 200, pets);
    expect(found.violations.map((v) => v.change.path)).toEqual(["$[0].name", "$[1].name", "$[2].name", "$[3].name", "$[4].name"]);
    // made once: on the first violation of each schema location only
    expect(found.violations.map((v) => v.change.schemaExcerpt !== undefined)).toEqual([true, false, false, false, false]);
    const recorded = shareExcerpts(found.violations.map((v) => v.change));
    expect(recorded.map((c) => c.schemaExcerpt !== undefined)).toEqual([true, false, false, false, false]);
    expect(recorded.map((c) => c.schemaPath)).toEqual(found.violations.map((v) => v.change.schemaPath));
    // 40 locations of 1.5 KB each: excerpts stop at the bound, the violations stay
    const many = Array.from({ length: 40 }, (_, i) => ({ path: `$.p${String(i)}`, category: "contract" as const, op: "replace" as const, severity: "medium" as const, schemaPath: `/s/${String(i)}/type`, schemaExcerpt: { description: "d".repeat(1500) } }));
    const bounded = shareExcerpts(many);
    expect(bounded).toHaveLength(40);
    const kept = bounded.filter((c) => c.schemaExcerpt !== undefined);
    expect(kept.length).toBe(Math.floor(MAX_EXCERPTS_CHARS_PER_RESPONSE / JSON.stringify(many[0]!.schemaExcerpt).length));
    expect(kept.reduce((sum, c) => sum + JSON.stringify(c.schemaExcerpt).length, 0)).toBeLessThanOrEqual(MAX_EXCERPTS_CHARS_PER_RESPONSE);
  });

  it("an enum value the document does not list is reported with the documented values", () => {
    const pet = { ...(recorded("petstore-get-pet.json") as Record<string, unknown>), status: "adopted" };
    const [violation] = check(petstore, { document: "https://x/openapi.yaml", operation: "getPetById" }, 200, pet).violations;
    expect(violation!.change).toMatchObject({ path: "$.status", keyword: "enum", expected: ["available", "pending", "sold"], actual: "adopted" });
  });

  it("a response whose status the operation documents without JSON content is refused with the reason", () => {
    const compiler = new ContractCompiler();
    const result = compiler.get(petstore.key, petstore.doc, { document: "https://x/openapi.yaml", operation: "getPetById" }, 404);
    expect(result).toBeInstanceOf(Error);
    expect((result as Error).message).toBe("GET /pet/{petId} response 404 documents no JSON content");
    expect(() => findResponseSchema(petstore.doc, { document: "https://x", operation: "nope" }, 200)).toThrow('the document has no operation operationId "nope"');
  });
});

describe("GitHub's recorded responses (octokit/fixtures) against GitHub's published REST description", () => {
  const text = zlib.gunzipSync(fs.readFileSync(path.join(import.meta.dirname, "../../openapi/test/real/github/openapi-2022-07-14.json.gz"))).toString("utf8");
  const github = { doc: parseOpenApi(text, { url: "https://api.github.com/openapi.json" }), key: documentKey(text) };
  const compiler = new ContractCompiler();
  const validate = (operation: string, status: number, body: unknown) => {
    const compiled = compiler.get(github.key, github.doc, { document: "https://api.github.com/openapi.json", operation }, status);
    if (compiled instanceof Error) throw compiled;
    return validateAgainst(compiled, body, github.doc.url);
  };

  it.each([
    ["repos-get.json", "repos/get", 200],
    ["orgs-get.json", "orgs/get", 200],
    ["meta-root.json", "meta/root", 200],
    ["search-issues.json", "search/issues-and-pull-requests", 200],
    ["issues-list-labels.json", "issues/list-labels-for-repo", 200],
    ["issues-create-label.json", "issues/create-label", 201],
    ["issues-get-label.json", "issues/get-label", 200],
    ["issues-update-label.json", "issues/update-label", 200],
  ] as const)("%s conforms to %s %i", (file, operation, status) => {
    expect(validate(operation, status, recorded(`github/${file}`))).toEqual({ violations: [], count: 0 });
  });

  it("the same recordings, edited, violate it where GitHub's schemas say", () => {
    const repo: Record<string, unknown> = { ...(recorded("github/repos-get.json") as Record<string, unknown>), id: "1000" };
    delete repo.full_name;
    (repo.owner as Record<string, unknown>).login = null;
    const byPath = Object.fromEntries(validate("repos/get", 200, repo).violations.map((v) => [v.change.path, v.change]));
    expect(byPath["$.id"]).toMatchObject({ keyword: "type", severity: "high", expected: "integer", actual: "1000", schemaPath: "/components/schemas/full-repository/properties/id/type" });
    expect(byPath["$.full_name"]).toMatchObject({ keyword: "required", severity: "high", schemaPath: "/components/schemas/full-repository/required" });
    expect(byPath["$.owner.login"]).toMatchObject({ keyword: "type", expected: "string", actual: null, schemaPath: "/components/schemas/simple-user/properties/login/type" });
    // the excerpt: the full-repository schema, shortened to the bound
    expect(JSON.stringify(byPath["$.full_name"]!.schemaExcerpt).length).toBeLessThanOrEqual(MAX_SCHEMA_EXCERPT_CHARS);
    expect(byPath["$.full_name"]!.schemaExcerpt).toMatchObject({ type: "object" });
    const labels = recorded("github/issues-list-labels.json") as Array<Record<string, unknown>>;
    labels[0]!.default = "yes";
    expect(validate("issues/list-labels-for-repo", 200, labels).violations.map((v) => [v.change.path, v.change.keyword])).toEqual([["$[0].default", "type"]]);
  });
});

describe("the JSON Schema dialect the document says", () => {
  /** An OpenAPI 3.1 document whose `GET /pair` answers `schema`, with `jsonSchemaDialect` when given. */
  const document = (schema: string, dialect?: string) =>
    parseOpenApi(`openapi: 3.1.0
info: { title: t, version: "1" }
${dialect === undefined ? "" : `jsonSchemaDialect: "${dialect}"\n`}paths:
  /pair:
    get:
      operationId: pair
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: ${schema}
components:
  schemas:
    Code: { type: string }
`);
  const TUPLE = "{ type: array, items: [{ type: string }, { type: integer }], additionalItems: false }";
  const run = (doc: ReturnType<typeof parseOpenApi>, body: unknown) => {
    const compiled = new ContractCompiler().get("k", doc, { document: "https://x", operation: "pair" }, 200);
    if (compiled instanceof Error) throw compiled;
    return validateAgainst(compiled, body, doc.url).violations.map((v) => [v.change.path, v.change.keyword]);
  };

  it("jsonSchemaDialect draft-07: items as a tuple, additionalItems, and a $ref's siblings ignored", () => {
    const doc = document(TUPLE, "http://json-schema.org/draft-07/schema#");
    expect(schemaDialect(doc, doc.root)).toBe("draft-07");
    expect(run(doc, ["a", 1])).toEqual([]);
    expect(run(doc, ["a", "b", 3])).toEqual([
      ["$", "additionalItems"],
      ["$[1]", "type"],
    ]);
    const withSibling = document('{ $ref: "#/components/schemas/Code", maxLength: 1 }', "http://json-schema.org/draft-07/schema#");
    expect(run(withSibling, "abc")).toEqual([]);
    // in 3.1's default dialect (2020-12) the sibling applies
    expect(run(document('{ $ref: "#/components/schemas/Code", maxLength: 1 }'), "abc")).toEqual([["$", "maxLength"]]);
  });

  it("a schema's own $schema (2019-09) wins over the document's default", () => {
    const doc = document(`{ $schema: "https://json-schema.org/draft/2019-09/schema", type: array, items: [{ type: string }, { type: integer }], additionalItems: false }`);
    expect(run(doc, ["a", 1])).toEqual([]);
    expect(run(doc, ["a", 1, 2])).toEqual([["$", "additionalItems"]]);
  });

  it("2020-12 and the OAS dialect are the default; another dialect is refused with the reason", () => {
    expect(schemaDialect(document(TUPLE, "https://spec.openapis.org/oas/3.1/dialect/2024-11-10"), {})).toBe("2020-12");
    expect(schemaDialect(document(TUPLE), {})).toBe("2020-12");
    const old = document(TUPLE, "http://json-schema.org/draft-04/schema#");
    const refused = new ContractCompiler().get("k", old, { document: "https://x", operation: "pair" }, 200);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toBe('the response schema\'s JSON Schema dialect "http://json-schema.org/draft-04/schema#" is not supported (2020-12, 2019-09, draft-07 or draft-06)');
  });
});

describe("the dialect of a response schema that is a $ref, and $schema inside it", () => {
  const document = (components: string, schema = '{ $ref: "#/components/schemas/X" }') =>
    parseOpenApi(`openapi: 3.1.0
info: { title: t, version: "1" }
paths:
  /pair:
    get:
      operationId: pair
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: ${schema}
components:
  schemas:
${components}
`);
  const compile = (doc: ReturnType<typeof parseOpenApi>) => new ContractCompiler().get("k", doc, { document: "https://x", operation: "pair" }, 200);
  const run = (doc: ReturnType<typeof parseOpenApi>, body: unknown) => {
    const compiled = compile(doc);
    if (compiled instanceof Error) throw compiled;
    return validateAgainst(compiled, body, doc.url).violations.map((v) => [v.change.path, v.change.keyword]);
  };

  it("the component a $ref names says draft-07: a tuple's items are read as draft-07 (through a chain of $refs too)", () => {
    const x = '    X: { $schema: "http://json-schema.org/draft-07/schema#", type: array, items: [{ type: string }, { type: integer }], additionalItems: false }';
    for (const doc of [document(x), document(`${x}\n    Y: { $ref: "#/components/schemas/X" }`, '{ $ref: "#/components/schemas/Y" }')]) {
      expect(run(doc, ["a", 1])).toEqual([]);
      expect(run(doc, ["a", "b", 3])).toEqual([
        ["$", "additionalItems"],
        ["$[1]", "type"],
      ]);
    }
  });

  it("the component a $ref names says draft-04: refused with the reason, not read as 2020-12", () => {
    const refused = compile(document('    X: { $schema: "http://json-schema.org/draft-04/schema#", type: object }'));
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toBe('the response schema\'s JSON Schema dialect "http://json-schema.org/draft-04/schema#" is not supported (2020-12, 2019-09, draft-07 or draft-06)');
  });

  it("a schema inside the response schema whose $schema names another dialect, or one not supported, is refused saying where", () => {
    const nested = (dialect: string) =>
      document(`    X: { type: object, properties: { p: { $ref: "#/components/schemas/P" } } }\n    P: { $schema: "${dialect}", type: string }`);
    const other = compile(nested("http://json-schema.org/draft-07/schema#"));
    expect((other as Error).message).toBe("the schema at memory:/openapi#/components/schemas/P says JSON Schema dialect draft-07, but the response schema is validated as 2020-12 (one dialect per response schema)");
    const unsupported = compile(nested("http://json-schema.org/draft-04/schema#"));
    expect((unsupported as Error).message).toBe('the schema at memory:/openapi#/components/schemas/P says JSON Schema dialect "http://json-schema.org/draft-04/schema#", which is not supported (2020-12, 2019-09, draft-07 or draft-06)');
    // the same dialect, however it is spelled, is fine
    expect(run(nested("http://json-schema.org/draft/2020-12/schema#"), { p: 1 })).toEqual([["$.p", "type"]]);
  });

  it("json-schema.org dialect URIs are read with http or https, with or without the trailing #", () => {
    const doc = document("    X: { type: string }");
    expect(schemaDialect(doc, { $schema: "https://json-schema.org/draft-07/schema#" })).toBe("draft-07");
    expect(schemaDialect(doc, { $schema: "https://json-schema.org/draft-06/schema" })).toBe("draft-07");
    expect(schemaDialect(doc, { $schema: "http://json-schema.org/draft-07/schema" })).toBe("draft-07");
    expect(schemaDialect(doc, { $schema: "http://json-schema.org/draft/2019-09/schema#" })).toBe("2019-09");
    expect(schemaDialect(doc, { $schema: "https://json-schema.org/draft/2020-12/schema#" })).toBe("2020-12");
  });
});

describe("OpenAPI schemas as JSON Schema", () => {
  const doc30 = parseOpenApi(`openapi: 3.0.3
info: { title: t, version: "1" }
paths:
  /things:
    get:
      operationId: things
      responses:
        "200":
          description: ok
          content:
            application/vnd.example+json:
              schema: { $ref: "#/components/schemas/Thing" }
components:
  schemas:
    Thing:
      type: object
      additionalProperties: false
      required: [id, secret, parent]
      properties:
        id: { type: integer, minimum: 0, exclusiveMinimum: true }
        note: { type: string, nullable: true }
        kind: { type: string, enum: [a, b], nullable: true }
        secret: { type: string, writeOnly: true }
        parent: { allOf: [{ $ref: "#/components/schemas/Thing" }], nullable: true }
`);
  const contract: Contract = { document: "https://x", operation: "things" };

  it("converts 3.0 idioms: nullable, boolean exclusiveMinimum, writeOnly; $refs become $defs (cycles included)", () => {
    const found = findResponseSchema(doc30, contract, 200);
    const standalone = toJsonSchema(doc30, found.location);
    expect(standalone.schema).toEqual({ $ref: "#/$defs/s0", $defs: expect.any(Object) });
    const thing = (standalone.schema.$defs as Record<string, Record<string, any>>).s0!;
    expect(thing.required).toEqual(["id", "parent"]);
    expect(thing.properties.id).toEqual({ type: "integer", exclusiveMinimum: 0 });
    expect(thing.properties.note).toEqual({ type: ["string", "null"] });
    expect(thing.properties.kind).toEqual({ type: ["string", "null"], enum: ["a", "b", null] });
    expect(thing.properties.parent).toEqual({ anyOf: [{ allOf: [{ $ref: "#/$defs/s0" }] }, { type: "null" }] });
    expect(standalone.origins.get("s0")).toBe("memory:/openapi#/components/schemas/Thing");
  });

  it("validates with the converted schema: null where nullable, an additional property is medium, exclusiveMinimum holds", () => {
    const compiled = new ContractCompiler().get("k", doc30, contract, 200);
    if (compiled instanceof Error) throw compiled;
    expect(validateAgainst(compiled, { id: 1, note: null, kind: null, parent: null }, doc30.url).count).toBe(0);
    const found = validateAgainst(compiled, { id: 0, parent: { id: 2, parent: null, extra: true }, colour: "red" }, doc30.url);
    expect(found.violations.map((v) => [v.change.path, v.change.keyword, v.change.severity, v.change.op])).toEqual(
      expect.arrayContaining([
        ["$.id", "exclusiveMinimum", "medium", "replace"],
        ["$.colour", "additionalProperties", "medium", "add"],
        ["$.parent.extra", "additionalProperties", "medium", "add"],
      ]),
    );
    expect(found.violations.find((v) => v.change.path === "$.colour")!.change).toMatchObject({ expected: false, actual: "red", detail: 'property "colour" is not allowed by the schema' });
  });

  it("compiles once per document version, operation and status, and keeps at most maxEntries", () => {
    const compiler = new ContractCompiler({ maxEntries: 2 });
    const first = compiler.get("v1", doc30, contract, 200);
    expect(compiler.get("v1", doc30, contract, 200)).toBe(first);
    expect(compiler.compiled).toBe(1);
    compiler.get("v2", doc30, contract, 200);
    compiler.get("v3", doc30, contract, 200);
    expect(compiler.size).toBe(2);
    expect(compiler.get("v1", doc30, contract, 200)).not.toBe(first); // evicted: compiled again
    expect(compiler.compiled).toBe(4);
  });
});

/**
 * `value` behind proxies that count each read of a member or of the keys (lazily, each object
 * wrapped once, so a YAML alias stays one object).
 */
function counted<T>(value: T): { value: T; reads: () => number; listings: () => number; reset: () => void } {
  let reads = 0;
  let listings = 0;
  const proxies = new WeakMap<object, object>();
  const wrap = (target: unknown): unknown => {
    if (target === null || typeof target !== "object") return target;
    let proxy = proxies.get(target);
    if (proxy === undefined) {
      proxy = new Proxy(target, {
        get(t, key, receiver) {
          reads++;
          return wrap(Reflect.get(t, key, receiver));
        },
        ownKeys(t) {
          reads++;
          listings++;
          return Reflect.ownKeys(t);
        },
      });
      proxies.set(target, proxy);
    }
    return proxy;
  };
  return {
    value: wrap(value) as T,
    reads: () => reads,
    listings: () => listings,
    reset: () => {
      reads = 0;
      listings = 0;
    },
  };
}

describe("schema excerpts of a hostile contract document are bounded work", () => {
  const compile = (doc: ReturnType<typeof parseOpenApi>) => {
    const compiled = new ContractCompiler().get("k", doc, { document: "https://x", operation: "a" }, 200);
    if (compiled instanceof Error) throw compiled;
    return compiled;
  };
  /** The document with `p`'s schema (the one 100 violations share) behind counting proxies. */
  const withCountedSchema = (doc: ReturnType<typeof parseOpenApi>) => {
    const properties = ((doc.root.paths as any)["/a"].get.responses["200"].content["application/json"].schema as { properties: Record<string, unknown> }).properties;
    const schema = counted(properties.p);
    properties.p = schema.value;
    return schema;
  };

  for (const [name, text] of [
    ["YAML: the long-key objects are aliases repeated at every level", aliasedLongKeyYaml({ keyLength: 1000, required: 100 })],
    ["JSON: 15,625 long keys written out", longKeyJson({ keyLength: 40, required: 100 })],
  ] as const) {
    it(`${name}: 100 violations read the schema a bounded number of times, the output is bounded`, () => {
      const doc = parseOpenApi(text, { url: "https://x/openapi" });
      const schema = withCountedSchema(doc);
      const compiled = compile(doc);
      schema.reset();
      const found = validateAgainst(compiled, { p: {} }, doc.url);
      expect(found.count).toBe(100);
      // the three-level tree has 15,625 leaves: an excerpt stops at its 2 KiB, and is made once for the 100 violations
      expect(schema.reads()).toBeLessThan(5000);
      const excerpts = found.violations.filter((v) => v.change.schemaExcerpt !== undefined);
      expect(excerpts.length).toBeLessThanOrEqual(1);
      for (const v of excerpts) expect(JSON.stringify(v.change.schemaExcerpt).length).toBeLessThanOrEqual(MAX_SCHEMA_EXCERPT_CHARS);
      expect(JSON.stringify(found.violations).length).toBeLessThan(100 * 1024);
      // the same schema object again (another response): the excerpt is not made again
      schema.reset();
      validateAgainst(compiled, { p: { r0: 1 } }, doc.url);
      expect(schema.reads()).toBeLessThan(100);
    });
  }

  it("an object reached at many places (a YAML alias) has its keys listed once, however wide it is", () => {
    const wide = counted(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${String(i)}`, i])));
    const schema = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`x-${String(i)}`, Object.fromEntries(Array.from({ length: 25 }, (_, j) => [`m${String(j)}`, wide.value]))]));
    schema.type = "object" as never;
    wide.reset();
    const excerpt = schemaExcerptOf(schema);
    expect(JSON.stringify(excerpt).length).toBeLessThanOrEqual(MAX_SCHEMA_EXCERPT_CHARS);
    // its keys are listed once; its members are read only as far as 2 KiB go
    expect(wide.listings()).toBe(1);
    expect(wide.reads()).toBeLessThan(300);
  });

  it("an enum whose documented values pass 2 KiB: expected lists them shortened, within 2 KiB", () => {
    const values = Array.from({ length: 500 }, (_, i) => `value-${String(i)}-${"v".repeat(40)}`);
    const doc = parseOpenApi(JSON.stringify({ openapi: "3.1.0", info: { title: "t", version: "1" }, paths: { "/a": { get: { operationId: "a", responses: { "200": { description: "ok", content: { "application/json": { schema: { enum: values } } } } } } } } }));
    const [violation] = check({ doc, key: "k" }, { document: "https://x", operation: "a" }, 200, "other").violations;
    expect(violation!.change.keyword).toBe("enum");
    expect(violation!.change.expected).toEqual([...values.slice(0, 25), "… 475 more"]);
    expect(JSON.stringify(violation!.change.expected).length).toBeLessThanOrEqual(MAX_SCHEMA_EXCERPT_CHARS);
  });

  it("keys are cut like strings: an object of five 10,000-character keys has an excerpt", () => {
    const wide = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`${String(i)}${"k".repeat(10_000)}`, { type: "string" }]));
    const excerpt = schemaExcerptOf(wide) as Record<string, unknown>;
    expect(Object.keys(excerpt)).toEqual(Array.from({ length: 5 }, (_, i) => `${String(i)}${"k".repeat(199)}…`));
    expect(JSON.stringify(excerpt).length).toBeLessThanOrEqual(MAX_SCHEMA_EXCERPT_CHARS);
  });

  it("a 1 MB YAML document whose excerpt would be 600 MB of JSON: the check answers, with bounded violations", async () => {
    const text = aliasedLongKeyYaml({ keyLength: 20, leafKeyLength: 40_000, required: 100 });
    expect(text.length).toBeGreaterThan(1_000_000);
    const fetcher = {
      fetch: async () => ({ status: 200, headers: {}, body: text, contentType: "application/yaml", size: text.length, latencyMs: 1, finalUrl: "https://x/openapi.yaml", notModified: false, browserRender: false, waitStrategy: null }),
    };
    const checker = new ContractChecker({ store: {} as never, fetcher: fetcher as never });
    const monitor = { id: "mon_1", orgId: "org_1", contract: { document: "https://x/openapi.yaml", operation: "a" } } as unknown as MonitorRecord;
    const response = { status: 200, body: '{"p":{}}', size: 8 } as FetchResponse;
    const first = await checker.check(monitor, response, null);
    expect(first).toMatchObject({ ok: true, count: 100 });
    expect(JSON.stringify(first).length).toBeLessThan(100 * 1024);
    // the next check compares with the previous response (r0 was there): only what is new, excerpts included where needed
    const second = await checker.check(monitor, response, { status: 200, body: '{"p":{"r0":1}}' } as SnapshotRecord);
    expect(second).toMatchObject({ ok: true, count: 1 });
    if (!second.ok) throw new Error("unreachable");
    expect(second.violations[0]!.change).toMatchObject({ path: "$.p.r0", keyword: "required", schemaPath: "/paths/~1a/get/responses/200/content/application~1json/schema/properties/p/required" });
  });
});

describe("violations at the root of an inline response schema", () => {
  const inline = (version: "3.0.3" | "3.1.0", schema: string) =>
    parseOpenApi(`openapi: ${version}
info: { title: t, version: "1" }
paths:
  /a:
    get:
      operationId: a
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: ${schema}
components:
  schemas:
    Named: { type: object, properties: { name: { type: string } } }
`);
  const SCHEMA = "/paths/~1a/get/responses/200/content/application~1json/schema";

  it("OpenAPI 3.1: the root's required and additionalProperties have the schema's pointer and excerpt", () => {
    const found = check({ doc: inline("3.1.0", "{ type: object, required: [id], additionalProperties: false }"), key: "k" }, { document: "https://x", operation: "a" }, 200, { x: 1 });
    expect(found.violations.map((v) => [v.change.path, v.change.keyword, v.change.schemaPath, v.change.schemaExcerpt])).toEqual([
      ["$.id", "required", `${SCHEMA}/required`, { type: "object", required: ["id"], additionalProperties: false }],
      ["$.x", "additionalProperties", `${SCHEMA}/additionalProperties`, { type: "object", required: ["id"], additionalProperties: false }],
    ]);
  });

  it("a boolean schema (false) is violated at the schema itself", () => {
    const [violation] = check({ doc: inline("3.1.0", "false"), key: "k" }, { document: "https://x", operation: "a" }, 200, { x: 1 }).violations;
    expect(violation!.change).toMatchObject({ keyword: "false schema", schemaPath: SCHEMA });
  });

  it("OpenAPI 3.0 nullable without a type: the wrapped schema's violations are at the document's schema (no anyOf/0), with its excerpt", () => {
    const doc = inline("3.0.3", '{ nullable: true, allOf: [{ $ref: "#/components/schemas/Named" }], required: [id] }');
    const found = check({ doc, key: "k" }, { document: "https://x", operation: "a" }, 200, { name: "n" });
    // (the anyOf that says "or null" is reported too, at the converted schema's anyOf)
    const required = found.violations.find((v) => v.change.keyword === "required")!.change;
    expect([required.path, required.schemaPath]).toEqual(["$.id", `${SCHEMA}/required`]);
    expect(required.schemaExcerpt).toEqual({ nullable: true, allOf: [{ $ref: "#/components/schemas/Named" }], required: ["id"] });
    expect(check({ doc, key: "k" }, { document: "https://x", operation: "a" }, 200, null).count).toBe(0);
  });
});

describe("a check's diff with its contract violations stays within the stored diff's caps", () => {
  const base = { id: "dif_1", previousSnapshotId: "snp_1", requestId: "req_1", status: 200, latencyMs: 1, createdAt: "2026-01-01T00:00:00.000Z" };
  const violations = Array.from({ length: 100 }, (_, i) => ({
    key: `v${String(i)}`,
    change: { path: `$.v${String(i)}`, category: "contract" as const, op: "remove" as const, severity: "high" as const, keyword: "required", schemaPath: `/s/${String(i)}/required`, schemaExcerpt: { description: "d".repeat(300) } },
  }));
  const bytes = (changes: readonly unknown[]) => Buffer.byteLength(JSON.stringify(changes), "utf8");
  const valueDiff = (changes: Change[], truncated: boolean): NewDiff =>
    ({ ...base, classification: "value_change", schemaChanges: 0, valueChanges: 5000, topSeverity: "low", diffFingerprint: "sha256:x", changes, ...(truncated ? { truncated: true } : {}) }) as NewDiff;

  it("a diff already at 1000 changes: still 1000, truncated, the violations listed first", () => {
    const changes: Change[] = Array.from({ length: 1000 }, (_, i) => ({ path: `$.a${String(i)}`, category: "value", op: "replace", severity: "low", before: i, after: i + 1 }));
    const out = withViolations(valueDiff(changes, true), violations, base)!;
    expect(out.changes).toHaveLength(1000);
    expect(out.truncated).toBe(true);
    expect(out.changes[0]!.category).toBe("contract");
    expect(out.topSeverity).toBe("high");
    expect(out).toMatchObject({ valueChanges: 5000 });
  });

  it("a diff just under 1 MB: the violations and excerpts do not take it past 1 MB", () => {
    const changes: Change[] = Array.from({ length: 100 }, (_, i) => ({ path: `$.a${String(i)}`, category: "value", op: "replace", severity: "low", before: "b".repeat(10_300), after: i }));
    expect(bytes(changes)).toBeLessThan(1024 * 1024);
    const out = withViolations(valueDiff(changes, false), violations, base)!;
    expect(bytes(out.changes)).toBeLessThanOrEqual(1024 * 1024);
    expect(out.truncated).toBe(true);
    expect(out.changes.filter((c) => c.category === "contract")).toHaveLength(100);
  });

  it("a contract_violation diff of its own takes the caps given; under them nothing is cut", () => {
    const out = withViolations(null, violations, base, { maxChanges: 10, maxBytes: 1024 * 1024 })!;
    expect(out).toMatchObject({ classification: "contract_violation", schemaChanges: 100, truncated: true });
    expect(out.changes).toHaveLength(10);
    const whole = withViolations(null, violations, base)!;
    expect(whole.changes).toHaveLength(100);
    expect(whole).not.toHaveProperty("truncated");
  });
});
