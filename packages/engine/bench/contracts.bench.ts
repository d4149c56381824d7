// API contracts: (1) an openapi monitor's comparison of two versions of a large OpenAPI document
// (parse both stored versions + diff, as the compare worker runs it), time and memory; (2) contract
// validation per response against its compiled schema, next to the plain JSON diff of the same
// response pair. Run: node --expose-gc --conditions=@driftwatch/source --import tsx bench/contracts.bench.ts [base revision]
// Without arguments the document is generated: 1500 paths x 2 operations over 300 shared schemas.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { diffJson } from "@driftwatch/core";
import { parseOpenApi } from "@driftwatch/openapi";
import { compareOpenApi } from "../src/openapi/compare-openapi.js";
import { ContractCompiler, documentKey, validateAgainst } from "../src/openapi/contract.js";

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function generated(version: 1 | 2): string {
  const schemas: Record<string, unknown> = {};
  for (let s = 0; s < 300; s++) {
    const properties: Record<string, unknown> = {};
    for (let p = 0; p < 12; p++) properties[`field${String(p)}`] = { type: p % 3 === 0 ? "integer" : "string", description: `field ${String(p)} of schema ${String(s)}` };
    properties.next = { $ref: `#/components/schemas/S${String(s - (s % 10) + ((s + 1) % 10))}` }; // cycles of 10 schemas
    // version 2: every 10th schema loses a required property, every 7th gains an enum value
    if (version === 2 && s % 10 === 0) delete properties.field1;
    properties.kind = { type: "string", enum: version === 2 && s % 7 === 0 ? ["a", "b", "c"] : ["a", "b"] };
    schemas[`S${String(s)}`] = { type: "object", required: ["field0", "field1"], properties };
  }
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < 1500; i++) {
    if (version === 2 && i % 100 === 0) continue; // 15 paths removed
    const ref = { $ref: `#/components/schemas/S${String(i % 300)}` };
    paths[`/things${String(i)}/{id}`] = {
      get: {
        operationId: `get${String(i)}`,
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, { name: "expand", in: "query", required: version === 2 && i % 50 === 1, schema: { type: "boolean" } }],
        responses: { "200": { description: "ok", content: { "application/json": { schema: ref } } }, "404": { description: "missing" } },
      },
      put: {
        operationId: `put${String(i)}`,
        requestBody: { required: true, content: { "application/json": { schema: ref } } },
        responses: { "204": { description: "done" } },
      },
    };
  }
  return JSON.stringify({ openapi: "3.0.3", info: { title: "generated", version: String(version) }, paths, components: { schemas } });
}

const [baseText, revisionText, label] =
  process.argv.length >= 4
    ? [fs.readFileSync(process.argv[2]!, "utf8"), fs.readFileSync(process.argv[3]!, "utf8"), `${path.basename(process.argv[2]!)} -> ${path.basename(process.argv[3]!)}`]
    : [generated(1), generated(2), "generated (1500 paths, 3000 operations, 300 schemas)"];

gc();
const heapBefore = process.memoryUsage().heapUsed;
const runs: number[] = [];
let changes = 0;
let peak = 0;
for (let i = 0; i < 3; i++) {
  gc();
  const started = performance.now();
  changes = compareOpenApi(baseText, revisionText, "memory:/openapi")?.changes.length ?? 0;
  runs.push(performance.now() - started);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
}
runs.sort((a, b) => a - b);
console.log(`openapi monitor comparison: ${label}, ${mib(baseText.length)} -> ${mib(revisionText.length)}`);
console.log(`  parse both + diff: ${String(changes)} changes, median of 3 ${runs[1]!.toFixed(0)} ms (min ${runs[0]!.toFixed(0)}, max ${runs[2]!.toFixed(0)}), peak heap ${mib(peak)} (+${mib(peak - heapBefore)}), rss ${mib(process.memoryUsage().rss)}`);

// (2) validation per response vs the plain JSON diff
const petstore = fs.readFileSync(path.join(import.meta.dirname, "../../openapi/test/real/petstore/openapi-1.0.26.yaml"), "utf8");
const doc = parseOpenApi(petstore, { url: "memory:/petstore" });
const compiler = new ContractCompiler();
const pet = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "../test/contracts/petstore-get-pet.json"), "utf8")) as Record<string, unknown>;
const list = Array.from({ length: 200 }, (_, i) => ({ ...pet, id: i, name: `pet ${String(i)}`, tags: [{ id: i, name: "t" }] }));

