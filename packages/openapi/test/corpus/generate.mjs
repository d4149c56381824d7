// Writes the corpus of small OpenAPI pairs (one YAML file per case) from the case list below.
// Each case names the change ids oasdiff's checks report for the pair (chosen from its rule
// semantics and docs, not from running our diff); the level of each id is read from
// test/oasdiff-rules.tsv unless the case says otherwise. Run: node test/corpus/generate.mjs
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";

const here = path.dirname(fileURLToPath(import.meta.url));
const levels = new Map(
  fs
    .readFileSync(path.join(here, "../oasdiff-rules.tsv"), "utf8")
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => line.split("\t"))
    .map(([id, level]) => [id, level === "err" ? "breaking" : level === "warn" ? "potentially-breaking" : "non-breaking"]),
);

const clone = (value) => structuredClone(value);
const FUTURE = "2999-01-01";
const PAST = "2001-01-01";

/** A document with GET /items (response schema) and POST /items (request body schema, query parameter q). */
function doc({ version = "3.0.3", request, response, param, extraParams, getOp = {}, postOp = {}, paths = {}, security, components } = {}) {
  const post = {
    operationId: "createItem",
    ...(param === undefined ? {} : { parameters: [{ name: "q", in: "query", schema: param }] }),
    requestBody: { required: true, content: { "application/json": { schema: request ?? { type: "object", properties: { a: { type: "string" } } } } } },
    responses: { 201: { description: "created" } },
    ...postOp,
  };
  if (extraParams !== undefined) post.parameters = [...(post.parameters ?? []), ...extraParams];
  const get = {
    operationId: "listItems",
    responses: { 200: { description: "ok", content: { "application/json": { schema: response ?? { type: "object", properties: { a: { type: "string" } } } } } } },
    ...getOp,
  };
  return {
    openapi: version,
    info: { title: "corpus", version: "1.0.0" },
    ...(security === undefined ? {} : { security }),
    paths: { "/items": { get, post }, ...paths },
    ...(components === undefined ? {} : { components }),
  };
}

const cases = [];
function add(family, name, base, revision, expect, note) {
  cases.push({ family, name, base, revision, expect: expect.map((e) => (typeof e === "string" ? { id: e, level: levels.get(e) } : e)), ...(note === undefined ? {} : { note }) });
}
const obj = (props, required) => ({ type: "object", ...(required === undefined ? {} : { required }), properties: props });

// --- paths and operations ------------------------------------------------------------------------
const withOld = (op) => doc({ paths: { "/old": { get: { responses: { 200: { description: "ok" } } , ...op } } } });
add("paths", "endpoint-added", doc(), withOld({}), ["endpoint-added"]);
add("paths", "path-removed-without-deprecation", withOld({}), doc(), ["api-path-removed-without-deprecation"]);
add("paths", "path-removed-with-deprecation", withOld({ deprecated: true }), doc(), ["api-path-removed-with-deprecation"]);
add("paths", "path-removed-before-sunset", withOld({ deprecated: true, "x-sunset": FUTURE }), doc(), ["api-path-removed-before-sunset"]);
add("paths", "path-removed-after-sunset", withOld({ deprecated: true, "x-sunset": PAST }), doc(), [], "removed after its announced sunset: oasdiff reports nothing");
add("paths", "path-sunset-unparsable", withOld({ deprecated: true, "x-sunset": "soon" }), doc(), ["api-path-sunset-parse"]);
{
  const two = doc({ paths: { "/old": { get: { responses: { 200: { description: "ok" } } }, delete: { responses: { 204: { description: "gone" } } } } } });
  const deleteDeprecated = clone(two);
  deleteDeprecated.paths["/old"].delete.deprecated = true;
  const deleteSunset = clone(deleteDeprecated);
  deleteSunset.paths["/old"].delete["x-sunset"] = FUTURE;
  const one = clone(two);
  delete one.paths["/old"].delete;
  add("paths", "operation-removed-without-deprecation", two, one, ["api-removed-without-deprecation"]);
  add("paths", "operation-removed-with-deprecation", deleteDeprecated, one, ["api-removed-with-deprecation"]);
  add("paths", "operation-removed-before-sunset", deleteSunset, one, ["api-removed-before-sunset"]);
  add("paths", "operation-added", one, two, ["endpoint-added"]);
}
add("paths", "alpha-path-removed", withOld({ "x-stability-level": "alpha" }), doc(), [], "draft and alpha operations are outside breaking-change detection (oasdiff STABILITY.md)");
add("paths", "draft-path-removed", withOld({ "x-stability-level": "draft" }), doc(), []);
{
  const a = doc({ paths: { "/users/{id}": { get: { parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { 200: { description: "ok" } } } } } });
  const b = doc({ paths: { "/users/{userId}": { get: { parameters: [{ name: "userId", in: "path", required: true, schema: { type: "string" } }], responses: { 200: { description: "ok" } } } } } });
  add("paths", "path-parameter-renamed", a, b, [], "paths match with their parameters' names ignored");
}
{
  const hook = { ...doc({ version: "3.1.0" }), webhooks: { itemCreated: { post: { requestBody: { content: { "application/json": { schema: obj({ id: { type: "string" } }) } } }, responses: { 200: { description: "ok" } } } } } };
  add("paths", "webhook-added", doc({ version: "3.1.0" }), hook, ["webhook-added"]);
  add("paths", "webhook-removed", hook, doc({ version: "3.1.0" }), ["webhook-removed"]);
}
add("paths", "description-only-change", doc(), doc({ getOp: { description: "Lists the items", summary: "List" } }), []);

