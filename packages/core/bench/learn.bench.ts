// npm run bench (run.mjs picks up every *.bench.ts): suggestPolicy on 10 snapshots of a ~100 KB
// JSON document with realistic noise (timestamps, request ids, counters, reordered tags, float
// jitter). The target is a median under 50 ms; the peer, measured side by side, is diffJson over
// the same 9 consecutive pairs (the learner walks the same pairs and judges every field).
import os from "node:os";
import { Bench } from "tinybench";
import { diffJson, suggestPolicy } from "../src/index.js";
import { collect, median, NOISY_USERS, noisyHistory, writeBenchSection } from "./support.js";

const history = noisyHistory();
const bytes = JSON.stringify(history[0]).length;
const pairs = history.slice(1).map((after, i) => [history[i], after] as const);
const ROUNDS = 5;
const learnMs: number[] = [];
const ratios: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const bench = new Bench({ time: 400, warmupTime: 100, iterations: 5, warmupIterations: 2, setup: () => collect?.() });
  const tasks: [string, () => void][] = [
    ["suggestPolicy", () => void suggestPolicy(history, { kind: "json" })],
    ["diffJson x 9 pairs", () => void pairs.forEach(([a, b]) => diffJson(a, b))],
  ];
  for (const [name, fn] of round % 2 === 0 ? tasks : [...tasks].reverse()) bench.add(name, fn);
  await bench.run();
  const ms = (name: string): number => {
    const task = bench.tasks.find((t) => t.name === name)!;
    const result = task.result as { latency?: { p50?: number }; period?: number } | undefined;
    return result?.latency?.p50 ?? result?.period ?? Number.NaN;
  };
  learnMs.push(ms("suggestPolicy"));
  ratios.push(ms("suggestPolicy") / ms("diffJson x 9 pairs"));
}
const learn = median(learnMs);
const ratio = median(ratios);
const policy = suggestPolicy(history, { kind: "json" }).policy;
console.log(`suggestPolicy on 10 x ${(bytes / 1024).toFixed(0)} KB: median ${learn.toFixed(1)} ms (rounds: ${learnMs.map((x) => x.toFixed(1)).join(", ")}), ${ratio.toFixed(2)} x the time of diffJson over the 9 pairs`);
console.log(`learned: ${policy.volatile?.length ?? 0} volatile, ${policy.tolerance?.length ?? 0} tolerance, ${policy.unordered?.length ?? 0} unordered, ${Object.keys(policy.arrayKeys ?? {}).length} array keys, ${policy.rules.length} rules`);
const table = [
  "### @driftwatch/core: suggestPolicy",
  "",
  `suggestPolicy on 10 consecutive snapshots of a ${(bytes / 1024).toFixed(0)} KB JSON document (${NOISY_USERS} records; noise: timestamps, request ids, counters, reordered tags, float jitter), median of ${ROUNDS} rounds. ` +
    "The peer is diffJson (defaults) over the same 9 consecutive pairs, measured side by side.",
  "",
  "| task | median time | vs diffJson x 9 pairs | target |",
  "| --- | --- | --- | --- |",
  `| suggestPolicy, 10 x ${(bytes / 1024).toFixed(0)} KB | **${learn.toFixed(1)} ms** | ${ratio.toFixed(2)} x | under 50 ms |`,
].join("\n");
writeBenchSection("core-learn", `${table}\n\nLoad average (1 min) at the end of the run: ${os.loadavg()[0]!.toFixed(1)} on ${String(os.cpus().length)} cores.`);
if (!(learn < 50)) console.log(`- above target: suggestPolicy ${learn.toFixed(1)} ms (target under 50 ms)`);
