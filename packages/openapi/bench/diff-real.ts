// Diff of two versions of a large real OpenAPI document: time and memory.
// Run: node --expose-gc --import tsx bench/diff-real.ts [--deref] [base] [revision]
// Without file arguments it diffs the largest documents of test/real/ (see test/real/SOURCES.md).
// --deref (JSON documents only) first inlines every `$ref` within the document that is not part of
// a cycle, as "dereferenced" builds of an API description do (GitHub publishes one:
// api.github.com.deref.json, about 10 MB), and diffs those texts: no `$ref` is shared any more, so
// every operation's schemas are separate copies, the worst case for the diff's memoisation.
// A `.gz` file is read gunzipped. GitHub's REST description at two versions is committed gzipped
// in test/real/github/ (see its SOURCES.md):
//   node --expose-gc --import tsx bench/diff-real.ts --deref test/real/github/openapi-2022-06-14.json.gz test/real/github/openapi-2022-07-14.json.gz
// Other large documents (Stripe's) are not committed (size); docs/contracts.md ("Evidence") says where they come from.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { diffOpenApi, parseOpenApi } from "../src/index.js";

const here = import.meta.dirname;
const args = process.argv.slice(2);
const deref = args.includes("--deref");
const files = args.filter((arg) => arg !== "--deref");
const [baseFile, revisionFile] =
  files.length >= 2
    ? [files[0]!, files[1]!]
    : [path.join(here, "../test/real/museum/openapi-2024-06-04.yaml"), path.join(here, "../test/real/museum/openapi-2024-11-20.yaml")];
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Inlines the document's own `$ref`s (`#/...`) except those that would recurse; components are kept. */
function dereference(text: string): string {
  const document = JSON.parse(text) as Record<string, unknown>;
  const resolve = (pointer: string): unknown =>
    pointer
      .slice(2)
      .split("/")
      .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], document);
  const open = new Set<string>();
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (value === null || typeof value !== "object") return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === "string" && ref.startsWith("#/")) {
      if (open.has(ref)) return value;
      open.add(ref);
      const target = inline(resolve(ref));
      open.delete(ref);
      return target;
    }
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, inline(member)]));
  };
  const out: Record<string, unknown> = { ...document };
  for (const key of ["paths", "webhooks"]) if (document[key] !== undefined) out[key] = inline(document[key]);
  return JSON.stringify(out);
}

const read = (file: string): string => {
  const bytes = fs.readFileSync(file);
  const text = (file.endsWith(".gz") ? zlib.gunzipSync(bytes) : bytes).toString("utf8");
  return deref ? dereference(text) : text;
};
const baseText = read(baseFile);
const revisionText = read(revisionFile);
gc();
const heapBefore = process.memoryUsage().heapUsed;
let started = performance.now();
const base = parseOpenApi(baseText, { url: `file://${path.resolve(baseFile)}` });
const revision = parseOpenApi(revisionText, { url: `file://${path.resolve(revisionFile)}` });
const parseMs = performance.now() - started;
const heapParsed = process.memoryUsage().heapUsed;

const runs: number[] = [];
let count = 0;
let peakHeap = 0;
for (let i = 0; i < 3; i++) {
  gc();
  started = performance.now();
  count = diffOpenApi(base, revision).length;
  runs.push(performance.now() - started);
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
}
const same = performance.now();
const unchanged = diffOpenApi(base, base).length;
const sameMs = performance.now() - same;
runs.sort((a, b) => a - b);
console.log(
  `documents${deref ? " (dereferenced)" : ""}: ${path.basename(baseFile)} (${mib(baseText.length)}) -> ${path.basename(revisionFile)} (${mib(revisionText.length)})`,
);
console.log(`parse both (JSON/YAML + $ref checks): ${parseMs.toFixed(0)} ms, heap +${mib(heapParsed - heapBefore)}`);
console.log(`diff: ${count} changes, median of 3 runs ${runs[1]!.toFixed(0)} ms (min ${runs[0]!.toFixed(0)}, max ${runs[2]!.toFixed(0)}), peak heap ${mib(peakHeap)}, rss ${mib(process.memoryUsage().rss)}`);
console.log(`diff of a document with itself: ${unchanged} changes in ${sameMs.toFixed(0)} ms`);
