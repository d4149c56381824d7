// Two builds of @driftwatch/server side by side, with the bare Fastify peer of the HTTP bench: is
// a change of the GET diff figure in docs/benchmarks.md the code or the machine? Each build serves
// one diff on its own SQLite file as `driftwatch serve` runs it (see serveOneDiff), in a process of
// its own (serve-build.ts), as does the peer; autocannon loads one of them at a time, the order
// rotated every round, and each one's CPU time per request is read from its own process.
//
//   node --import tsx bench/compare-builds.ts <label>=<server package dir> <label>=<server package dir>
//
// Each directory is a built @driftwatch/server (its dist/index.js is imported, with the workspace
// packages of its own checkout). The result is printed and written to the server-builds-<first label> section
// of docs/benchmarks.md.
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cannon, loadAverage, median, writeBenchSection, type CannonResult } from "./support.js";
import type { ServingMessage } from "./serve-build.js";

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.DRIFTWATCH_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.DRIFTWATCH_BENCH_ROUNDS ?? 6);
const WARMUP_S = 3;
const PEER = "bare Fastify";

const args = process.argv.slice(2);
if (args.length !== 2 || args.some((a) => !a.includes("="))) {
  console.error("usage: compare-builds.ts <label>=<server package dir> <label>=<server package dir>");
  process.exit(2);
}

interface Side {
  name: string;
  child: ChildProcess;
  serving: ServingMessage;
}

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "serve-build.ts");
const nextMessage = <T>(process: ChildProcess): Promise<T> =>
  new Promise((resolve, reject) => {
    const exited = (code: number | null): void => reject(new Error(`a server process exited (${String(code)})`));
    process.once("exit", exited);
    process.once("message", (m) => {
      process.off("exit", exited);
      resolve(m as T);
    });
  });

async function start(name: string, argv: string[], first?: ServingMessage): Promise<Side> {
  const process = fork(child, argv, { execArgv: ["--import", "tsx"] });
  if (first !== undefined) process.send(first);
  return { name, child: process, serving: await nextMessage<ServingMessage>(process) };
}

const builds: Side[] = [];
for (const arg of args) builds.push(await start(arg.slice(0, arg.indexOf("=")), ["build", arg.slice(arg.indexOf("=") + 1)]));
const [first, second] = builds as [Side, Side];
// The peer answers the second build's diff, as the HTTP bench does.
const sides = [...builds, await start(PEER, ["bare"], second.serving)];
const sizes = builds.map((b) => Buffer.byteLength(b.serving.servedText));

const cpuOf = (side: Side) => async (): Promise<number> => {
  const reply = nextMessage<{ cpu: number }>(side.child);
  side.child.send("cpu");
  return (await reply).cpu;
};
const load = (side: Side, seconds: number): Promise<CannonResult> =>
  cannon(side.serving.base + side.serving.diffPath, side.serving.headers, seconds, CONNECTIONS, cpuOf(side));

const loadBefore = loadAverage();
for (const side of sides) await load(side, WARMUP_S);
const runs: Record<string, CannonResult[]> = Object.fromEntries(sides.map((side) => [side.name, []]));
const ratio = { between: [] as number[], first: [] as number[], second: [] as number[], cpu: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  const results: Record<string, CannonResult> = {};
  for (let k = 0; k < sides.length; k++) {
    const side = sides[(k + round) % sides.length]!;
    const name = side.name;
    const result = await load(side, DURATION_S);
    if (result.errors > 0 || result.non2xx > 0) throw new Error(`failed requests (${name}): ${JSON.stringify(result)}`);
    results[name] = result;
    runs[name]!.push(result);
  }
  ratio.between.push(results[second.name]!.rps / results[first.name]!.rps);
  ratio.first.push(results[first.name]!.rps / results[PEER]!.rps);
  ratio.second.push(results[second.name]!.rps / results[PEER]!.rps);
  ratio.cpu.push(results[second.name]!.cpuUs / results[first.name]!.cpuUs);
  console.log(`round ${String(round + 1)}:`, Object.entries(results).map(([name, r]) => `${name} ${r.rps.toFixed(0)}/s ${r.cpuUs.toFixed(0)} µs`).join(", "));
}
const loadAfter = loadAverage();

for (const side of sides) {
  const exited = new Promise((resolve) => side.child.once("exit", resolve));
  side.child.send("close");
  await exited;
}

const fmt = (values: number[]): string => values.map((v) => v.toFixed(2)).join(", ");
/** "within noise" when the middle half of the per-round ratios (interquartile range) holds 1. */
function verdict(values: number[], below: string, above: string): string {
  const sorted = [...values].sort((a, b) => a - b);
  const q = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  if (q(0.25) <= 1 && q(0.75) >= 1) return `within noise: interquartile range ${q(0.25).toFixed(2)}-${q(0.75).toFixed(2)}`;
  return `${median(values) < 1 ? below : above}: interquartile range ${q(0.25).toFixed(2)}-${q(0.75).toFixed(2)}`;
}
const row = (name: string): string => {
  const r = runs[name]!;
  return `| ${name} | ${Math.round(median(r.map((x) => x.rps)))} | ${median(r.map((x) => x.p99))} ms | ${Math.round(median(r.map((x) => x.cpuUs)))} µs |`;
};
const markdown = `## Reference server: two builds side by side

\`bench/compare-builds.ts\`: the builds \`${first.name}\` and \`${second.name}\` of @driftwatch/server (their \`dist\`), each in a process of its own
serving \`GET /api/monitors/{id}/diffs/{diffId}\` (${sizes.join(" and ")} bytes) from its own SQLite file as \`driftwatch serve\`
runs it (scheduler and delivery worker on, info log written synchronously to a file, auth, rate limiting, metrics),
and the bare Fastify route of the HTTP bench in a third process. autocannon in its own process, ${String(CONNECTIONS)} connections, ${String(ROUNDS)} rounds
of ${String(DURATION_S)} s per server after a ${String(WARMUP_S)} s warm-up, the order rotated each round; medians over the rounds.
Load average (1 min) before: ${loadBefore}, after: ${loadAfter}, on a shared 2-core machine.

| | requests/s | p99 | CPU per request (its process) |
|---|---:|---:|---:|
${sides.map((side) => row(side.name)).join("\n")}

| ratio (median of the rounds) | value | per round |
|---|---:|---|
| ${second.name} / ${first.name}, requests/s | **${median(ratio.between).toFixed(2)} x** (${verdict(ratio.between, "slower", "faster")}) | ${fmt(ratio.between)} |
| ${second.name} / ${first.name}, CPU per request | ${median(ratio.cpu).toFixed(2)} x (${verdict(ratio.cpu, "cheaper", "costlier")}) | ${fmt(ratio.cpu)} |
| ${first.name} / bare Fastify, requests/s | ${median(ratio.first).toFixed(2)} x | ${fmt(ratio.first)} |
| ${second.name} / bare Fastify, requests/s | ${median(ratio.second).toFixed(2)} x | ${fmt(ratio.second)} |`;
writeBenchSection(`server-builds-${first.name}`, markdown);
console.log(`\n${markdown}`);
