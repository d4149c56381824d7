#!/usr/bin/env node
// Checks the expected changes of GitHub's description pair (expected.2022-06-14.to.2022-07-14.json)
// against the two gzipped documents, reading them with its own small walker: nothing here comes
// from @driftwatch/openapi's diff. For each (rule, operation) of the expected list it finds the
// changes of that family in that operation from the files and compares the counts; endpoint-added
// is compared over the whole documents. Run: node packages/openapi/test/real/github/check-expected.mjs
// Exit 0 when every family agrees, 1 otherwise (each disagreement printed).
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const here = path.dirname(new URL(import.meta.url).pathname);
const read = (name) => JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(here, name))).toString("utf8"));
const before = read("openapi-2022-06-14.json.gz");
const after = read("openapi-2022-07-14.json.gz");
const expected = JSON.parse(fs.readFileSync(path.join(here, "expected.2022-06-14.to.2022-07-14.json"), "utf8"));

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** A local `$ref` (`#/components/...`) resolved, repeatedly. */
function resolve(doc, value) {
  let current = value;
  for (let hops = 0; isObject(current) && typeof current.$ref === "string"; hops++) {
    if (hops > 50) throw new Error(`$ref chain too long: ${current.$ref}`);
    current = current.$ref
      .slice(2)
      .split("/")
      .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((node, token) => node?.[token], doc);
  }
  return current;
}

/** `METHOD /path` -> operation object; paths also keyed with parameter names blanked (`{}`). */
function operations(doc) {
  const byName = new Map();
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) if (isObject(item[method])) byName.set(`${method.toUpperCase()} ${p}`, { op: item[method], item });
  }
  return byName;
}
const blank = (name) => name.replace(/\{[^}]*\}/g, "{}");
const opsBefore = operations(before);
const opsAfter = operations(after);

/** Parameters of an operation (path item's and its own), `in:name` -> resolved parameter. */
function parameters(doc, entry) {
  const out = new Map();
  for (const raw of [...(entry.item.parameters ?? []), ...(entry.op.parameters ?? [])]) {
    const p = resolve(doc, raw);
    out.set(`${p.in}:${p.name}`, p);
  }
  return out;
}

/**
 * Walks two schemas side by side (properties, items, allOf members merged by property, oneOf and
 * anyOf members by position) and calls `visit(old, new)` at each pair both have. A pair of schema
 * objects is visited once per walk (`seen`): the diff reports a schema that one operation reaches
 * at two places (the 201 and 202 answers of one `$ref`) once, at its first place (its
 * documented rule, `replay` in src/diff.ts), and this stops cycles too.
 */
function walkPair(oldDoc, newDoc, oldSchema, newSchema, visit, seen, depth = 0) {
  const o = resolve(oldDoc, oldSchema);
  const n = resolve(newDoc, newSchema);
  if (!isObject(o) || !isObject(n) || depth > 12) return;
  const pairs = seen.get(o) ?? new Set();
  if (pairs.has(n)) return;
  seen.set(o, pairs.add(n));
  visit(o, n);
  const oProps = propertiesOf(oldDoc, o);
  const nProps = propertiesOf(newDoc, n);
  for (const [name, sub] of Object.entries(oProps)) if (name in nProps) walkPair(oldDoc, newDoc, sub, nProps[name], visit, seen, depth + 1);
  if (o.items !== undefined && n.items !== undefined) walkPair(oldDoc, newDoc, o.items, n.items, visit, seen, depth + 1);
  for (const key of ["oneOf", "anyOf"]) {
    if (!Array.isArray(o[key]) || !Array.isArray(n[key])) continue;
    for (let i = 0; i < Math.min(o[key].length, n[key].length); i++) walkPair(oldDoc, newDoc, o[key][i], n[key][i], visit, seen, depth + 1);
  }
}
function propertiesOf(doc, schema) {
  const out = { ...(schema.properties ?? {}) };
  for (const member of schema.allOf ?? []) Object.assign(out, propertiesOf(doc, resolve(doc, member)));
  return out;
}
function requiredOf(doc, schema) {
  const out = new Set(schema.required ?? []);
  for (const member of schema.allOf ?? []) for (const name of requiredOf(doc, resolve(doc, member))) out.add(name);
  return out;
}

/** Pairs of JSON response schemas of an operation, per status both have. */
function responsePairs(o, n) {
  const pairs = [];
  for (const [status, raw] of Object.entries(o.op.responses ?? {})) {
    const nr = resolve(after, n.op.responses?.[status]);
    const or = resolve(before, raw);
    for (const media of Object.keys(or?.content ?? {})) {
      if (!/json/.test(media) || /sarif/.test(media) || nr?.content?.[media] === undefined) continue;
      pairs.push([or.content[media].schema, nr.content[media].schema]);
    }
  }
  return pairs;
}
function requestPair(o, n) {
  const ob = resolve(before, o.op.requestBody);
  const nb = resolve(after, n.op.requestBody);
  const media = Object.keys(ob?.content ?? {}).find((m) => /json/.test(m) && nb?.content?.[m] !== undefined);
  return media === undefined ? [] : [[ob.content[media].schema, nb.content[media].schema]];
}
function countIn(pairs, visit) {
  let count = 0;
  const seen = new Map();
  for (const [o, n] of pairs) walkPair(before, after, o, n, (os, ns) => (count += visit(os, ns)), seen);
  return count;
}
const typeOf = (s) => (Array.isArray(s.type) ? s.type.join(",") : s.type);

