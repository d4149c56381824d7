// The per-check cost of keeping a monitor's noise profile current (issue 25): a learning monitor
// (autoApplySuggestions, the default for new monitors) learns again, on every check whose content
// changed, from its newest stored snapshots (suggestPolicy over at most 10 samples, 1 MB; never from
// the content it is about to compare, see docs/signal.md), cached until a new snapshot is stored. Side by side in one run, on one SQLite file and a loopback target whose
// every answer has new noise (a timestamp, a request id, a counter in each item): the same checks
// of a monitor with learning off (the peer: fetch, diff, record) and on. Reports the median check
// time of each and the ratio, for a 10 KB and a 100 KB document. Writes the "engine-noise" section
// of docs/benchmarks.md.
//   node --conditions=@driftwatch/source --import tsx bench/noise-profile.bench.ts
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { createCheckService, createComparePool, createNoiseLearner } from "../src/index.js";

const ROUNDS = 5; // alternating off/on rounds
const CHECKS = 30; // checks per monitor per round
const SIZES = [{ label: "10 KB", items: 40 }, { label: "100 KB", items: 400 }];

const here = path.dirname(fileURLToPath(import.meta.url));
const { median, writeBenchSection } = (await import(path.resolve(here, "../../../tooling/bench-report.mjs"))) as {
  median(values: number[]): number;
  writeBenchSection(name: string, markdown: string): void;
};

let items = 40;
let served = 0;
function documentBody(): string {
  served++;
  return JSON.stringify({
    generated_at: new Date(Date.UTC(2026, 0, 1) + served * 60_000).toISOString(),
    request_id: randomUUID(),
    items: Array.from({ length: items }, (_, i) => ({
      id: i,
      name: `Product ${String(i)} with a description long enough to make the document realistic`,
      price: 10 + i,
      status: i % 7 === 0 ? "sold_out" : "available",
      views: served * 3 + i,
      tags: ["catalog", `group-${String(i % 5)}`],
    })),
  });
}
const server = http.createServer((_req, res) => {
  const body = documentBody();
  res.writeHead(200, { "content-type": "application/json" }).end(body);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/catalog`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-noise-bench-"));
const store = await createSqliteStore({ filename: path.join(dir, "bench.db") });
const org = await store.createOrganization({ slug: "bench" });
const fetcher = createHttpFetcher({ allowPrivateNetworks: true });
const compare = createComparePool();
const checks = createCheckService({ store, httpFetcher: fetcher, compare, noise: createNoiseLearner(store) });

async function monitorOf(learning: boolean) {
  const monitor = await store.createMonitor(org.id, {
    type: "api",
    name: learning ? "learning" : "plain",
    url,
    method: "GET",
    headers: {},
    body: null,
    intervalSeconds: 3600,
    selector: null,
    browserOptionsJson: null,
    state: "active",
    nextCheckAt: null,
    autoApplySuggestions: learning,
  });
  // ten stored snapshots first: the profile is at its full size from the first timed check
  for (let i = 0; i < 10; i++) await checks.runCheck((await store.getMonitor(org.id, monitor.id))!, { requestId: `req_warm${String(i)}` });
  return monitor;
}

async function timeChecks(monitorId: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < CHECKS; i++) {
    const monitor = (await store.getMonitor(org.id, monitorId))!;
    const started = performance.now();
    const outcome = await checks.runCheck(monitor, { requestId: `req_${String(i)}` });
    times.push(performance.now() - started);
    if (outcome.result === "failed") throw new Error(`check failed: ${String(outcome.error?.message)}`);
  }
  return times;
}

const rows: string[] = [];
for (const size of SIZES) {
  items = size.items;
  const plain = await monitorOf(false);
  const learning = await monitorOf(true);
  const off: number[] = [];
  const on: number[] = [];
  let silenced = 0;
  for (let round = 0; round < ROUNDS; round++) {
    off.push(...(await timeChecks(plain.id)));
    on.push(...(await timeChecks(learning.id)));
  }
  const latest = await store.listSnapshots(org.id, learning.id, { limit: 50 });
  silenced = latest.data.filter((s) => s.silenced != null).length;
  const bytes = (await store.getLatestSnapshot(org.id, learning.id))!.size;
  const offMs = median(off);
  const onMs = median(on);
  rows.push(
    `| ${size.label} (${(bytes / 1024).toFixed(0)} KB) | ${offMs.toFixed(2)} ms | ${onMs.toFixed(2)} ms | ${(onMs / offMs).toFixed(2)}x | +${(onMs - offMs).toFixed(2)} ms | ${String(silenced)} of ${String(latest.data.length)} |`,
  );
}

const markdown = `### Keeping the noise profile current (engine, issue 25)

A learning monitor learns again on every check whose content changed (from its newest stored
snapshots, at most 10 samples and 1 MB, never from the content it is about to compare). Median time of one check of a target whose
every answer has new noise, on SQLite over loopback, with learning off (fetch, diff, record) and on
(the same, plus learning, the merged policy and the silenced record), ${String(ROUNDS * CHECKS)}
checks each, alternating rounds.

| document | check, learning off | check, learning on | ratio | learning's cost per check | silenced (newest snapshots) |
|---|---|---|---|---|---|
${rows.join("\n")}`;
console.log(markdown);
writeBenchSection("engine-noise", markdown);

await checks.close();
await compare.close();
await fetcher.close();
await store.close();
server.close();
fs.rmSync(dir, { recursive: true, force: true });