function perCall(fn: () => unknown, minMs = 400): number {
  for (let i = 0; i < 50; i++) fn(); // warm up
  let n = 0;
  const started = performance.now();
  while (performance.now() - started < minMs) {
    for (let i = 0; i < 20; i++) fn();
    n += 20;
  }
  return ((performance.now() - started) * 1000) / n;
}

let started = performance.now();
const compiledOne = compiler.get(documentKey(petstore), doc, { document: "memory:/petstore", operation: "getPetById" }, 200);
const compileMs = performance.now() - started;
const compiledList = compiler.get(documentKey(petstore), doc, { document: "memory:/petstore", operation: "findPetsByStatus" }, 200);
if (compiledOne instanceof Error || compiledList instanceof Error) throw new Error("the petstore contract did not compile");
console.log(`contract validation (Swagger Petstore 1.0.26, Ajv 2020-12): first compile ${compileMs.toFixed(1)} ms, then cached`);
for (const [name, compiled, body, changed] of [
  ["GET /pet/{id} (1 pet, 160 B)", compiledOne, pet, { ...pet, name: "other" }],
  ["findByStatus (200 pets, 27 KB)", compiledList, list, list.map((p, i) => (i % 10 === 0 ? { ...p, status: "sold" } : p))],
] as const) {
  const text = JSON.stringify(body);
  const changedText = JSON.stringify(changed);
  const parse = perCall(() => JSON.parse(text));
  const validate = perCall(() => validateAgainst(compiled, JSON.parse(text), doc.url));
  const broken = JSON.stringify(Array.isArray(body) ? body.map((p) => ({ ...p, id: String(p.id) })) : { ...body, id: "x" });
  const invalid = perCall(() => validateAgainst(compiled, JSON.parse(broken), doc.url));
  const diff = perCall(() => diffJson(JSON.parse(text), JSON.parse(changedText)));
  console.log(
    `  ${name}: parse ${parse.toFixed(1)} µs; parse + validate (valid) ${validate.toFixed(1)} µs; parse + validate (every id a string) ${invalid.toFixed(1)} µs; plain JSON diff of two parsed versions ${diff.toFixed(1)} µs`,
  );
}

// GitHub: a recorded GET /repos/{owner}/{repo} answer (octokit/fixtures, 7 KB) against GitHub's
// description of 2022-07-14 (3.9 MiB; full-repository pulls in a few dozen schemas)
{
  const githubText = zlib.gunzipSync(fs.readFileSync(path.join(import.meta.dirname, "../../openapi/test/real/github/openapi-2022-07-14.json.gz"))).toString("utf8");
  const github = parseOpenApi(githubText, { url: "https://api.github.com/openapi.json" });
  const repo = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "../test/contracts/github/repos-get.json"), "utf8")) as Record<string, unknown>;
  started = performance.now();
  const compiled = new ContractCompiler().get(documentKey(githubText), github, { document: github.url, operation: "repos/get" }, 200);
  const githubCompileMs = performance.now() - started;
  if (compiled instanceof Error) throw compiled;
  const text = JSON.stringify(repo);
  const changedText = JSON.stringify({ ...repo, stargazers_count: 1, updated_at: "2022-07-20T00:00:00Z" });
  const broken = JSON.stringify({ ...repo, id: "x", owner: { ...(repo.owner as object), login: null }, full_name: undefined });
  const parse = perCall(() => JSON.parse(text));
  const validate = perCall(() => validateAgainst(compiled, JSON.parse(text), github.url));
  const invalid = perCall(() => validateAgainst(compiled, JSON.parse(broken), github.url));
  const diff = perCall(() => diffJson(JSON.parse(text), JSON.parse(changedText)));
  console.log(`contract validation (GitHub REST description 2022-07-14, repos/get): first compile ${githubCompileMs.toFixed(1)} ms, then cached`);
  console.log(
    `  GET /repos/{owner}/{repo} (${(text.length / 1024).toFixed(1)} KB): parse ${parse.toFixed(1)} µs; parse + validate (valid) ${validate.toFixed(1)} µs; parse + validate (3 violations, with their excerpts) ${invalid.toFixed(1)} µs; plain JSON diff of two parsed versions ${diff.toFixed(1)} µs`,
  );
}
