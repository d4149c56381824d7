// Diff of two versions of a large real OpenAPI document: time and memory.
// Run: node --expose-gc --import tsx bench/diff-real.ts [base] [revision]
// Without arguments it diffs the largest documents of test/real/ (see test/real/SOURCES.md).
import fs from "node:fs";
import path from "node:path";
import { diffOpenApi, parseOpenApi } from "../src/index.js";

const here = import.meta.dirname;
const [baseFile, revisionFile] =
  process.argv.length >= 4
    ? [process.argv[2]!, process.argv[3]!]
    : [path.join(here, "../test/real/museum/openapi-2024-06-04.yaml"), path.join(here, "../test/real/museum/openapi-2024-11-20.yaml")];
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

const baseText = fs.readFileSync(baseFile, "utf8");
const revisionText = fs.readFileSync(revisionFile, "utf8");
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
console.log(`documents: ${path.basename(baseFile)} (${mib(baseText.length)}) -> ${path.basename(revisionFile)} (${mib(revisionText.length)})`);
console.log(`parse both (JSON/YAML + $ref checks): ${parseMs.toFixed(0)} ms, heap +${mib(heapParsed - heapBefore)}`);
console.log(`diff: ${count} changes, median of 3 runs ${runs[1]!.toFixed(0)} ms (min ${runs[0]!.toFixed(0)}, max ${runs[2]!.toFixed(0)}), peak heap ${mib(peakHeap)}, rss ${mib(process.memoryUsage().rss)}`);
console.log(`diff of a document with itself: ${unchanged} changes in ${sameMs.toFixed(0)} ms`);
