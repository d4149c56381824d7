// npm run bench: fetches/s of a 10 KB JSON document on loopback through createHttpFetcher,
// against a bare undici `request` to the same server (the ceiling: no guard, no redirect
// handling, no caps, no decoding beyond UTF-8).
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Bench } from "tinybench";
import { Agent, request } from "undici";
import { createGuardedDispatcher, createHttpFetcher } from "../src/index.js";

const reportModule = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../tooling/bench-report.mjs");
const { writeBenchSection } = (await import(reportModule)) as { writeBenchSection(name: string, markdown: string): void };

const items: Array<{ id: number; sku: string; name: string; price: number }> = [];
while (JSON.stringify({ items }).length < 10_240) {
  const i = items.length;
  items.push({ id: i, sku: `SKU-${String(i).padStart(5, "0")}`, name: `Item number ${String(i)}`, price: i * 1.25 });
}
const document = Buffer.from(JSON.stringify({ items }));

const server = http.createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": String(document.length) }).end(document);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/doc.json`;

const fetcher = createHttpFetcher({ allowPrivateNetworks: true });
const guarded = createGuardedDispatcher({ allowPrivateNetworks: true });
const bare = new Agent();

const tasks: Record<string, () => Promise<void>> = {
  "createHttpFetcher().fetch": async () => {
    const res = await fetcher.fetch({ url });
    if (res.size !== document.length) throw new Error("short body");
  },
  "undici request, guarded dispatcher": async () => {
    const res = await request(url, { dispatcher: guarded });
    await res.body.text();
  },
  "undici request (bare)": async () => {
    const res = await request(url, { dispatcher: bare });
    await res.body.text();
  },
};
// The machine is shared: rounds interleave the tasks and each figure is the median round.
const ROUNDS = 7;
const samples = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  const bench = new Bench({ time: 700, warmup: round === 0, warmupTime: 300 });
  for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
  await bench.run();
  for (const task of bench.tasks) {
    const mean = task.result?.latency.mean;
    if (mean === undefined) throw new Error(`no result for ${task.name}`);
    samples.set(task.name, [...(samples.get(task.name) ?? []), 1000 / mean]);
  }
}
const hz = (name: string): number => {
  const values = [...(samples.get(name) ?? [])].sort((x, y) => x - y);
  const median = values[Math.floor(values.length / 2)];
  if (median === undefined) throw new Error(`no result for ${name}`);
  return median;
};
const ceiling = hz("undici request (bare)");
const rows = Object.keys(tasks).map((name) => {
  const value = hz(name);
  return `| ${name} | ${Math.round(value).toLocaleString("en-US")} | ${(value / ceiling).toFixed(2)} |`;
});
const markdown = `## @driftwatch/fetcher-http

One keep-alive connection to a Node \`http\` server on 127.0.0.1 serving a ${String(Math.round(document.length / 1024))} KB JSON document (content-length, no compression), one request at a time; tinybench, 7 interleaved rounds of 0.7 s per task, median round. The peer is a bare undici \`request\` with its own \`Agent\`, reading the body as text: the ceiling. \`createHttpFetcher\` adds the guard (lifted here, so the lookup and address checks are the only guard cost), the per-fetch deadline and abort wiring, manual redirect handling, the streamed size cap and charset decoding.

| client | fetches/s | ratio to bare undici |
|---|---:|---:|
${rows.join("\n")}
`;
// The machine is shared: the load while this ran says how much to trust the absolute figures.
writeBenchSection("fetcher-http", `${markdown.trim()}\n\nLoad average (1 min) at the end of the run: ${os.loadavg()[0]!.toFixed(1)} on ${String(os.cpus().length)} cores; ratios are measured side by side and hold up better than absolute figures under load.`);
console.log(markdown);

await fetcher.close();
await guarded.close();
await bare.close();
server.closeAllConnections();
server.close();
