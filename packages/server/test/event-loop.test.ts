import { pino } from "pino";
import { Registry } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import { DelayWindow, monitorEventLoop } from "../src/event-loop.js";
import { createDriftwatchServer } from "../src/service.js";

/** Holds the event loop: a synchronous busy loop of `ms`. */
function block(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The value of one sample line (`name` with its labels, as printed) of a Prometheus text. */
function value(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  if (line === undefined) throw new Error(`no ${series} in:\n${text}`);
  return Number(line.slice(series.length + 1));
}

/** Samples of the delay histogram above `le` seconds (a bucket bound). */
const over = (text: string, le: string): number =>
  value(text, "driftwatch_event_loop_delay_seconds_count") - value(text, `driftwatch_event_loop_delay_seconds_bucket{le="${le}"}`);

describe("DelayWindow", () => {
  it("reports max, median and p99 of the delays of the last minute", () => {
    const w = new DelayWindow(0);
    expect(w.stats(0)).toEqual({ samples: 0, maxSeconds: 0, p50Seconds: 0, p99Seconds: 0 });
    for (let i = 0; i < 98; i++) w.add(1, i * 20);
    w.add(50, 4000);
    w.add(2000, 5000);
    expect(w.stats(5000)).toEqual({ samples: 100, maxSeconds: 2, p50Seconds: 0.001, p99Seconds: 0.05 });
  });

  it("drops a delay once its 10-s slot is more than a minute old, and not before", () => {
    const w = new DelayWindow(0);
    w.add(2000, 5000);
    w.add(3, 15_000);
    expect(w.stats(59_999).maxSeconds).toBe(2);
    // The slot of 0-10 s leaves the window when the one of 60-70 s begins.
    expect(w.stats(60_000)).toMatchObject({ samples: 1, maxSeconds: 0.003 });
    expect(w.stats(70_000)).toMatchObject({ samples: 0, maxSeconds: 0 });
    // After a gap of more than a minute (a long block), the next delay is alone in the window.
    w.add(90_000, 200_000);
    expect(w.stats(200_000)).toMatchObject({ samples: 1, maxSeconds: 90 });
  });
});

describe("monitorEventLoop", () => {
  it("a synchronous block of 300 ms shows up in the histogram and the gauges, even when scraped before the sampler's next run", async () => {
    const registry = new Registry();
    const monitor = monitorEventLoop({ registry });
    try {
      await sleep(200);
      const before = await registry.metrics();
      expect(value(before, "driftwatch_event_loop_delay_seconds_count")).toBeGreaterThan(0);
      // Scraped right after the block, before the timer could run: the scrape records the overdue sample.
      block(300);
      const after = await registry.metrics();
      expect(over(after, "0.25") - over(before, "0.25")).toBe(1);
      expect(value(after, "driftwatch_event_loop_delay_max_seconds")).toBeGreaterThanOrEqual(0.27);
      expect(value(after, "driftwatch_event_loop_delay_max_seconds")).toBeLessThan(1);
      expect(after).toContain("# TYPE driftwatch_event_loop_delay_seconds histogram");
      expect(after).toContain("# TYPE driftwatch_event_loop_delay_p99_seconds gauge");
      // The timer's next run measures from the scrape: the block is counted once.
      await sleep(100);
      const later = await registry.metrics();
      expect(over(later, "0.25") - over(before, "0.25")).toBe(1);
      expect(value(later, "driftwatch_event_loop_delay_seconds_count")).toBeGreaterThan(value(after, "driftwatch_event_loop_delay_seconds_count"));
      // A scrape does not reset the gauges: the next one still reports the block.
      expect(value(later, "driftwatch_event_loop_delay_max_seconds")).toBe(value(after, "driftwatch_event_loop_delay_max_seconds"));
      expect(monitor.stats().maxSeconds).toBe(value(after, "driftwatch_event_loop_delay_max_seconds"));
    } finally {
      monitor.stop();
    }
  });

  it("stop() ends the sampling", async () => {
    const registry = new Registry();
    const monitor = monitorEventLoop({ registry });
    await sleep(100);
    monitor.stop();
    const count = value(await registry.metrics(), "driftwatch_event_loop_delay_seconds_count");
    await sleep(200);
    // Only a scrape's own overdue sample is added, no timer runs.
    expect(value(await registry.metrics(), "driftwatch_event_loop_delay_seconds_count")).toBeLessThanOrEqual(count + 1);
  });
});

describe("the server's /metrics", () => {
  const servers: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it("reports the delay of a block of the server's own event loop", async () => {
    const server = await createDriftwatchServer({ databaseUrl: "memory:", background: false, logger: pino({ level: "silent" }) });
    servers.push(server);
    const scrape = async () => {
      const res = await server.app.inject({ method: "GET", url: "/metrics" });
      expect(res.statusCode).toBe(200);
      return res.body;
    };
    await sleep(100);
    const before = await scrape();
    block(600);
    await sleep(50);
    const after = await scrape();
    expect(over(after, "0.5") - over(before, "0.5")).toBe(1);
    expect(value(after, "driftwatch_event_loop_delay_max_seconds")).toBeGreaterThanOrEqual(0.57);
    // close() stops the sampling (only a scrape's own overdue sample is added afterwards).
    await server.close();
    const count = value(await server.metrics.render(), "driftwatch_event_loop_delay_seconds_count");
    await sleep(200);
    expect(value(await server.metrics.render(), "driftwatch_event_loop_delay_seconds_count")).toBeLessThanOrEqual(count + 1);
  });
});
