// npm run bench: renders/s and peak resident memory of the Chromium process tree with two
// concurrent renders of a light page, createBrowserFetcher against bare playwright-core (same
// Chromium and flags, a new context per render, `page.goto` + `page.content()`, no routing).
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import { BrowserOptionsSchema } from "@driftwatch/core";
import { chromium } from "playwright-core";
import { createBrowserFetcher, DEFAULT_LAUNCH_ARGS, findBrowserProcess } from "../src/index.js";

const reportModule = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../tooling/bench-report.mjs");
const { writeBenchSection } = (await import(reportModule)) as { writeBenchSection(name: string, markdown: string): void };

const CONCURRENCY = 2;
const RENDERS_PER_ROUND = 16;
const ROUNDS = 3;

const page = `<!doctype html><html><head><meta charset="utf-8"><title>Light</title><link rel="stylesheet" href="/style.css"></head>
<body><h1>Status</h1><ul>${Array.from({ length: 20 }, (_, i) => `<li>Service ${String(i)}: operational</li>`).join("")}</ul>
<script>document.body.insertAdjacentHTML("beforeend", "<p>rendered " + new Date().getFullYear() + "</p>");</script></body></html>`;
const server = http.createServer((req, res) => {
  if (req.url === "/style.css") res.writeHead(200, { "content-type": "text/css" }).end("body { font-family: sans-serif } li { color: green }");
  else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
const executablePath = process.env.DRIFTWATCH_CHROMIUM_PATH ?? "/usr/bin/chromium";

interface MemoryPeak {
  rss: number;
  pss: number;
}

/**
 * Samples a browser's process tree every 100 ms from a worker thread (so the sampling costs the
 * renders' event loop nothing) and returns the peaks on stop. The tree is followed through
 * /proc/<pid>/task/<tid>/children; each process's Rss and Pss come from smaps_rollup. The sum of
 * RSS counts pages shared between Chromium's processes once per process (an overstatement); the
 * sum of PSS divides them among the processes sharing them (what the tree costs).
 */
const SAMPLER = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
function children(pid) {
  const out = [];
  try {
    for (const tid of fs.readdirSync("/proc/" + pid + "/task")) {
      const text = fs.readFileSync("/proc/" + pid + "/task/" + tid + "/children", "utf8").trim();
      if (text !== "") for (const c of text.split(" ")) out.push(Number(c));
    }
  } catch {}
  return out;
}
function kb(re, text) {
  const m = re.exec(text);
  return m ? Number(m[1]) * 1024 : 0;
}
let rss = 0;
let pss = 0;
const timer = setInterval(() => {
  const tree = [workerData.root];
  for (let i = 0; i < tree.length; i++) tree.push(...children(tree[i]));
  let r = 0;
  let p = 0;
  for (const pid of tree) {
    try {
      const rollup = fs.readFileSync("/proc/" + pid + "/smaps_rollup", "utf8");
      r += kb(/^Rss:\\s+(\\d+) kB/m, rollup);
      p += kb(/^Pss:\\s+(\\d+) kB/m, rollup);
    } catch {}
  }
  rss = Math.max(rss, r);
  pss = Math.max(pss, p);
}, 100);
parentPort.once("message", () => {
  clearInterval(timer);
  parentPort.postMessage({ rss, pss });
});
`;

function sampleMemory(root: number): () => Promise<MemoryPeak> {
  const worker = new Worker(SAMPLER, { eval: true, workerData: { root } });
  return () =>
    new Promise<MemoryPeak>((resolve, reject) => {
      worker.once("message", (peak: MemoryPeak) => {
        void worker.terminate();
        resolve(peak);
      });
      worker.once("error", reject);
      worker.postMessage("stop");
    });
}

async function runConcurrently(total: number, render: () => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) {
        next += 1;
        await render();
      }
    }),
  );
  return (total * 1000) / (performance.now() - started);
}

const fetcher = createBrowserFetcher({ allowPrivateNetworks: true, concurrency: CONCURRENCY });
const browserOptions = BrowserOptionsSchema.parse({ waitStrategy: "load" });
const renderWithFetcher = async (): Promise<void> => {
  const res = await fetcher.fetch({ url, browserOptions });
  if (!res.body.includes("rendered")) throw new Error("not rendered");
};

const marker = `--driftwatch-bench-peer=${randomUUID()}`;
const args = [...DEFAULT_LAUNCH_ARGS.filter((a) => !a.startsWith("--host-resolver-rules")), marker, ...(process.getuid?.() === 0 ? ["--no-sandbox"] : [])];
// Its own TMPDIR, like the fetcher's browsers: Chromium leaves singleton directories there.
const peerTmp = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-bench-chromium-"));
const peer = await chromium.launch({ executablePath, args, env: { ...process.env, TMPDIR: peerTmp }, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
const peerPid = findBrowserProcess(marker)?.pid ?? null;
const renderWithPlaywright = async (): Promise<void> => {
  const context = await peer.newContext();
  try {
    const p = await context.newPage();
    await p.goto(url, { waitUntil: "load" });
    if (!(await p.content()).includes("rendered")) throw new Error("not rendered");
  } finally {
    await context.close();
  }
};

// Warm both (the fetcher launches its browser on first use).
await renderWithFetcher();
await renderWithPlaywright();

// Throughput rounds run without any sampling; memory is measured in a round of its own.
const results = { fetcher: [] as number[], playwright: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  results.fetcher.push(await runConcurrently(RENDERS_PER_ROUND, renderWithFetcher));
  results.playwright.push(await runConcurrently(RENDERS_PER_ROUND, renderWithPlaywright));
}
const fetcherPid = fetcher.browserProcessId();
if (fetcherPid === null || peerPid === null) throw new Error("browser process not found");
let stop = sampleMemory(fetcherPid);
await runConcurrently(RENDERS_PER_ROUND, renderWithFetcher);
const fetcherPeak = await stop();
stop = sampleMemory(peerPid);
await runConcurrently(RENDERS_PER_ROUND, renderWithPlaywright);
const peerPeak = await stop();
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const ours = median(results.fetcher);
const theirs = median(results.playwright);
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);

const markdown = `## @driftwatch/fetcher-browser

System Chromium (\`${executablePath}\`) headless, a light page (20-item list, one stylesheet, an inline script) on 127.0.0.1, \`waitStrategy: "load"\`, ${String(CONCURRENCY)} renders at a time, a new context per render; ${String(ROUNDS)} interleaved rounds of ${String(RENDERS_PER_ROUND)} renders, median round. The peer is bare playwright-core on the same Chromium and flags (without the host-resolver rule) doing \`newContext\` + \`goto\` + \`content()\` + \`close\`, with no request interception: the ceiling. The fetcher additionally fetches the document and every subresource itself through the guarded undici dispatcher and hands them to the page with \`route.fulfill\`. Peak memory is measured in one more round of ${String(RENDERS_PER_ROUND)} renders per side, sampled every 100 ms from a worker thread over the browser's process tree (browser, zygotes, GPU/utility and renderer processes): the sum of PSS (shared pages divided among the processes sharing them: what the tree costs) and the sum of RSS (shared pages counted once per process: an overstatement, shown because it is what \`ps\` and most dashboards add up).

| | renders/s | peak PSS of the Chromium tree | peak summed RSS |
|---|---:|---:|---:|
| createBrowserFetcher | ${ours.toFixed(1)} | ${mib(fetcherPeak.pss)} MiB | ${mib(fetcherPeak.rss)} MiB |
| bare playwright-core | ${theirs.toFixed(1)} | ${mib(peerPeak.pss)} MiB | ${mib(peerPeak.rss)} MiB |
| ratio | ${(ours / theirs).toFixed(2)} | ${(fetcherPeak.pss / peerPeak.pss).toFixed(2)} | ${(fetcherPeak.rss / peerPeak.rss).toFixed(2)} |
`;
// The machine is shared: the load while this ran says how much to trust the absolute figures.
writeBenchSection("fetcher-browser", `${markdown.trim()}\n\nLoad average (1 min) at the end of the run: ${os.loadavg()[0]!.toFixed(1)} on ${String(os.cpus().length)} cores; ratios are measured side by side and hold up better than absolute figures under load.`);
console.log(markdown);

await fetcher.close();
await peer.close();
fs.rmSync(peerTmp, { recursive: true, force: true });
server.close();
