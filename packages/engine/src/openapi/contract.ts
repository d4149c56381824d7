import { createHash } from "node:crypto";
import { childPointer, deref, type JsonObject, type Location, type OpenApiDocument, OpenApiError, resolveRef } from "@driftwatch/openapi";
import type { Change, Contract, Severity } from "@driftwatch/schema";
import { createRequire } from "node:module";
import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import type addFormatsModule from "ajv-formats";

/** The JSON Schema dialects a contract validates with: OpenAPI 3.1's default (2020-12), 2019-09 and draft-07 (draft-06 read as 07). */
export type SchemaDialect = "2020-12" | "2019-09" | "draft-07";

// json-schema.org URIs are compared as https, without a trailing `#` (both spellings are in use)
const DIALECTS: ReadonlyMap<string, SchemaDialect> = new Map([
  ["https://json-schema.org/draft/2020-12/schema", "2020-12"],
  ["https://spec.openapis.org/oas/3.1/dialect/base", "2020-12"],
  ["https://json-schema.org/draft/2019-09/schema", "2019-09"],
  ["https://json-schema.org/draft-07/schema", "draft-07"],
  ["https://json-schema.org/draft-06/schema", "draft-07"],
]);

/** The dialect a `$schema` URI names, or undefined for one not supported. */
function dialectOf(declared: string): SchemaDialect | undefined {
  const uri = declared.replace(/#$/, "").replace(/^https?:\/\/json-schema\.org\//, "https://json-schema.org/");
  return DIALECTS.get(uri) ?? (/^https:\/\/spec\.openapis\.org\/oas\/3\.[12]\/dialect\/[^/]+$/.test(uri) ? "2020-12" : undefined);
}

const SUPPORTED_DIALECTS = "2020-12, 2019-09, draft-07 or draft-06";

/**
 * The schema a response schema starts with: its own object, or the one its `$ref` chain ends at
 * (an object with a `$schema` ends the chain: it is the schema's own). Within `maxDepth` hops.
 */
function rootSchemaOf(doc: OpenApiDocument, location: Location): unknown {
  let current = location;
  for (let hops = 0; ; hops++) {
    const value = current.value;
    if (!isObject(value) || typeof value.$ref !== "string" || value.$schema !== undefined) return value;
    if (hops >= doc.limits.maxDepth) {
      throw new OpenApiError("too_deep", `a $ref chain from ${location.doc}#${location.pointer} is longer than ${doc.limits.maxDepth} hops (or a cycle)`);
    }
    current = resolveRef(doc, current.doc, value.$ref);
  }
}

/**
 * The dialect a schema is written in, as the document says: the schema's own `$schema`, else
 * (OpenAPI 3.1) the document's `jsonSchemaDialect`, else 2020-12 (OpenAPI 3.1's default dialect;
 * 3.0 schemas are converted to it). The OAS dialect of any date
 * (`https://spec.openapis.org/oas/3.1/dialect/<date>`) is 2020-12; json-schema.org URIs are read
 * with http or https, with or without the trailing `#`. Throws for another dialect.
 */
export function schemaDialect(doc: OpenApiDocument, schema: unknown): SchemaDialect {
  // OpenAPI 3.0's schema objects are its own dialect (no $schema), converted to 2020-12
  if (doc.version === "3.0") return "2020-12";
  const own = isObject(schema) && typeof schema.$schema === "string" ? schema.$schema : undefined;
  const declared = own ?? (typeof doc.root.jsonSchemaDialect === "string" ? doc.root.jsonSchemaDialect : undefined);
  if (declared === undefined) return "2020-12";
  const dialect = dialectOf(declared);
  if (dialect === undefined) {
    throw new OpenApiError("invalid_document", `the response schema's JSON Schema dialect ${JSON.stringify(declared)} is not supported (${SUPPORTED_DIALECTS})`);
  }
  return dialect;
}

/**
 * The dialect of the response schema at `location`: `schemaDialect` of the schema itself, or, when
 * it is a `$ref` without a `$schema` of its own, of the schema its `$ref` chain ends at
 * (`schema: { $ref: '#/components/schemas/X' }` is in X's dialect).
 */
export function responseSchemaDialect(doc: OpenApiDocument, location: Location): SchemaDialect {
  if (doc.version === "3.0") return "2020-12";
  return schemaDialect(doc, rootSchemaOf(doc, location));
}

// Ajv and ajv-formats are loaded on the first contract compiled (about 8 MB of a process's memory
// that a server without contracts should not pay; issue 26). `require` keeps compiling
// synchronous; both ship CommonJS. The CommonJS build has `__filename`; the ESM build (and the
// sources) `import.meta.url`.
function newAjv(dialect: SchemaDialect): Ajv2020 {
  const load = createRequire(typeof __filename === "string" ? __filename : import.meta.url);
  const module = dialect === "2020-12" ? "ajv/dist/2020.js" : dialect === "2019-09" ? "ajv/dist/2019.js" : "ajv/dist/ajv.js";
  const exported = load(module) as Record<string, unknown>;
  const AjvClass = (dialect === "2020-12" ? exported.Ajv2020 : dialect === "2019-09" ? exported.Ajv2019 : exported.Ajv) as typeof import("ajv/dist/2020.js").Ajv2020;
  const formats = load("ajv-formats") as typeof addFormatsModule & { default?: typeof addFormatsModule };
  // ajv-formats is CommonJS: the function itself, or under `.default`
  const addFormats = formats.default ?? formats;
  const ajv = new AjvClass({ allErrors: true, strict: false, validateFormats: true, logger: false, verbose: true, code: { optimize: false } });
  addFormats(ajv);
  return ajv;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** Most `$ref` targets one response schema may pull in (each becomes one `$defs` entry). */
export const MAX_SCHEMA_DEFS = 5000;
/** Most violations one response reports (all are counted). */
export const MAX_VIOLATIONS = 100;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The response schema a contract names, where it is in the document, and the operation as `METHOD /path`. */
export interface ResponseSchema {
  readonly location: Location;
  readonly operation: string;
  /** The response key used (`200`, `2XX`, `default`). */
  readonly status: string;
}

/** The operation a contract names (by `operationId`, or method and path), or an error saying why there is none. */
export function findOperation(doc: OpenApiDocument, operation: Contract["operation"]): { location: Location; name: string } {
  const paths = doc.root.paths;
  if (!isObject(paths)) throw new OpenApiError("invalid_document", "the document has no paths");
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(doc, { doc: doc.url, pointer: childPointer("/paths", path), value: rawItem });
    if (!isObject(item.value)) continue;
    for (const method of METHODS) {
      const op = item.value[method];
      if (!isObject(op)) continue;
      const matches = typeof operation === "string" ? op.operationId === operation : operation.method.toLowerCase() === method && operation.path === path;
      if (matches) return { location: { doc: item.doc, pointer: childPointer(item.pointer, method), value: op }, name: `${method.toUpperCase()} ${path}` };
    }
  }
  const wanted = typeof operation === "string" ? `operationId ${JSON.stringify(operation)}` : `${operation.method} ${operation.path}`;
  throw new OpenApiError("invalid_document", `the document has no operation ${wanted}`);
}

/** The status keys to try for an answer: the contract's, else the exact status, its range, then `default`. */
function statusKeys(status: number, wanted: Contract["status"]): string[] {
  if (wanted !== undefined) return [String(wanted)];
  const exact = String(status);
  return [exact, `${exact[0]!}XX`, `${exact[0]!}xx`, "default"];
}

/** A JSON media type of a response's `content` (`application/json`, `application/vnd.github+json`, `*\/*`). */
function jsonMediaType(content: JsonObject): string | undefined {
  const keys = Object.keys(content);
  return (
    keys.find((key) => key.split(";")[0]!.trim() === "application/json") ??
    keys.find((key) => /[/+]json(\s*;|$)/i.test(key)) ??
    keys.find((key) => key === "*/*" || key === "application/*")
  );
}

/**
 * The schema of the response a contract names for an answer with `status`. Throws an
 * `OpenApiError` saying what is missing (operation, response, JSON content, schema).
 */
export function findResponseSchema(doc: OpenApiDocument, contract: Contract, status: number): ResponseSchema {
  const op = findOperation(doc, contract.operation);
  const responses = deref(doc, { doc: op.location.doc, pointer: childPointer(op.location.pointer, "responses"), value: (op.location.value as JsonObject).responses });
  if (!isObject(responses.value)) throw new OpenApiError("invalid_document", `${op.name} documents no responses`);
  const keys = statusKeys(status, contract.status);
  const key = keys.find((candidate) => Object.hasOwn(responses.value as JsonObject, candidate));
  if (key === undefined) throw new OpenApiError("invalid_document", `${op.name} documents no response for ${keys.join(", ")}`);
  const response = deref(doc, { doc: responses.doc, pointer: childPointer(responses.pointer, key), value: (responses.value as JsonObject)[key] });
  const content = isObject(response.value) ? response.value.content : undefined;
  const media = isObject(content) ? jsonMediaType(content) : undefined;
  if (media === undefined) throw new OpenApiError("invalid_document", `${op.name} response ${key} documents no JSON content`);
  const mediaObject = (content as JsonObject)[media];
  const schema = isObject(mediaObject) ? mediaObject.schema : undefined;
  if (schema === undefined) throw new OpenApiError("invalid_document", `${op.name} response ${key} (${media}) has no schema`);
  const pointer = childPointer(childPointer(childPointer(response.pointer, "content"), media), "schema");
  return { location: { doc: response.doc, pointer, value: schema }, operation: op.name, status: key };
}

/** Keywords whose values are data, not schemas: copied as they are. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "example", "examples", "required", "type", "discriminator", "xml", "externalDocs"]);

/** A standalone JSON Schema (in the response schema's dialect) of a response schema, and where each `$defs` entry came from. */
export interface StandaloneSchema {
  readonly schema: JsonObject;
  /** `$defs` key -> `document#pointer` of the schema it copies. */
  readonly origins: ReadonlyMap<string, string>;
  /** `document#pointer` of the root schema. */
  readonly rootOrigin: string;
  /** The root schema is a boolean, wrapped as `allOf: [<boolean>]` (its violations are the root's). */
  readonly booleanRoot?: boolean;
  /** Each copied schema object -> `document#pointer` of the schema it copies (Ajv's `parentSchema` is one of them). */
  readonly objects: WeakMap<object, string>;
  /** Each copied schema object -> the schema object it copies, as the document writes it (for a violation's excerpt). */
  readonly originals: WeakMap<object, JsonObject>;
}

/**
 * Copies a response schema into one standalone JSON Schema: every `$ref` (within the document or
 * to another one) becomes `#/$defs/<n>`, each target copied once (cycles stay cycles). OpenAPI
 * 3.0's dialect is converted to 2020-12 on the way: `nullable` becomes a `null` type or enum
 * member, boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers, a `writeOnly` property is
 * not required in a response. OpenAPI 3.1 schemas are kept in their `dialect` (`schemaDialect`):
 * 2020-12 by default, 2019-09 or draft-07 when the document says so (draft-07 ignores a `$ref`'s
 * siblings).
 */
export function toJsonSchema(doc: OpenApiDocument, root: Location, dialect: SchemaDialect = "2020-12"): StandaloneSchema {
  const defs: Record<string, unknown> = {};
  const keys = new Map<string, string>();
  const origins = new Map<string, string>();
  const pending: Array<{ key: string; location: Location }> = [];
  const objects = new WeakMap<object, string>();
  const originals = new WeakMap<object, JsonObject>();
  const legacy = doc.version === "3.0";

  const refKey = (location: Location, ref: string): string => {
    const target = deref(doc, { doc: location.doc, pointer: location.pointer, value: { $ref: ref } });
    const id = `${target.doc}#${target.pointer}`;
    let key = keys.get(id);
    if (key === undefined) {
      if (keys.size >= MAX_SCHEMA_DEFS) throw new OpenApiError("too_complex", `the response schema refers to more than ${MAX_SCHEMA_DEFS} schemas`);
      key = `s${String(keys.size)}`;
      keys.set(id, key);
      origins.set(key, id);
      pending.push({ key, location: target });
    }
    return key;
  };

  const copy = (location: Location, depth: number): unknown => {
    if (depth > doc.limits.maxDepth) throw new OpenApiError("too_deep", `the response schema nests deeper than ${doc.limits.maxDepth} levels`);
    const value = location.value;
    if (Array.isArray(value)) return value.map((item, i) => copy({ doc: location.doc, pointer: childPointer(location.pointer, i), value: item }, depth + 1));
    if (!isObject(value)) return value;
    if (typeof value.$ref === "string") {
      const target = { $ref: `#/$defs/${refKey(location, value.$ref)}` };
      // 3.0 and draft-07 ignore a $ref's siblings; 2019-09 and 2020-12 (3.1's default) apply them alongside
      if (legacy || dialect === "draft-07") return target;
      const { $ref: _ref, ...rest } = value;
      if (Object.keys(rest).length === 0) return target;
      const merged = { ...(copySchema({ ...location, value: rest }, depth) as JsonObject), ...target };
      objects.set(merged, `${location.doc}#${location.pointer}`);
      originals.set(merged, value);
      return merged;
    }
    return copySchema(location, depth);
  };

  // A schema is validated in one dialect: a schema inside it that says another is refused (its
  // keywords would be read in the wrong one), not silently read in the response schema's.
  const checkNestedDialect = (location: Location, declared: unknown): void => {
    const named = typeof declared === "string" ? dialectOf(declared) : undefined;
    if (named === dialect) return;
    const where = `${location.doc}#${location.pointer}`;
    if (named === undefined) {
      throw new OpenApiError("invalid_document", `the schema at ${where} says JSON Schema dialect ${JSON.stringify(declared)}, which is not supported (${SUPPORTED_DIALECTS})`);
    }
    throw new OpenApiError("invalid_document", `the schema at ${where} says JSON Schema dialect ${named}, but the response schema is validated as ${dialect} (one dialect per response schema)`);
  };

  const copySchema = (location: Location, depth: number): unknown => {
    const value = location.value as JsonObject;
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === "$schema" && !legacy) checkNestedDialect(location, child);
      if (key.startsWith("x-") || key === "$schema" || key === "$id" || key === "$anchor" || key === "$dynamicAnchor") continue;
      if (DATA_KEYWORDS.has(key)) out[key] = child;
      else if ((key === "properties" || key === "patternProperties" || key === "$defs" || key === "definitions" || key === "dependentSchemas") && isObject(child)) {
        const map: JsonObject = {};
        for (const [name, sub] of Object.entries(child)) map[name] = copy({ doc: location.doc, pointer: childPointer(childPointer(location.pointer, key), name), value: sub }, depth + 1);
        out[key] = map;
      } else out[key] = copy({ doc: location.doc, pointer: childPointer(location.pointer, key), value: child }, depth + 1);
    }
    const origin = `${location.doc}#${location.pointer}`;
    // a nullable schema becomes `anyOf: [itself, null]`: its violations are still the document's schema's
    const inner = legacy ? convertLegacy(out, value) : undefined;
    for (const copied of inner === undefined ? [out] : [out, inner]) {
      objects.set(copied, origin);
      originals.set(copied, value);
    }
    return out;
  };

  const schema = copy(root, 0) as JsonObject;
  while (pending.length > 0) {
    const next = pending.shift()!;
    defs[next.key] = copy(next.location, 0);
  }
  const rootOrigin = `${root.doc}#${root.pointer}`;
  const standalone: JsonObject = typeof schema === "boolean" ? { allOf: [schema] } : { ...schema };
  if (Object.keys(defs).length > 0) standalone.$defs = { ...(isObject(standalone.$defs) ? standalone.$defs : {}), ...defs };
  // Ajv's parentSchema of a violation at the root is this object, not the copy it spreads
  objects.set(standalone, (isObject(schema) ? objects.get(schema) : undefined) ?? rootOrigin);
  const original = (isObject(schema) ? originals.get(schema) : undefined) ?? (isObject(root.value) ? root.value : undefined);
  if (original !== undefined) originals.set(standalone, original);
  return { schema: standalone, origins, rootOrigin, objects, originals, ...(typeof schema === "boolean" ? { booleanRoot: true } : {}) };
}

