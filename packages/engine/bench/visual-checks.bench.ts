// npm run bench:visual -w @driftwatch/engine: whole checks through the check service on SQLite
// and real Chromium, the same changing page alternately as a text-only browser monitor and as
// monitors with a viewport and a full-page screenshot (stored per snapshot, compared with the
// previous one): median ms per check, and the screenshot storage per check (the stored bytes, and
// the database file's growth per check, KB).
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { BrowserOptionsSchema, type MonitorRecord } from "@driftwatch/core";
import { createBrowserFetcher } from "@driftwatch/fetcher-browser";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { createCheckService } from "../src/index.js";

const CHECKS = Number(process.env.BENCH_CHECKS ?? 8);
let version = 0;
const page = (): string => `<!doctype html><html><head><meta charset="utf-8"><title>Bench</title>
<style>body{font:16px sans-serif;margin:0} .card{margin:16px;padding:16px;border:1px solid #ccc;border-radius:8px} .price{color:#2e7d32}</style></head>
<body><h1>Catalogue</h1>${Array.from({ length: 40 }, (_, i) => `<div class="card"><h2>Item ${String(i)}</h2><p>Description of item ${String(i)}, with a few words of text.</p><p class="price">${String(10 + ((i + version) % 7))} EUR</p></div>`).join("")}</body></html>`;
const server = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page()));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-bench-visual-"));
const file = path.join(dir, "bench.db");
const store = await createSqliteStore({ filename: file });
const org = await store.createOrganization({ slug: "bench" });
const browser = createBrowserFetcher({ allowPrivateNetworks: true, concurrency: 1 });
const httpFetcher = createHttpFetcher({ allowPrivateNetworks: true });
const checks = createCheckService({ store, httpFetcher, browserFetcher: browser });
const dbBytes = (): number => ["", "-wal"].reduce((sum, suffix) => sum + (fs.existsSync(file + suffix) ? fs.statSync(file + suffix).size : 0), 0);

const kinds = {
  text: BrowserOptionsSchema.parse({ waitStrategy: "load", viewport: { width: 1280, height: 800 } }),
  viewport: BrowserOptionsSchema.parse({ waitStrategy: "load", viewport: { width: 1280, height: 800 }, screenshot: "viewport" }),
  fullPage: BrowserOptionsSchema.parse({ waitStrategy: "load", viewport: { width: 1280, height: 800 }, screenshot: "fullPage" }),
} as const;
type Kind = keyof typeof kinds;
const monitors = {} as Record<Kind, MonitorRecord>;
const results = {} as Record<Kind, { ms: number[]; shotKb: number[]; dbKb: number[] }>;
try {
  for (const kind of Object.keys(kinds) as Kind[]) {
    monitors[kind] = await store.createMonitor(org.id, {
      type: "website",
      name: kind,
      url,
      method: "GET",
      headers: {},
      body: null,
      intervalSeconds: 60,
      selector: null,
      browserOptionsJson: kinds[kind],
      state: "active",
      nextCheckAt: null,
    });
    results[kind] = { ms: [], shotKb: [], dbKb: [] };
    // the first check (the launch, the first snapshot) is not measured
    monitors[kind] = (await checks.runCheck(monitors[kind], { requestId: `req_warm_${kind}` })).monitor;
  }
  for (let i = 0; i < CHECKS; i++) {
    version++;
    for (const kind of Object.keys(kinds) as Kind[]) {
      const before = dbBytes();
      const started = performance.now();
      const outcome = await checks.runCheck(monitors[kind], { requestId: `req_${kind}_${String(i)}` });
      results[kind].ms.push(performance.now() - started);
      if (outcome.error !== null) throw outcome.error;
      monitors[kind] = outcome.monitor;
      const shot = outcome.snapshot === null ? null : await store.getScreenshot(org.id, monitors[kind].id, outcome.snapshot.id);
      results[kind].shotKb.push((shot?.bytes ?? 0) / 1024);
      results[kind].dbKb.push((dbBytes() - before) / 1024);
    }
  }
  console.log(`${String(CHECKS)} checks each, 2 cores, load average ${os.loadavg()[0]!.toFixed(1)}`);
  console.log("| check | median ms | screenshot stored per check (KB) | database growth per check (KB, median) |");
  console.log("|---|---|---|---|");
  for (const kind of Object.keys(kinds) as Kind[]) {
    const r = results[kind];
    console.log(`| ${kind} | ${median(r.ms).toFixed(0)} | ${median(r.shotKb).toFixed(0)} | ${median(r.dbKb).toFixed(0)} |`);
  }
} finally {
  await checks.close();
  await browser.close();
  await httpFetcher.close();
  await store.close();
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