// --- deprecation and sunset ----------------------------------------------------------------------
add("deprecation", "endpoint-deprecated", doc(), doc({ getOp: { deprecated: true } }), ["endpoint-deprecated"]);
add("deprecation", "endpoint-deprecated-with-sunset", doc(), doc({ getOp: { deprecated: true, "x-sunset": FUTURE } }), ["endpoint-deprecated-with-sunset"]);
add("deprecation", "endpoint-reactivated", doc({ getOp: { deprecated: true } }), doc(), ["endpoint-reactivated"]);
add("deprecation", "sunset-deleted", doc({ getOp: { deprecated: true, "x-sunset": FUTURE } }), doc({ getOp: { deprecated: true } }), ["sunset-deleted"]);
add("deprecation", "sunset-moved-earlier", doc({ getOp: { deprecated: true, "x-sunset": "2999-06-01" } }), doc({ getOp: { deprecated: true, "x-sunset": "2999-01-01" } }), ["api-sunset-date-changed-too-small"]);
add("deprecation", "sunset-moved-later", doc({ getOp: { deprecated: true, "x-sunset": "2999-01-01" } }), doc({ getOp: { deprecated: true, "x-sunset": "2999-06-01" } }), []);

// --- stability -----------------------------------------------------------------------------------
add("stability", "stable-to-beta", doc(), doc({ getOp: { "x-stability-level": "beta" } }), ["api-stability-decreased"]);
add("stability", "beta-to-stable", doc({ getOp: { "x-stability-level": "beta" } }), doc({ getOp: { "x-stability-level": "stable" } }), ["api-stability-increased"]);
add("stability", "alpha-to-beta", doc({ getOp: { "x-stability-level": "alpha" } }), doc({ getOp: { "x-stability-level": "beta" } }), [], "changes from a level below beta are not reported");
add("stability", "invalid-level", doc(), doc({ getOp: { "x-stability-level": "experimental" } }), ["api-invalid-stability-level"]);
add(
  "stability",
  "alpha-operation-breaking-change",
  doc({ getOp: { "x-stability-level": "alpha" } }),
  doc({ getOp: { "x-stability-level": "alpha", responses: { 201: { description: "created" } } } }),
  [{ id: "response-success-status-removed", level: "non-breaking" }, "response-success-status-added"],
  "oasdiff leaves alpha operations out; driftwatch reports the change as non-breaking",
);
add(
  "stability",
  "draft-operation-parameter-required",
  doc({ postOp: { "x-stability-level": "draft" }, param: { type: "string" } }),
  doc({ postOp: { "x-stability-level": "draft", parameters: [{ name: "q", in: "query", required: true, schema: { type: "string" } }] } }),
  [{ id: "request-parameter-became-required", level: "non-breaking" }],
  "oasdiff leaves draft operations out; driftwatch reports the change as non-breaking",
);

// --- operation metadata --------------------------------------------------------------------------
add("operation", "operation-id-removed", doc(), doc({ getOp: { operationId: undefined } }), ["api-operation-id-removed"]);
add("operation", "operation-id-added", doc({ getOp: { operationId: undefined } }), doc(), ["api-operation-id-added"]);
add("operation", "tag-added", doc(), doc({ getOp: { tags: ["items"] } }), ["api-tag-added"]);
add("operation", "tag-removed", doc({ getOp: { tags: ["items", "public"] } }), doc({ getOp: { tags: ["items"] } }), ["api-tag-removed"]);

// --- security ------------------------------------------------------------------------------------
const schemes = { securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Key" }, oauth: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://auth.example.com/token", scopes: { read: "read", write: "write" } } } } } };
add("security", "operation-security-added", doc({ components: schemes }), doc({ components: schemes, getOp: { security: [{ key: [] }] } }), ["api-security-added"]);
add("security", "operation-security-removed", doc({ components: schemes, getOp: { security: [{ key: [] }] } }), doc({ components: schemes, getOp: { security: [] } }), ["api-security-removed"]);
add("security", "operation-security-alternative-added", doc({ components: schemes, getOp: { security: [{ key: [] }] } }), doc({ components: schemes, getOp: { security: [{ key: [] }, { oauth: ["read"] }] } }), ["api-security-added"]);
add("security", "operation-scope-added", doc({ components: schemes, getOp: { security: [{ oauth: ["read"] }] } }), doc({ components: schemes, getOp: { security: [{ oauth: ["read", "write"] }] } }), ["api-security-scope-added"]);
add("security", "operation-scope-removed", doc({ components: schemes, getOp: { security: [{ oauth: ["read", "write"] }] } }), doc({ components: schemes, getOp: { security: [{ oauth: ["read"] }] } }), ["api-security-scope-removed"]);
add("security", "global-security-added", doc({ components: schemes }), doc({ components: schemes, security: [{ key: [] }] }), ["api-global-security-added"]);
add("security", "global-security-removed", doc({ components: schemes, security: [{ key: [] }] }), doc({ components: schemes }), ["api-global-security-removed"]);
add("security", "global-scope-added", doc({ components: schemes, security: [{ oauth: ["read"] }] }), doc({ components: schemes, security: [{ oauth: ["read", "write"] }] }), ["api-global-security-scope-added"]);
add("security", "global-scope-removed", doc({ components: schemes, security: [{ oauth: ["read", "write"] }] }), doc({ components: schemes, security: [{ oauth: ["read"] }] }), ["api-global-security-scope-removed"]);
add("security", "requirement-scheme-order", doc({ components: schemes, getOp: { security: [{ key: [], oauth: ["read"] }] } }), doc({ components: schemes, getOp: { security: [{ oauth: ["read"], key: [] }] } }), []);

