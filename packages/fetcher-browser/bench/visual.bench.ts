// npm run bench:visual: per check, a text-only browser render against a render with a full-page
// screenshot plus the visual diff against the previous screenshot (same page, same fetcher, run
// alternately): median ms, the screenshot's size (KB), the visual diff's own ms, and the peak
// memory (this process's RSS, and the Chromium tree's PSS sampled after each check).
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { BrowserOptionsSchema, diffScreenshots, type FetchScreenshot } from "@driftwatch/core";
import { createBrowserFetcher } from "../src/index.js";

const CHECKS = Number(process.env.BENCH_CHECKS ?? 8);
let version = 0;
const page = (): string => `<!doctype html><html><head><meta charset="utf-8"><title>Bench</title>
<style>body{font:16px sans-serif;margin:0} .card{margin:16px;padding:16px;border:1px solid #ccc;border-radius:8px} .price{color:#2e7d32}</style></head>
<body><h1>Catalogue</h1>${Array.from({ length: 40 }, (_, i) => `<div class="card"><h2>Item ${String(i)}</h2><p>Description of item ${String(i)}, with a few words of text.</p><p class="price">${String(10 + ((i + version) % 7))} EUR</p></div>`).join("")}</body></html>`;
const server = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page()));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;

function treePss(root: number | null): number {
  if (root === null) return 0;
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    try {
      for (const tid of fs.readdirSync(`/proc/${String(tree[i])}/task`)) {
        const text = fs.readFileSync(`/proc/${String(tree[i])}/task/${tid}/children`, "utf8").trim();
        if (text !== "") tree.push(...text.split(" ").map(Number));
      }
    } catch {
      // gone
    }
  }
  let pss = 0;
  for (const pid of tree) {
    try {
      pss += Number(/^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${String(pid)}/smaps_rollup`, "utf8"))?.[1] ?? 0) * 1024;
    } catch {
      // gone
    }
  }
  return pss;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);

const fetcher = createBrowserFetcher({ allowPrivateNetworks: true, concurrency: 1 });
const textOnly = BrowserOptionsSchema.parse({ waitStrategy: "load", viewport: { width: 1280, height: 800 } });
const withShot = BrowserOptionsSchema.parse({ waitStrategy: "load", viewport: { width: 1280, height: 800 }, screenshot: "fullPage" });
const times = { text: [] as number[], visual: [] as number[], diff: [] as number[], kb: [] as number[] };
const peaks = { textRss: 0, visualRss: 0, textPss: 0, visualPss: 0 };
let previous: FetchScreenshot | undefined;
try {
  await fetcher.fetch({ url, browserOptions: textOnly }); // warm-up: the launch is not measured
  for (let i = 0; i < CHECKS; i++) {
    version++;
    let started = performance.now();
    await fetcher.fetch({ url, browserOptions: textOnly });
    times.text.push(performance.now() - started);
    peaks.textRss = Math.max(peaks.textRss, process.memoryUsage().rss);
    peaks.textPss = Math.max(peaks.textPss, treePss(fetcher.browserProcessId()));

    started = performance.now();
    const response = await fetcher.fetch({ url, browserOptions: withShot });
    const diffStarted = performance.now();
    if (previous !== undefined && response.screenshot !== undefined) diffScreenshots(previous, response.screenshot);
    const ended = performance.now();
    if (previous !== undefined) times.diff.push(ended - diffStarted);
    times.visual.push(ended - started);
    previous = response.screenshot;
    times.kb.push((response.screenshot?.data.byteLength ?? 0) / 1024);
    peaks.visualRss = Math.max(peaks.visualRss, process.memoryUsage().rss);
    peaks.visualPss = Math.max(peaks.visualPss, treePss(fetcher.browserProcessId()));
  }
} finally {
  await fetcher.close();
  server.close();
}
const size = previous === undefined ? "?" : `${String(previous.width)} x ${String(previous.height)}`;
console.log(`| check (median of ${String(CHECKS)}) | ms | this process peak RSS (MB) | Chromium tree peak PSS (MB) |
|---|---|---|---|
| text-only browser render | ${median(times.text).toFixed(0)} | ${mb(peaks.textRss)} | ${mb(peaks.textPss)} |
| render + full-page screenshot (${size} px) + visual diff | ${median(times.visual).toFixed(0)} | ${mb(peaks.visualRss)} | ${mb(peaks.visualPss)} |

Visual diff alone: median ${median(times.diff).toFixed(0)} ms. Screenshot (PNG) per check: median ${median(times.kb).toFixed(0)} KB.
Load average (1 min) at the end: ${os.loadavg()[0]!.toFixed(1)} on ${String(os.cpus().length)} cores.`);
