// npm run bench: diffJson against fast-json-patch `compare`, microdiff and jsondiffpatch, side by
// side in one process on the same inputs (targets in docs/benchmarks.md). diffJson also validates the input,
// classifies, applies a small policy and fingerprints; the peers only find the operations.
import os from "node:os";
import fastJsonPatch from "fast-json-patch";
import * as jsondiffpatch from "jsondiffpatch";
import microdiff from "microdiff";
import { diffJson, type PolicyRules, suggestPolicy, validatePolicyRules } from "../src/index.js";
import { BENCH_POLICY, documentOfSize, median, quantile, rotatedRounds, withChangedLeaves, writeBenchSection } from "./support.js";

const policy: PolicyRules = validatePolicyRules(BENCH_POLICY);

interface Case {
  name: string;
  before: unknown;
  after: unknown;
  target: string;
  minRatio: number;
  /** The policy diffJson applies (default: the three-rule bench policy). */
  policy?: PolicyRules;
}

const big = documentOfSize(1_000_000, 1);
const small = documentOfSize(2_000, 2);
const keyed = Array.from({ length: 10_000 }, (_, i) => ({ id: i, name: `item ${i}`, price: i % 97, stock: i % 13 }));

// What a monitor of this document learns from its history (other leaves changed in each version).
const learned = suggestPolicy([big, withChangedLeaves(big, 0.01, 5), withChangedLeaves(big, 0.01, 6), withChangedLeaves(big, 0.01, 7)], { kind: "json" }).policy;

const cases: Case[] = [
  { name: "1 MB, 1 % of leaves changed", before: big, after: withChangedLeaves(big, 0.01, 3), target: ">= 1.0 x fast-json-patch", minRatio: 1 },
  {
    name: "1 MB, 1 % of leaves changed, learned policy",
    before: big,
    after: withChangedLeaves(big, 0.01, 3),
    target: ">= 1.0 x fast-json-patch",
    minRatio: 1,
    policy: learned,
  },
  { name: "2 KB, one change", before: small, after: withChangedLeaves(small, 0, 4), target: ">= 0.8 x fast-json-patch", minRatio: 0.8 },
  { name: "10,000 keyed objects, one prepended", before: keyed, after: [{ id: -1, name: "new", price: 1, stock: 1 }, ...keyed], target: "see key vs index below", minRatio: 0 },
];

const differ = jsondiffpatch.create({ objectHash: (o: object) => String((o as { id?: unknown }).id ?? JSON.stringify(o)) });
const rows: string[] = [];
const summary: string[] = [];
const results: Record<string, Record<string, number>> = {};

const ROUNDS = 15;

for (const c of cases) {
  const tasks: [string, () => void][] = [
    ["diffJson", () => void diffJson(c.before, c.after, { policy: c.policy ?? policy })],
    ["fast-json-patch compare", () => void fastJsonPatch.compare(c.before as object, c.after as object)],
    ["microdiff", () => void microdiff(c.before as Record<string, unknown>, c.after as Record<string, unknown>)],
    ["jsondiffpatch", () => void differ.diff(c.before, c.after)],
  ];
  if (c.name.startsWith("10,000")) tasks.push(["diffJson, index matching", () => void diffJson(c.before, c.after, { policy, defaultArrayKey: false })]);
  const perTask: Record<string, number[]> = {};
  const ratios: number[] = [];
  for (const hz of await rotatedRounds(tasks, ROUNDS)) {
    for (const [name, value] of Object.entries(hz)) (perTask[name] ??= []).push(value);
    ratios.push(hz.diffJson! / hz["fast-json-patch compare"]!);
  }
  const hz: Record<string, number> = {};
  for (const [name, values] of Object.entries(perTask)) hz[name] = median(values);
  results[c.name] = hz;
  const ratio = median(ratios);
  const spread = `${quantile(ratios, 0.25).toFixed(2)}-${quantile(ratios, 0.75).toFixed(2)}`;
  const fmt = (n: number | undefined): string => (n === undefined ? "-" : n >= 100 ? n.toFixed(0) : n.toFixed(1));
  rows.push(
    `| ${c.name} | ${fmt(hz.diffJson)} | ${fmt(hz["fast-json-patch compare"])} | ${fmt(hz.microdiff)} | ${fmt(hz.jsondiffpatch)} | **${ratio.toFixed(2)} x** (${spread}) | ${c.target} |`,
  );
  console.log(c.name, hz, `ratio ${ratio.toFixed(2)} (rounds: ${ratios.map((r) => r.toFixed(2)).join(", ")})`);
  if (c.minRatio > 0 && ratio < c.minRatio) summary.push(`- below target: ${c.name} (${ratio.toFixed(2)} x, target ${c.target})`);
}

const keyedHz = results["10,000 keyed objects, one prepended"]!;
const keyCost = keyedHz["diffJson, index matching"]! / keyedHz.diffJson!;
const keyVsPeer = keyedHz["fast-json-patch compare"]! / keyedHz.diffJson!;
const keyedCase = cases.find((c) => c.name.startsWith("10,000"))!;
const keyedDiff = diffJson(keyedCase.before, keyedCase.after)!;
const indexDiff = diffJson(keyedCase.before, keyedCase.after, { defaultArrayKey: false })!;

const table = [
  "### @driftwatch/core: diffJson",
  "",
  `Operations per second (higher is better; medians of ${ROUNDS} rounds), peers side by side on the same inputs, task order rotated each round and a full GC before each task. ` +
    "The ratio is the median of the per-round ratios, with their interquartile range in brackets. diffJson also validates the input,",
  `classifies every change, applies a three-rule policy (the learned-policy row: what suggestPolicy learned from four versions of the document, ${String(learned.volatile?.length ?? 0)} volatile and ${String(learned.tolerance?.length ?? 0)} tolerance entries, ${String(learned.rules.length)} rules) and fingerprints the change set, with its defaults on (identity keys inferred per array, move detection, float-noise tolerance); the peers only find operations.`,
  "",
  "| input | diffJson | fast-json-patch compare | microdiff | jsondiffpatch | diffJson / fast-json-patch | target |",
  "|---|---:|---:|---:|---:|---:|---|",
  ...rows,
  "",
  `Key matching on 10,000 objects with one prepended costs ${keyCost < 1 ? (1 / keyCost).toFixed(2) + " x less than" : keyCost.toFixed(2) + " x"} index matching of the same pair ` +
    `(${fmt2(keyedHz.diffJson)} vs ${fmt2(keyedHz["diffJson, index matching"])} ops/s; target: at most 2 x), and ${keyVsPeer.toFixed(2)} x the time of fast-json-patch's index-wise compare. ` +
    `It reports ${keyedDiff.changes.length} change where index matching reports ${indexDiff.changes.length}.`,
  ...(summary.length > 0 ? ["", ...summary] : []),
].join("\n");

function fmt2(n: number | undefined): string {
  return n === undefined ? "-" : n.toFixed(1);
}

// The machine is shared: the load while this ran says how much to trust the absolute figures.
writeBenchSection("core-json", `${table.trim()}\n\nLoad average (1 min) at the end of the run: ${os.loadavg()[0]!.toFixed(1)} on ${String(os.cpus().length)} cores; ratios are measured side by side and hold up better than absolute figures under load.`);
console.log(`\n${table}`);