// --- parameters ----------------------------------------------------------------------------------
const p = (schema, extra = {}) => doc({ param: schema, ...extra });
const noParam = doc();
add("parameters", "new-required-parameter", noParam, doc({ extraParams: [{ name: "q", in: "query", required: true, schema: { type: "string" } }] }), ["new-required-request-parameter"]);
add("parameters", "new-optional-parameter", noParam, p({ type: "string" }), ["new-optional-request-parameter"]);
add("parameters", "new-header-parameter", noParam, doc({ extraParams: [{ name: "X-Trace", in: "header", schema: { type: "string" } }] }), ["new-optional-request-parameter"]);
{
  const a = doc({ paths: { "/things": { get: { responses: { 200: { description: "ok" } } } }, "/things/{id}": { get: { parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { 200: { description: "ok" } } } } } });
  add("parameters", "path-parameter-removed-with-path", a, doc({ paths: { "/things": { get: { responses: { 200: { description: "ok" } } } } } }), ["api-path-removed-without-deprecation"]);
}
add("parameters", "parameter-removed", p({ type: "string" }), noParam, ["request-parameter-removed"]);
add("parameters", "deprecated-parameter-removed", doc({ extraParams: [{ name: "q", in: "query", deprecated: true, schema: { type: "string" } }] }), noParam, ["request-parameter-removed-with-deprecation"]);
add("parameters", "became-required", p({ type: "string" }), doc({ extraParams: [{ name: "q", in: "query", required: true, schema: { type: "string" } }] }), ["request-parameter-became-required"]);
add("parameters", "became-optional", doc({ extraParams: [{ name: "q", in: "query", required: true, schema: { type: "string" } }] }), p({ type: "string" }), ["request-parameter-became-optional"]);
add("parameters", "deprecated", p({ type: "string" }), doc({ extraParams: [{ name: "q", in: "query", deprecated: true, schema: { type: "string" } }] }), ["request-parameter-deprecated"]);
add("parameters", "reactivated", doc({ extraParams: [{ name: "q", in: "query", deprecated: true, schema: { type: "string" } }] }), p({ type: "string" }), ["request-parameter-reactivated"]);
add("parameters", "type-string-to-integer", p({ type: "string" }), p({ type: "integer" }), ["request-parameter-type-changed"]);
add("parameters", "type-integer-to-string", p({ type: "integer" }), p({ type: "string" }), ["request-parameter-type-generalized"], "a query string carries any value as text: integer to string widens");
add("parameters", "type-integer-to-number", p({ type: "integer" }), p({ type: "number" }), ["request-parameter-type-generalized"]);
add("parameters", "type-number-to-integer", p({ type: "number" }), p({ type: "integer" }), ["request-parameter-type-changed"]);
add("parameters", "format-int32-to-int64", p({ type: "integer", format: "int32" }), p({ type: "integer", format: "int64" }), ["request-parameter-type-generalized"]);
add("parameters", "format-int64-to-int32", p({ type: "integer", format: "int64" }), p({ type: "integer", format: "int32" }), ["request-parameter-type-changed"]);
add("parameters", "format-added", p({ type: "string" }), p({ type: "string", format: "uuid" }), ["request-parameter-type-changed"]);
add("parameters", "format-removed", p({ type: "string", format: "uuid" }), p({ type: "string" }), ["request-parameter-type-generalized"]);
add("parameters", "list-of-types-widened", p({ type: "string" }, { version: "3.1.0" }), p({ type: ["string", "integer"] }, { version: "3.1.0" }), ["request-parameter-list-of-types-widened"]);
add("parameters", "list-of-types-narrowed", p({ type: ["string", "integer"] }, { version: "3.1.0" }), p({ type: "string" }, { version: "3.1.0" }), ["request-parameter-list-of-types-narrowed"]);
add("parameters", "enum-value-added", p({ type: "string", enum: ["a", "b"] }), p({ type: "string", enum: ["a", "b", "c"] }), ["request-parameter-enum-value-added"]);
add("parameters", "enum-value-removed", p({ type: "string", enum: ["a", "b"] }), p({ type: "string", enum: ["a"] }), ["request-parameter-enum-value-removed"]);
add("parameters", "became-enum", p({ type: "string" }), p({ type: "string", enum: ["a"] }), ["request-parameter-became-enum"]);
add("parameters", "became-nullable", p({ type: "string" }), p({ type: "string", nullable: true }), ["request-parameter-became-nullable"]);
add("parameters", "became-not-nullable", p({ type: "string", nullable: true }), p({ type: "string" }), ["request-parameter-became-not-nullable"]);
add("parameters", "max-decreased", p({ type: "integer", maximum: 100 }), p({ type: "integer", maximum: 50 }), ["request-parameter-max-decreased"]);
add("parameters", "max-increased", p({ type: "integer", maximum: 50 }), p({ type: "integer", maximum: 100 }), ["request-parameter-max-increased"]);
add("parameters", "max-set", p({ type: "integer" }), p({ type: "integer", maximum: 100 }), ["request-parameter-max-set"]);
add("parameters", "min-increased", p({ type: "integer", minimum: 1 }), p({ type: "integer", minimum: 5 }), ["request-parameter-min-increased"]);
add("parameters", "min-decreased", p({ type: "integer", minimum: 5 }), p({ type: "integer", minimum: 1 }), ["request-parameter-min-decreased"]);
add("parameters", "min-set", p({ type: "integer" }), p({ type: "integer", minimum: 1 }), ["request-parameter-min-set"]);
add("parameters", "max-length-decreased", p({ type: "string", maxLength: 64 }), p({ type: "string", maxLength: 32 }), ["request-parameter-max-length-decreased"]);
add("parameters", "max-length-increased", p({ type: "string", maxLength: 32 }), p({ type: "string", maxLength: 64 }), ["request-parameter-max-length-increased"]);
add("parameters", "max-length-set", p({ type: "string" }), p({ type: "string", maxLength: 64 }), ["request-parameter-max-length-set"]);
add("parameters", "min-length-increased", p({ type: "string", minLength: 1 }), p({ type: "string", minLength: 3 }), ["request-parameter-min-length-increased"]);
add("parameters", "min-length-decreased", p({ type: "string", minLength: 3 }), p({ type: "string", minLength: 1 }), ["request-parameter-min-length-decreased"]);
add("parameters", "max-items-decreased", p({ type: "array", items: { type: "string" }, maxItems: 10 }), p({ type: "array", items: { type: "string" }, maxItems: 5 }), ["request-parameter-max-items-decreased"]);
add("parameters", "max-items-increased", p({ type: "array", items: { type: "string" }, maxItems: 5 }), p({ type: "array", items: { type: "string" }, maxItems: 10 }), ["request-parameter-max-items-increased"]);
add("parameters", "min-items-increased", p({ type: "array", items: { type: "string" }, minItems: 1 }), p({ type: "array", items: { type: "string" }, minItems: 2 }), ["request-parameter-min-items-increased"]);
add("parameters", "min-items-decreased", p({ type: "array", items: { type: "string" }, minItems: 2 }), p({ type: "array", items: { type: "string" }, minItems: 1 }), ["request-parameter-min-items-decreased"]);
add("parameters", "min-items-set", p({ type: "array", items: { type: "string" } }), p({ type: "array", items: { type: "string" }, minItems: 1 }), ["request-parameter-min-items-set"]);
add("parameters", "pattern-added", p({ type: "string" }), p({ type: "string", pattern: "^[a-z]+$" }), ["request-parameter-pattern-added"]);
add("parameters", "pattern-changed", p({ type: "string", pattern: "^[a-z]+$" }), p({ type: "string", pattern: "^[a-z0-9]+$" }), ["request-parameter-pattern-changed"]);
add("parameters", "pattern-removed", p({ type: "string", pattern: "^[a-z]+$" }), p({ type: "string" }), ["request-parameter-pattern-removed"]);
add("parameters", "default-value-added", p({ type: "integer" }), p({ type: "integer", default: 30 }), ["request-parameter-default-value-added"], "a client that leaves the parameter out now gets the server's default: oasdiff rates it ERR");
add("parameters", "default-value-changed", p({ type: "integer", default: 30 }), p({ type: "integer", default: 100 }), ["request-parameter-default-value-changed"]);
add("parameters", "default-value-removed", p({ type: "integer", default: 30 }), p({ type: "integer" }), ["request-parameter-default-value-removed"]);
add("parameters", "header-name-case", doc({ extraParams: [{ name: "X-Trace", in: "header", schema: { type: "string" } }] }), doc({ extraParams: [{ name: "x-trace", in: "header", schema: { type: "string" } }] }), [], "header names are case-insensitive");
{
  const refd = (name) => ({
    ...doc({ extraParams: [{ $ref: `#/components/parameters/${name}` }] }),
    components: { parameters: { [name]: { name: "q", in: "query", schema: { type: "string" } } } },
  });
  add("parameters", "parameter-ref-renamed", refd("Query"), refd("SearchQuery"), [], "a renamed $ref target with the same content is no change");
}
add("parameters", "parameter-property-enum-value-removed", p(obj({ mode: { type: "string", enum: ["a", "b"] } })), p(obj({ mode: { type: "string", enum: ["a"] } })), ["request-parameter-property-enum-value-removed"]);
add("parameters", "parameter-property-enum-value-added", p(obj({ mode: { type: "string", enum: ["a"] } })), p(obj({ mode: { type: "string", enum: ["a", "b"] } })), ["request-parameter-property-enum-value-added"]);
add("parameters", "path-level-parameter-became-required", doc({ paths: { "/x": { parameters: [{ name: "v", in: "query", schema: { type: "string" } }], get: { responses: { 200: { description: "ok" } } } } } }), doc({ paths: { "/x": { parameters: [{ name: "v", in: "query", required: true, schema: { type: "string" } }], get: { responses: { 200: { description: "ok" } } } } } }), ["request-parameter-became-required"]);

