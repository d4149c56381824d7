// What the core benches share: the report writer of docs/benchmarks.md, a deterministic PRNG, the
// generated JSON documents diffJson is measured on, and the full collection before each task.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Bench } from "tinybench";
import { rngOf } from "../test/signal/corpus.js";

const reportModule = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../tooling/bench-report.mjs");
const report = (await import(reportModule)) as { writeBenchSection(name: string, markdown: string): void; median(values: number[]): number };

/** Rewrites this bench's section of docs/benchmarks.md (the machine line is added). */
export const writeBenchSection = report.writeBenchSection;
/** The median of some figures (the mean of the middle two for an even count). */
export const median = report.median;

/** Deterministic PRNG (mulberry32, the signal corpus's), so every run measures the same documents. */
export const rng = rngOf;

/** The three-rule policy diffJson applies in the benches (validate it with the build under test). */
export const BENCH_POLICY = {
  rules: [
    { path: "$..updatedAt", action: "ignore" },
    { path: "$.users[*].email", severity: "high" },
    { path: "$.meta", op: "remove", severity: "critical" },
  ],
} as const;

export const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];

function user(i: number, random: () => number): Record<string, unknown> {
  const w = (): string => WORDS[Math.floor(random() * WORDS.length)]!;
  return {
    id: `usr_${i.toString(36).padStart(6, "0")}`,
    name: `${w()} ${w()}`,
    email: `${w()}.${i}@example.com`,
    age: 18 + Math.floor(random() * 60),
    active: random() < 0.5,
    score: Math.round(random() * 10000) / 100,
    updatedAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    tags: [w(), w(), w()],
    address: { street: `${Math.floor(random() * 999)} ${w()} street`, city: w(), zip: String(10000 + i) },
    plan: { tier: w(), seats: Math.floor(random() * 50), renews: random() < 0.7 },
  };
}

/** A user list of at least `bytes` bytes of JSON (20 users at a time), the same for the same seed. */
export function documentOfSize(bytes: number, seed: number): { meta: Record<string, unknown>; users: Record<string, unknown>[] } {
  const random = rng(seed);
  const doc = { meta: { version: 3, generatedAt: "2026-11-23T00:00:00Z", region: "eu-west-1" }, users: [] as Record<string, unknown>[] };
  let i = 0;
  while (JSON.stringify(doc).length < bytes) {
    for (let k = 0; k < 20; k++) doc.users.push(user(i++, random));
  }
  return doc;
}

/** Every leaf of a document as [parent, key] pairs. */
function leaves(value: unknown, out: [Record<string, unknown> | unknown[], string | number][] = []): typeof out {
  if (Array.isArray(value)) value.forEach((v, i) => (v !== null && typeof v === "object" ? leaves(v, out) : out.push([value, i])));
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (v !== null && typeof v === "object") leaves(v, out);
      else out.push([value as Record<string, unknown>, k]);
    }
  }
  return out;
}

const T0 = Date.UTC(2026, 10, 20, 8);
/** Users in each snapshot of `noisyHistory`. */
export const NOISY_USERS = 400;

/** Snapshot `t` of a ~100 KB API response: NOISY_USERS users with stable data and per-fetch noise. */
function noisySnapshot(t: number): unknown {
  const random = rng(42);
  const noise = rng(1000 + t);
  const users = [];
  for (let i = 0; i < NOISY_USERS; i++) {
    const w = (): string => WORDS[Math.floor(random() * WORDS.length)]!;
    const tags = [w(), w(), w()];
    users.push({
      id: `usr_${i.toString(36).padStart(6, "0")}`,
      name: `${w()} ${w()}`,
      email: `${w()}.${i}@example.com`,
      status: random() < 0.8 ? "active" : "invited",
      plan: { tier: w(), seats: Math.floor(random() * 50), price: "19.00" },
      last_seen: new Date(T0 + t * 60_000 - Math.floor(noise() * 50_000)).toISOString(),
      logins: 100 + i + t * 3,
      score: (50 + random() * 50) * (1 + (noise() - 0.5) * 1e-8),
      tags: t % 2 === 0 ? tags : [...tags].reverse(),
    });
  }
  return { generated_at: new Date(T0 + t * 60_000).toISOString(), request_id: `req_${Math.floor(noise() * 2 ** 48).toString(16)}a1`, total: users.length, users };
}

/** The 10 consecutive snapshots suggestPolicy learns from in the benches. */
export function noisyHistory(): unknown[] {
  return Array.from({ length: 10 }, (_, t) => noisySnapshot(t));
}

/** A copy of `doc` with `fraction` of its leaves changed (at least one; same type, new value), ids kept. */
export function withChangedLeaves<T>(doc: T, fraction: number, seed: number): T {
  const copy = structuredClone(doc);
  const all = leaves(copy).filter(([, k]) => k !== "id");
  const random = rng(seed);
  const count = Math.max(1, Math.round(all.length * fraction));
  for (let n = 0; n < count; n++) {
    const [parent, key] = all[Math.floor(random() * all.length)]!;
    const old = (parent as Record<string | number, unknown>)[key];
    (parent as Record<string | number, unknown>)[key] =
      typeof old === "number" ? old + 1 : typeof old === "boolean" ? !old : `${String(old)}-changed`;
  }
  return copy;
}

/** The `q` quantile of some figures (the lower one, no interpolation). */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

/**
 * A full collection (node --expose-gc, as run.mjs starts every bench): before each task, so every
 * task starts from the same compacted heap and pays only for its own garbage.
 */
export const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) console.warn("run with node --expose-gc (npm run bench does) for comparable rounds");

/**
 * Short tinybench rounds of the same tasks, the order rotated each round and a full collection
 * before each task; the operations per second of every task, round by round. On a shared machine
 * a ratio measured within one round is steadier than one taken across a long run: take the median
 * of the per-round ratios.
 */
export async function rotatedRounds(tasks: readonly [string, () => void][], rounds: number): Promise<Record<string, number>[]> {
  const taskOptions = collect ? { beforeAll: () => collect() } : {};
  const results: Record<string, number>[] = [];
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({ time: 250, warmupTime: 50, iterations: 3, warmupIterations: 2 });
    for (let k = 0; k < tasks.length; k++) {
      const [name, fn] = tasks[(k + round) % tasks.length]!;
      bench.add(name, fn, taskOptions);
    }
    await bench.run();
    const hz: Record<string, number> = {};
    for (const task of bench.tasks) hz[task.name] = task.result?.throughput.mean ?? Number.NaN;
    results.push(hz);
  }
  return results;
}
