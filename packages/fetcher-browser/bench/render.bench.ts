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
import { fileURLToPath } from "node:url";
import { BrowserOptionsSchema } from "@driftwatch/core";
import { chromium } from "playwright-core";
import { createBrowserFetcher, DEFAULT_LAUNCH_ARGS, findBrowserProcess, processTree } from "../src/index.js";

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

/** Proportional set size of a process (shared pages divided among their users), in bytes. */
function pssBytes(pid: number): number {
  try {
    const rollup = fs.readFileSync(`/proc/${String(pid)}/smaps_rollup`, "utf8");
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? "0") * 1024;
  } catch {
    return 0; // gone meanwhile
  }
}

interface MemoryPeak {
  rss: number;
  pss: number;
}

/**
 * Samples a browser's process tree every 50 ms; returns the peaks on stop. The sum of RSS counts
 * pages shared between Chromium's processes once per process (an overstatement); the sum of PSS
 * divides them among the processes that share them (what the tree really costs).
 */
function sampleMemory(pid: () => number | null): () => MemoryPeak {
  const peak: MemoryPeak = { rss: 0, pss: 0 };
  const timer = setInterval(() => {
    const root = pid();
    if (root === null) return;
    const tree = processTree(root);
    peak.rss = Math.max(peak.rss, tree.reduce((sum, p) => sum + p.rssBytes, 0));
    peak.pss = Math.max(peak.pss, tree.reduce((sum, p) => sum + pssBytes(p.pid), 0));
  }, 50);
  return () => {
    clearInterval(timer);
    return peak;
  };
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

const results = { fetcher: [] as number[], playwright: [] as number[] };
const fetcherPeak: MemoryPeak = { rss: 0, pss: 0 };
const peerPeak: MemoryPeak = { rss: 0, pss: 0 };
const keepMax = (into: MemoryPeak, from: MemoryPeak): void => {
  into.rss = Math.max(into.rss, from.rss);
  into.pss = Math.max(into.pss, from.pss);
};
for (let round = 0; round < ROUNDS; round++) {
  let stop = sampleMemory(() => fetcher.browserProcessId());
  results.fetcher.push(await runConcurrently(RENDERS_PER_ROUND, renderWithFetcher));
  keepMax(fetcherPeak, stop());
  stop = sampleMemory(() => peerPid);
  results.playwright.push(await runConcurrently(RENDERS_PER_ROUND, renderWithPlaywright));
  keepMax(peerPeak, stop());
}
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const ours = median(results.fetcher);
const theirs = median(results.playwright);
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);

const markdown = `## @driftwatch/fetcher-browser

System Chromium (\`${executablePath}\`) headless, a light page (20-item list, one stylesheet, an inline script) on 127.0.0.1, \`waitStrategy: "load"\`, ${String(CONCURRENCY)} renders at a time, a new context per render; ${String(ROUNDS)} interleaved rounds of ${String(RENDERS_PER_ROUND)} renders, median round. The peer is bare playwright-core on the same Chromium and flags (without the host-resolver rule) doing \`newContext\` + \`goto\` + \`content()\` + \`close\`, with no request interception: the ceiling. The fetcher additionally fetches the document and every subresource itself through the guarded undici dispatcher and hands them to the page with \`route.fulfill\`. Peak memory is sampled every 50 ms over the browser's process tree (browser, zygotes, GPU/utility and renderer processes): the sum of PSS (shared pages divided among the processes sharing them: what the tree costs) and the sum of VmRSS (shared pages counted once per process: an overstatement, shown because it is what \`ps\` and most dashboards add up).

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