// --- schemas, in four positions: request body, request property, response body, response property --
const positions = {
  "request-body": (s, extra = {}) => doc({ request: s, ...extra }),
  "request-property": (s, extra = {}) => doc({ request: obj({ p: s }), ...extra }),
  "response-body": (s, extra = {}) => doc({ response: s, ...extra }),
  "response-property": (s, extra = {}) => doc({ response: obj({ p: s }), ...extra }),
};
const v31 = { version: "3.1.0" };
// [name, base schema, revision schema, extra doc options, expected id per position (null: none)]
const schemaCases = [
  ["type-string-to-integer", { type: "string" }, { type: "integer" }, {}, { "request-body": "request-body-type-changed", "request-property": "request-property-type-changed", "response-body": "response-body-type-changed", "response-property": "response-property-type-changed" }],
  ["type-integer-to-number", { type: "integer" }, { type: "number" }, {}, { "request-body": "request-body-type-generalized", "request-property": "request-property-type-generalized", "response-body": "response-body-type-generalized", "response-property": "response-property-type-generalized" }],
  ["type-number-to-integer", { type: "number" }, { type: "integer" }, {}, { "request-body": "request-body-type-changed", "request-property": "request-property-type-changed", "response-body": "response-body-type-specialized", "response-property": "response-property-type-specialized" }],
  ["format-int32-to-int64", { type: "integer", format: "int32" }, { type: "integer", format: "int64" }, {}, { "request-body": "request-body-type-generalized", "request-property": "request-property-type-generalized", "response-body": "response-body-type-changed", "response-property": "response-property-type-changed" }],
  ["format-date-to-date-time", { type: "string", format: "date" }, { type: "string", format: "date-time" }, {}, { "request-body": "request-body-type-generalized", "request-property": "request-property-type-generalized", "response-body": "response-body-type-changed", "response-property": "response-property-type-changed" }],
  ["format-uuid-removed", { type: "string", format: "uuid" }, { type: "string" }, {}, { "request-body": "request-body-type-generalized", "request-property": "request-property-type-generalized", "response-body": "response-body-type-changed", "response-property": "response-property-type-changed" }],
  ["list-of-types-widened", { type: "string" }, { type: ["string", "integer"] }, v31, { "request-body": "request-body-list-of-types-widened", "request-property": "request-property-list-of-types-widened", "response-body": "response-body-list-of-types-widened", "response-property": "response-property-list-of-types-widened" }],
  ["list-of-types-narrowed", { type: ["string", "integer"] }, { type: "string" }, v31, { "request-body": "request-body-list-of-types-narrowed", "request-property": "request-property-list-of-types-narrowed", "response-body": "response-body-list-of-types-narrowed", "response-property": "response-property-list-of-types-narrowed" }],
  ["became-nullable-3.0", { type: "string" }, { type: "string", nullable: true }, {}, { "request-body": "request-body-became-nullable", "request-property": "request-property-became-nullable", "response-body": "response-body-became-nullable", "response-property": "response-property-became-nullable" }],
  ["became-not-nullable-3.0", { type: "string", nullable: true }, { type: "string" }, {}, { "request-body": "request-body-became-not-nullable", "request-property": "request-property-became-not-nullable", "response-body": "response-body-became-not-nullable", "response-property": "response-property-became-not-nullable" }],
  ["became-nullable-3.1-type-array", { type: "string" }, { type: ["string", "null"] }, v31, { "request-body": "request-body-became-nullable", "request-property": "request-property-became-nullable", "response-body": "response-body-became-nullable", "response-property": "response-property-became-nullable" }],
  ["enum-value-removed", { type: "string", enum: ["a", "b"] }, { type: "string", enum: ["a"] }, {}, { "request-body": "request-body-enum-value-removed", "request-property": "request-property-enum-value-removed", "response-body": "response-mediatype-enum-value-removed", "response-property": "response-property-enum-value-removed" }],
  ["enum-value-added", { type: "string", enum: ["a"] }, { type: "string", enum: ["a", "b"] }, {}, { "request-body": null, "request-property": "request-property-enum-value-added", "response-body": null, "response-property": "response-property-enum-value-added" }],
  ["became-enum", { type: "string" }, { type: "string", enum: ["a"] }, {}, { "request-body": "request-body-became-enum", "request-property": "request-property-became-enum", "response-body": null, "response-property": null }],
  ["const-added", { type: "string" }, { type: "string", const: "a" }, v31, { "request-body": "request-body-const-added", "request-property": "request-property-const-added", "response-body": "response-body-const-added", "response-property": "response-property-const-added" }],
  ["const-changed", { type: "string", const: "a" }, { type: "string", const: "b" }, v31, { "request-body": "request-body-const-changed", "request-property": "request-property-const-changed", "response-body": "response-body-const-changed", "response-property": "response-property-const-changed" }],
  ["const-removed", { type: "string", const: "a" }, { type: "string" }, v31, { "request-body": "request-body-const-removed", "request-property": "request-property-const-removed", "response-body": "response-body-const-removed", "response-property": "response-property-const-removed" }],
  ["if-then-added", { type: "object" }, { type: "object", if: { required: ["kind"] }, then: { required: ["id"] } }, v31, { "request-body": ["request-body-if-added", "request-body-then-added"], "request-property": ["request-property-if-added", "request-property-then-added"], "response-body": ["response-body-if-added", "response-body-then-added"], "response-property": ["response-property-if-added", "response-property-then-added"] }],
  ["if-then-else-removed", { type: "object", if: { required: ["kind"] }, then: { required: ["id"] }, else: { required: ["name"] } }, { type: "object" }, v31, { "request-body": ["request-body-if-removed", "request-body-then-removed", "request-body-else-removed"], "request-property": ["request-property-if-removed", "request-property-then-removed", "request-property-else-removed"], "response-body": ["response-body-if-removed", "response-body-then-removed", "response-body-else-removed"], "response-property": ["response-property-if-removed", "response-property-then-removed", "response-property-else-removed"] }],
  ["max-decreased", { type: "integer", maximum: 100 }, { type: "integer", maximum: 50 }, {}, { "request-body": "request-body-max-decreased", "request-property": "request-property-max-decreased", "response-body": null, "response-property": null }],
  ["max-increased", { type: "integer", maximum: 50 }, { type: "integer", maximum: 100 }, {}, { "request-body": "request-body-max-increased", "request-property": "request-property-max-increased", "response-body": "response-body-max-increased", "response-property": "response-property-max-increased" }],
  ["max-set", { type: "integer" }, { type: "integer", maximum: 100 }, {}, { "request-body": "request-body-max-set", "request-property": "request-property-max-set", "response-body": null, "response-property": null }],
  ["min-increased", { type: "integer", minimum: 1 }, { type: "integer", minimum: 5 }, {}, { "request-body": "request-body-min-increased", "request-property": "request-property-min-increased", "response-body": null, "response-property": null }],
  ["min-decreased", { type: "integer", minimum: 5 }, { type: "integer", minimum: 1 }, {}, { "request-body": "request-body-min-decreased", "request-property": "request-property-min-decreased", "response-body": "response-body-min-decreased", "response-property": "response-property-min-decreased" }],
  ["min-set", { type: "integer" }, { type: "integer", minimum: 1 }, {}, { "request-body": "request-body-min-set", "request-property": "request-property-min-set", "response-body": null, "response-property": null }],
  ["max-length-decreased", { type: "string", maxLength: 64 }, { type: "string", maxLength: 32 }, {}, { "request-body": "request-body-max-length-decreased", "request-property": "request-property-max-length-decreased", "response-body": null, "response-property": null }],
  ["max-length-increased", { type: "string", maxLength: 32 }, { type: "string", maxLength: 64 }, {}, { "request-body": "request-body-max-length-increased", "request-property": "request-property-max-length-increased", "response-body": "response-body-max-length-increased", "response-property": "response-property-max-length-increased" }],
  ["max-length-set", { type: "string" }, { type: "string", maxLength: 64 }, {}, { "request-body": "request-body-max-length-set", "request-property": "request-property-max-length-set", "response-body": null, "response-property": null }],
  ["max-length-unset", { type: "string", maxLength: 64 }, { type: "string" }, {}, { "request-body": null, "request-property": null, "response-body": "response-body-max-length-unset", "response-property": "response-property-max-length-unset" }],
  ["min-length-increased", { type: "string", minLength: 1 }, { type: "string", minLength: 3 }, {}, { "request-body": "request-body-min-length-increased", "request-property": "request-property-min-length-increased", "response-body": null, "response-property": null }],
  ["min-length-decreased", { type: "string", minLength: 3 }, { type: "string", minLength: 1 }, {}, { "request-body": "request-body-min-length-decreased", "request-property": "request-property-min-length-decreased", "response-body": "response-body-min-length-decreased", "response-property": "response-property-min-length-decreased" }],
  ["min-items-increased", { type: "array", items: { type: "string" }, minItems: 1 }, { type: "array", items: { type: "string" }, minItems: 2 }, {}, { "request-body": "request-body-min-items-increased", "request-property": "request-property-min-items-increased", "response-body": null, "response-property": null }],
  ["min-items-decreased", { type: "array", items: { type: "string" }, minItems: 2 }, { type: "array", items: { type: "string" }, minItems: 1 }, {}, { "request-body": null, "request-property": null, "response-body": "response-body-min-items-decreased", "response-property": "response-property-min-items-decreased" }],
  ["min-items-unset", { type: "array", items: { type: "string" }, minItems: 1 }, { type: "array", items: { type: "string" } }, {}, { "request-body": null, "request-property": null, "response-body": "response-body-min-items-unset", "response-property": "response-property-min-items-unset" }],
  ["pattern-added", { type: "string" }, { type: "string", pattern: "^[a-z]+$" }, {}, { "request-body": null, "request-property": "request-property-pattern-added", "response-body": null, "response-property": "response-property-pattern-added" }],
  ["pattern-changed", { type: "string", pattern: "^[a-z]+$" }, { type: "string", pattern: "^[a-z0-9]+$" }, {}, { "request-body": null, "request-property": "request-property-pattern-changed", "response-body": null, "response-property": "response-property-pattern-changed" }],
  ["pattern-generalized", { type: "string", pattern: "^[a-z]+$" }, { type: "string", pattern: ".*" }, {}, { "request-body": null, "request-property": "request-property-pattern-generalized", "response-body": null, "response-property": "response-property-pattern-changed" }],
  ["pattern-removed", { type: "string", pattern: "^[a-z]+$" }, { type: "string" }, {}, { "request-body": null, "request-property": "request-property-pattern-removed", "response-body": null, "response-property": "response-property-pattern-removed" }],
  ["one-of-member-added", { oneOf: [{ $ref: "#/components/schemas/Cat" }] }, { oneOf: [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }] }, { components: { schemas: { Cat: obj({ meow: { type: "string" } }), Dog: obj({ bark: { type: "string" } }) } } }, { "request-body": "request-body-one-of-added", "request-property": "request-property-one-of-added", "response-body": "response-body-one-of-added", "response-property": "response-property-one-of-added" }],
  ["one-of-member-removed", { oneOf: [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }] }, { oneOf: [{ $ref: "#/components/schemas/Cat" }] }, { components: { schemas: { Cat: obj({ meow: { type: "string" } }), Dog: obj({ bark: { type: "string" } }) } } }, { "request-body": "request-body-one-of-removed", "request-property": "request-property-one-of-removed", "response-body": "response-body-one-of-removed", "response-property": "response-property-one-of-removed" }],
  ["any-of-member-added", { anyOf: [{ type: "string" }] }, { anyOf: [{ type: "string" }, { type: "integer" }] }, {}, { "request-body": "request-body-any-of-added", "request-property": "request-property-any-of-added", "response-body": "response-body-any-of-added", "response-property": "response-property-any-of-added" }],
  ["any-of-member-removed", { anyOf: [{ type: "string" }, { type: "integer" }] }, { anyOf: [{ type: "string" }] }, {}, { "request-body": "request-body-any-of-removed", "request-property": "request-property-any-of-removed", "response-body": "response-body-any-of-removed", "response-property": "response-property-any-of-removed" }],
  ["default-value-added", { type: "string" }, { type: "string", default: "a" }, {}, { "request-body": "request-body-default-value-added", "request-property": "request-property-default-value-added", "response-body": "response-body-default-value-added", "response-property": "response-property-default-value-added" }],
  ["default-value-changed", { type: "string", default: "a" }, { type: "string", default: "b" }, {}, { "request-body": "request-body-default-value-changed", "request-property": "request-property-default-value-changed", "response-body": "response-body-default-value-changed", "response-property": "response-property-default-value-changed" }],
  ["default-value-removed", { type: "string", default: "a" }, { type: "string" }, {}, { "request-body": "request-body-default-value-removed", "request-property": "request-property-default-value-removed", "response-body": "response-body-default-value-removed", "response-property": "response-property-default-value-removed" }],
  ["default-value-same-object-reordered", { type: "object", default: { a: 1, b: 2 } }, { type: "object", default: { b: 2, a: 1 } }, {}, { "request-body": null, "request-property": null, "response-body": null, "response-property": null }],
  ["nullable-3.0-same-as-3.1-null-type", { type: "string", nullable: true }, { type: ["string", "null"] }, {}, { "request-body": null, "request-property": null, "response-body": null, "response-property": null }],
  ["description-changed", { type: "string", description: "old" }, { type: "string", description: "new", example: "x" }, {}, { "request-body": null, "request-property": null, "response-body": null, "response-property": null }],
];
for (const [name, b, r, extra, expected] of schemaCases) {
  for (const [position, make] of Object.entries(positions)) {
    const ids = expected[position];
    const base = make(clone(b), extra);
    const revision = make(clone(r), extra);
    // 3.1 idioms in a 3.0 base document: both sides say 3.1 for the equivalence case
    if (name === "nullable-3.0-same-as-3.1-null-type") revision.openapi = "3.1.0";
    const expect = ids === null ? [] : Array.isArray(ids) ? ids : [ids];
    const note = ids === null ? "no oasdiff rule for this position and direction: no change reported" : undefined;
    add(position, `${position}-${name}`, base, revision, expect, note);
  }
}

