// Many monitors on ONE fast host keep their interval: the per-host cap bounds the requests in
// flight against the host, never which of its monitors get checked or when. 500 monitors at a
// 10 s interval (jitter fixed at zero) on one loopback host are each checked every 10 s (+- 2 s),
// by one scheduler and by three sharing the store, with the default poll interval. Run per store
// and work queue: host-cadence.test.ts here (memory store, its leases), and the PostgreSQL job
// queue's own package.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Fetcher, Store } from "@driftwatch/core";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckService, createMetrics, createScheduler, type Scheduler, type WorkQueue } from "../../src/index.js";
import { createMonitor } from "../fixtures.js";

/** A fresh store for one run, and the work queue of each scheduler on it (undefined: the store's leases). */
export interface CadenceBackend {
  store: Store;
  queue(owner: string): WorkQueue | undefined;
  close(): Promise<void>;
}

export interface HostCadenceOptions {
  /** What the suite's title names. */
  backend: string;
  open(prefix: string): Promise<CadenceBackend>;
}

const MONITORS = 500;
const INTERVAL_S = 10;
/** Checks of one monitor observed: the first, and two more one interval apart. */
const ROUNDS = 3;

export function hostCadenceSuite(options: HostCadenceOptions): void {
describe(`one fast host with 500 monitors at a 10 s interval (${options.backend})`, () => {
  let fetcher: Fetcher;
  let server: http.Server;
  let url = "";
  const hits = new Map<string, number[]>();

  beforeAll(async () => {
    fetcher = createHttpFetcher({ allowPrivateNetworks: true });
    server = http.createServer((req, res) => {
      const at = Date.now();
      const list = hits.get(req.url ?? "/");
      if (list === undefined) hits.set(req.url ?? "/", [at]);
      else list.push(at);
      res.writeHead(200, { "content-type": "application/json" }).end('{"fast":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  });
  afterAll(async () => {
    await fetcher.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Creates the monitors due over the next interval (as a running system has them), runs `schedulers` until every one was checked `ROUNDS` times. */
  async function run(prefix: string, processes: number): Promise<{ gaps: number[]; metrics: string }> {
    const backend = await options.open(prefix);
    const { store } = backend;
    const org = await store.createOrganization({ slug: prefix });
    const start = Date.now();
    const paths: string[] = [];
    for (let i = 0; i < MONITORS; i++) {
      const path = `/${prefix}/${String(i)}`;
      paths.push(path);
      await createMonitor(store, org.id, { name: path, url: `${url}${path}`, intervalSeconds: INTERVAL_S, nextCheckAt: new Date(start + Math.floor((i * INTERVAL_S * 1000) / MONITORS)).toISOString() });
    }
    const metrics = createMetrics();
    const schedulers: Scheduler[] = [];
    for (let p = 0; p < processes; p++) {
      const checks = createCheckService({ store, httpFetcher: fetcher, random: () => 0.5, metrics });
      // the defaults of a small machine: 8 checks at once, 2 per host, a claim every second when idle
      const owner = `${prefix}-${String(p)}`;
      const queue = backend.queue(owner);
      schedulers.push(
        createScheduler({ store, checks, metrics, owner, concurrency: 8, perHostConcurrency: 2, random: () => 0.5, ...(queue === undefined ? {} : { queue }) }),
      );
    }
    for (const s of schedulers) s.start();
    try {
      const deadline = start + (ROUNDS + 2) * INTERVAL_S * 1000;
      while (paths.some((path) => (hits.get(path)?.length ?? 0) < ROUNDS) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await Promise.all(schedulers.map((s) => s.stop()));
      await backend.close();
    }
    const gaps: number[] = [];
    for (const path of paths) {
      const times = hits.get(path) ?? [];
      expect(times.length, `${path} checked ${String(ROUNDS)} times`).toBeGreaterThanOrEqual(ROUNDS);
      for (let i = 1; i < ROUNDS; i++) gaps.push(times[i]! - times[i - 1]!);
    }
    return { gaps, metrics: await metrics.render() };
  }

  it("each is checked every 10 s (+- 2 s) by one scheduler", async () => {
    const { gaps, metrics } = await run("one", 1);
    expect(gaps.filter((gap) => gap < (INTERVAL_S - 2) * 1000 || gap > (INTERVAL_S + 2) * 1000)).toEqual([]);
    // the lag is measured, and reported for the host
    expect(Number(/driftwatch_check_lag_seconds_count (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(MONITORS * ROUNDS);
    expect(metrics).toMatch(/driftwatch_host_lag_seconds\{host="127\.0\.0\.1:\d+"\} /);
  }, 120_000);

  it("each is checked every 10 s (+- 2 s) by three schedulers sharing the store", async () => {
    const { gaps } = await run("three", 3);
    expect(gaps.filter((gap) => gap < (INTERVAL_S - 2) * 1000 || gap > (INTERVAL_S + 2) * 1000)).toEqual([]);
  }, 120_000);
});
}