/**
 * OpenAPI 3.0 schema idioms in JSON Schema 2020-12 terms (in place, on the copy). Returns the
 * schema a nullable schema without a type is wrapped around (`anyOf: [schema, { type: "null" }]`).
 */
function convertLegacy(out: JsonObject, original: JsonObject): JsonObject | undefined {
  if (original.nullable === true) {
    if (typeof out.type === "string") out.type = [out.type, "null"];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    if (out.type === undefined && (out.allOf !== undefined || out.oneOf !== undefined || out.anyOf !== undefined || out.$ref !== undefined)) {
      const { nullable: _n, ...rest } = out;
      for (const key of Object.keys(out)) delete out[key];
      out.anyOf = [rest, { type: "null" }];
      return rest;
    }
  }
  delete out.nullable;
  for (const [bound, exclusive] of [
    ["minimum", "exclusiveMinimum"],
    ["maximum", "exclusiveMaximum"],
  ] as const) {
    if (out[exclusive] === true && typeof out[bound] === "number") {
      out[exclusive] = out[bound];
      delete out[bound];
    } else if (typeof out[exclusive] === "boolean") delete out[exclusive];
  }
  // a writeOnly property is never in a response: it cannot be missing from one
  if (Array.isArray(out.required) && isObject(original.properties)) {
    const props = original.properties;
    out.required = (out.required as unknown[]).filter((name) => !(typeof name === "string" && isObject(props[name]) && props[name].writeOnly === true));
  }
  return undefined;
}