// --- type swaps that are safe only outside JSON (oasdiff's "compatible") ----------------------------
{
  const xmlRequest = (t) => {
    const d = doc();
    d.paths["/items"].post.requestBody.content = { "application/xml": { schema: obj({ n: { type: t } }) } };
    return d;
  };
  const xmlResponse = (t) => {
    const d = doc();
    d.paths["/items"].get.responses[200].content = { "application/xml": { schema: obj({ n: { type: t } }) } };
    return d;
  };
  add("request-property", "xml-request-property-integer-to-string", xmlRequest("integer"), xmlRequest("string"), ["request-property-type-compatible"], "XML carries text: any value reads as a string");
  add("request-property", "xml-request-property-string-to-integer", xmlRequest("string"), xmlRequest("integer"), ["request-property-type-changed"]);
  add("response-property", "xml-response-property-string-to-integer", xmlResponse("string"), xmlResponse("integer"), ["response-property-type-compatible"]);
  add("response-property", "xml-response-property-integer-to-string", xmlResponse("integer"), xmlResponse("string"), ["response-property-type-changed"]);
}

// --- properties: added, removed, required, read-only/write-only, deprecation ---------------------
const req = (schema) => doc({ request: schema });
const res = (schema) => doc({ response: schema });
add("request-property", "new-required-request-property", req(obj({ a: { type: "string" } })), req(obj({ a: { type: "string" }, b: { type: "string" } }, ["b"])), ["new-required-request-property"]);
add("request-property", "new-optional-request-property", req(obj({ a: { type: "string" } })), req(obj({ a: { type: "string" }, b: { type: "string" } })), ["new-optional-request-property"]);
add("request-property", "request-property-removed", req(obj({ a: { type: "string" }, b: { type: "string" } })), req(obj({ a: { type: "string" } })), ["request-property-removed"], "oasdiff rates it WARN: a client that still sends it may be refused");
add("request-property", "request-property-became-required", req(obj({ a: { type: "string" } })), req(obj({ a: { type: "string" } }, ["a"])), ["request-property-became-required"]);
add("request-property", "request-property-became-optional", req(obj({ a: { type: "string" } }, ["a"])), req(obj({ a: { type: "string" } })), ["request-property-became-optional"]);
add("request-property", "new-required-read-only-property", req(obj({ a: { type: "string" } })), req(obj({ a: { type: "string" }, id: { type: "string", readOnly: true } }, ["id"])), [], "a read-only property is not sent by clients");
add("request-property", "request-property-deprecated", req(obj({ a: { type: "string" } })), req(obj({ a: { type: "string", deprecated: true } })), ["request-property-deprecated"]);
add("request-property", "request-property-reactivated", req(obj({ a: { type: "string", deprecated: true } })), req(obj({ a: { type: "string" } })), ["request-property-reactivated"]);
add("request-property", "request-property-stability-decreased", req(obj({ a: { type: "string" } })), req(obj({ a: { type: "string", "x-stability-level": "beta" } })), ["request-property-stability-decreased"]);
add("request-property", "nested-request-property-removed", req(obj({ o: obj({ x: { type: "string" }, y: { type: "string" } }) })), req(obj({ o: obj({ x: { type: "string" } }) })), ["request-property-removed"]);
add("request-property", "array-item-property-became-required", req({ type: "array", items: obj({ x: { type: "string" } }) }), req({ type: "array", items: obj({ x: { type: "string" } }, ["x"]) }), ["request-property-became-required"]);
add("response-property", "response-required-property-removed", res(obj({ a: { type: "string" }, b: { type: "string" } }, ["a", "b"])), res(obj({ a: { type: "string" } }, ["a"])), ["response-required-property-removed"]);
add("response-property", "response-optional-property-removed", res(obj({ a: { type: "string" }, b: { type: "string" } })), res(obj({ a: { type: "string" } })), ["response-optional-property-removed"]);
add("response-property", "response-required-property-added", res(obj({ a: { type: "string" } })), res(obj({ a: { type: "string" }, b: { type: "string" } }, ["b"])), ["response-required-property-added"]);
add("response-property", "response-optional-property-added", res(obj({ a: { type: "string" } })), res(obj({ a: { type: "string" }, b: { type: "string" } })), ["response-optional-property-added"]);
add("response-property", "response-property-became-optional", res(obj({ a: { type: "string" } }, ["a"])), res(obj({ a: { type: "string" } })), ["response-property-became-optional"]);
add("response-property", "response-property-became-required", res(obj({ a: { type: "string" } })), res(obj({ a: { type: "string" } }, ["a"])), ["response-property-became-required"]);
add("response-property", "write-only-property-removed", res(obj({ a: { type: "string" }, secret: { type: "string", writeOnly: true } })), res(obj({ a: { type: "string" } })), [], "a write-only property is never returned");
add("response-property", "response-property-deprecated", res(obj({ a: { type: "string" } })), res(obj({ a: { type: "string", deprecated: true } })), ["response-property-deprecated"]);
add("response-property", "response-property-reactivated", res(obj({ a: { type: "string", deprecated: true } })), res(obj({ a: { type: "string" } })), ["response-property-reactivated"]);
add("response-property", "response-property-stability-increased", res(obj({ a: { type: "string", "x-stability-level": "beta" } })), res(obj({ a: { type: "string", "x-stability-level": "stable" } })), ["response-property-stability-increased"]);
add("response-property", "nested-response-property-removed", res(obj({ o: obj({ x: { type: "string" }, y: { type: "string" } }, ["x", "y"]) })), res(obj({ o: obj({ x: { type: "string" } }, ["x"]) })), ["response-required-property-removed"]);
add("response-property", "array-item-property-removed", res({ type: "array", items: obj({ x: { type: "string" }, y: { type: "string" } }) }), res({ type: "array", items: obj({ x: { type: "string" } }) }), ["response-optional-property-removed"]);
{
  const named = (name) => ({ ...res({ $ref: `#/components/schemas/${name}` }), components: { schemas: { [name]: obj({ id: { type: "integer" }, name: { type: "string" } }, ["id"]) } } });
  add("response-property", "schema-ref-renamed", named("Pet"), named("Animal"), [], "a renamed $ref target with the same content is no change");
  const recursive = (name) => ({ ...res({ $ref: `#/components/schemas/${name}` }), components: { schemas: { [name]: obj({ id: { type: "integer" }, children: { type: "array", items: { $ref: `#/components/schemas/${name}` } } }) } } });
  add("response-property", "recursive-schema-renamed", recursive("Node"), recursive("TreeNode"), []);
  const recursiveChanged = recursive("Node");
  recursiveChanged.components.schemas.Node.properties.label = { type: "string" };
  add("response-property", "recursive-schema-property-added", recursive("Node"), recursiveChanged, ["response-optional-property-added"]);
  const allOfSplit = { ...res({ allOf: [{ $ref: "#/components/schemas/Base" }, obj({ name: { type: "string" } })] }), components: { schemas: { Base: obj({ id: { type: "integer" } }, ["id"]) } } };
  add("response-property", "all-of-refactor", res(obj({ id: { type: "integer" }, name: { type: "string" } }, ["id"])), allOfSplit, [], "allOf members are merged before comparing: the same object split into allOf is no change");
  const allOfRemoved = clone(allOfSplit);
  allOfRemoved.components.schemas.Base = obj({});
  add("response-property", "all-of-member-property-removed", allOfSplit, allOfRemoved, ["response-required-property-removed"]);
}
add("response-property", "key-order-only", res(obj({ a: { type: "string" }, b: { type: "integer" } })), res({ properties: { b: { type: "integer" }, a: { type: "string" } }, type: "object" }), []);

