// diffHtml on a 200 KB page with a few changes, against the cost floor: cheerio.load of both
// pages (diffHtml must parse both too). Run: node --conditions=@driftwatch/source --import tsx bench/html.bench.ts
import os from "node:os";
import { load } from "cheerio";
import { Bench } from "tinybench";
import { diffHtml } from "../src/index.js";
import { writeBenchSection } from "./support.js";

/** A deterministic news/shop-like page: navigation, articles, a product table, scripts and styles. */
function buildPage(size: number, edit: (section: number, html: string) => string = (_s, html) => html): string {
  const head = `<head><meta charset="utf-8"><title>Bench page</title><style>${"body{margin:0}".repeat(50)}</style><script>${"window.x=1;".repeat(100)}</script></head>`;
  const nav = `<header id="top"><nav><ul>${Array.from({ length: 20 }, (_, i) => `<li><a href="/s/${i}">Section ${i}</a></li>`).join("")}</ul></nav></header>`;
  const sections: string[] = [];
  let length = head.length + nav.length;
  for (let s = 0; length < size; s++) {
    const rows = Array.from(
      { length: 6 },
      (_, r) => `<tr><td>SKU-${s}-${r}</td><td>Product ${s}.${r} with a longer name</td><td class="price">${((s * 7 + r) % 97) + 0.99} EUR</td></tr>`,
    ).join("");
    const section =
      `<section class="story" data-i="${s}"><h2>Story number ${s}</h2>` +
      `<p class="lead">Lead paragraph ${s}: <a href="/a/${s}">read more</a> about the <em>latest</em> developments in area ${s % 13}.</p>` +
      `<div class="body"><p>Body text of story ${s}, which goes on for a while to look like real prose on a real page.</p>` +
      `<p>Second paragraph ${s} &amp; more &nbsp; text with <strong>emphasis</strong> and <span>inline bits</span>.</p></div>` +
      `<table class="products"><thead><tr><th>SKU</th><th>Name</th><th>Price</th></tr></thead><tbody>${rows}</tbody></table>` +
      `<!-- story ${s} --><script>track(${s})</script></section>`;
    const edited = edit(s, section);
    sections.push(edited);
    length += edited.length;
  }
  return `<!doctype html><html>${head}<body>${nav}<main id="content">${sections.join("")}</main><footer><p>Footer</p></footer></body></html>`;
}

const SIZE = 200_000;
const before = buildPage(SIZE);
const after = buildPage(SIZE, (s, html) => {
  if (s === 3) return html.replace("Story number 3", "Story number 3 (updated)");
  if (s === 40) return html.replace("Product 40.2 with a longer name", "Product 40.2 renamed");
  if (s === 80) return html.replace(/<p>Second paragraph 80[^]*?<\/p>/, "");
  if (s === 120) return html.replace("</tbody>", "<tr><td>SKU-new</td><td>New product</td><td>1.00 EUR</td></tr></tbody>");
  return html;
});
const result = diffHtml(before, after);
if (result === null || result.changes.length < 4) throw new Error("the bench pages must differ");

const PEER = "cheerio.load(before) + cheerio.load(after) (peer, cost floor)";
const OURS = "diffHtml(before, after)";
const peerTask = (): void => {
  load(before);
  load(after);
};
const oursTask = (): void => {
  diffHtml(before, after);
};

// Alternating rounds, each timing both tasks, so load from other processes on this shared
// machine hits both sides alike; the ratio reported is the median of the rounds' ratios.
const ROUNDS = 7;
const means: Record<string, number[]> = { [PEER]: [], [OURS]: [] };
const p99s: Record<string, number[]> = { [PEER]: [], [OURS]: [] };
const ratios: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const bench = new Bench({ time: 600, warmupTime: 100 });
  if (round % 2 === 0) bench.add(PEER, peerTask).add(OURS, oursTask);
  else bench.add(OURS, oursTask).add(PEER, peerTask);
  await bench.run();
  const mean: Record<string, number> = {};
  for (const task of bench.tasks) {
    const r = task.result;
    if (!r || !("latency" in r)) throw new Error(`${task.name} failed`);
    mean[task.name] = r.latency.mean;
    means[task.name]!.push(r.latency.mean);
    p99s[task.name]!.push(r.latency.p99 ?? r.latency.mean);
  }
  ratios.push(mean[OURS]! / mean[PEER]!);
}
const median = (values: number[]): number => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const ratio = median(ratios);

// The same comparison in CPU time (user + system, all threads, so GC counts): steadier than
// wall time when other processes share the cores.
function cpuMs(task: () => void, iterations: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < iterations; i++) task();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / iterations;
}
const cpuRatios: number[] = [];
for (let round = 0; round < 2 * ROUNDS; round++) {
  const [first, second] = round % 2 === 0 ? [peerTask, oursTask] : [oursTask, peerTask];
  const a = cpuMs(first, 5);
  const b = cpuMs(second, 5);
  cpuRatios.push(round % 2 === 0 ? b / a : a / b);
}
const cpuRatio = median(cpuRatios);
const table = [
  `### @driftwatch/core: diffHtml`,
  "",
  `Input: a ${(before.length / 1000).toFixed(0)} KB page (${(after.length / 1000).toFixed(0)} KB after) with ${result.changes.length} changes` +
    ` (${result.summary.modifications} modified, ${result.summary.additions} added, ${result.summary.removals} removed blocks).`,
  "The peer parses both pages with `cheerio.load`, which diffHtml must do as well: the cost floor.",
  `${ROUNDS} alternating rounds; medians of the rounds' means and p99s.`,
  "",
  "| task | mean (ms) | p99 (ms) |",
  "|---|---:|---:|",
  ...[PEER, OURS].map((name) => `| ${name} | ${median(means[name]!).toFixed(2)} | ${median(p99s[name]!).toFixed(2)} |`),
  "",
  `diffHtml / peer, wall time: **${ratio.toFixed(2)} x** (median of the rounds' ratios, range ${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)}).`,
  `diffHtml / peer, CPU time: **${cpuRatio.toFixed(2)} x** (median of ${cpuRatios.length} alternating rounds of 5 runs each, range ${Math.min(...cpuRatios).toFixed(2)} to ${Math.max(...cpuRatios).toFixed(2)}).`,
  "The difference is block extraction, alignment, selectors and the fingerprint; everything else is the two parses.",
].join("\n");
// The machine is shared: the load while this ran says how much to trust the absolute figures.
writeBenchSection("core-html", `${table.trim()}\n\nLoad average (1 min) at the end of the run: ${os.loadavg()[0]!.toFixed(1)} on ${String(os.cpus().length)} cores; ratios are measured side by side and hold up better than absolute figures under load.`);
console.log(table);
