// Two builds of @driftwatch/core side by side in one process: is a change in the diffJson figures
// of docs/benchmarks.md the code or the machine? Both builds diff the same documents with the same
// policy, alternating in every round with fast-json-patch `compare` beside them, so the answer does
// not depend on the machine the figures were taken on or on its load.
//
//   node --expose-gc --import tsx bench/compare-builds.ts <label>=<core package dir> <label>=<core package dir>
//
// Each directory is a built @driftwatch/core (its dist/index.js is imported). The result is
// printed and written to the core-json-builds section of docs/benchmarks.md.
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import fastJsonPatch from "fast-json-patch";
import type { diffJson as DiffJson, suggestPolicy as SuggestPolicy, validatePolicyRules as ValidatePolicyRules } from "../src/index.js";
import { BENCH_POLICY, documentOfSize, median, noisyHistory, quantile, rotatedRounds, withChangedLeaves, writeBenchSection } from "./support.js";

interface Build {
  label: string;
  diff: (before: unknown, after: unknown) => void;
  learn: (history: unknown[]) => void;
}

const ROUNDS = Number(process.env.DRIFTWATCH_BENCH_ROUNDS ?? 21);
const args = process.argv.slice(2);
if (args.length !== 2 || args.some((a) => !a.includes("="))) {
  console.error("usage: compare-builds.ts <label>=<core package dir> <label>=<core package dir>");
  process.exit(2);
}

const builds: Build[] = [];
for (const arg of args) {
  const [label, dir] = [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)];
  const core = (await import(pathToFileURL(path.resolve(dir, "dist/index.js")).href)) as {
    diffJson: typeof DiffJson;
    suggestPolicy: typeof SuggestPolicy;
    validatePolicyRules: typeof ValidatePolicyRules;
  };
  const policy = core.validatePolicyRules(BENCH_POLICY);
  builds.push({ label, diff: (before, after) => void core.diffJson(before, after, { policy }), learn: (history) => void core.suggestPolicy(history, { kind: "json" }) });
}
const [first, second] = builds as [Build, Build];

const big = documentOfSize(1_000_000, 1);
const small = documentOfSize(2_000, 2);
// The same pairs as json.bench.ts.
const cases = [
  { name: "2 KB, one change", before: small, after: withChangedLeaves(small, 0, 4) },
  { name: "1 MB, 1 % of leaves changed", before: big, after: withChangedLeaves(big, 0.01, 3) },
];
// The suggestPolicy bench's 10 snapshots of a noisy 100 KB document, learned from by each build.
const history = noisyHistory();
const PEER = "fast-json-patch compare";
/** Within noise when the middle half of the per-round ratios (second build / first) holds 1. */
const verdict = (between: number[]): string =>
  quantile(between, 0.25) <= 1 && quantile(between, 0.75) >= 1 ? "within noise" : median(between) < 1 ? `${second.label} slower` : `${second.label} faster`;
const rows: string[] = [];
const loadBefore = os.loadavg()[0]!.toFixed(1);

for (const c of cases) {
  const tasks: [string, () => void][] = [
    [first.label, () => first.diff(c.before, c.after)],
    [second.label, () => second.diff(c.before, c.after)],
    [PEER, () => void fastJsonPatch.compare(c.before as object, c.after as object)],
  ];
  const between: number[] = [];
  const vsPeer: Record<string, number[]> = { [first.label]: [], [second.label]: [] };
  for (const hz of await rotatedRounds(tasks, ROUNDS)) {
    between.push(hz[second.label]! / hz[first.label]!);
    for (const build of builds) vsPeer[build.label]!.push(hz[build.label]! / hz[PEER]!);
  }
  const iqr = (xs: number[]): string => `${quantile(xs, 0.25).toFixed(2)}-${quantile(xs, 0.75).toFixed(2)}`;
  const cell = (xs: number[]): string => `${median(xs).toFixed(2)} x (${iqr(xs)})`;
  rows.push(`| ${c.name} | ${cell(vsPeer[first.label]!)} | ${cell(vsPeer[second.label]!)} | **${cell(between)}** | ${verdict(between)} |`);
  console.log(c.name, `${second.label} / ${first.label}: ${between.map((r) => r.toFixed(2)).join(", ")}`);
}

{
  const name = "suggestPolicy, 10 x 100 KB";
  const tasks: [string, () => void][] = builds.map((build) => [build.label, () => build.learn(history)]);
  const between = (await rotatedRounds(tasks, ROUNDS)).map((hz) => hz[second.label]! / hz[first.label]!);
  rows.push(`| ${name} | - | - | **${median(between).toFixed(2)} x (${quantile(between, 0.25).toFixed(2)}-${quantile(between, 0.75).toFixed(2)})** | ${verdict(between)} |`);
  console.log(name, `${second.label} / ${first.label}: ${between.map((r) => r.toFixed(2)).join(", ")}`);
}

const markdown = `### @driftwatch/core: diffJson, two builds side by side

\`bench/compare-builds.ts\`: the builds \`${first.label}\` and \`${second.label}\` of @driftwatch/core (their \`dist\`) loaded into one
process, diffing the same pairs as the diffJson bench with the same three-rule policy, with fast-json-patch
\`compare\` beside them, and learning from the suggestPolicy bench's snapshots (operations per second compared); ${ROUNDS} rounds, task order rotated each round, a full GC before each task. Each cell is the
median of the per-round ratios, the interquartile range in brackets; "within noise" when that range holds 1.
Figures of the diffJson section taken in different runs can differ with the machine (its CPU model changes
between sessions here) and its load; this comparison cannot.

| input | ${first.label} / fast-json-patch | ${second.label} / fast-json-patch | ${second.label} / ${first.label} | verdict |
|---|---:|---:|---:|---|
${rows.join("\n")}

Load average (1 min): ${loadBefore} before, ${os.loadavg()[0]!.toFixed(1)} after, on ${String(os.cpus().length)} cores.`;
writeBenchSection("core-json-builds", markdown);
console.log(`\n${markdown}`);