/** How many changes of `rule` the two files show in `operation`. */
function found(rule, operation) {
  const o = opsBefore.get(operation);
  const n = opsAfter.get(operation);
  switch (rule) {
    case "api-path-removed-with-deprecation":
      return o !== undefined && o.op.deprecated === true && n === undefined ? 1 : 0;
    case "request-body-became-required":
      return resolve(before, o.op.requestBody)?.required !== true && resolve(after, n.op.requestBody)?.required === true ? 1 : 0;
    case "request-property-became-required":
      return countIn(requestPair(o, n), (os, ns) => [...requiredOf(after, ns)].filter((name) => !requiredOf(before, os).has(name) && name in propertiesOf(before, os)).length);
    case "request-parameter-default-value-changed": {
      const op = parameters(before, o);
      let count = 0;
      for (const [key, p] of parameters(after, n)) {
        const old = op.get(key);
        if (old?.schema?.default !== undefined && p.schema?.default !== undefined && JSON.stringify(old.schema.default) !== JSON.stringify(p.schema.default)) count++;
      }
      return count;
    }
    case "new-optional-request-parameter": {
      const op = parameters(before, o);
      return [...parameters(after, n)].filter(([key, p]) => !op.has(key) && p.required !== true).length;
    }
    case "new-optional-request-property":
      return countIn(requestPair(o, n), (os, ns) => Object.keys(propertiesOf(after, ns)).filter((name) => !(name in propertiesOf(before, os)) && !requiredOf(after, ns).has(name)).length);
    case "request-property-any-of-added":
      return countIn(requestPair(o, n), (os, ns) => Math.max(0, (ns.anyOf?.length ?? 0) - (os.anyOf?.length ?? 0)));
    case "request-property-type-generalized":
      // a type became an anyOf of it and more
      return countIn(requestPair(o, n), (os, ns) => (typeof os.type === "string" && ns.type === undefined && Array.isArray(ns.anyOf) && ns.anyOf.some((m) => resolve(after, m).type === os.type) ? 1 : 0));
    case "response-optional-property-removed":
      return countIn(responsePairs(o, n), (os, ns) => Object.keys(propertiesOf(before, os)).filter((name) => !(name in propertiesOf(after, ns)) && !requiredOf(before, os).has(name)).length);
    case "response-optional-property-added":
      return countIn(responsePairs(o, n), (os, ns) => Object.keys(propertiesOf(after, ns)).filter((name) => !(name in propertiesOf(before, os)) && !requiredOf(after, ns).has(name)).length);
    case "response-property-enum-value-removed":
      return countIn(responsePairs(o, n), (os, ns) => (Array.isArray(os.enum) && Array.isArray(ns.enum) ? os.enum.filter((v) => !ns.enum.includes(v)).length : 0));
    case "response-non-success-status-added":
      return Object.keys(n.op.responses).filter((s) => !/^2/.test(s) && !(s in o.op.responses)).length;
    case "response-body-type-compatible": {
      // a non-JSON media type's schema type changed
      let count = 0;
      for (const [status, raw] of Object.entries(o.op.responses)) {
        const or = resolve(before, raw);
        const nr = resolve(after, n.op.responses[status]);
        for (const media of Object.keys(or?.content ?? {})) {
          if (/\/json$|\+json$/.test(media) || nr?.content?.[media] === undefined) continue;
          if (typeOf(resolve(before, or.content[media].schema)) !== typeOf(resolve(after, nr.content[media].schema))) count++;
        }
      }
      return count;
    }
    default:
      return undefined;
  }
}

const problems = [];
// endpoint-added over the whole documents (path parameter names ignored)
const blankedBefore = new Set([...opsBefore.keys()].map(blank));
const added = [...opsAfter.keys()].filter((name) => !blankedBefore.has(blank(name))).sort();
const expectedAdded = expected.filter((c) => c.id === "endpoint-added").map((c) => c.operation).sort();
if (JSON.stringify(added) !== JSON.stringify(expectedAdded)) problems.push(`endpoint-added: the files add ${JSON.stringify(added)}, expected ${JSON.stringify(expectedAdded)}`);

const counts = new Map();
for (const change of expected) {
  if (change.id === "endpoint-added") continue;
  const key = `${change.id}\u0000${change.operation}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
let checked = expectedAdded.length;
for (const [key, count] of counts) {
  const [rule, operation] = key.split("\u0000");
  const inFiles = found(rule, operation);
  if (inFiles === undefined) problems.push(`${rule}: no check for this family`);
  else if (inFiles !== count) problems.push(`${rule} in ${operation}: the files show ${String(inFiles)}, expected ${String(count)}`);
  else checked += count;
}
console.log(`${String(checked)} of ${String(expected.length)} expected changes agree with the two files (${String(counts.size)} rule/operation pairs and endpoint-added)`);
for (const problem of problems) console.log(`- ${problem}`);
process.exit(problems.length === 0 ? 0 : 1);