/** A compiled response schema, with what its violations report. */
export interface CompiledContract {
  readonly validate: ValidateFunction;
  readonly schema: StandaloneSchema;
  readonly operation: string;
  readonly status: string;
  /** Schema excerpts made so far, by the document's schema object (undefined: none fits). */
  readonly excerpts: WeakMap<object, unknown>;
}

/**
 * Compiles response schemas with Ajv (in the dialect the document says, `responseSchemaDialect`;
 * formats checked), each once per document version, operation and status, keeping the most
 * recent `maxEntries`.
 */
export class ContractCompiler {
  readonly #ajv = new Map<SchemaDialect, Ajv2020>();
  readonly #cache = new Map<string, CompiledContract | OpenApiError>();
  readonly #maxEntries: number;
  compiled = 0;

  constructor(options: { maxEntries?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? 64;
  }

  /** The compiled schema for `documentKey` (a hash of the document version), or the reason there is none (cached too). */
  get(documentKey: string, doc: OpenApiDocument, contract: Contract, status: number): CompiledContract | OpenApiError {
    const statusKey = contract.status === undefined ? String(status) : String(contract.status);
    const key = `${documentKey}\u0000${JSON.stringify(contract.operation)}\u0000${statusKey}`;
    const hit = this.#cache.get(key);
    if (hit !== undefined) {
      this.#cache.delete(key); // most recently used last
      this.#cache.set(key, hit);
      return hit;
    }
    let entry: CompiledContract | OpenApiError;
    try {
      const found = findResponseSchema(doc, contract, status);
      const dialect = responseSchemaDialect(doc, found.location);
      const schema = toJsonSchema(doc, found.location, dialect);
      let ajv = this.#ajv.get(dialect);
      if (ajv === undefined) {
        ajv = newAjv(dialect);
        this.#ajv.set(dialect, ajv);
      }
      const validate = ajv.compile(schema.schema);
      // compiled functions are kept by the cache here, not by Ajv (whose own cache never forgets)
      ajv.removeSchema(schema.schema);
      this.compiled++;
      entry = { validate, schema, operation: found.operation, status: found.status, excerpts: new WeakMap() };
    } catch (error) {
      entry = error instanceof OpenApiError ? error : new OpenApiError("invalid_document", `the response schema cannot be compiled: ${(error as Error).message}`);
    }
    this.#cache.set(key, entry);
    while (this.#cache.size > this.#maxEntries) this.#cache.delete(this.#cache.keys().next().value!);
    return entry;
  }

  get size(): number {
    return this.#cache.size;
  }
}

/** RFC 6901 pointer tokens of an Ajv instance path. */
function tokensOf(pointer: string): string[] {
  return pointer === "" ? [] : pointer.slice(1).split("/").map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function jsonPath(tokens: readonly string[]): string {
  let out = "$";
  for (const token of tokens) {
    if (/^[0-9]+$/.test(token)) out += `[${token}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(token)) out += `.${token}`;
    else out += `['${token.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`;
  }
  return out;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Longest schema excerpt (JSON characters) a contract change records. */
export const MAX_SCHEMA_EXCERPT_CHARS = 2048;
const EXCERPT_ENTRIES = 25;
const EXCERPT_STRING = 200;
/** Longest value (JSON characters) a violation shows as it is (`actual`, `expected`). */
const VALUE_CHARS = 200;

// The first members and the count of each object shortened, listed once per object: a YAML alias
// puts one object (maybe of many members) at many places, and listing keys is linear in them.
const memberLists = new WeakMap<object, { first: readonly string[]; count: number }>();
function membersOf(value: object): { first: readonly string[]; count: number } {
  let members = memberLists.get(value);
  if (members === undefined) {
    const keys = Object.keys(value);
    members = { first: keys.slice(0, EXCERPT_ENTRIES), count: keys.length };
    memberLists.set(value, members);
  }
  return members;
}

function setMember(out: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/**
 * Writes a shortened copy of a value (`depth` levels, 25 members per object or array, 200
 * characters per string and per key) while counting the JSON characters of what it wrote, and
 * stops as soon as they pass `budget`: the work is bounded by the budget, whatever the value's
 * size (long keys, wide objects, a YAML alias repeated at every level).
 */
class BoundedWriter {
  used = 0;
  /** Something was cut (a string, a key, members past 25, a level past `depth`). */
  cut = false;
  constructor(readonly budget: number) {}

  get over(): boolean {
    return this.used > this.budget;
  }

  #text(text: string): string {
    let out = text;
    if (text.length > EXCERPT_STRING) {
      out = `${text.slice(0, EXCERPT_STRING)}…`;
      this.cut = true;
    }
    this.used += JSON.stringify(out).length;
    return out;
  }

  write(value: unknown, depth: number): unknown {
    if (typeof value === "string") return this.#text(value);
    if (value === null || typeof value !== "object") {
      // numbers, booleans (what else a parsed document holds is not JSON: written as null)
      const text = typeof value === "number" || typeof value === "boolean" ? JSON.stringify(value) : "null";
      this.used += text.length;
      return typeof value === "number" || typeof value === "boolean" ? value : null;
    }
    if (depth === 0) {
      this.cut = true;
      return this.#text(Array.isArray(value) ? "[…]" : "{…}");
    }
    this.used += 2; // brackets
    if (Array.isArray(value)) {
      const items: unknown[] = [];
      const shown = Math.min(value.length, EXCERPT_ENTRIES);
      for (let i = 0; i < shown && !this.over; i++) {
        if (i > 0) this.used += 1;
        items.push(this.write(value[i], depth - 1));
      }
      if (value.length > EXCERPT_ENTRIES && !this.over) {
        this.cut = true;
        this.used += 1;
        items.push(this.#text(`… ${String(value.length - EXCERPT_ENTRIES)} more`));
      }
      return items;
    }
    const out: JsonObject = {};
    const members = membersOf(value);
    for (const [i, key] of members.first.entries()) {
      if (this.over) return out;
      if (i > 0) this.used += 1;
      const name = this.#text(key);
      this.used += 1; // the colon
      setMember(out, name, this.write((value as JsonObject)[key], depth - 1));
    }
    if (members.count > EXCERPT_ENTRIES && !this.over) {
      this.cut = true;
      this.used += 1 + JSON.stringify("…").length + 1;
      setMember(out, "…", this.#text(`${String(members.count - EXCERPT_ENTRIES)} more`));
    }
    return out;
  }
}

/** `value` as it is when its JSON has at most `chars` characters, else undefined (work bounded by `chars`). */
function whole(value: unknown, chars: number): unknown {
  const writer = new BoundedWriter(chars);
  // every level costs at least two characters: deeper than `chars` cannot fit
  writer.write(value, chars);
  return writer.over || writer.cut ? undefined : value;
}

/** A value small enough to show next to the violation: itself, or its type and size. */
function excerpt(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (whole(value, VALUE_CHARS) !== undefined) return value;
  if (Array.isArray(value)) return `<array of ${String(value.length)} items>`;
  if (isObject(value)) return `<object with ${String(membersOf(value).count)} properties>`;
  return `${JSON.stringify(typeof value === "string" ? value.slice(0, VALUE_CHARS) : value).slice(0, VALUE_CHARS)}...`;
}

/**
 * The schema object that holds a violated keyword, as the document writes it (its `$ref`s as
 * they are), shortened to show next to the value: at most three levels deep (deeper objects and
 * arrays as `{…}` and `[…]`), 25 members per object or array, 200 characters per string and per
 * key, and `MAX_SCHEMA_EXCERPT_CHARS` in all (two levels, then one, when three are longer);
 * undefined when even one level is longer. Each try stops as soon as it passes the bound, so a
 * huge schema (or one a YAML alias repeats at every level) costs no more than a small one.
 */
export function schemaExcerptOf(schema: unknown): unknown {
  if (schema === null || typeof schema !== "object") return undefined;
  for (const depth of [3, 2, 1]) {
    const writer = new BoundedWriter(MAX_SCHEMA_EXCERPT_CHARS);
    const excerpt = writer.write(schema, depth);
    if (!writer.over) return excerpt;
  }
  return undefined;
}

/** Most excerpt characters (JSON) the violations of one response record together. */
export const MAX_EXCERPTS_CHARS_PER_RESPONSE = 32 * 1024;

/**
 * The changes of one response's violations as they are recorded: each schema location's excerpt
 * on its first violation only (the dashboard shares it with the others of the same `schemaPath`),
 * and none past `MAX_EXCERPTS_CHARS_PER_RESPONSE` in all. A hundred items missing the same
 * property record the schema once, not a hundred times.
 */
export function shareExcerpts(changes: readonly Change[]): Change[] {
  const recorded = new Set<string>();
  let total = 0;
  return changes.map((change) => {
    if (change.schemaExcerpt === undefined) return change;
    const { schemaExcerpt, ...rest } = change;
    const key = change.schemaPath ?? "";
    if (recorded.has(key)) return rest;
    const size = JSON.stringify(schemaExcerpt).length;
    if (total + size > MAX_EXCERPTS_CHARS_PER_RESPONSE) return rest;
    recorded.add(key);
    total += size;
    return change;
  });
}

/** Severity by kind: a missing required property or a wrong type breaks a client (high); the rest is medium. */
export function violationSeverity(keyword: string): Severity {
  return keyword === "required" || keyword === "type" ? "high" : "medium";
}

/** Where in the OpenAPI document a violated keyword is (`document#pointer`, or a pointer in the monitor's own document). */
function schemaOrigin(compiled: CompiledContract, error: ErrorObject, docUrl: string): string {
  const parent = error.parentSchema;
  const known = parent !== undefined && parent !== null && typeof parent === "object" ? compiled.schema.objects.get(parent) : undefined;
  if (known !== undefined) {
    const doc = known.slice(0, known.indexOf("#"));
    const pointer = childPointer(known.slice(known.indexOf("#") + 1), error.keyword);
    return doc === docUrl ? pointer : `${doc}#${pointer}`;
  }
  const schemaPath = error.schemaPath;
  let tokens = tokensOf(schemaPath.startsWith("#") ? schemaPath.slice(1) : schemaPath);
  if (error.keyword === "false schema") {
    // a `false` schema is violated where it is written (Ajv names no keyword there); the root's
    // is the `allOf` wrapper's only member
    tokens = tokens.slice(0, -1);
    if (compiled.schema.booleanRoot === true && tokens.length === 2 && tokens[0] === "allOf" && tokens[1] === "0") tokens = [];
  }
  let origin = compiled.schema.rootOrigin;
  let rest = tokens;
  if (tokens[0] === "$defs" && tokens[1] !== undefined && compiled.schema.origins.has(tokens[1])) {
    origin = compiled.schema.origins.get(tokens[1])!;
    rest = tokens.slice(2);
  }
  let pointer = origin.slice(origin.indexOf("#") + 1);
  for (const token of rest) pointer = childPointer(pointer, token);
  const doc = origin.slice(0, origin.indexOf("#"));
  return doc === docUrl ? pointer : `${doc}#${pointer}`;
}

/** One violation as a driftwatch change of category `contract`, with the identity that says whether it is new. */
export interface Violation {
  readonly key: string;
  readonly change: Change;
}

/**
 * The excerpt of the document's schema object behind `parentSchema` (Ajv's), made once per
 * compiled contract and schema object; undefined when there is none or it cannot be made.
 */
function excerptFor(compiled: CompiledContract, parent: unknown): unknown {
  const original = parent !== null && typeof parent === "object" ? compiled.schema.originals.get(parent) : undefined;
  if (original === undefined) return undefined;
  if (compiled.excerpts.has(original)) return compiled.excerpts.get(original);
  let made: unknown;
  try {
    made = schemaExcerptOf(original);
  } catch {
    made = undefined; // an excerpt is an aid: a schema it cannot be made of (too deep for the stack) has none
  }
  compiled.excerpts.set(original, made);
  return made;
}

/** What `violationsOf` makes besides the violations' identity. */
export interface ViolationOptions {
  /** Schema excerpts (default true); a check that only compares violations' keys needs none. */
  excerpts?: boolean;
}

/**
 * Ajv's errors as contract changes (at most `MAX_VIOLATIONS`, the total counted). The schema
 * excerpt is on the first violation of each `schemaPath` only (`shareExcerpts`).
 */
export function violationsOf(errors: readonly ErrorObject[], compiled: CompiledContract, docUrl: string, options: ViolationOptions = {}): { violations: Violation[]; count: number } {
  const seen = new Set<string>();
  const excerpted = new Set<string>();
  const violations: Violation[] = [];
  for (const error of errors) {
    // the branches of a oneOf/anyOf that failed are reported by the oneOf/anyOf itself
    let tokens = tokensOf(error.instancePath);
    let op: Change["op"] = "replace";
    let expected: unknown = error.schema;
    let actual: unknown = error.data;
    let detail: string;
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case "required":
        tokens = [...tokens, String(params.missingProperty)];
        op = "remove";
        expected = "present";
        actual = undefined;
        detail = `required property ${JSON.stringify(params.missingProperty)} is missing`;
        break;
      case "type":
        expected = params.type;
        actual = excerpt(error.data);
        detail = `is ${typeName(error.data)}, the schema says ${Array.isArray(params.type) ? params.type.join(" or ") : String(params.type)}`;
        break;
      case "additionalProperties":
      case "unevaluatedProperties": {
        const name = String(params.additionalProperty ?? params.unevaluatedProperty);
        const parent = error.data;
        tokens = [...tokens, name];
        op = "add";
        expected = false;
        actual = isObject(parent) ? excerpt(parent[name]) : undefined;
        detail = `property ${JSON.stringify(name)} is not allowed by the schema`;
        break;
      }
      case "enum":
        // the documented values, unless they are too long to show (then shortened like an excerpt)
        expected = whole(params.allowedValues, MAX_SCHEMA_EXCERPT_CHARS) ?? schemaExcerptOf(params.allowedValues) ?? excerpt(params.allowedValues);
        actual = excerpt(error.data);
        detail = `${JSON.stringify(excerpt(error.data))} is not one of the documented values`;
        break;
      default:
        expected = excerpt(error.schema);
        actual = excerpt(error.data);
        detail = `violates ${error.keyword}: ${error.message ?? ""}`.trim();
    }
    const path = jsonPath(tokens);
    const schemaPath = schemaOrigin(compiled, error, docUrl);
    const key = `${path}\u0000${error.keyword}\u0000${schemaPath}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (violations.length >= MAX_VIOLATIONS) {
      violations.push({ key, change: { path, category: "contract", op, severity: violationSeverity(error.keyword) } });
      continue;
    }
    let schemaExcerpt: unknown;
    if (options.excerpts !== false && !excerpted.has(schemaPath)) {
      excerpted.add(schemaPath);
      schemaExcerpt = excerptFor(compiled, error.parentSchema);
    }
    violations.push({
      key,
      change: {
        path,
        category: "contract",
        op,
        severity: violationSeverity(error.keyword),
        detail,
        operation: compiled.operation,
        keyword: error.keyword,
        expected,
        ...(actual === undefined ? {} : { actual }),
        schemaPath,
        ...(schemaExcerpt === undefined ? {} : { schemaExcerpt }),
      },
    });
  }
  return { violations: violations.slice(0, MAX_VIOLATIONS), count: violations.length };
}

/** Validates one response body (parsed JSON) against a compiled contract. */
export function validateAgainst(compiled: CompiledContract, data: unknown, docUrl: string, options: ViolationOptions = {}): { violations: Violation[]; count: number } {
  if (compiled.validate(data)) return { violations: [], count: 0 };
  return violationsOf(compiled.validate.errors ?? [], compiled, docUrl, options);
}

/**
 * Some of `all`'s violations (the new ones) with the schema excerpts they need: each
 * `schemaPath`'s on its first violation among `some`, taken from `all` (where it was on the
 * first violation of that path, which `some` may have left out).
 */
export function withExcerpts(some: readonly Violation[], all: readonly Violation[]): Violation[] {
  const byPath = new Map<string, unknown>();
  for (const violation of all) {
    const { schemaPath, schemaExcerpt } = violation.change;
    if (schemaPath !== undefined && schemaExcerpt !== undefined && !byPath.has(schemaPath)) byPath.set(schemaPath, schemaExcerpt);
  }
  const given = new Set<string>();
  return some.map((violation) => {
    const { schemaPath } = violation.change;
    if (schemaPath === undefined || given.has(schemaPath)) return violation;
    given.add(schemaPath);
    const schemaExcerpt = byPath.get(schemaPath);
    if (schemaExcerpt === undefined || violation.change.schemaExcerpt !== undefined) return violation;
    return { ...violation, change: { ...violation.change, schemaExcerpt } };
  });
}

/** A stable key of a document version (the stored text). */
export function documentKey(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
