import { Gauge, Histogram, type Registry } from "prom-client";

/** How often the event loop is sampled: a timer of this period measures how late it runs. */
export const EVENT_LOOP_RESOLUTION_MS = 20;
/** The window of the max/p50/p99 gauges: the last minute, in slots of 10 s. */
export const EVENT_LOOP_WINDOW_MS = 60_000;
const SLOT_MS = 10_000;
/** Buckets of `driftwatch_event_loop_delay_seconds` (a sample of an idle loop is about 0-2 ms). */
const DELAY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Max, median and 99th percentile of the delays of a window (seconds; 0 without samples). */
export interface DelayStats {
  samples: number;
  maxSeconds: number;
  p50Seconds: number;
  p99Seconds: number;
}

/**
 * Delays (ms) of the last `windowMs`, kept in slots of `slotMs`: a read covers the current slot and
 * the full ones before it, between `windowMs - slotMs` and `windowMs` back. Times are the caller's
 * (any monotonic clock in ms).
 */
export class DelayWindow {
  private readonly slots: number[][] = [[]];
  private slotStart: number;
  private readonly count: number;

  constructor(
    start: number,
    private readonly windowMs = EVENT_LOOP_WINDOW_MS,
    private readonly slotMs = SLOT_MS,
  ) {
    this.slotStart = start;
    this.count = Math.max(1, Math.round(windowMs / slotMs));
  }

  add(delayMs: number, at: number): void {
    this.rotate(at);
    this.slots[0]!.push(delayMs);
  }

  stats(at: number): DelayStats {
    this.rotate(at);
    const all = Float64Array.from(this.slots.flat()).sort();
    const n = all.length;
    if (n === 0) return { samples: 0, maxSeconds: 0, p50Seconds: 0, p99Seconds: 0 };
    // Nearest rank: the smallest delay at least that share of the samples does not exceed.
    const rank = (q: number): number => all[Math.max(0, Math.ceil(q * n) - 1)]! / 1000;
    return { samples: n, maxSeconds: all[n - 1]! / 1000, p50Seconds: rank(0.5), p99Seconds: rank(0.99) };
  }

  private rotate(at: number): void {
    const passed = Math.floor((at - this.slotStart) / this.slotMs);
    if (passed <= 0) return;
    for (let i = 0; i < Math.min(passed, this.count); i++) this.slots.unshift([]);
    this.slots.length = Math.min(this.slots.length, this.count);
    this.slotStart += passed * this.slotMs;
  }
}

export interface EventLoopMonitorOptions {
  /** The registry the metrics go to (the engine's). */
  registry: Registry;
  /** Prefix of the metric names. Default `driftwatch_`. */
  prefix?: string;
  /** Sampling period. Default {@link EVENT_LOOP_RESOLUTION_MS}. */
  resolutionMs?: number;
}

export interface EventLoopMonitor {
  /** The delays of the last minute (what the gauges report), sampling first if a sample is overdue. */
  stats(): DelayStats;
  /** Stops sampling (the metrics keep their last values). */
  stop(): void;
}

/**
 * Measures this process's event-loop delay: a timer every `resolutionMs` records how much later
 * than due it ran (about 0 on an idle loop; a synchronous task or GC pause of 2 s gives one sample of
 * about 2 s). Published on `registry`:
 *
 * - `driftwatch_event_loop_delay_seconds`, a histogram of every sample since the start: counters,
 *   so any number of scrapers (and a test reading it before and after some work) see every delay,
 *   however rarely they scrape;
 * - `driftwatch_event_loop_delay_{max,p50,p99}_seconds`, gauges over the last minute (50-60 s),
 *   not reset by a scrape.
 *
 * A scrape first records the delay a sample that is overdue has already accumulated, so what it
 * reports includes everything up to the scrape. The timer is unref'd: it never keeps the process
 * alive. (node:perf_hooks `monitorEventLoopDelay` measures the same, but its histogram can be
 * neither merged into a window nor asked how many samples passed a bound.)
 */
export function monitorEventLoop(options: EventLoopMonitorOptions): EventLoopMonitor {
  const prefix = options.prefix ?? "driftwatch_";
  const resolutionMs = options.resolutionMs ?? EVENT_LOOP_RESOLUTION_MS;
  const registers = [options.registry];
  let last = performance.now();
  const window = new DelayWindow(last);

  const histogram = new Histogram({
    name: `${prefix}event_loop_delay_seconds`,
    help: `Event-loop delay: how late a timer due every ${String(resolutionMs)} ms ran, one sample per run (a synchronous task or GC pause holding the loop for 2 s is one sample of about 2 s).`,
    buckets: DELAY_BUCKETS,
    registers,
    collect() {
      sample(performance.now(), false);
    },
  });

  /** Records the delay since the previous sample, if a sample is due (always from the timer). */
  function sample(now: number, due: boolean): void {
    const elapsed = now - last;
    if (!due && elapsed <= resolutionMs) return;
    last = now;
    const delayMs = Math.max(0, elapsed - resolutionMs);
    window.add(delayMs, now);
    histogram.observe(delayMs / 1000);
  }
  const timer = setInterval(() => sample(performance.now(), true), resolutionMs);
  timer.unref();

  function stats(): DelayStats {
    const now = performance.now();
    sample(now, false);
    return window.stats(now);
  }

  const gauge = (name: string, help: string, read: (s: DelayStats) => number) =>
    new Gauge({
      name: `${prefix}event_loop_delay_${name}_seconds`,
      help,
      registers,
      collect() {
        this.set(read(stats()));
      },
    });
  gauge("max", "Largest event-loop delay of the last minute (50-60 s), the histogram's samples; not reset by a scrape.", (s) => s.maxSeconds);
  gauge("p50", "Median event-loop delay of the last minute (50-60 s).", (s) => s.p50Seconds);
  gauge("p99", "99th percentile of the event-loop delay of the last minute (50-60 s).", (s) => s.p99Seconds);

  return {
    stats,
    stop() {
      clearInterval(timer);
    },
  };
}