// --- request body and media types ----------------------------------------------------------------
{
  const noBody = doc();
  delete noBody.paths["/items"].post.requestBody;
  const optional = doc();
  optional.paths["/items"].post.requestBody.required = false;
  add("request-body", "request-body-added-required", noBody, doc(), ["request-body-added-required"]);
  add("request-body", "request-body-added-optional", noBody, optional, ["request-body-added-optional"]);
  add("request-body", "request-body-removed", doc(), noBody, ["request-body-removed"]);
  add("request-body", "request-body-became-required", optional, doc(), ["request-body-became-required"]);
  add("request-body", "request-body-became-optional", doc(), optional, ["request-body-became-optional"]);
  const xml = doc();
  xml.paths["/items"].post.requestBody.content["application/xml"] = { schema: { type: "object" } };
  add("request-body", "request-body-media-type-added", doc(), xml, ["request-body-media-type-added"]);
  add("request-body", "request-body-media-type-removed", xml, doc(), ["request-body-media-type-removed"]);
}

// --- response status codes and media types -------------------------------------------------------
{
  const with404 = doc({ getOp: { responses: { 200: { description: "ok", content: { "application/json": { schema: obj({ a: { type: "string" } }) } } }, 404: { description: "missing" } } } });
  const with201 = doc({ getOp: { responses: { 200: { description: "ok", content: { "application/json": { schema: obj({ a: { type: "string" } }) } } }, 201: { description: "created" } } } });
  add("response-status", "response-success-status-removed", with201, doc(), ["response-success-status-removed"]);
  add("response-status", "response-success-status-added", doc(), with201, ["response-success-status-added"]);
  add("response-status", "response-non-success-status-removed", with404, doc(), ["response-non-success-status-removed"]);
  add("response-status", "response-non-success-status-added", doc(), with404, ["response-non-success-status-added"]);
  const csv = doc();
  csv.paths["/items"].get.responses[200].content["text/csv"] = { schema: { type: "string" } };
  add("response-status", "response-media-type-added", doc(), csv, ["response-media-type-added"]);
  add("response-status", "response-media-type-removed", csv, doc(), ["response-media-type-removed"]);
  const withHeaders = (headers) => doc({ getOp: { responses: { 200: { description: "ok", headers, content: { "application/json": { schema: obj({ a: { type: "string" } }) } } } } } });
  const rate = (extra = {}) => ({ "X-Rate-Limit": { schema: { type: "integer" }, ...extra } });
  add("response-status", "required-response-header-removed", withHeaders(rate({ required: true })), doc(), ["required-response-header-removed"]);
  add("response-status", "optional-response-header-removed", withHeaders(rate()), doc(), ["optional-response-header-removed"]);
  add("response-status", "response-header-added", doc(), withHeaders(rate()), ["response-header-added"]);
  add("response-status", "response-header-became-optional", withHeaders(rate({ required: true })), withHeaders(rate()), ["response-header-became-optional"]);
  add("response-status", "response-header-type-changed", withHeaders(rate()), withHeaders({ "X-Rate-Limit": { schema: { type: "string" } } }), ["response-header-type-changed"]);
  add("response-status", "response-header-type-generalized", withHeaders(rate()), withHeaders({ "X-Rate-Limit": { schema: { type: "number" } } }), ["response-header-type-generalized"]);
  add("response-status", "response-header-type-specialized", withHeaders({ "X-Rate-Limit": { schema: { type: "number" } } }), withHeaders(rate()), ["response-header-type-specialized"]);
  add("response-status", "response-header-became-nullable", withHeaders(rate()), withHeaders({ "X-Rate-Limit": { schema: { type: "integer", nullable: true } } }), ["response-header-became-nullable"]);
  add("response-status", "response-header-name-case", withHeaders(rate()), withHeaders({ "x-rate-limit": { schema: { type: "integer" } } }), [], "header names are case-insensitive");
  const viaRef = doc({ getOp: { responses: { 200: { $ref: "#/components/responses/Ok" } } }, components: { responses: { Ok: { description: "ok", content: { "application/json": { schema: obj({ a: { type: "string" } }) } } } } } });
  add("response-status", "response-moved-to-components", doc(), viaRef, [], "a response moved behind a $ref is the same response");
}

// --- write ---------------------------------------------------------------------------------------
const dir = here;
for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
  if (entry.isDirectory()) fs.rmSync(path.join(dir, entry.name), { recursive: true });
}
const names = new Set();
for (const c of cases) {
  const file = path.join(dir, c.family, `${c.name}.yaml`);
  if (names.has(file)) throw new Error(`duplicate case ${c.family}/${c.name}`);
  names.add(file);
  for (const e of c.expect) if (e.level === undefined) throw new Error(`${c.name}: ${e.id} is not an oasdiff rule`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // JSON round trip drops the undefined fields the builders leave behind
  fs.writeFileSync(file, stringify(JSON.parse(JSON.stringify({ family: c.family, ...(c.note === undefined ? {} : { note: c.note }), expect: c.expect, base: c.base, revision: c.revision })), { lineWidth: 0 }));
}
console.log(`${cases.length} cases written`);
